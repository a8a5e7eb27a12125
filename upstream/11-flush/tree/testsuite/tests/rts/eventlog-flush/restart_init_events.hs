-- A stream started at run time (endEventLogging, then startEventLogging)
-- begins with the events a consumer needs to read it, as the start-up
-- stream does: wall clock, process id, RTS identifier, program arguments,
-- heap parameters, each exactly once, and it ends with EVENT_DATA_END.
module Main (main) where

import Control.Monad (forM_)
import Debug.Trace (traceEventIO)
import Foreign.C.Types (CInt (..), CLong (..))

foreign import ccall safe "restartEventLogCapture" restartCapture :: IO CInt
foreign import ccall safe "endEventLogCapture" endCapture :: IO ()
foreign import ccall unsafe "countEvents" countEvents :: CInt -> CInt -> IO CLong

-- EVENT_WALL_CLOCK_TIME, EVENT_OSPROCESS_PID, EVENT_RTS_IDENTIFIER,
-- EVENT_PROGRAM_ARGS, EVENT_HEAP_INFO_GHC, EVENT_USER_MSG
events :: [(String, CInt)]
events =
  [ ("wall clock", 43), ("pid", 32), ("rts identifier", 29)
  , ("program args", 30), ("heap info", 52), ("user message", 19) ]

main :: IO ()
main = do
  traceEventIO "in the start-up stream"
  ok <- restartCapture
  putStrLn ("restarted: " ++ show (ok == 1))
  traceEventIO "in the restarted stream"
  endCapture
  forM_ [0, 1] $ \s -> do
    counts <- mapM (countEvents s . snd) events
    putStrLn ("stream " ++ show s ++ ": "
              ++ unwords [name ++ " " ++ show n | ((name, _), n) <- zip events counts])
