module Main (main) where

foreign import ccall safe "lookupCons" lookupCons :: IO ()

main :: IO ()
main = lookupCons
