-- Alloc: a fixed, allocation-heavy workload for comparing RTS builds:
-- builds and folds maps and lists, with a moderate live set.
module Main (main) where

import qualified Data.Map.Strict as M
import Data.List (foldl')
import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let rounds = case args of (a:_) -> read a; _ -> 30 :: Int
      one r = let m = M.fromList [(k, k * r) | k <- [1 .. 100000 :: Int]]
              in M.foldl' (+) 0 (M.map (* 3) m) + length (show (M.keys m))
  print (foldl' (\acc r -> acc + one r) 0 [1 .. rounds])
