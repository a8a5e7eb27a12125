-- Floods the eventlog with scheduler events (two threads handing an MVar
-- back and forth) plus a user marker every 100000 round trips: the
-- generator for large eventlogs in benchmarks/consumer.
--
-- usage: ConsumerFlood ROUNDTRIPS
module Main (main) where

import Control.Concurrent
import Control.Monad
import Debug.Trace (traceMarkerIO)
import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        [s] -> read s
        _ -> 100000 :: Int
  a <- newEmptyMVar
  b <- newEmptyMVar
  _ <- forkIO $ forever $ takeMVar a >>= putMVar b
  forM_ [1 .. n] $ \i -> do
    putMVar a i
    _ <- takeMVar b
    when (i `mod` 100000 == 0) $ traceMarkerIO ("roundtrip " ++ show i)
  putStrLn "done"
