-- HiFlags: what base's GHC.RTS.Flags sees of the heap profiling flag
-- (getRTSFlags must keep working in a program run with +RTS -hi).
module Main (main) where

import GHC.RTS.Flags

main :: IO ()
main = do
  p <- getProfFlags
  print (doHeapProfile p)
  f <- getRTSFlags
  print (doHeapProfile (profilingFlags f))
