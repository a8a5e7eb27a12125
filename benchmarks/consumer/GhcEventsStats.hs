-- | The ghc-events side of benchmarks/consumer: the same run summary as
-- `rtscope stats` (event count, GC collections and pauses, max live,
-- allocation, heap samples, markers), computed with the ghc-events library
-- the way Haskell eventlog tools do (read everything, sort, fold).
module Main (main) where

import Data.List (foldl')
import Data.Word (Word64)
import qualified Data.Map.Strict as M
import GHC.RTS.Events
import System.Environment (getArgs)

data S = S
  { sEvents :: !Int, sGcs :: !Int, sPause :: !Timestamp, sMaxPause :: !Timestamp
  , sMaxLive :: !Word64, sSamples :: !Int, sMarkers :: !Int
  , sAlloc :: !(M.Map Int Word64), sGcStart :: !(M.Map Int Timestamp) }

step :: S -> Event -> S
step s e =
  let s' = s {sEvents = sEvents s + 1}
      cap = maybe 0 id (evCap e)
   in case evSpec e of
        StartGC -> s' {sGcStart = M.insert cap (evTime e) (sGcStart s')}
        EndGC -> case M.lookup cap (sGcStart s') of
          Just t0 -> let p = evTime e - t0 in s' {sGcs = sGcs s' + 1, sPause = sPause s' + p, sMaxPause = max p (sMaxPause s'), sGcStart = M.delete cap (sGcStart s')}
          Nothing -> s'
        HeapLive {liveBytes = b} -> s' {sMaxLive = max b (sMaxLive s')}
        HeapAllocated {allocBytes = b} -> s' {sAlloc = M.insert cap b (sAlloc s')}
        HeapProfSampleBegin {} -> s' {sSamples = sSamples s' + 1}
        UserMarker {} -> s' {sMarkers = sMarkers s' + 1}
        _ -> s'

main :: IO ()
main = do
  [f] <- getArgs
  Right (EventLog _ (Data evs)) <- readEventLogFromFile f
  let s = foldl' step (S 0 0 0 0 0 0 0 M.empty M.empty) (sortEvents evs)
  putStrLn ("events: " ++ show (sEvents s))
  putStrLn ("gc collections: " ++ show (sGcs s))
  putStrLn ("gc pause total: " ++ show (sPause s) ++ " ns, max " ++ show (sMaxPause s))
  putStrLn ("max live: " ++ show (sMaxLive s))
  putStrLn ("allocated: " ++ show (sum (M.elems (sAlloc s))))
  putStrLn ("heap samples: " ++ show (sSamples s))
  putStrLn ("markers: " ++ show (sMarkers s))
