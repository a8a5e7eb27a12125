-- Keep a tree of 20000 leaves alive across one requested census: its
-- 19999 Node constructors (3 words each) are the biggest band of the .hp
-- file, named by info table address, and lookupIPE names that table.
module Main (main) where

import Control.Concurrent (threadDelay)
import Data.List (isPrefixOf, maximumBy)
import Data.Ord (comparing)
import Foreign.C.String (CString, peekCString, withCString)

data T = Leaf !Int | Node T T

build :: Int -> Int -> T
build lo hi | lo == hi = Leaf lo
            | otherwise = let m = (lo + hi) `div` 2 in Node (build lo m) (build (m + 1) hi)

size :: T -> Int
size (Leaf _) = 1
size (Node l r) = size l + size r

foreign import ccall unsafe "requestHeapCensus" requestHeapCensus :: IO ()
foreign import ccall unsafe "labelOf" labelOf :: CString -> IO CString

main :: IO ()
main = do
  let t = build 1 20000
  print (size t)
  requestHeapCensus
  threadDelay 20000
  hp <- lines <$> readFile "heap_prof_info_table.hp"
  let sample = takeWhile (not . ("END_SAMPLE" `isPrefixOf`))
             . drop 1 . dropWhile (not . ("BEGIN_SAMPLE" `isPrefixOf`))
             . drop 1 . dropWhile (not . ("END_SAMPLE" `isPrefixOf`)) $ hp
      bands = [(b, read n :: Int) | l <- sample, [b, n] <- [words l]]
      (top, _) = maximumBy (comparing snd) bands
  putStrLn ("bands named by address: " ++ show (all (("0x" `isPrefixOf`) . fst) bands))
  label <- withCString top labelOf >>= peekCString
  putStrLn ("biggest band: " ++ label)
  print (size t)
