-- QuietTicks: a quiet program, as a live view meets one: every PERIOD ms it
-- posts a marker naming the wall-clock time it was posted at, then sleeps;
-- optionally it does a little work first: some allocation and a minor GC
-- (gc), or a major one, which makes a census with -hT -i0 (census); or
-- beside a thread that computes flat out, on another capability with -N2
-- (busy).
--   QuietTicks COUNT PERIOD_MS [marker|gc|census]
-- A live reader compares the time in each marker with the time it saw it.
module Main (main) where

import Control.Monad (forM_, when)
import Control.Concurrent (forkIO, threadDelay)
import Data.Time.Clock.POSIX (getPOSIXTime)
import Debug.Trace (traceMarkerIO)
import System.Environment (getArgs)
import System.IO (hFlush, stdout)
import System.Mem (performMajorGC, performMinorGC)
import Data.IORef

main :: IO ()
main = do
  args <- getArgs
  let (count, period, what) = case args of
        [c, p, w] -> (read c, read p, w)
        [c, p] -> (read c, read p, "marker")
        _ -> (40, 250, "marker") :: (Int, Int, String)
  ref <- newIORef (0 :: Int)
  when (what == "busy") $ do
    _ <- forkIO (spin 1)
    pure ()
  putStrLn "started" >> hFlush stdout
  forM_ [1 .. count] $ \i -> do
    when (what == "gc" || what == "census") $ do
      modifyIORef' ref (+ sum [1 .. 1000 * i])
      if what == "census" then performMajorGC else performMinorGC
    t <- getPOSIXTime
    traceMarkerIO ("tick " ++ show i ++ " at " ++ show (floor (t * 1000000) :: Integer))
    threadDelay (period * 1000)
  readIORef ref >>= print

-- Allocates all the time, so that it returns to the scheduler as any
-- Haskell thread does.
spin :: Int -> IO ()
spin n = do
  r <- newIORef (0 :: Int)
  let go k = do
        modifyIORef' r (+ length (show k))
        go (k + 1)
  go n
