module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad (forM_)
import Data.List (foldl', isPrefixOf)

foreign import ccall unsafe "requestHeapCensus" requestHeapCensus :: IO ()

samples :: IO Int
samples = length . filter ("BEGIN_SAMPLE" `isPrefixOf`) . lines
            <$> readFile "heap_census_request.hp"

main :: IO ()
main = do
  -- No census without a request, however long the program runs.
  threadDelay 50000
  samples >>= \n -> putStrLn ("samples before any request: " ++ show n)
  forM_ [1 .. 3 :: Int] $ \i -> do
    let xs = [1 .. 1000 * i]
    requestHeapCensus
    -- Blocking returns to the scheduler, which takes the census.
    threadDelay 20000
    print (foldl' (+) 0 xs `mod` 7)
  samples >>= \n -> putStrLn ("samples after three requests: " ++ show n)
