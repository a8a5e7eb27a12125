-- FlushRestart: stops and restarts eventlogging ROUNDS times, each new
-- stream going to stream-NN.eventlog through the custom EventLogWriter in
-- flush_restart.c; some work and a marker "stream N" in between.
--   FlushRestart ROUNDS
module Main (main) where

import Control.Monad (forM)
import qualified Data.Map.Strict as M
import Debug.Trace (traceMarkerIO)
import Foreign.C.Types (CInt(..))
import System.Environment (getArgs)

foreign import ccall safe "restart_eventlog" restartEventlog :: IO CInt

main :: IO ()
main = do
  args <- getArgs
  let rounds = case args of (a:_) -> read a; _ -> 30 :: Int
  oks <- forM [0 .. rounds - 1] $ \i -> do
    traceMarkerIO ("stream " ++ show i)
    let m = M.fromList [(k, k * i) | k <- [1 .. 20000]]
    print (M.foldl' (+) 0 m `mod` 97)
    restartEventlog
  traceMarkerIO ("stream " ++ show rounds)
  putStrLn (if all (== 1) oks then "restarts ok" else "restart failed: " ++ show oks)
