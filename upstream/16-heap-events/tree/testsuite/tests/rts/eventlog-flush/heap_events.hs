-- GHC 9.2's heap memory events: the header declares EVENT_MEM_RETURN (90)
-- and EVENT_BLOCKS_SIZE (91) with 9.2's payload sizes; every GC posts
-- BLOCKS_SIZE next to HEAP_SIZE (50), within (0, heap size]; every major
-- GC posts MEM_RETURN next to HEAP_LIVE (51), never returning more
-- megablocks than it holds beyond its need; and once a large list dies,
-- a major GC returns megablocks to the OS.
module Main (main) where

import Control.Exception (evaluate)
import Control.Monad (forM)
import Foreign.C.Types (CInt (..), CLLong (..), CLong (..))
import System.Mem (performMajorGC)

foreign import ccall safe "endEventLogCapture" endCapture :: IO ()
foreign import ccall unsafe "countEvents" countEvents :: CInt -> CInt -> IO CLong
foreign import ccall unsafe "declaredSize" declaredSize :: CInt -> CInt -> IO CLong
foreign import ccall unsafe "eventField"
  eventField :: CInt -> CInt -> CLong -> CInt -> CInt -> IO CLLong

main :: IO ()
main = do
  let xs = [1 .. 2000000 :: Int]
  total <- evaluate (sum xs)
  len <- evaluate (length xs)   -- xs is live until here
  print (total, len)
  mapM_ (const performMajorGC) [1 .. 3 :: Int]
  endCapture
  memReturnSize <- declaredSize 0 90
  blocksSizeSize <- declaredSize 0 91
  putStrLn ("declared sizes: MEM_RETURN " ++ show memReturnSize
            ++ ", BLOCKS_SIZE " ++ show blocksSizeSize)
  nHeap <- countEvents 0 50
  nBlocks <- countEvents 0 91
  nLive <- countEvents 0 51
  nReturn <- countEvents 0 90
  putStrLn ("a BLOCKS_SIZE per HEAP_SIZE: " ++ show (nBlocks == nHeap && nBlocks >= 3))
  putStrLn ("a MEM_RETURN per HEAP_LIVE: " ++ show (nReturn == nLive && nReturn >= 3))
  inRange <- forM [0 .. nBlocks - 1] $ \i -> do
    heap <- eventField 0 50 i 4 8
    blocks <- eventField 0 91 i 4 8
    return (blocks > 0 && blocks <= heap)
  putStrLn ("blocks size within (0, heap size]: " ++ show (and inRange))
  returns <- forM [0 .. nReturn - 1] $ \i -> mapM (\o -> eventField 0 90 i o 4) [4, 8, 12]
  putStrLn ("returned <= current - needed: "
            ++ show (and [r <= max (c - n) 0 | [c, n, r] <- returns]))
  putStrLn ("megablocks returned after the list died: "
            ++ show (or [r > 0 | [_, _, r] <- returns]))
