-- Steady: a steady-state program. It keeps a fixed working set (a Map of
-- N entries) and churns allocation around it for ROUNDS rounds, so live
-- data stays flat while allocation grows. Prints a checksum.
--   Steady [N] [ROUNDS]
module Main (main) where

import qualified Data.Map.Strict as M
import Data.List (foldl')
import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let n      = case args of (a:_) -> read a; _ -> 20000 :: Int
      rounds = case args of (_:b:_) -> read b; _ -> 200 :: Int
      base   = M.fromList [(k, k * 2) | k <- [1 .. n]]
      step m r = M.adjust (+ r) (r `mod` n + 1) m
      final  = foldl' (\m r -> let m' = step m r in M.foldl' (+) 0 m' `seq` m') base [1 .. rounds]
  print (M.foldl' (+) 0 final)
