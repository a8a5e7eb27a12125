module Main (main) where

import Debug.Trace (traceEventIO)
import System.Directory (doesFileExist)

main :: IO ()
main = do
  traceEventIO "posted to the null writer"
  written <- doesFileExist "null_writer.eventlog"
  putStrLn (if written then "eventlog file created" else "no eventlog file")
