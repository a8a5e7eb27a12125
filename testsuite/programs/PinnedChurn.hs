-- PinnedChurn: allocates many small pinned ByteStrings, keeps one in
-- KEEP of them and drops the rest, so pinned blocks stay mostly empty but
-- alive: the fragmentation pattern of the ghc-debug post.
--   PinnedChurn [N] [KEEP]
module Main (main) where

import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import Control.Monad (foldM)
import System.Environment (getArgs)
import System.Mem (performMajorGC)

main :: IO ()
main = do
  args <- getArgs
  let n    = case args of (a:_) -> read a; _ -> 200000 :: Int
      keep = case args of (_:b:_) -> read b; _ -> 50 :: Int
  kept <- foldM (\acc i -> do
                    let bs = B.copy (BC.pack (show i ++ replicate 100 'x'))
                    return $! if i `mod` keep == 0 then bs : acc else B.length bs `seq` acc)
                [] [1 .. n]
  performMajorGC
  putStrLn ("kept " ++ show (length kept) ++ " pinned strings, "
            ++ show (sum (map B.length kept)) ++ " bytes")
