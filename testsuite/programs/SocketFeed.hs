-- SocketFeed: an eventlog producer for the eventlog-socket tests. For
-- SECONDS it alternates bursts of user events (traceEventIO, so the
-- capability's 2 MB buffer fills and reaches the writer often) with
-- allocation that heap profiling samples (a map of up to 500 evaluated
-- lists, about 1 MB), then prints a checksum that does not depend on
-- timing.
--   SocketFeed [SECONDS] [EVENTS_PER_BURST] [UNTIL_FILE]
-- With UNTIL_FILE it runs on after SECONDS until that file exists (at most
-- 60 s more), so that a test can hold it alive by protocol.
module Main (main) where

import Control.Monad (forM_)
import Data.IORef
import Data.Time.Clock (getCurrentTime, diffUTCTime)
import Debug.Trace (traceEventIO, traceMarkerIO)
import System.Directory (doesFileExist)
import System.Environment (getArgs)
import qualified Data.Map.Strict as M

main :: IO ()
main = do
  args <- getArgs
  let secs  = case args of (a:_) -> read a; _ -> 3 :: Double
      burst = case args of (_:b:_) -> read b; _ -> 20000 :: Int
      untilFile = case args of (_:_:f:_) -> Just f; _ -> Nothing
      finished t = case untilFile of
        _ | t >= secs + 60 -> return True
        Just f | t >= secs -> doesFileExist f
        _ -> return (t >= secs)
  start <- getCurrentTime
  acc <- newIORef M.empty
  let loop :: Int -> IO Int
      loop r = do
        now <- getCurrentTime
        done <- finished (realToFrac (diffUTCTime now start))
        if done
          then return r
          else do
            traceMarkerIO ("burst " ++ show r)
            forM_ [1 .. burst] $ \i -> traceEventIO ("feed " ++ show i)
            -- the list is built here, not left a thunk: 2 KB a round, so
            -- main.loop leads every census after a few rounds, however
            -- few a loaded machine gets through (a case, not a let, so
            -- that -fprof-auto gives it no cost centre of its own)
            case [r .. r + 50] of
              xs -> length xs `seq` modifyIORef' acc (M.insert (r `mod` 500) xs)
            loop (r + 1)
  rounds <- loop 0
  m <- readIORef acc
  putStrLn ("SocketFeed done: " ++ show (M.size m > 0) ++ " " ++ show (rounds > 0))
