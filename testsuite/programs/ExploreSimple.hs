-- The workshop's "simple" program (../shared/seeds/workshop.md, "Simple
-- examples with the TUI"), for rtscope explore: eight values saved with
-- saveClosures (an unevaluated length thunk, an evaluated one, a list, a
-- pair, a function, a Map, a strict box, a Just of a strict box).
--
--   ExploreSimple            asks for a number, then waits to be explored
--   ExploreSimple N          saves the values for N and ends
--   ExploreSimple N HOLD     ... then prints "tick K" every 0.2 s until the
--                            file HOLD exists, then "done"
--   ExploreSimple N HOLD dups ... and holds copies while it waits (not saved):
--                            150 strings "copy 0" and 100 ByteStrings
--                            "payload 0", each built apart (rtscope
--                            explore's duplicate views)
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Exception (evaluate)
import qualified Data.ByteString.Char8 as B
import qualified Data.Map.Strict as M
import GHC.Debug.Stub (Box (..), saveClosures, withGhcDebug)
import System.Directory (doesFileExist)
import System.Environment (getArgs)
import System.IO

data StrictBox = StrictBox !Int

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  (n, hold) <- case args of
    [a] -> pure (read a, Just Nothing)
    (a : h : _) -> pure (read a, Just (Just h))
    _ -> do
      putStrLn "Enter a number:"
      x <- readLn
      pure (x, Nothing)
  let copies = drop 2 args == ["dups"]
      strs = [ "copy " ++ show (i `mod` 1) | copies, i <- [1 .. 150 :: Int]]
      bytes = [B.pack ("payload " ++ show (i `mod` 1)) | copies, i <- [1 .. 100 :: Int]]
  _ <- evaluate (sum (map length strs) + sum (map B.length bytes))
  withGhcDebug $ do
    let xs = [1 .. n] :: [Int]
        unevaluated = length xs
        evaluated = length [n .. 2 * n]
        pair = (n, show n)
        fun = \x -> x + n
        m = M.fromList [(i, show i) | i <- [1 .. n]]
        box = StrictBox n
        jbox = Just (StrictBox (n * 2))
    _ <- evaluate evaluated
    _ <- evaluate (sum xs)
    _ <- evaluate (fst pair)
    _ <- evaluate m
    _ <- evaluate box
    _ <- evaluate jbox
    saveClosures
      [ Box unevaluated, Box evaluated, Box xs, Box pair
      , Box fun, Box m, Box box, Box jbox ]
    putStrLn "Pausing for interruption by ghc-debug"
    case hold of
      Nothing -> waitFor Nothing 1
      Just Nothing -> pure ()
      Just h -> waitFor h 1
    _ <- evaluate (length strs + length bytes)
    putStrLn "done"

-- "tick K" every 0.2 s until the hold file exists (forever without one).
waitFor :: Maybe FilePath -> Int -> IO ()
waitFor h k = do
  stop <- maybe (pure False) doesFileExist h
  if stop
    then pure ()
    else do
      threadDelay 200000
      putStrLn ("tick " ++ show k)
      waitFor h (k + 1)
