-- FlushIdle: posts a marker, then sleeps (the RTS is idle: no thread to
-- run) for SECONDS, then posts another marker and exits.
--   FlushIdle SECONDS
module Main (main) where

import Control.Concurrent (threadDelay)
import Debug.Trace (traceMarkerIO)
import System.Environment (getArgs)
import System.IO (hFlush, stdout)

main :: IO ()
main = do
  args <- getArgs
  let secs = case args of (a:_) -> read a; _ -> 3 :: Double
  print (sum [1 .. 100000 :: Int])
  traceMarkerIO "before idle"
  putStrLn "idle" >> hFlush stdout
  threadDelay (round (secs * 1e6))
  traceMarkerIO "after idle"
  putStrLn "done"
