-- PauseApi: drives the pause API (rts_pause and friends) from C, in the
-- ways a program or a debugger uses it. The mode picks the scenario; the
-- C side (pause_api.c) prints what it saw, Haskell prints its own result,
-- so a pause that broke the program shows in the output.
--   PauseApi MODE
-- MODE: ffi forkio pthread concurrent api   (work, exit 0)
--       double unsafe lock other            (misuse, exit 1 with 9.2's message)
{-# LANGUAGE ForeignFunctionInterface, BangPatterns #-}
module Main (main) where

import Control.Concurrent
import Control.Monad
import Data.IORef
import Foreign.StablePtr
import System.Environment
import System.IO

foreign import ccall safe "pause_from_ffi" pauseFromFfi :: IO Int
foreign import ccall unsafe "pause_from_ffi" pauseFromUnsafeFfi :: IO Int
foreign import ccall safe "pause_in_pthreads" pauseInPthreads :: Int -> Int -> IO Int
foreign import ccall safe "pause_and_eval" pauseAndEval :: StablePtr (IO Int) -> IO Int
foreign import ccall safe "misuse" misuse :: Int -> IO ()

-- Work that allocates, so that the pausers have something to stop.
work :: Int -> Int
work n = sum [ length (show i) | i <- [1 .. n] ]

busy :: IORef Bool -> MVar Int -> IO ()
busy stop out = loop 0
  where
    loop !acc = do
      s <- readIORef stop
      if s then putMVar out acc else loop (acc + work 2000 `mod` 7)

withBusy :: Int -> IO a -> IO a
withBusy k act = do
  stop <- newIORef False
  outs <- replicateM k newEmptyMVar
  mapM_ (forkIO . busy stop) outs
  r <- act
  writeIORef stop True
  mapM_ takeMVar outs
  return r

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  [mode] <- getArgs
  case mode of
    "ffi" -> do
      n <- withBusy 2 pauseFromFfi
      putStrLn ("paused from a safe foreign call: " ++ show n ++ " rounds")
    "forkio" -> do
      v <- newEmptyMVar
      _ <- forkIO (pauseFromFfi >>= putMVar v)
      n <- withBusy 2 (takeMVar v)
      putStrLn ("paused from a forkIO thread: " ++ show n ++ " rounds")
    "pthread" -> do
      n <- withBusy 2 (pauseInPthreads 1 200)
      putStrLn ("paused from a pthread: " ++ show n ++ " pauses")
    "concurrent" -> do
      n <- withBusy 2 (pauseInPthreads 5 200)
      putStrLn ("five concurrent pausers: " ++ show n ++ " pauses")
    "api" -> do
      sp <- newStablePtr (return (work 1000))
      n <- pauseAndEval sp
      putStrLn ("evaluated while paused: " ++ show n)
    "double" -> misuse 0
    "lock"   -> misuse 1
    "other"  -> misuse 2
    "unsafe" -> void pauseFromUnsafeFfi
    _ -> error "unknown mode"
  putStrLn ("work after resuming: " ++ show (work 10000))
