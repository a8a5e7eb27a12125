-- SnapLeak: a program that leaks, for the heap snapshots the RTS takes of
-- itself (+RTS --heap-snapshot-*). It keeps every `Entry` it makes in a Map
-- behind an IORef, STEP entries a round, and prints the Map's size every 10
-- rounds.
--   SnapLeak leak [STEP]      leak until the heap overflows (run with -M)
--   SnapLeak grow ROUNDS [STEP] [HOLD] [PACE]
--                             leak ROUNDS rounds (sleeping PACE ms after
--                             each), then (with HOLD, "-" for none) wait,
--                             allocating without keeping anything, until
--                             the file HOLD exists; then print the size
--   SnapLeak api ROUNDS [STEP]
--                             as grow, calling rts_requestHeapSnapshot
--                             after the rounds, then waiting 2 s
-- Each round also churns short-lived data, so the program allocates while
-- a snapshot is taken. "SnapLeak: holding" on stderr says the rounds are
-- done.
{-# LANGUAGE BangPatterns, ForeignFunctionInterface #-}
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad
import Data.IORef
import qualified Data.Map.Strict as M
import System.Directory (doesFileExist)
import System.Environment
import System.IO

data Entry = Entry !Int String

foreign import ccall safe "rts_requestHeapSnapshot"
  requestHeapSnapshot :: IO ()

entry :: Int -> Entry
entry i = Entry i (show (i * 7919))

round_ :: IORef (M.Map Int Entry) -> Int -> Int -> IO ()
round_ ref step r = do
  let base = r * step
  forM_ [base .. base + step - 1] $ \i ->
    modifyIORef' ref (M.insert i (entry i))
  let !churn = sum (map (length . show) [base .. base + 2000])
  when (churn < 0) $ hPutStrLn stderr "impossible"
  when (r `mod` 10 == 9) $ do
    m <- readIORef ref
    putStrLn ("size " ++ show (M.size m))

-- Allocate without keeping anything until the file exists.
hold :: FilePath -> IO ()
hold path = do
  hPutStrLn stderr "SnapLeak: holding"
  let loop !k = do
        e <- doesFileExist path
        unless e $ do
          let !n = sum (map (length . show) [k .. k + 500])
          threadDelay 2000
          loop (n `mod` 1000)
  loop (0 :: Int)

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  ref <- newIORef M.empty
  case args of
    ("leak" : rest) -> do
      let step = case rest of (s : _) -> read s; _ -> 2000
      forM_ [0 ..] (round_ ref step)
    ("grow" : n : rest) -> do
      let step = case rest of (s : _) -> read s; _ -> 2000
      let pace = case drop 2 rest of (ms : _) -> threadDelay (read ms * 1000); _ -> return ()
      forM_ [0 .. read n - 1] $ \r -> round_ ref step r >> pace
      case drop 1 rest of
        (path : _) | path /= "-" -> hold path
        _ -> return ()
      m <- readIORef ref
      putStrLn ("final " ++ show (M.size m))
    ("api" : n : rest) -> do
      let step = case rest of (s : _) -> read s; _ -> 2000
      forM_ [0 .. read n - 1] (round_ ref step)
      hPutStrLn stderr "SnapLeak: requesting"
      requestHeapSnapshot
      threadDelay 2000000
      m <- readIORef ref
      putStrLn ("final " ++ show (M.size m))
    _ -> hPutStrLn stderr "usage: SnapLeak leak [STEP] | grow ROUNDS [STEP] [HOLD] | api ROUNDS [STEP]"
