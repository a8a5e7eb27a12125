-- startEventLogging, flushEventLog and endEventLogging through *unsafe*
-- foreign calls, as rts/InitEventLogging calls startEventLogging: in the
-- threaded RTS the calling thread holds its capability, so the calls must
-- not wait for one (they used to hang there).
import System.IO

foreign import ccall unsafe "start_eventlog" startEventlog :: IO Int
foreign import ccall unsafe "flush_eventlog" flushEventlog :: IO ()
foreign import ccall unsafe "end_eventlog" endEventlog :: IO ()

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  startEventlog >>= \ok -> putStrLn ("started: " ++ show ok)
  flushEventlog
  endEventlog
  startEventlog >>= \ok -> putStrLn ("restarted: " ++ show ok)
