-- | Independent reference for the rtscope consumer: reads an eventlog with
-- the ghc-events library (Debian's libghc-ghc-events-dev) and prints the
-- same canonical summary as @rtscope stats --canonical@, so tests can diff
-- the two. See docs/consumer.md, "Canonical summary".
--
-- Build: ghc -O -package ghc-events GhcEventsCheck.hs
-- Usage: GhcEventsCheck FILE.eventlog
module Main (main) where

import qualified Data.ByteString as B
import Data.List (sortOn, sort)
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import qualified Data.Vector.Unboxed as VU
import GHC.RTS.Events
import Numeric (showHex)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (..))
import System.IO

-- | The type number an event was decoded from.
evNum :: EventInfo -> Int
evNum ei = case ei of
  EventBlock {} -> 18
  UnknownEvent {ref = r} -> fromIntegral r
  Startup {} -> 17
  Shutdown {} -> 7
  CreateThread {} -> 0
  RunThread {} -> 1
  StopThread {} -> 2
  ThreadRunnable {} -> 3
  MigrateThread {} -> 4
  WakeupThread {} -> 8
  ThreadLabel {} -> 44
  CreateSparkThread {} -> 15
  SparkCounters {} -> 34
  SparkCreate {} -> 35
  SparkDud {} -> 36
  SparkOverflow {} -> 37
  SparkRun {} -> 38
  SparkSteal {} -> 39
  SparkFizzle {} -> 40
  SparkGC {} -> 41
  TaskCreate {} -> 55
  TaskMigrate {} -> 56
  TaskDelete {} -> 57
  RequestSeqGC {} -> 11
  RequestParGC {} -> 12
  StartGC {} -> 9
  GCWork {} -> 21
  GCIdle {} -> 20
  GCDone {} -> 22
  EndGC {} -> 10
  GlobalSyncGC {} -> 54
  GCStatsGHC {} -> 53
  MemReturn {} -> 90
  HeapAllocated {} -> 49
  HeapSize {} -> 50
  BlocksSize {} -> 91
  HeapLive {} -> 51
  HeapInfoGHC {} -> 52
  CapCreate {} -> 45
  CapDelete {} -> 46
  CapDisable {} -> 47
  CapEnable {} -> 48
  CapsetCreate {} -> 25
  CapsetDelete {} -> 26
  CapsetAssignCap {} -> 27
  CapsetRemoveCap {} -> 28
  RtsIdentifier {} -> 29
  ProgramArgs {} -> 30
  ProgramEnv {} -> 31
  OsProcessPid {} -> 32
  OsProcessParentPid {} -> 33
  WallClockTime {} -> 43
  Message {} -> 16
  UserMessage {} -> 19
  UserMarker {} -> 58
  InternString {} -> 42
  HeapProfBegin {} -> 160
  HeapProfCostCentre {} -> 161
  InfoTableProv {} -> 169
  HeapProfSampleBegin {} -> 162
  HeapProfSampleEnd {} -> 165
  HeapBioProfSampleBegin {} -> 166
  HeapProfSampleCostCentre {} -> 163
  HeapProfSampleString {} -> 164
  ProfSampleCostCentre {} -> 167
  ProfBegin {} -> 168
  UserBinaryMessage {} -> 181
  ConcMarkBegin {} -> 200
  ConcMarkEnd {} -> 201
  ConcSyncBegin {} -> 202
  ConcSyncEnd {} -> 203
  ConcSweepBegin {} -> 204
  ConcSweepEnd {} -> 205
  ConcUpdRemSetFlush {} -> 206
  NonmovingHeapCensus {} -> 207
  TickyCounterDef {} -> 210
  TickyCounterSample {} -> 211
  TickyBeginSample {} -> 212
  _ -> -1 -- Eden, Mercury and perf events: never written by GHC

