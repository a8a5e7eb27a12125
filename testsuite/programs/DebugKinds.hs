-- DebugKinds: a program that holds the closure kinds a heap walk finds
-- hardest alive at once, for `rtscope debug` (testsuite/cases/debug/debug-kinds.test):
--   * partial applications (PAP) of unknown functions: one of a function
--     of 70 arguments, unboxed words and pointers alternating, so that
--     its argument bitmap is a large one (ARG_GEN_BIG), applied to 69 (the
--     69th, past any small bitmap, a PapOnly); one of a function of 10
--     pointer arguments (ARG_GEN);
--   * an AP_STACK: a shared thunk whose evaluation (blocked inside, on an
--     MVar) was interrupted by killThread, the thunk kept;
--   * a thread blocked in STM `retry` (its TVar's watch queue, its
--     transaction record), and a thread blocked on an MVar inside an
--     `atomically` (ATOMICALLY_FRAME, CATCH_STM_FRAME, CATCH_RETRY_FRAME
--     on its stack, a write in its transaction's TREC_CHUNK);
--   * threads blocked on an MVar (takeMVar and readMVar), on a black hole
--     (a BLOCKING_QUEUE), with a stack of many chunks (UNDERFLOW_FRAMEs),
--     in a call whose return frame has a large bitmap (RET_BIG);
--   * a compact region, a weak pointer with a finalizer, mutable, frozen
--     and small arrays, a byte array, an IORef, a selector thunk;
--   * and, reachable ONLY through one holder each, a value of a
--     constructor of its own: PapOnly (a PAP's argument), ApsOnly (the
--     AP_STACK's captured stack), TVarOnly (a TVar), TrecOnly (the new
--     value in a transaction record), MVarOnly (a full MVar), CmpOnly (in
--     the compact region), WeakOnly (a weak pointer's value), ArrOnly (a
--     mutable array), SmallOnly (a small array), BigFrameOnly (a RET_BIG
--     frame's slot), and on GHC 9.6 ContOnly (a frame of a captured
--     continuation: a CONTINUATION closure, prompt# and control0#).
-- It prints "ready" once everything is in place and ends. With
-- DEBUGKINDS_HOLD=FILE in the environment it says "DebugKinds: holding" on
-- stderr first and waits (polling every 5 ms) until FILE exists; stdout
-- is the same either way. Build with -O0: an optimised build may unbox
-- what these shapes need boxed.
{-# LANGUAGE CPP, MagicHash, UnboxedTuples, BangPatterns, ExistentialQuantification #-}
module Main (main) where

import Control.Concurrent
import Control.Concurrent.STM
import Control.Exception
import Control.Monad
import Data.IORef
import Foreign.StablePtr
import GHC.Compact
import GHC.Conc (threadStatus, ThreadStatus (..), BlockReason (..), unsafeIOToSTM)
import GHC.Exts
import GHC.IO (IO (..), unIO, unsafePerformIO)
import GHC.IORef (IORef (..))
import GHC.STRef (STRef (..))
import GHC.Weak (Weak (..))
import GHC.IOArray (newIOArray)
import System.Directory (doesFileExist)
import System.Environment
import System.IO
import System.Mem (performMajorGC)

data PapOnly = PapOnly Int
data PapSmall = PapSmall Int
data ApsOnly = ApsOnly Int
data TVarOnly = TVarOnly Int
data TrecOnly = TrecOnly Int
data MVarOnly = MVarOnly Int
data CmpOnly = CmpOnly Int [Int]
data WeakOnly = WeakOnly Int
data ArrOnly = ArrOnly Int
data SmallOnly = SmallOnly Int
data BigFrameOnly = BigFrameOnly Int
data ContOnly = ContOnly Int

-- anything, kept
data Box = forall a. Box a

data SmallArr = SmallArr (SmallMutableArray# RealWorld SmallOnly)
data FrozenArr = FrozenArr (Array# Int)
data Bytes = Bytes (MutableByteArray# RealWorld)

-- hides a function from the optimiser: calls of its result are unknown
-- calls, which build PAPs at run time
{-# NOINLINE opaque #-}
opaque :: a -> a
opaque x = x

{-# NOINLINE wide #-}
wide :: Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# ->
        Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int ->
        Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# ->
        Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int ->
        Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# ->
        Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int ->
        Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# -> Int -> Int# ->
        Int -> Int# -> Int -> Int# -> Int -> PapOnly -> Int -> Int
wide _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
    _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
    (PapOnly k) _ = k

{-# NOINLINE ten #-}
ten :: PapSmall -> Int -> Int -> Int -> Int -> Int -> Int -> Int -> Int -> Int
    -> Int
ten (PapSmall k) _ _ _ _ _ _ _ _ _ = k

-- blocks (on the gate) in the middle of its evaluation, with `a` saved in
-- the frame of the case that waits for the gate
{-# NOINLINE holdAcross #-}
holdAcross :: MVar () -> ApsOnly -> Int
holdAcross gate a = case unsafePerformIO (takeMVar gate) of
  () -> case a of ApsOnly k -> k + 1

-- blocks (on the gate) in a call whose return frame keeps 70 values
-- live: a frame too big for a small bitmap (RET_BIG), with a BigFrameOnly
-- among its slots
{-# NOINLINE bigFrame #-}
bigFrame :: MVar () -> Int -> IO Int
bigFrame gate x = IO $ \s0 ->
  let !a1 = x + 1
      !a2 = x + 2
      !a3 = x + 3
      !a4 = x + 4
      !a5 = x + 5
      !a6 = x + 6
      !a7 = x + 7
      !a8 = x + 8
      !a9 = x + 9
      !a10 = x + 10
      !a11 = x + 11
      !a12 = x + 12
      !a13 = x + 13
      !a14 = x + 14
      !a15 = x + 15
      !a16 = x + 16
      !a17 = x + 17
      !a18 = x + 18
      !a19 = x + 19
      !a20 = x + 20
      !a21 = x + 21
      !a22 = x + 22
      !a23 = x + 23
      !a24 = x + 24
      !a25 = x + 25
      !a26 = x + 26
      !a27 = x + 27
      !a28 = x + 28
      !a29 = x + 29
      !a30 = x + 30
      !a31 = x + 31
      !a32 = x + 32
      !a33 = x + 33
      !a34 = x + 34
      !a35 = x + 35
      !a36 = x + 36
      !a37 = x + 37
      !a38 = x + 38
      !a39 = x + 39
      !a40 = x + 40
      !a41 = x + 41
      !a42 = x + 42
      !a43 = x + 43
      !a44 = x + 44
      !a45 = x + 45
      !a46 = x + 46
      !a47 = x + 47
      !a48 = x + 48
      !a49 = x + 49
      !a50 = x + 50
      !a51 = x + 51
      !a52 = x + 52
      !a53 = x + 53
      !a54 = x + 54
      !a55 = x + 55
      !a56 = x + 56
      !a57 = x + 57
      !a58 = x + 58
      !a59 = x + 59
      !a60 = x + 60
      !a61 = x + 61
      !a62 = x + 62
      !a63 = x + 63
      !a64 = x + 64
      !a65 = x + 65
      !a66 = x + 66
      !a67 = x + 67
      !a68 = x + 68
      !a69 = x + 69
      !b = opaque (BigFrameOnly (x + 70)) -- not known to be one here
  in case unIO (takeMVar gate) s0 of
       (# s1, () #) -> (# s1, bigOf b + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8
             + a9 + a10 + a11 + a12 + a13 + a14 + a15 + a16 + a17 + a18 +
             a19 + a20 + a21 + a22 + a23 + a24 + a25 + a26 + a27 + a28 +
             a29 + a30 + a31 + a32 + a33 + a34 + a35 + a36 + a37 + a38 +
             a39 + a40 + a41 + a42 + a43 + a44 + a45 + a46 + a47 + a48 +
             a49 + a50 + a51 + a52 + a53 + a54 + a55 + a56 + a57 + a58 +
             a59 + a60 + a61 + a62 + a63 + a64 + a65 + a66 + a67 + a68 +
             a69 #)

-- the BigFrameOnly itself, not only its field, is live across the wait
-- (GHC 9.6 takes a strict binding's field apart at once when the body
-- only cases on it, even at -O0: the frame would keep the field alone)
{-# NOINLINE bigOf #-}
bigOf :: BigFrameOnly -> Int
bigOf (BigFrameOnly k) = k

#if __GLASGOW_HASKELL__ >= 906
-- a delimited continuation captured and kept (GHC 9.6's prompt# and
-- control0#): KHold's function holds the CONTINUATION, whose captured
-- stack has the frame that waits to use a ContOnly
data KHold = KHold (IO () -> IO KHold) | KDone Int

{-# NOINLINE contHolder #-}
contHolder :: Int -> IO KHold
contHolder n = IO $ \s0 -> case newPromptTag# s0 of
  (# s1, tag #) -> prompt# tag (\s2 -> case unIO (evaluate (opaque (ContOnly n))) s2 of
    (# s3, c #) -> case control0# tag (\k s -> (# s, KHold (\(IO m) -> IO (k m)) #)) s3 of
      (# s4, () #) -> (# s4, KDone (contOf c) #)) s1

{-# NOINLINE contOf #-}
contOf :: ContOnly -> Int
contOf (ContOnly k) = k
#endif

{-# NOINLINE mkPair #-}
mkPair :: Int -> (Int, Int)
mkPair n = (n * 2, n * 3)

-- a non-tail recursion that blocks on the gate at the bottom: a deep
-- stack, in many chunks
deep :: MVar () -> Int -> IO Int
deep gate 0 = takeMVar gate >> return 0
deep gate n = do
  r <- deep gate (n - 1)
  return $! r + 1

-- until the thread is blocked as said
waitBlocked :: ThreadId -> (BlockReason -> Bool) -> IO ()
waitBlocked t ok = do
  s <- threadStatus t
  case s of
    ThreadBlocked r | ok r -> return ()
    _ -> threadDelay 1000 >> waitBlocked t ok

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  -- a value known at run time only: nothing below is a static closure
  let seed = 1000 + length args

  -- PAPs
  let wideP = opaque wide
      po = PapOnly (seed + 1)
  let !pBig = wideP 0# 1 2# 3 4# 5 6# 7 8# 9 10# 11 12# 13 14# 15 16# 17
        18# 19 20# 21 22# 23 24# 25 26# 27 28# 29 30# 31 32# 33 34# 35 36#
        37 38# 39 40# 41 42# 43 44# 45 46# 47 48# 49 50# 51 52# 53 54# 55
        56# 57 58# 59 60# 61 62# 63 64# 65 66# 67 po
  let tenP = opaque ten
      !pSmall = tenP (PapSmall (seed + 2)) 1 2 3

  -- an AP_STACK: the thunk's evaluation blocks, then is killed
  gateAps <- newEmptyMVar
  let apsT = holdAcross gateAps (ApsOnly (seed + 3))
  tAps <- forkIO (void (evaluate apsT))
  waitBlocked tAps (== BlockedOnMVar)
  killThread tAps

  -- a black hole and a thread blocked on it
  gateBh <- newEmptyMVar
  let bh = unsafePerformIO (takeMVar gateBh) :: Int
  tOwner <- forkIO (void (evaluate bh))
  waitBlocked tOwner (== BlockedOnMVar)
  tWaiter <- forkIO (void (evaluate bh))
  waitBlocked tWaiter (== BlockedOnBlackHole)

  -- STM: a thread in retry, a thread blocked inside a transaction
  tvRetry <- newTVarIO (0 :: Int)
  tRetry <- forkIO $ atomically $ readTVar tvRetry >>= \v -> check (v > 0)
  waitBlocked tRetry (== BlockedOnSTM)
  tvWrite <- newTVarIO (TrecOnly 0)
  gateStm <- newEmptyMVar
  let inside = do
        writeTVar tvWrite (TrecOnly (seed + 4))
        unsafeIOToSTM (takeMVar gateStm)
      handler :: SomeException -> STM ()
      handler _ = return ()
  tStm <- forkIO $ atomically $ (inside `orElse` return ()) `catchSTM` handler
  waitBlocked tStm (== BlockedOnMVar)
  tvOnly <- newTVarIO (TVarOnly (seed + 5))

  -- MVars: full, and threads blocked taking and reading empty ones
  mvFull <- newMVar (MVarOnly (seed + 6))
  mvEmpty <- newEmptyMVar :: IO (MVar Int)
  tTake <- forkIO (void (takeMVar mvEmpty))
  waitBlocked tTake (== BlockedOnMVar)
  mvRead <- newEmptyMVar :: IO (MVar Int)
  tRead <- forkIO (void (readMVar mvRead))
  waitBlocked tRead (== BlockedOnMVar) -- readMVar: base says BlockedOnMVar
  gateDeep <- newEmptyMVar
  tDeep <- forkIO (void (deep gateDeep 20000))
  waitBlocked tDeep (== BlockedOnMVar)
  gateBig <- newEmptyMVar
  tBig <- forkIO (void (bigFrame gateBig seed))
  waitBlocked tBig (== BlockedOnMVar)

  -- a compact region
  cmp <- compact (CmpOnly (seed + 7) [seed .. seed + 9])

  -- a weak pointer with a finalizer, its key kept
  key@(IORef (STRef keyVar)) <- newIORef seed
  let IO fin = return ()
  wk <- IO $ \s -> case mkWeak# keyVar (WeakOnly (seed + 8)) fin s of
    (# s', w #) -> (# s', Weak w #)

  -- arrays, an IORef, a selector thunk
  arr <- newIOArray (0, 3) (ArrOnly (seed + 9))
  sarr <- IO $ \s -> case newSmallArray# 3# (SmallOnly (seed + 10)) s of
    (# s', a #) -> (# s', SmallArr a #)
  farr <- IO $ \s -> case newArray# 5# (seed + 11) s of
    (# s1, a #) -> case unsafeFreezeArray# a s1 of
      (# s2, f #) -> (# s2, FrozenArr f #)
  bytes <- IO $ \s -> case newByteArray# 64# s of
    (# s', b #) -> (# s', Bytes b #)
  ref <- newIORef (seed + 12)
  let pr = mkPair seed
      selA = case pr of (a, _) -> a -- a selector thunk (pr unevaluated)

#if __GLASGOW_HASKELL__ >= 906
  kHold <- contHolder (seed + 13)
#else
  let kHold = ()
#endif

  let keep = [ Box kHold, Box pBig, Box pSmall, Box apsT, Box gateAps, Box bh, Box gateBh
             , Box tvRetry, Box tvWrite, Box gateStm, Box tvOnly, Box mvFull
             , Box mvEmpty, Box mvRead, Box gateDeep, Box gateBig, Box cmp, Box key, Box wk
             , Box arr, Box sarr, Box farr, Box bytes, Box ref, Box selA, Box pr
             , Box [tOwner, tWaiter, tRetry, tStm, tTake, tRead, tDeep, tBig] ]
  sp <- newStablePtr keep
  performMajorGC
  putStrLn "ready"
  hold <- lookupEnv "DEBUGKINDS_HOLD"
  case hold of
    Just file | not (null file) -> do
      hPutStrLn stderr "DebugKinds: holding"
      let wait = do e <- doesFileExist file
                    unless e $ threadDelay 5000 >> wait
      wait
    _ -> return ()
  freeStablePtr sp
