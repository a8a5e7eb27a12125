-- Markers: emits traceMarkerIO and traceEventIO messages around phases of
-- allocation, so a profile shows where each phase starts.
--   Markers [PHASES]
module Main (main) where

import Debug.Trace (traceMarkerIO, traceEventIO)
import Control.Monad (forM_)
import System.Environment (getArgs)
import System.Mem (performGC)

main :: IO ()
main = do
  args <- getArgs
  let phases = case args of (a:_) -> read a; _ -> 5 :: Int
  forM_ [1 .. phases] $ \p -> do
    traceMarkerIO ("phase " ++ show p)
    traceEventIO ("work " ++ show p)
    let xs = [1 .. 100000 * p] :: [Int]
    print (sum xs `mod` 9973)
    performGC
  traceMarkerIO "done"
