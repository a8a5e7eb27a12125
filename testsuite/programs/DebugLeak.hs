-- DebugLeak: a program for the debug stub to look at. It keeps a Map of
-- `Leak` values (a constructor of this module), saves one of them for the
-- debugger (rts_debugStubSaveClosure), optionally keeps WORKERS threads
-- busy allocating, and works for ROUNDS rounds of DELAY microseconds
-- (default 10000), printing a checksum every 50 rounds. The output depends
-- only on ROUNDS, so a run that a debugger paused, probed or fuzzed must
-- print what an undisturbed run (even with DELAY 0) prints. With SOCKET,
-- it starts the debug stub itself, through the FFI (rts_debugStubStart).
--   DebugLeak [ROUNDS] [WORKERS] [DELAY] [SOCKET]
-- With DEBUGLEAK_HOLD=FILE in the environment, it holds after its rounds
-- (workers still busy): it says "DebugLeak: holding" on stderr, then waits
-- (polling every 5 ms) until FILE exists before it stops the workers and
-- prints its last line. A test keeps the program alive this way for as
-- long as its debugger needs, whatever the load, and lets it finish by
-- creating FILE; stdout is the same as without the hold.
{-# LANGUAGE ForeignFunctionInterface, BangPatterns #-}
module Main (main) where

import Control.Concurrent
import Control.Monad
import Data.IORef
import qualified Data.Map.Strict as M
import Foreign.C.String
import Foreign.C.Types
import Foreign.StablePtr
import System.Directory (doesFileExist)
import System.Environment
import System.IO

data Leak = Leak !Int !Int [Int]

foreign import ccall safe "rts_debugStubSaveClosure"
  saveClosure :: StablePtr a -> IO ()

foreign import ccall safe "rts_debugStubStart"
  startStub :: CString -> IO CInt

busy :: IORef Bool -> MVar () -> IO ()
busy stop done = loop (0 :: Int)
  where
    loop !k = do
      s <- readIORef stop
      if s then putMVar done ()
           else let !n = sum (map (length . show) [k .. k + 500]) in loop (n `mod` 1000)

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  let rounds  = case args of (a:_) -> read a; _ -> 300 :: Int
      workers = case args of (_:b:_) -> read b; _ -> 0 :: Int
      delay   = case args of (_:_:c:_) -> read c; _ -> 10000 :: Int
  case args of
    (_:_:_:path:_) -> do
      r <- withCString path startStub
      when (r /= 0) $ hPutStrLn stderr "rts_debugStubStart failed"
    _ -> return ()
  let
      m = M.fromList [ (i, Leak i (i * 7) [i, i + 1, i + 2]) | i <- [1 .. 20000 :: Int] ]
  M.size m `seq` return ()
  let !leak = m M.! 42
  saveClosure =<< newStablePtr leak
  stop <- newIORef False
  dones <- replicateM workers newEmptyMVar
  mapM_ (forkIO . busy stop) dones
  forM_ [1 .. rounds] $ \r -> do
    let s = M.foldlWithKey' (\acc k (Leak a b xs) ->
                if k `mod` 97 == r `mod` 97 then acc + a + b + sum xs else acc) 0 m
    when (r `mod` 50 == 0) $ putStrLn ("round " ++ show r ++ ": " ++ show s)
    when (delay > 0) $ threadDelay delay
  hold <- lookupEnv "DEBUGLEAK_HOLD"
  case hold of
    Just file | not (null file) -> do
      hPutStrLn stderr "DebugLeak: holding"
      let wait = do e <- doesFileExist file
                    unless e $ threadDelay 5000 >> wait
      wait
    _ -> return ()
  writeIORef stop True
  mapM_ takeMVar dones
  putStrLn ("Leak values retained: " ++ show (M.size m))
