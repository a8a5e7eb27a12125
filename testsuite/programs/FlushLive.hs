-- FlushLive: keeps two worker threads busy allocating (each rebuilds and
-- folds a Map whose size cycles, so the live heap changes) for SECONDS of
-- wall-clock time, then prints "done WORK". With -N2 both capabilities are
-- busy all the time. Used by the flush-* cases and benchmarks/flush.
--   FlushLive SECONDS
module Main (main) where

import Control.Concurrent (forkIO)
import Control.Concurrent.MVar
import Control.Monad (replicateM)
import Data.List (foldl')
import qualified Data.Map.Strict as M
import Debug.Trace (traceMarkerIO)
import GHC.Clock (getMonotonicTime)
import System.Environment (getArgs)

worker :: Double -> Int -> IO Int
worker deadline seed = go seed 0
  where
    go r acc = do
      now <- getMonotonicTime
      if now >= deadline
        then pure acc
        else do
          let n = 2000 + (r * 7919) `mod` 30000
              m = M.fromList [(k, k * r) | k <- [1 .. n]]
              s = M.foldl' (+) 0 m `mod` 1000003
          s `seq` go (r + 1) (acc + 1)

main :: IO ()
main = do
  args <- getArgs
  let secs = case args of (a:_) -> read a; _ -> 5 :: Double
  start <- getMonotonicTime
  let deadline = start + secs
  traceMarkerIO "workers start"
  done <- replicateM 2 newEmptyMVar
  mapM_ (\(i, v) -> forkIO (worker deadline i >>= putMVar v)) (zip [1 ..] done)
  counts <- mapM takeMVar done
  traceMarkerIO "workers done"
  putStrLn ("done " ++ show (foldl' (+) 0 counts))
