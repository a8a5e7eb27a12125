-- The library half of BindingLayout: top-level bindings of another module
-- whose local thunks and functions stay live in the heap.
module BindingLayoutLib (Box (..), scaled, window, tally, shifted, lazyPairs, adder) where

data Box = Box Int (Int -> Int) [Int]

scaled :: Int -> [Int] -> [Int]
scaled k xs = map (\x -> x * k + length xs) xs
{-# NOINLINE scaled #-}

window :: Int -> [Int] -> Box
window n xs = Box n (\y -> y + n * sum (take n xs)) (drop n xs)
{-# NOINLINE window #-}

tally :: [Int] -> (Int, Int)
tally xs = (length (filter even xs), sum xs)
{-# NOINLINE tally #-}

shifted :: Int -> [Int] -> [Int]
shifted s = go
  where go [] = []
        go (y:ys) = (y + s) : go ys
{-# NOINLINE shifted #-}

lazyPairs :: Int -> [(Int, Int)]
lazyPairs n = [ (i, i * n + 1) | i <- [1 .. n] ]
{-# NOINLINE lazyPairs #-}

adder :: Int -> Int -> Int
adder a = \b -> a * 3 + b
{-# NOINLINE adder #-}
