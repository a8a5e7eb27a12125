-- WhereFrom: GHC.InfoProv.whereFrom (GHC 9.2 and later) on values whose
-- closures come from Debian's libraries (containers, text, base) and from
-- this module, printed one a line: TAG, then the InfoProv's seven fields
-- (name, closure type, type, label, module, file, span), tab-separated,
-- or "none". Each value is built at run time, so none is a static closure.
--   WhereFrom
module Main (main) where

import Control.Exception (evaluate)
import Data.List (intercalate)
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import GHC.InfoProv (InfoProv (..), whereFrom)
import System.Environment (getArgs)

data Request = Request !Int String

report :: String -> a -> IO ()
report tag x = do
  r <- whereFrom x
  putStrLn $ intercalate "\t" $ tag : case r of
    Nothing -> ["none"]
    Just p -> [ipName p, ipDesc p, ipTyDesc p, ipLabel p, ipMod p, ipSrcFile p, ipSrcSpan p]

main :: IO ()
main = do
  n <- length <$> getArgs
  m <- evaluate (M.fromList [(i, i * 2) | i <- [1 .. 100 + n]])
  t <- evaluate (T.pack (replicate (10 + n) 'x'))
  r <- evaluate (Request (n + 1) "GET /")
  j <- evaluate (Just n)
  let lazyTail = map (+ 1) [n ..]
  report "map" m
  report "text" t
  report "request" r
  report "just" j
  report "thunk" lazyTail
  print (M.size m + T.length t + take 1 lazyTail !! 0)
