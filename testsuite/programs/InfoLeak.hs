-- InfoLeak: a session cache that is never pruned. Every request adds a
-- `Session` (a constructor of this module, nine words with its header)
-- to a list held in an IORef, so after a few censuses the biggest band of
-- a heap profile by info table is Main's Session constructor.
--   InfoLeak [SECONDS]
module Main (main) where

import Data.IORef
import Data.Time.Clock.POSIX (getPOSIXTime)
import System.Environment (getArgs)
import System.IO

data Session = Session !Int !Int !Int !Int !Int !Int !Int !Int

-- A constructor declared over two lines, a few hundred of them live for
-- the whole run: -hi shows its span as GHC 9.2 shows such spans,
-- InfoLeak.hs:(line,col)-(line,col).
data Origin = Origin !Int
                     !Int

-- The work of one request: a few microseconds of arithmetic, so that the
-- program is busy (heap censuses follow mutator time) without allocating
-- gigabytes.
spin :: Int -> Int -> Int
spin acc 0 = acc
spin acc k = spin (acc * 31 + k) (k - 1)
{-# NOINLINE spin #-}

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  let secs = case args of (a:_) -> read a; _ -> 2 :: Double
  let origins = [Origin (k + length args) k | k <- [1 .. 300 :: Int]]
  sum [a | Origin a _ <- origins] `seq` return ()
  start <- getPOSIXTime
  cache <- newIORef []
  let loop i = do
        let s = Session i (i + 1) (i + 2) (i + 3) (i + 4) (i + 5) (i + 6) (spin i 3000)
        s `seq` modifyIORef' cache (s :)
        now <- if i `mod` 1000 == 0 then getPOSIXTime else return start
        if realToFrac (now - start) < secs then loop (i + 1) else return i
  n <- loop 1
  xs <- readIORef cache
  putStrLn ("sessions retained: " ++ show (length xs) ++ " of " ++ show n)
  print (sum [a + h | Session a _ _ _ _ _ _ h <- xs] `mod` 1000003)
  print (sum [a * b | Origin a b <- origins])
