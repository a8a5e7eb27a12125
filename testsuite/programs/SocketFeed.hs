-- SocketFeed: an eventlog producer for the eventlog-socket tests. For
-- SECONDS it alternates bursts of user events (traceEventIO, so the
-- capability's 2 MB buffer fills and reaches the writer often) with
-- allocation that heap profiling samples, then prints a checksum that does
-- not depend on timing.
--   SocketFeed [SECONDS] [EVENTS_PER_BURST]
module Main (main) where

import Control.Monad (forM_)
import Data.IORef
import Data.Time.Clock (getCurrentTime, diffUTCTime)
import Debug.Trace (traceEventIO, traceMarkerIO)
import System.Environment (getArgs)
import qualified Data.Map.Strict as M

main :: IO ()
main = do
  args <- getArgs
  let secs  = case args of (a:_) -> read a; _ -> 3 :: Double
      burst = case args of (_:b:_) -> read b; _ -> 20000 :: Int
  start <- getCurrentTime
  acc <- newIORef M.empty
  let loop :: Int -> IO Int
      loop r = do
        now <- getCurrentTime
        if realToFrac (diffUTCTime now start) >= secs
          then return r
          else do
            traceMarkerIO ("burst " ++ show r)
            forM_ [1 .. burst] $ \i -> traceEventIO ("feed " ++ show i)
            modifyIORef' acc (M.insert (r `mod` 500) [r .. r + 50])
            loop (r + 1)
  rounds <- loop 0
  m <- readIORef acc
  putStrLn ("SocketFeed done: " ++ show (M.size m > 0) ++ " " ++ show (rounds > 0))
