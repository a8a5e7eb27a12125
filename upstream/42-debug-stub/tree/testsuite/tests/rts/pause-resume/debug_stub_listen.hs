module Main (main) where

foreign import ccall safe "checkStub" checkStub :: IO ()

main :: IO ()
main = checkStub >> putStrLn "exiting"
