-- Fragment: pinned-heap fragmentation (the pattern of ghc-debug's
-- fragmentation post) and duplicated values, held still for a debugger.
-- It allocates N small pinned ByteStrings, keeps every KEEP-th of them in
-- a `Kept` value (a constructor of this module) and drops the rest, so
-- after a major GC most pinned blocks are gone and each survivor holds a
-- mostly-empty block alive. It also builds DUPS `Dup` values with the
-- same two fields (identical closures that could be one). The totals it
-- prints at the end depend only on N, KEEP and DUPS.
-- With FRAGMENT_HOLD=FILE in the environment (the convention of
-- DebugLeak's DEBUGLEAK_HOLD), once its heap is built it says "Fragment:
-- holding" on stderr and waits (polling every 5 ms) until FILE exists: a
-- test keeps it alive this way for as long as its debugger needs, and
-- lets it finish by creating FILE; stdout is the same as without the hold.
--   Fragment [N] [KEEP] [DUPS]
{-# LANGUAGE BangPatterns #-}
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Exception (evaluate)
import Control.Monad (foldM, unless)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import System.Directory (doesFileExist)
import System.Environment (getArgs, lookupEnv)
import System.IO
import System.Mem (performMajorGC)

data Kept = Kept Int B.ByteString

data Dup = Dup Int Int

-- One call per index, so every Dup is a closure of its own (no sharing
-- by floating), with the same two fields.
{-# NOINLINE mkDup #-}
mkDup :: Int -> Int -> Int -> Dup
mkDup _ a b = Dup a b

waitFor :: FilePath -> IO ()
waitFor f = do
  e <- doesFileExist f
  unless e $ threadDelay 5000 >> waitFor f

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  let n    = case args of (a:_) -> read a; _ -> 60000 :: Int
      keep = case args of (_:b:_) -> read b; _ -> 50 :: Int
      ndup = case args of (_:_:c:_) -> read c; _ -> 500 :: Int
  kept <- foldM (\acc i -> do
                    let bs = B.copy (BC.pack (show i ++ replicate 100 'x'))
                    if i `mod` keep == 0
                      then do k <- evaluate (Kept i bs)
                              B.length bs `seq` return (k : acc)
                      else B.length bs `seq` return acc)
                [] [1 .. n]
  let !a = n * 3
      !b = keep + 1000
      dups = map (\i -> mkDup i a b) [1 .. ndup]
  mapM_ evaluate dups
  performMajorGC
  hold <- lookupEnv "FRAGMENT_HOLD"
  case hold of
    Just f | not (null f) -> hPutStrLn stderr "Fragment: holding" >> waitFor f
    _ -> return ()
  putStrLn ("kept " ++ show (length kept) ++ " pinned strings, "
            ++ show (sum [B.length s | Kept _ s <- kept]) ++ " bytes")
  putStrLn ("dups " ++ show (length [() | Dup x y <- dups, x == a, y == b]))
