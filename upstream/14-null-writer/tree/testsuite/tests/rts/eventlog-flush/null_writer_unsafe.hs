module Main (main) where

main :: IO ()
main = putStrLn "ran"
