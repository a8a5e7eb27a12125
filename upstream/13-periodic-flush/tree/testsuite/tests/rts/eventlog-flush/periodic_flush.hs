-- Post one event, then wait (up to 10 s) for the periodic flush to hand it
-- to the writer. Without the flag the event would stay buffered until exit.
module Main (main) where

import Control.Concurrent (threadDelay)
import Debug.Trace (traceEventIO)
import Foreign.C.Types (CSize (..))

foreign import ccall unsafe "countedBytes" countedBytes :: IO CSize

main :: IO ()
main = do
  before <- countedBytes
  traceEventIO "waiting for the periodic flush"
  let wait :: Int -> IO ()
      wait 0 = putStrLn "not flushed within 10 s"
      wait n = do
        now <- countedBytes
        if now > before
          then putStrLn "flushed while running"
          else threadDelay 10000 >> wait (n - 1)
  wait 1000
