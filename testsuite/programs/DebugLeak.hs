-- DebugLeak: a program for the debug stub to look at. It keeps a Map of
-- `Leak` values (a constructor of this module), saves one of them for the
-- debugger (rts_debugStubSaveClosure), optionally keeps WORKERS threads
-- busy allocating, and works for ROUNDS rounds of 10ms, printing a
-- checksum every 50 rounds. The output depends only on the arguments, so
-- a run that a debugger paused, probed or fuzzed must print the same.
--   DebugLeak [ROUNDS] [WORKERS]
{-# LANGUAGE ForeignFunctionInterface, BangPatterns #-}
module Main (main) where

import Control.Concurrent
import Control.Monad
import Data.IORef
import qualified Data.Map.Strict as M
import Foreign.StablePtr
import System.Environment
import System.IO

data Leak = Leak !Int !Int [Int]

foreign import ccall safe "rts_debugStubSaveClosure"
  saveClosure :: StablePtr a -> IO ()

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
    threadDelay 10000
  writeIORef stop True
  mapM_ takeMVar dones
  putStrLn ("Leak values retained: " ++ show (M.size m))
