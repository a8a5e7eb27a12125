-- The Setup of every package under haskell/ (build-type Simple).
import Distribution.Simple
main :: IO ()
main = defaultMain
