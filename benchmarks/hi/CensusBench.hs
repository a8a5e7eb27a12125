-- CensusBench: the cost of heap censuses on a large, varied heap.
--
-- Builds a Map of N records (boxed and unboxed fields, thunks, strings,
-- Maybe), so that the heap holds a few dozen kinds of closures, then forces
-- K major GCs and prints the CPU time of each, in nanoseconds:
--   gc_ns: T1 T2 ... TK
-- Run it with +RTS -T (and -i0 with -hT or -hi, so that every GC takes a
-- census): the census cost of a mode is its pause minus the pause without
-- heap profiling, on the same heap.
--   CensusBench N K
--
-- It also times lookupIPE (rts/IPE.h) directly on the info tables of a few
-- of its closures, with nothing cached yet:
--   ipe_ns: FIRST FURTHER CACHED
-- FIRST includes opening the binaries (libdwfl); FURTHER and CACHED are
-- means per table. Run this without -hi -l, which would have looked them up.
-- GHC 9.6's lookupIPE (upstream) fills an InfoProvEnt where 9.0.2's (the
-- project's) returns a pointer; either is timed the same way.
{-# LANGUAGE CPP, MagicHash, UnboxedTuples, ExistentialQuantification #-}
module Main (main) where

import Control.Monad (forM, forM_)
import Foreign.Ptr (Ptr)
#if __GLASGOW_HASKELL__ >= 906
import Foreign.C.Types (CBool (..))
import Foreign.Marshal.Alloc (mallocBytes)
import System.IO.Unsafe (unsafePerformIO)
#endif
import GHC.Clock (getMonotonicTimeNSec)
import GHC.Exts (unpackClosure#)
import GHC.Ptr (Ptr (..))
import Data.Word (Word64)
import qualified Data.Map.Strict as M
import GHC.Stats
import System.Environment (getArgs)
import System.Mem (performMajorGC)

data Rec = Rec !Int !Double String (Maybe Int)

mkRec :: Int -> Rec
mkRec i = Rec i (fromIntegral i / 3) s (if even i then Just (i * 2) else Nothing)
  where s = if i `mod` 4 == 0 then show i else "lazy"

#if __GLASGOW_HASKELL__ >= 906
-- bool lookupIPE(const StgInfoTable *info, InfoProvEnt *out)
foreign import ccall unsafe "lookupIPE" c_lookupIPE :: Ptr () -> Ptr () -> IO CBool

-- room for an InfoProvEnt (a pointer and seven strings), made once
ipeOut :: Ptr ()
ipeOut = unsafePerformIO (mallocBytes 256)
{-# NOINLINE ipeOut #-}

lookupIPE :: Ptr () -> IO CBool
lookupIPE p = c_lookupIPE p ipeOut
#else
foreign import ccall unsafe "lookupIPE" lookupIPE :: Ptr () -> IO (Ptr ())
#endif

data Box = forall a. Box a

infoPtr :: Box -> Ptr ()
infoPtr (Box x) = case unpackClosure# x of (# info, _, _ #) -> Ptr info

timeLookups :: [Box] -> IO (Word64, Word64, Word64)
timeLookups boxes = do
  ts <- forM boxes $ \b -> do
    t0 <- getMonotonicTimeNSec
    _ <- lookupIPE (infoPtr b)
    t1 <- getMonotonicTimeNSec
    return (t1 - t0)
  t0 <- getMonotonicTimeNSec
  forM_ boxes $ \b -> lookupIPE (infoPtr b)
  t1 <- getMonotonicTimeNSec
  let n = fromIntegral (length boxes)
  return (head ts, sum (tail ts) `div` (n - 1), (t1 - t0) `div` n)

main :: IO ()
main = do
  [n, k] <- map read <$> getArgs
  let m = M.fromList [ (i, mkRec i) | i <- [1 .. n] ]
  -- force half of the strings so that the heap has cons cells and C#
  let forced = M.foldl' (\acc (Rec _ _ s _) -> if acc `mod` 2 == 0 then acc + length s else acc + 1) 0 m
  forced `seq` return ()
  let Just (k0, r0@(Rec _ _ str mb)) = M.lookupMin m
      chars = [ Box c | c <- take 1 (show k0) ]
  (f, fu, c) <- timeLookups ([Box r0, Box k0, Box m, Box str, Box mb, Box (M.empty :: M.Map Int Int), Box [k0]] ++ chars)
  putStrLn ("ipe_ns: " ++ unwords (map show [f, fu, c]))
  times <- forM [1 .. k :: Int] $ \_ -> do
    performMajorGC
    s <- getRTSStats
    return (gcdetails_cpu_ns (gc s))
  live <- gcdetails_live_bytes . gc <$> getRTSStats
  putStrLn ("gc_ns: " ++ unwords (map show times))
  putStrLn ("live_bytes: " ++ show live)
  print (M.size m + forced `mod` 7)
