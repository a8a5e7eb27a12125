-- Events posted before flushEventLog reach the writer by the time it returns.
module Main (main) where

import Debug.Trace (traceEventIO)
import Foreign.C.Types (CSize (..))
import Foreign.Ptr (Ptr, nullPtr)

foreign import ccall unsafe "countedBytes" countedBytes :: IO CSize
foreign import ccall safe "flushEventLog" flushEventLog :: Ptr () -> IO ()

main :: IO ()
main = do
  traceEventIO "before the flush"
  before <- countedBytes
  flushEventLog nullPtr
  after <- countedBytes
  putStrLn (if after > before then "buffered events written" else "nothing written")
