-- MemReturn: grow the heap to tens of megabytes (a list of N Ints kept
-- alive while it is summed twice), drop it, and run major GCs, so that the
-- RTS gives most of those megablocks back to the OS. For the heap memory
-- events (MEM_RETURN, BLOCKS_SIZE) of toolchain-heap-events.
--   MemReturn [N]
module Main (main) where

import Control.Exception (evaluate)
import System.Environment (getArgs)
import System.Mem (performMajorGC)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of (a:_) -> read a; _ -> 2000000 :: Int
      xs = [1 .. n]
  total <- evaluate (sum xs)
  len <- evaluate (length xs)      -- xs is live until here
  print (total, len)
  mapM_ (const performMajorGC) [1 .. 3 :: Int]
  putStrLn "MemReturn: done"
