-- EventlogCalls: the public C functions rtscope adds or changes (eventlog
-- start, flush and end, census and timer control, the socket's start, the
-- pause API, the debug stub's API), called through one calling convention,
-- while Haskell threads run on the other capabilities.  See
-- eventlog_calls.c for the steps.
--
--   EventlogCalls CONV STEP...
--
-- CONV: safe | unsafe | thread (a new foreign OS thread, from a safe call).
-- Prints "STEP RESULT" for each step, then "done"; before "flush" it posts
-- the marker "before flush", which the flushed file must already hold.
module Main (main) where

import Control.Concurrent
import Control.Exception (evaluate)
import Control.Monad
import Data.IORef
import Debug.Trace (traceMarkerIO)
import Foreign.C.String (CString, withCString)
import Foreign.C.Types (CInt (..), CUInt (..))
import Foreign.StablePtr
import System.Environment (getArgs)
import System.IO

foreign import ccall safe "calls_step" stepSafe :: CString -> StablePtr () -> IO CInt
foreign import ccall unsafe "calls_step" stepUnsafe :: CString -> StablePtr () -> IO CInt
foreign import ccall safe "usleep" usleep :: CUInt -> IO CInt
foreign import ccall unsafe "calls_mark_allocating" markAllocating :: IO ()
foreign import ccall safe "calls_on_thread" stepThread :: CString -> StablePtr () -> IO CInt

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  (conv : steps) <- getArgs
  let call = case conv of
        "safe" -> stepSafe
        "unsafe" -> stepUnsafe
        "thread" -> stepThread
        _ -> error ("unknown convention " ++ conv)
  caps <- getNumCapabilities
  -- Haskell code running on every other capability, allocating gently
  -- (no GC during the run unless a step asks for one).
  work <- newIORef (0 :: Int)
  forM_ [1 .. caps - 1] $ \c -> forkOn c $ forever $ do
    modifyIORef' work (+ sum [1 .. 100 :: Int])
    threadDelay 500
  -- the steps begin once Haskell runs on the other capabilities
  let waitWork k = do
        w <- readIORef work
        when (w == 0 && k > (0 :: Int)) $ threadDelay 1000 >> waitWork (k - 1)
  when (caps > 1) $ waitWork 5000
  sp <- newStablePtr ()
  forM_ steps $ \s -> do
    when (s == "flush") $ traceMarkerIO "before flush"
    -- start-late, flush-late: another capability allocates until it needs a GC
    -- while the call waits, so that the GC's sync is pending (waiting for
    -- the caller's capability) when the call runs.
    let late = s `elem` ["start-late", "flush-late"]
    when (late && caps > 1) $ void $ forkOn 1 $ do
      -- not threadDelay: the timer manager may need the caller's capability
      _ <- usleep 100000
      markAllocating
      forM_ [1 .. 50 :: Int] $ \i -> evaluate (length (show [i .. 100000]))
    -- a late step's call runs on a thread pinned to capability 0: the main
    -- thread may have migrated to capability 1, where the allocating thread
    -- would then wait for it and no GC would ever be pending.
    let pinned act
          | late && caps > 1 = do
              mv <- newEmptyMVar
              _ <- forkOn 0 (act >>= putMVar mv)
              takeMVar mv
          | otherwise = act
    r <- pinned $ withCString s $ \cs -> call cs (castPtrToStablePtr (castStablePtrToPtr sp))
    putStrLn (s ++ " " ++ show r)
  w <- readIORef work
  putStrLn (if caps == 1 || w > 0 then "done" else "no work on other capabilities")
