-- FlushApi: posts a marker, calls the RTS's flushEventLog(NULL) through a
-- safe foreign call, says "flushed", then keeps busy for SECONDS.
--   FlushApi SECONDS
module Main (main) where

import Data.List (foldl')
import Debug.Trace (traceMarkerIO)
import Foreign.Ptr (Ptr, nullPtr)
import GHC.Clock (getMonotonicTime)
import System.Environment (getArgs)
import System.IO (hFlush, stdout)

foreign import ccall safe "flushEventLog" c_flushEventLog :: Ptr () -> IO ()

busyUntil :: Double -> Int -> IO Int
busyUntil deadline acc = do
  now <- getMonotonicTime
  if now >= deadline
    then pure acc
    else busyUntil deadline $! acc + foldl' (+) 0 [1 .. 1000 :: Int] `mod` 7

main :: IO ()
main = do
  args <- getArgs
  let secs = case args of (a:_) -> read a; _ -> 3 :: Double
  traceMarkerIO "before flush"
  c_flushEventLog nullPtr
  putStrLn "flushed" >> hFlush stdout
  t <- getMonotonicTime
  n <- busyUntil (t + secs) 0
  putStrLn ("done " ++ show (n `mod` 2))
