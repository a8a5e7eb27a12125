-- LeakMap: a request handler that keeps every request in a Map: the
-- classic growing-Map leak. Each request is a `Leak` value (a constructor
-- of this module, so -hi names it Main.Leak). Runs for SECONDS (fractional)
-- or until N requests, and prints how many Leak values it retains.
--   LeakMap [REQUESTS] [DELAY_MICROS]
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad (foldM, when)
import qualified Data.Map.Strict as M
import System.Environment (getArgs)
import System.IO

data Leak = Leak !Int !Int [Int]

handle :: M.Map Int Leak -> Int -> IO (M.Map Int Leak)
handle m i = do
  let req = Leak i (i * 7) [i, i + 1, i + 2]
      m'  = M.insert i req m
  when (i `mod` 1000 == 0) $ threadDelay 0
  return $! m'

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  let n     = case args of (a:_) -> read a; _ -> 200000 :: Int
      delay = case args of (_:b:_) -> read b; _ -> 0 :: Int
  m <- foldM (\acc i -> do
                 when (delay > 0 && i `mod` 1000 == 0) (threadDelay delay)
                 handle acc i) M.empty [1 .. n]
  let live = M.size m
  putStrLn ("Leak values retained: " ++ show live)
  print (M.foldl' (\s (Leak a b xs) -> s + a + b + sum xs) 0 m `mod` 1000003)
