{-# LANGUAGE ForeignFunctionInterface #-}
-- CensusBench: time heap censuses of a large, varied heap.
--
-- Builds a Map of N records (boxed and unboxed fields, thunks, strings,
-- Maybe), so that the heap holds a few dozen kinds of closures, then runs
-- K censuses back to back and prints how long each took, in nanoseconds:
--   census_ns: T1 T2 ... TK
-- Censuses are run by calling the RTS's heapCensus directly (the program
-- must be started with +RTS -hT or -hi, and a long -i so that the timer
-- adds none), right after a major GC, in the non-threaded RTS: exactly the
-- work a timer-driven census does, without the GC around it.
--   CensusBench N K
module Main (main) where

import Control.Monad (forM)
import qualified Data.Map.Strict as M
import Data.Word (Word64)
import GHC.Clock (getMonotonicTimeNSec)
import System.Environment (getArgs)
import System.Mem (performMajorGC)

foreign import ccall unsafe "heapCensus" heapCensus :: Word64 -> IO ()

data Rec = Rec !Int !Double String (Maybe Int)

mkRec :: Int -> Rec
mkRec i = Rec i (fromIntegral i / 3) s (if even i then Just (i * 2) else Nothing)
  where s = if i `mod` 4 == 0 then show i else "lazy"

main :: IO ()
main = do
  [n, k] <- map read <$> getArgs
  let m = M.fromList [ (i, mkRec i) | i <- [1 .. n] ]
  -- force half of the strings so that the heap has cons cells and C#
  let forced = M.foldl' (\acc (Rec _ _ s _) -> if acc `mod` 2 == 0 then acc + length s else acc + 1) 0 m
  forced `seq` performMajorGC
  times <- forM [1 .. k :: Int] $ \_ -> do
    t0 <- getMonotonicTimeNSec
    heapCensus 0
    t1 <- getMonotonicTimeNSec
    return (t1 - t0)
  putStrLn ("census_ns: " ++ unwords (map show times))
  print (M.size m + forced `mod` 7)
