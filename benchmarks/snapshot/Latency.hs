-- Latency: a service's request latency while the program snapshots its
-- own heap. It builds a Map of about MB megabytes (as BigHeap), then
-- handles a request every millisecond for SECS seconds (a lookup and an
-- insert into the Map, on the heap it keeps), and prints the latency of
-- each request (from when it was due to when it was done) as p50, p99,
-- p99.9 and max, in microseconds. "ready" on stdout once the heap is
-- built: the benchmark then asks for snapshots (a signal) while it works.
--   Latency MB SECS
{-# LANGUAGE BangPatterns #-}
module Main (main) where

import Control.Concurrent (threadDelay)
import Data.IORef
import Data.List (sort)
import qualified Data.Map.Strict as M
import GHC.Clock (getMonotonicTimeNSec)
import System.Environment
import System.IO

data Cell = Cell !Int [Int]

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  [mbs, secss] <- getArgs
  let mb = read mbs :: Int
      n = mb * 1024 * 1024 `div` 168
      m0 = M.fromList [ (i, Cell i [i, i + 1]) | i <- [1 .. n] ]
  ref <- newIORef m0
  M.size m0 `seq` putStrLn "ready"
  t0 <- getMonotonicTimeNSec
  let total = read secss * 1000 :: Int
      go !k acc
        | k >= total = return acc
        | otherwise = do
            let due = t0 + fromIntegral k * 1000000
            now <- getMonotonicTimeNSec
            if now < due then threadDelay (fromIntegral ((due - now) `div` 1000)) else return ()
            m <- readIORef ref
            let key = (k * 7919) `mod` n + 1
                !v = case M.lookup key m of Just (Cell a _) -> a; Nothing -> 0
            writeIORef ref $! M.insert key (Cell (v + 1) [v]) m
            done <- getMonotonicTimeNSec
            go (k + 1) (fromIntegral (done - due) `div` 1000 : acc)
  lat <- go 0 []
  let s = sort (lat :: [Int])
      at q = s !! min (length s - 1) (floor (q * fromIntegral (length s) :: Double))
  putStrLn ("latency us: p50 " ++ show (at 0.5) ++ " p99 " ++ show (at 0.99)
            ++ " p99.9 " ++ show (at 0.999) ++ " max " ++ show (last s))
