-- Run ourselves with +RTS --info and look for the ("rtscope", ...) entry.
module Main (main) where

import System.Environment (getExecutablePath)
import System.Process (readProcess)

main :: IO ()
main = do
  self <- getExecutablePath
  info <- readProcess self ["+RTS", "--info", "-RTS"] ""
  let entries = read info :: [(String, String)]
  case lookup "rtscope" entries of
    Just v | not (null v) -> putStrLn "rtscope entry present"
    _ -> putStrLn "rtscope entry missing"
