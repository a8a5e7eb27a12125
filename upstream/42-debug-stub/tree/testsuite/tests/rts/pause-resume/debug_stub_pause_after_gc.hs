-- The pause after a major GC (previous commit) through the stub: request
-- 64 (PAUSE_AFTER_GC, "start a major GC now") is answered once the program
-- is paused after a major GC the request started; no Haskell code runs
-- until RESUME (3), after which the program goes on.
module Main (main) where

import Control.Concurrent (forkIO, yield)
import Control.Monad (forever)

foreign import ccall unsafe "bump" bump :: IO ()
foreign import ccall safe "pauseAfterGcCheck" pauseAfterGcCheck :: IO ()

main :: IO ()
main = do
  _ <- forkIO (forever (bump >> yield))   -- yield: a loop that never allocates could not be stopped
  pauseAfterGcCheck
  putStrLn "exiting"
