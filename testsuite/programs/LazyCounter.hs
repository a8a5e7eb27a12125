-- LazyCounter: a counter kept lazily in an IORef. Every event adds to it
-- with a lazy modifyIORef, so the IORef holds an ever longer chain of
-- (+) thunks, all allocated at one line, that nothing forces while the
-- program runs. Prints how many events it counted (not the total, which
-- would force the chain).
--   LazyCounter [SECONDS]
module Main (main) where

import Data.IORef
import Data.Time.Clock.POSIX (getPOSIXTime)
import System.Environment (getArgs)

spin :: Int -> Int -> Int
spin acc 0 = acc
spin acc k = spin (acc * 31 + k) (k - 1)
{-# NOINLINE spin #-}

main :: IO ()
main = do
  args <- getArgs
  let secs = case args of (a:_) -> read a; _ -> 1 :: Double
  start <- getPOSIXTime
  counter <- newIORef (0 :: Int)
  let loop :: Int -> IO Int
      loop i = do
        let w = spin i 2000
        w `seq` modifyIORef counter (+ w)   -- lazy: one thunk per event
        now <- if i `mod` 1000 == 0 then getPOSIXTime else return start
        if realToFrac (now - start) < secs then loop (i + 1) else return i
  n <- loop 1
  putStrLn ("events counted: " ++ show n)
