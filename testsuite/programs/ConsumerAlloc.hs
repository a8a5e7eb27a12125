-- A deterministic allocation workload for the consumer tests: builds and
-- drops Data.Map values in rounds, forces a major GC after each round and
-- marks the round with traceMarker, so heap censuses (-hT -i0) and markers
-- land at the same points in every run.
--
-- usage: ConsumerAlloc ROUNDS SIZE
module Main (main) where

import Control.Monad (forM_)
import Debug.Trace (traceMarkerIO, traceEventIO)
import qualified Data.Map.Strict as M
import System.Environment (getArgs)
import System.Mem (performMajorGC)
import Data.IORef

main :: IO ()
main = do
  args <- getArgs
  let (rounds, size) = case args of
        [r, s] -> (read r, read s)
        [r] -> (read r, 2000)
        _ -> (10, 2000 :: Int)
  keep <- newIORef ([] :: [M.Map Int String])
  forM_ [1 .. rounds] $ \r -> do
    let m = M.fromList [(k, show (k * r)) | k <- [1 .. size]]
    M.size m `seq` modifyIORef' keep (take 3 . (m :))
    traceMarkerIO ("round " ++ show r)
    traceEventIO ("kept " ++ show (M.size m))
    performMajorGC
  xs <- readIORef keep
  print (sum (map M.size xs))
