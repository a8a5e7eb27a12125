-- WorkerPool: a threaded worker pool. W workers take jobs from a Chan,
-- compute, and report through an MVar. Run with -threaded +RTS -N2.
--   WorkerPool [WORKERS] [JOBS]
module Main (main) where

import Control.Concurrent
import Control.Monad (forM_, replicateM, replicateM_)
import System.Environment (getArgs)

work :: Int -> Int
work k = sum [ (k * i) `mod` 7919 | i <- [1 .. 20000] ]

main :: IO ()
main = do
  args <- getArgs
  let w    = case args of (a:_) -> read a; _ -> 4 :: Int
      jobs = case args of (_:b:_) -> read b; _ -> 400 :: Int
  jobsC <- newChan
  results <- newChan
  forM_ [1 .. w] $ \_ -> forkIO $ let loop = do
                                          j <- readChan jobsC
                                          case j of
                                            Nothing -> return ()
                                            Just k  -> writeChan results (work k) >> loop
                                      in loop
  forM_ [1 .. jobs] $ \k -> writeChan jobsC (Just k)
  replicateM_ w (writeChan jobsC Nothing)
  rs <- replicateM jobs (readChan results)
  print (sum rs)
