-- CensusControl: drives heap-profile samples from the program through the
-- RTS's requestHeapCensus, startHeapProfTimer and stopHeapProfTimer.
--   CensusControl request N   N requests, each served before the next
--   CensusControl bracket     0.5s busy, start timer, 1s busy, stop timer,
--                             0.5s busy; markers "bracket start/stop"
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad (forM_)
import Data.List (foldl')
import qualified Data.Map.Strict as M
import Debug.Trace (traceMarkerIO)
import GHC.Clock (getMonotonicTime)
import System.Environment (getArgs)

foreign import ccall unsafe "requestHeapCensus" requestHeapCensus :: IO ()
foreign import ccall unsafe "startHeapProfTimer" startHeapProfTimer :: IO ()
foreign import ccall unsafe "stopHeapProfTimer" stopHeapProfTimer :: IO ()

busyFor :: Double -> IO ()
busyFor secs = do
  t0 <- getMonotonicTime
  let go r = do
        now <- getMonotonicTime
        if now - t0 >= secs then pure () else do
          let m = M.fromList [(k, k * r) | k <- [1 .. 5000 :: Int]]
          M.foldl' (+) 0 m `seq` go (r + 1)
  go 1

main :: IO ()
main = do
  args <- getArgs
  case args of
    ["request", n] -> do
      forM_ [1 .. read n :: Int] $ \i -> do
        let m = M.fromList [(k, k) | k <- [1 .. 1000 * i]]
        requestHeapCensus
        -- Blocking returns this thread to the scheduler, which takes the
        -- census while m is still live.
        threadDelay 20000
        print (foldl' (+) 0 (M.elems m) `mod` 10)
      putStrLn "requests done"
    ["bracket"] -> do
      busyFor 0.5
      traceMarkerIO "bracket start"
      startHeapProfTimer
      busyFor 1.0
      stopHeapProfTimer
      traceMarkerIO "bracket stop"
      busyFor 0.5
      putStrLn "bracket done"
    _ -> error "usage: CensusControl request N | bracket"
