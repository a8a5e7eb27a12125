{-# LANGUAGE ForeignFunctionInterface, ScopedTypeVariables #-}
-- Behaviour: ordinary GHC behaviour that a patched RTS must not change:
-- laziness, exceptions (sync and async), FFI calls and callbacks (which go
-- through the RTS's adjustors), threads, MVar and STM, weak pointers and
-- finalizers, stable pointers, and a big heap with major GCs. Its output
-- must be identical on the stock and the patched RTS.
module Main (main) where

import Control.Concurrent
import Control.Concurrent.STM
import GHC.Conc (ThreadStatus (..), threadStatus)
import Control.Exception
import Control.Monad
import qualified Data.Map.Strict as M
import Data.IORef
import Foreign
import Foreign.C.Types
import System.Mem (performMajorGC)
import System.Mem.Weak
import System.Timeout (timeout)

foreign import ccall unsafe "math.h sin" c_sin :: CDouble -> CDouble
foreign import ccall "wrapper" mkCmp :: (Ptr CInt -> Ptr CInt -> IO CInt) -> IO (FunPtr (Ptr CInt -> Ptr CInt -> IO CInt))
foreign import ccall safe "stdlib.h qsort" c_qsort :: Ptr CInt -> CSize -> CSize -> FunPtr (Ptr CInt -> Ptr CInt -> IO CInt) -> IO ()

main :: IO ()
main = do
  -- laziness
  let xs = [1 ..] :: [Integer]
  print (take 5 (filter even xs), fst (1 :: Int, undefined :: Int))
  print (length (take 3 (repeat (error "never forced" :: Int))))
  -- exceptions
  r1 <- try (evaluate (1 `div` (0 :: Int)))
  print (either (\(e :: ArithException) -> show e) show r1)
  r2 <- try (evaluate (head ([] :: [Int])))
  putStrLn (either (\(_ :: SomeException) -> "head: exception") show r2)
  r3 <- try (throwIO (userError "boom"))
  print (either (\(e :: IOException) -> show e) (\() -> "none") r3)
  -- async exceptions and timeouts
  t <- timeout 50000 (threadDelay 10000000)
  print t
  mv <- newEmptyMVar
  tid <- forkIO (threadDelay 10000000 `catch` \(e :: AsyncException) -> putMVar mv (show e))
  -- killed once it waits in threadDelay, inside its handler: after a fixed
  -- 1 ms, a thread not yet started on a loaded machine died without the
  -- handler and main blocked on mv for good (and killing it as it starts
  -- to wait trips GHC #19075's assertion in 9.0.2's debug RTS, stock too)
  let blocked = do
        st <- threadStatus tid
        case st of
          ThreadBlocked _ -> return ()
          _ -> threadDelay 1000 >> blocked
  blocked
  killThread tid
  takeMVar mv >>= putStrLn
  -- FFI: a plain call and a callback through an adjustor
  print (realToFrac (c_sin 1.0) :: Double)
  cmp <- mkCmp (\a b -> do x <- peek a; y <- peek b; return (fromIntegral (fromEnum (compare x y)) - 1))
  sorted <- withArrayLen [5, 3, 9, 1, 7 :: CInt] $ \n p -> do
    c_qsort p (fromIntegral n) (fromIntegral (sizeOf (0 :: CInt))) cmp
    peekArray n p
  freeHaskellFunPtr cmp
  print sorted
  -- threads, MVar and STM
  tv <- newTVarIO (0 :: Int)
  done <- newEmptyMVar
  forM_ [1 .. 8 :: Int] $ \k -> forkIO $ do
    forM_ [1 .. 1000] $ \_ -> atomically (modifyTVar' tv (+ k))
    putMVar done ()
  replicateM_ 8 (takeMVar done)
  readTVarIO tv >>= print
  -- stable pointers and weak pointers with finalizers
  sp <- newStablePtr (42 :: Int)
  deRefStablePtr sp >>= print
  freeStablePtr sp
  fin <- newIORef False
  let mk = do
        ref <- newIORef (0 :: Int)
        _ <- mkWeakIORef ref (writeIORef fin True)
        return ()
  mk
  performMajorGC
  threadDelay 20000
  readIORef fin >>= print
  -- a big heap: ~100 MB of Map, rebuilt and collected
  let big = M.fromList [(i, show i) | i <- [1 .. 400000 :: Int]]
  print (M.size big, M.lookup 123456 big)
  performMajorGC
  print (M.foldl' (\s v -> s + length v) 0 big)
