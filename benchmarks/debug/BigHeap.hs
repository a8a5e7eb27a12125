-- BigHeap: a program with about MB megabytes of live heap for the debug
-- benchmark: a Map of N cells, each an Int key, a `Cell` constructor and a
-- two-element list (about 168 bytes and 7 closures per entry). It prints
-- "ready" once the heap is built and forced, then holds it until its
-- standard input closes (no timing: the benchmark decides when it ends).
--   BigHeap MB
{-# LANGUAGE BangPatterns #-}
module Main (main) where

import qualified Data.Map.Strict as M
import Data.List (foldl')
import System.Environment
import System.IO

data Cell = Cell !Int [Int]

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  let mb = case args of (a:_) -> read a; _ -> 1024 :: Int
      n = mb * 1024 * 1024 `div` 168
      m = M.fromList [ (i, Cell i [i, i + 1]) | i <- [1 .. n] ]
      !total = foldl' (\acc (Cell a xs) -> acc + a + sum xs) 0 (M.elems m)
  putStrLn ("entries " ++ show (M.size m) ++ " checksum " ++ show total)
  putStrLn "ready"
  _ <- hGetContents stdin >>= \s -> length s `seq` return ()
  print (M.size m)
