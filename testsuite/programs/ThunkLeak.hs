-- ThunkLeak: a lazy accumulator that builds a chain of (+) thunks before
-- anything forces it: the heap fills with THUNK closures allocated at one
-- source line.
--   ThunkLeak [N]
module Main (main) where

import Data.IORef
import Control.Monad (forM_)
import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of (a:_) -> read a; _ -> 2000000 :: Int
  ref <- newIORef (0 :: Int)
  forM_ [1 .. n] $ \i ->
    modifyIORef ref (+ i)   -- lazy: one thunk per iteration
  total <- readIORef ref
  print total
