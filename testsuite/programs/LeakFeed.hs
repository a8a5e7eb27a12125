-- LeakFeed: LeakMap's leak (every request kept in a Map as a `Leak` value,
-- so -hT shows the band Main.Leak... as `Leak` and -hi as Main.Leak) in a
-- program that runs for SECONDS in rounds of REQUESTS inserts, a marker,
-- and EVENTS user events. The user events fill the capability's 2 MB
-- eventlog buffer several times a second, so heap size and live bytes reach
-- an eventlog socket while the program runs even on a runtime without
-- --eventlog-flush-interval (with it, EVENTS may be 0). Between rounds it
-- sleeps 50 ms, so twenty copies share two cores. For the live/export tests
-- and benchmarks/export.
--   LeakFeed [SECONDS] [REQUESTS] [EVENTS]
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad (forM_)
import Data.IORef
import Data.Time.Clock (diffUTCTime, getCurrentTime)
import Debug.Trace (traceEventIO, traceMarkerIO)
import qualified Data.Map.Strict as M
import System.Environment (getArgs)
import System.IO

data Leak = Leak !Int !Int [Int]

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  let secs   = case args of (a:_) -> read a; _ -> 10 :: Double
      reqs   = case args of (_:b:_) -> read b; _ -> 2000 :: Int
      events = case args of (_:_:c:_) -> read c; _ -> 20000 :: Int
  start <- getCurrentTime
  ref <- newIORef M.empty
  let loop :: Int -> IO Int
      loop r = do
        now <- getCurrentTime
        if realToFrac (diffUTCTime now start) >= secs
          then return r
          else do
            traceMarkerIO ("round " ++ show r)
            forM_ [r * reqs + 1 .. (r + 1) * reqs] $ \i ->
              modifyIORef' ref (M.insert i (Leak i (i * 7) [i, i + 1, i + 2]))
            forM_ [1 .. events] $ \i -> traceEventIO ("feed " ++ show i)
            threadDelay 50000
            loop (r + 1)
  rounds <- loop 0
  m <- readIORef ref
  putStrLn ("LeakFeed: " ++ show rounds ++ " rounds, Leak values retained: "
            ++ show (M.size m))
  print (M.foldl' (\s (Leak a b xs) -> s + a + b + sum xs) 0 m `mod` 1000003)
