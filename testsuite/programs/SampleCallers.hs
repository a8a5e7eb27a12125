-- SampleCallers: three callers share one allocating worker, in the
-- proportion 6:3:1 of its work, and a fourth allocates on its own. What
-- `+RTS --sample-alloc` and `--sample-time` say each caller costs (every
-- sample with the caller's frame on its stack) must agree with GHC's own
-- `-prof -fprof-auto` (the callers' inherited %alloc) and with the time
-- each caller takes alone (ONLY: A, B, C or L runs that caller only).
--   SampleCallers ROUNDS [ONLY]
module Main (main) where

import Data.List (foldl')
import System.Environment (getArgs)

-- The shared work: the digits of k, for k up to n (a String each, then
-- counted): about 100 bytes of allocation per k.
worker :: Int -> Int
worker n = foldl' (\acc k -> acc + length (show k)) 0 [1 .. n]
{-# NOINLINE worker #-}

-- Each caller uses worker's result, so its frame waits on the stack while
-- worker runs (a tail call would leave no frame to sample, as for any
-- stack sampler).
callerA :: Int -> Int
callerA n = worker (6 * n) + 1
{-# NOINLINE callerA #-}

callerB :: Int -> Int
callerB n = worker (3 * n) * 2
{-# NOINLINE callerB #-}

callerC :: Int -> Int
callerC n = worker n - 1
{-# NOINLINE callerC #-}

-- Allocation of its own, no worker: numbers paired with their digits,
-- each pair's digits made as the fold reaches it, so the time goes to code
-- that allocates (a loop that does not allocate is not sampled until it
-- does, and its time goes to the next code that does).
loner :: Int -> Int
loner n = foldl' (\acc (a, d) -> acc + a * length d) 0 [(k, show (k * 7)) | k <- [1 .. n]]
{-# NOINLINE loner #-}

main :: IO ()
main = do
  args <- getArgs
  let (r, only) = case args of
        [a] -> (read a, "ABCL")
        [a, o] -> (read a, o)
        _ -> error "usage: SampleCallers ROUNDS [A|B|C|L]"
      pick c f n = if c `elem` only then f n else 0
      -- each round's argument depends on the round, so nothing is shared
      go :: Int -> Int -> Int
      go i acc
        | i >= r = acc
        | otherwise =
            let n = 2000 + i `mod` 7
            in go (i + 1) (acc + pick 'A' callerA n + pick 'B' callerB n
                                + pick 'C' callerC n + pick 'L' loner n)
  print (go 0 0)
