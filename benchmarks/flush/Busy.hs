-- Busy: two threads compute flat out for SECONDS of wall-clock time (short
-- folds over freshly allocated lists: steady allocation, little live data),
-- then print the number of work units done.  With -N2 both capabilities
-- are busy all the time.
--   Busy SECONDS
module Main (main) where

import Control.Concurrent (forkIO)
import Control.Concurrent.MVar
import Control.Monad (replicateM)
import Data.List (foldl')
import GHC.Clock (getMonotonicTime)
import System.Environment (getArgs)

unit :: Int -> Int
unit r = foldl' (\a x -> (a * 31 + x) `mod` 1000003) r [r .. r + 2000]
{-# NOINLINE unit #-}

worker :: Double -> Int -> IO Int
worker deadline = go 0
  where
    go n r = do
      now <- getMonotonicTime
      if now >= deadline then pure n else
        let v = unit r in v `seq` go (n + 1) (v `mod` 17 + 1)

main :: IO ()
main = do
  [s] <- getArgs
  t0 <- getMonotonicTime
  vs <- replicateM 2 newEmptyMVar
  mapM_ (\v -> forkIO (worker (t0 + read s) 1 >>= putMVar v)) vs
  ns <- mapM takeMVar vs
  print (sum ns)
