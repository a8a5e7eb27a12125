-- ForkChild: forkProcess with eventlogging on (GHC's rts/T12903 in
-- miniature).  The child posts a marker, works a little and exits; the
-- parent waits for it and prints the child's pid, then "child exited 0".
module Main (main) where

import Debug.Trace (traceMarkerIO)
import System.Exit (ExitCode (..))
import System.Posix.Process

main :: IO ()
main = do
  traceMarkerIO "parent before fork"
  pid <- forkProcess $ do
    traceMarkerIO "in the child"
    print (sum [1 .. 100000 :: Int])
  st <- getProcessStatus True False pid
  print pid
  putStrLn $ case st of
    Just (Exited ExitSuccess) -> "child exited 0"
    other -> "child: " ++ show other
  traceMarkerIO "parent after fork"
