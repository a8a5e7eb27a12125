-- PingPong: two threads, one on each capability, hand a token back and
-- forth through two MVars for SECONDS of wall-clock time, then print the
-- number of round trips.  Each capability waits idle for the other at every
-- hand-over: the most idle transitions a second a program can make, which
-- is what --eventlog-flush-interval's writes on going idle cost most.
--   PingPong SECONDS
module Main (main) where

import Control.Concurrent (forkOn)
import Control.Concurrent.MVar
import GHC.Clock (getMonotonicTime)
import System.Environment (getArgs)

main :: IO ()
main = do
  [s] <- getArgs
  t0 <- getMonotonicTime
  let deadline = t0 + read s
  ping <- newEmptyMVar
  pong <- newEmptyMVar
  done <- newEmptyMVar
  _ <- forkOn 1 $ let echo = do
                        v <- takeMVar ping
                        putMVar pong v
                        if v < 0 then pure () else echo
                  in echo
  _ <- forkOn 0 $ let go n = do
                        now <- getMonotonicTime
                        let v = if now >= deadline then -1 else n
                        putMVar ping v
                        _ <- takeMVar pong
                        if v < 0 then putMVar done n else go (n + 1)
                  in go (0 :: Int)
  takeMVar done >>= print
