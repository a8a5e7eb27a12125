-- UpstreamApi: a program written against the upstream packages' APIs,
-- ghc-debug-stub (GHC.Debug.Stub) and eventlog-socket (GHC.Eventlog.Socket),
-- and 9.2's census and flush controls (here Rtscope.Profiling), built with
-- the overlay's packages (haskell/, registered by scripts/haskell-packages).
--   UpstreamApi [DEBUG_SOCKET EVENTLOG_SOCKET HOLD_FILE CENSUSES]
-- Without arguments it only prints the checksum.
-- It starts the debug stub on DEBUG_SOCKET with a saved `Kept` value,
-- serves its eventlog on EVENTLOG_SOCKET and waits for a client
-- (startWith ... esoWait), requests CENSUSES heap censuses (run it with
-- +RTS -hT --no-automatic-heap-samples: exactly that many samples),
-- flushes the eventlog, says "UpstreamApi: holding" on stderr and waits
-- until HOLD_FILE exists; then prints a checksum of the kept value.
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad (forM_, unless)
import GHC.Debug.Stub (Box (..), saveClosures, withGhcDebugUnix)
import GHC.Eventlog.Socket
  (EventlogSocketAddr (..), defaultEventlogSocketOpts, esoWait, startWith)
import Rtscope.Profiling (flushEventLog, requestHeapCensus)
import System.Directory (doesFileExist)
import System.Environment (getArgs)
import System.IO (hPutStrLn, stderr)

data Kept = Kept !Int [Int]

main :: IO ()
main = do
  args <- getArgs
  case args of
    [dsock, esock, hold, n] -> observed dsock esock hold (read n)
    _ -> report (Kept 7 [1 .. 5000])

report :: Kept -> IO ()
report (Kept a xs) = putStrLn ("kept: " ++ show (a + sum xs))

observed :: FilePath -> FilePath -> FilePath -> Int -> IO ()
observed dsock esock hold n =
  withGhcDebugUnix dsock $ do
    let kept = Kept 7 [1 .. 5000]
    saveClosures [Box kept]
    startWith (EventlogSocketUnixAddr esock) defaultEventlogSocketOpts {esoWait = True}
    forM_ [1 .. n] $ \_ -> do
      requestHeapCensus
      threadDelay 20000
    flushEventLog
    hPutStrLn stderr "UpstreamApi: holding"
    let waitHold = do e <- doesFileExist hold
                      unless e $ threadDelay 5000 >> waitHold
    waitHold
    report kept