-- | Bytes for humans, escaped exactly as rtscope's cli_put_str does.
escape :: T.Text -> String
escape = concatMap esc . B.unpack . TE.encodeUtf8
  where
    esc 92 = "\\\\"
    esc w
      | w < 0x20 || w == 0x7f = "\\x" ++ pad (showHex w "")
      | otherwise = [toEnum (fromIntegral w)]
    pad s = replicate (2 - length s) '0' ++ s

data Sample = Sample {sIndex :: Int, sTime :: Timestamp, sValues :: [(String, Word)]}

main :: IO ()
main = do
  args <- getArgs
  file <- case args of
    [f] -> return f
    _ -> hPutStrLn stderr "usage: GhcEventsCheck FILE.eventlog" >> exitWith (ExitFailure 2)
  r <- readEventLogFromFile file
  EventLog _ (Data evs0) <- case r of
    Left e -> hPutStrLn stderr ("GhcEventsCheck: " ++ file ++ ": " ++ e) >> exitWith (ExitFailure 1)
    Right l -> return l
  hSetEncoding stdout char8
  hSetBinaryMode stdout True
  let evs = sortEvents evs0
      counts = M.fromListWith (+) [(evNum (evSpec e), 1 :: Int) | e <- evs, evNum (evSpec e) /= 18]
  putStrLn "rtscope-canonical 1"
  mapM_ (\(n, c) -> putStrLn ("event " ++ show n ++ " " ++ show c)) (M.toList counts)
  mapM_ printSample (samples evs)
  let markers = sort [(evTime e, escape m) | e <- evs, UserMarker {markername = m} <- [evSpec e]]
  mapM_ (\(t, m) -> putStrLn ("marker " ++ show t ++ " " ++ m)) markers
  let ipes =
        sortOn fst
          [ ( itInfo i
            , concatMap (++ "\t") [escape (itTableName i), show (itClosureDesc i), escape (itTyDesc i), escape (itLabel i), escape (itModule i)]
                ++ escape (noLoc (itSrcLoc i))
            )
          | e <- evs
          , i@InfoTableProv {} <- [evSpec e]
          ]
  mapM_ (\(a, l) -> putStrLn ("ipe 0x" ++ showHex a "" ++ " " ++ l)) (M.toList (M.fromList ipes))
  where
    -- GHC 9.6 writes file ":" span even when it has neither; ":" is no
    -- location, as rtscope reads it (consumer/lib/eventlog/event.c)
    noLoc l = if l == T.pack ":" then T.empty else l
    printSample s = do
      putStrLn ("sample " ++ show (sIndex s) ++ " " ++ show (sTime s))
      mapM_ (\(l, v) -> putStrLn ("value " ++ show (sIndex s) ++ " " ++ l ++ " " ++ show v)) (sort (sValues s))

-- | Heap samples in time order: a sample opens at HEAP_PROF_SAMPLE_BEGIN and
-- collects the string and cost-centre values until the next one.
samples :: [Event] -> [Sample]
samples = go 0 Nothing
  where
    go _ cur [] = maybe [] (: []) cur
    go i cur (e : es) = case evSpec e of
      HeapProfSampleBegin {} -> maybe id (:) cur (go (i + 1) (Just (Sample i (evTime e) [])) es)
      HeapBioProfSampleBegin {} -> maybe id (:) cur (go (i + 1) (Just (Sample i (evTime e) [])) es)
      HeapProfSampleEnd {} -> maybe id (:) cur (go i Nothing es)
      HeapProfSampleString {heapProfLabel = l, heapProfResidency = v} ->
        go i (Just (add (escape l) v cur)) es
      HeapProfSampleCostCentre {heapProfStack = st, heapProfResidency = v} ->
        go i (Just (add (ccsLabel st) v cur)) es
      _ -> go i cur es
    add l v cur = case cur of
      Just s -> s {sValues = (l, fromIntegral v) : sValues s}
      Nothing -> Sample (-1) 0 [(l, fromIntegral v)]
    ccsLabel st = "ccs:" ++ commas (map show (VU.toList st))
    commas [] = ""
    commas [x] = x
    commas (x : xs) = x ++ "," ++ commas xs
