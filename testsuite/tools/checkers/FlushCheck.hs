-- testsuite/tools/checkers/FlushCheck.hs: is an eventlog on disk usable as far as it
-- has been flushed?  Built with Debian's ghc and ghc-events (an independent
-- parser), used by the flush-* cases.
--
--   FlushCheck FILE [PREFIX_OUT]
--
-- The RTS writes an eventlog as a header followed by whole blocks (each a
-- block-marker event carrying the block's length, then its events), and a
-- 0xFFFF end-of-data marker at a clean exit.  A file read while the program
-- runs, or left by a killed program, ends without the marker and may end in
-- the middle of the block that was being written.  So:
--
--  1. Walk the blocks by their lengths: the file must be header, whole
--     blocks, then either nothing, the end marker, or one torn block whose
--     declared length runs past the end of the file.  Anything else (bytes
--     that are not a block marker where one must start, data after the end
--     marker) is corruption.
--  2. Parse header + whole blocks (+ an end marker) with ghc-events: it must
--     parse to the end without an error.
--
-- Prints key/value lines for the test's checks and exits 1 if either step
-- fails.  With PREFIX_OUT, also writes header + whole blocks + end marker
-- there: the part of the log that was flushed, as a complete eventlog that
-- any tool can read.
{-# LANGUAGE LambdaCase #-}
module Main (main) where

import qualified Data.ByteString.Lazy as BL
import qualified Data.Text as T
import Data.Bits (shiftL, (.|.))
import Data.List (foldl')
import Data.Word (Word64)
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog, readHeader)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode(..))
import System.IO (hPutStrLn, stderr)

data End = DataEnd | Eof | Torn Int | Garbage Int String

walk :: BL.ByteString -> Int -> Int -> (Int, Int, End)
-- (bytes of whole blocks, number of blocks, how the file ends)
walk bs off n
  | BL.null rest = (off, n, Eof)
  | BL.length rest == 2 && be rest 0 2 == 0xffff = (off, n, DataEnd)
  | be rest 0 2 == 0xffff = (off, n, Garbage off "data after the end-of-data marker")
  | BL.length rest < 24 = (off, n, Torn (fromIntegral (BL.length rest)))
  | be rest 0 2 /= 18 = (off, n, Garbage off ("event type " ++ show (be rest 0 2) ++ " where a block marker must start"))
  | size < 24 = (off, n, Garbage off ("block length " ++ show size))
  | fromIntegral size > BL.length rest = (off, n, Torn (fromIntegral (BL.length rest)))
  | otherwise = walk bs (off + fromIntegral size) (n + 1)
  where
    rest = BL.drop (fromIntegral off) bs
    size = be rest 10 4

be :: BL.ByteString -> Int -> Int -> Word64
be b o k = foldl' (\a i -> a `shiftL` 8 .|. fromIntegral (BL.index b (fromIntegral (o + i)))) 0 [0 .. k - 1]

main :: IO ()
main = do
  args <- getArgs
  let file = head args
  bs <- BL.readFile file
  (hdrLen, _) <- case readHeader bs of
    Left err -> die' ("header does not parse: " ++ err)
    Right (_, rest) -> pure (fromIntegral (BL.length bs - BL.length rest) :: Int, ())
  let (whole, nblocks, end) = walk bs hdrLen 0
  case end of
    Garbage off what -> die' ("corrupt at offset " ++ show off ++ ": " ++ what)
    _ -> pure ()
  let prefix = BL.take (fromIntegral whole) bs <> BL.pack [0xff, 0xff]
  evs <- case readEventLog prefix of
    Left err -> die' ("ghc-events: " ++ err)
    Right (_, Just err) -> die' ("ghc-events stops early: " ++ err)
    Right (EventLog _ (Data es), Nothing) -> pure es
  case drop 1 args of
    (out:_) -> BL.writeFile out prefix
    [] -> pure ()
  let real = [e | e <- evs, not (isBlock (evSpec e))]
      samples = completeSamples real
  putStrLn ("structure ok")
  putStrLn ("end " ++ case end of
                        DataEnd -> "data-end"; Eof -> "eof"; Torn _ -> "torn"
                        Garbage _ _ -> "garbage")
  putStrLn ("torn_bytes " ++ show (case end of Torn k -> k; _ -> 0))
  putStrLn ("blocks " ++ show (nblocks :: Int))
  putStrLn ("events " ++ show (length real))
  putStrLn ("samples " ++ show (length samples))
  putStrLn ("last_ns " ++ show (maximum (0 : map evTime real)))
  putStrLn ("first " ++ unwords (map (evName . evSpec) (take 12 real)))
  -- the kinds of init event in the run of init events the stream begins with
  putStrLn ("leading_init " ++ unwords (nubOrd (map (evName . evSpec)
                                          (takeWhile (isInit . evSpec) real))))
  mapM_ (\(k, p) -> putStrLn ("count " ++ k ++ " " ++ show (length (filter (p . evSpec) real))))
    [ ("wallclock", \case WallClockTime{} -> True; _ -> False)
    , ("pid", \case OsProcessPid{} -> True; _ -> False)
    , ("rtsid", \case RtsIdentifier{} -> True; _ -> False)
    , ("args", \case ProgramArgs{} -> True; _ -> False)
    , ("heapinfo", \case HeapInfoGHC{} -> True; _ -> False)
    , ("heapprofbegin", \case HeapProfBegin{} -> True; _ -> False)
    , ("capcreate", \case CapCreate{} -> True; _ -> False)
    ]
  mapM_ (\e -> case evSpec e of
                 UserMarker m -> putStrLn ("marker " ++ T.unpack m ++ " " ++ show (evTime e))
                 _ -> pure ()) real
  mapM_ (\t -> putStrLn ("sample_ns " ++ show t)) samples
  where
    isBlock EventBlock{} = True
    isBlock _ = False
    die' msg = hPutStrLn stderr ("FlushCheck: " ++ msg) >> exitWith (ExitFailure 1)

isInit :: EventInfo -> Bool
isInit = \case
  CapsetCreate{} -> True; CapsetAssignCap{} -> True; CapCreate{} -> True
  CapDisable{} -> True; WallClockTime{} -> True; OsProcessPid{} -> True
  OsProcessParentPid{} -> True; RtsIdentifier{} -> True; ProgramArgs{} -> True
  ProgramEnv{} -> True; HeapInfoGHC{} -> True; HeapProfBegin{} -> True
  _ -> False

nubOrd :: [String] -> [String]
nubOrd = go []
  where go seen (x:xs) | x `elem` seen = go seen xs | otherwise = x : go (x:seen) xs
        go _ [] = []

-- Begin times of samples whose end is in the log too.
completeSamples :: [Event] -> [Word64]
completeSamples es =
  [ evTime b | b <- es, HeapProfSampleBegin era <- [evSpec b]
  , any (\e -> case evSpec e of HeapProfSampleEnd era' -> era' == era && evTime e >= evTime b; _ -> False) es ]

evName :: EventInfo -> String
evName = \case
  WallClockTime{} -> "wallclock"; OsProcessPid{} -> "pid"; OsProcessParentPid{} -> "ppid"
  RtsIdentifier{} -> "rtsid"; ProgramArgs{} -> "args"; HeapInfoGHC{} -> "heapinfo"
  HeapProfBegin{} -> "heapprofbegin"; CapCreate{} -> "capcreate"
  CapsetCreate{} -> "capsetcreate"; CapsetAssignCap{} -> "capsetassign"
  e -> takeWhile (/= ' ') (show e)
