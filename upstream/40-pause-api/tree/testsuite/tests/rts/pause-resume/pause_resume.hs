module Main (main) where

import Control.Concurrent (forkIO, threadDelay)
import Control.Monad (forever)

foreign import ccall safe "pauseAndResume" pauseAndResume :: IO ()

main :: IO ()
main = do
  _ <- forkIO (forever (threadDelay 1000))
  pauseAndResume
  putStrLn "running again"
