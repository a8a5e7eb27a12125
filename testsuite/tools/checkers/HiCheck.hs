-- HiCheck: an independent reading of -hi eventlogs with Debian's ghc-events.
--
--   HiCheck validate EVENTLOG   structure of a -hi eventlog (exit 1 if bad)
--   HiCheck bands EVENTLOG [N]  bands of the N-th census from the end
--                               (default 1: the last non-empty census;
--                               "peak": the census with the most bytes),
--                               biggest first, with their provenance:
--                               bytes label closure_type type name module
--                               srcloc table_name   (tab-separated)
--   HiCheck top EVENTLOG        the biggest band of each census, one a
--                               line, as bands prints it without bytes
--   HiCheck totals EVENTLOG     total bytes of each census, one a line
--   HiCheck coverage EVENTLOG   names coverage: for each census, the share
--                               of its non-RTS bytes (tables that are not
--                               the RTS's own stg_ ones) in tables whose
--                               InfoTableProv carries a module and a
--                               label; prints "census N: PCT% of BYTES"
--                               a line, then "min PCT" and the biggest
--                               unnamed bands of the worst census
--
-- validate checks what a consumer relies on: the heap profile's breakdown
-- is HeapProfBreakdownInfoTable; every sample label is an info table
-- address ("0x..."); exactly one InfoTableProv per distinct label, and it
-- comes before the first sample that uses the label, in file order and in
-- time; no InfoTableProv that no sample uses.
module Main (main) where

import Control.Monad (forM_, unless, when)
import Data.List (foldl', sortBy)
import qualified Data.Map.Strict as M
import Data.Ord (comparing, Down (..))
import qualified Data.Text as T
import Data.Word (Word64)
import GHC.RTS.Events
import Numeric (readHex)
import System.Environment (getArgs)
import System.Exit
import System.IO

data Prov = Prov
  { pTable :: String, pClosure :: Int, pTy :: String
  , pLabel :: String, pModule :: String, pSrc :: String }

-- a census: its samples (label, bytes)
type Census = [(String, Word64)]

load :: FilePath -> IO [Event]
load f = do
  r <- readEventLogFromFile f
  case r of
    Left e -> die ("HiCheck: " ++ f ++ ": " ++ e)
    Right (EventLog _ (Data evs)) -> return evs

parseAddr :: String -> Maybe Word64
parseAddr ('0':'x':h) | not (null h) = case readHex h of
  [(v, "")] -> Just v
  _ -> Nothing
parseAddr _ = Nothing

censuses :: [Event] -> [Census]
censuses = go Nothing
  where
    go _ [] = []
    go cur (e:es) = case evSpec e of
      HeapProfSampleBegin{} -> go (Just []) es
      HeapProfSampleString{heapProfLabel = l, heapProfResidency = r}
        | Just acc <- cur -> go (Just ((T.unpack l, r) : acc)) es
      HeapProfSampleEnd{} | Just acc <- cur -> reverse acc : go Nothing es
      _ -> go cur es

provs :: [Event] -> M.Map Word64 Prov
provs evs = M.fromList
  [ (itInfo s, Prov (T.unpack (itTableName s)) (itClosureDesc s)
                    (T.unpack (itTyDesc s)) (T.unpack (itLabel s))
                    (T.unpack (itModule s)) (noLoc (T.unpack (itSrcLoc s))))
  | e <- evs, s@InfoTableProv{} <- [evSpec e] ]
  where
    -- GHC 9.6 writes file ":" span even when it has neither: no location,
    -- as rtscope reads it (consumer/lib/eventlog/event.c)
    noLoc l = if l == ":" then "" else l

validate :: [Event] -> IO ()
validate evs = do
  let bds = [ heapProfBreakdown s | e <- evs, s@HeapProfBegin{} <- [evSpec e] ]
  when (null bds) $ die "HiCheck: no HeapProfBegin"
  forM_ bds $ \b -> case b of
    HeapProfBreakdownInfoTable -> return ()
    other -> die ("HiCheck: breakdown is " ++ show other)
  -- walk in file order: (seen provs with time, errors, labels used)
  let step (seen, errs, used, nsamples) e = case evSpec e of
        s@InfoTableProv{} ->
          let a = itInfo s
              errs' = if M.member a seen
                        then ("InfoTableProv for 0x" ++ showHex' a ++ " posted twice") : errs
                        else errs
          in (M.insert a (evTime e) seen, errs', used, nsamples)
        HeapProfSampleString{heapProfLabel = l} ->
          let ls = T.unpack l in
          case parseAddr ls of
            Nothing -> (seen, ("sample label " ++ show ls ++ " is not an address") : errs, used, nsamples + 1)
            Just a -> case M.lookup a seen of
              Nothing -> (seen, ("sample " ++ ls ++ " before its InfoTableProv") : errs, used, nsamples + 1)
              Just t | t > evTime e -> (seen, ("InfoTableProv of " ++ ls ++ " is later in time than its sample") : errs, used, nsamples + 1)
                     | otherwise -> (seen, errs, M.insert a () used, nsamples + 1)
        _ -> (seen, errs, used, nsamples)
      (seenF, errsF, usedF, n) = foldl' step (M.empty, [], M.empty, 0 :: Int) evs
      unused = M.keys (M.difference seenF usedF)
  unless (null errsF) $ do
    mapM_ (hPutStrLn stderr . ("HiCheck: " ++)) (take 10 (reverse errsF))
    exitFailure
  unless (null unused) $
    die ("HiCheck: InfoTableProv never used by a sample: " ++ show (map showHex' (take 5 unused)))
  when (n == 0) $ die "HiCheck: no heap samples"
  putStrLn ("ok: " ++ show (length (censuses evs)) ++ " censuses, " ++ show n
            ++ " samples, " ++ show (M.size usedF) ++ " labels, "
            ++ show (M.size seenF) ++ " InfoTableProv")

showHex' :: Word64 -> String
showHex' w = let s = go w "" in if null s then "0" else s
  where go 0 acc = acc
        go v acc = go (v `div` 16) ("0123456789abcdef" !! fromIntegral (v `mod` 16) : acc)

bandRow :: M.Map Word64 Prov -> (String, Word64) -> [String]
bandRow ps (l, r) =
  let p = parseAddr l >>= \a -> M.lookup a ps
      cols = case p of
        Nothing -> ["", "", "", "", "", ""]
        Just q -> [show (pClosure q), pTy q, pLabel q, pModule q, pSrc q, pTable q]
  in show r : l : cols

tsv :: [String] -> String
tsv = foldr1 (\a b -> a ++ "\t" ++ b)

top :: [Event] -> IO ()
top evs = do
  let ps = provs evs
  forM_ (filter (not . null) (censuses evs)) $ \c ->
    putStrLn (tsv (drop 1 (bandRow ps (head (sortBy (comparing (Down . snd)) c)))))

bands :: [Event] -> Maybe Int -> IO ()
bands evs which = do
  let cs = filter (not . null) (censuses evs)
      ps = provs evs
      total = sum . map snd
  when (null cs) $ die "HiCheck: no census"
  c <- case which of
    Nothing -> return (snd (maximum [ (total x, x) | x <- cs ]))
    Just n -> do
      when (length cs < n) $ die "HiCheck: not that many censuses"
      return (cs !! (length cs - n))
  forM_ (sortBy (comparing (Down . snd)) c) $ \b -> putStrLn (tsv (bandRow ps b))

-- The RTS's own tables (stg_ARR_WORDS, stg_TSO, ...) belong to no module.
isRts :: Maybe Prov -> Bool
isRts (Just q) = take 4 (pTable q) == "stg_" || take 4 (pLabel q) == "stg_"
isRts Nothing = False

named :: Maybe Prov -> Bool
named (Just q) = not (null (pModule q)) && not (null (pLabel q))
named Nothing = False

coverage :: [Event] -> IO ()
coverage evs = do
  let ps = provs evs
      look (l, _) = parseAddr l >>= \a -> M.lookup a ps
      cs = [ c | c <- censuses evs, any (not . isRts . look) c ]
      share c = let app = [ b | b <- c, not (isRts (look b)) ]
                    tot = sum (map snd app)
                    ok = sum [ r | b@(_, r) <- app, named (look b) ]
                in (if tot == 0 then 100 else 100 * fromIntegral ok / fromIntegral tot :: Double, tot)
      rows = zip [1 :: Int ..] (map share cs)
  when (null cs) $ die "HiCheck: no census with non-RTS bytes"
  forM_ rows $ \(i, (p, t)) -> putStrLn ("census " ++ show i ++ ": " ++ fmt p ++ "% of " ++ show t)
  let (worst, (wp, _)) = head (sortBy (comparing (fst . snd)) rows)
  putStrLn ("min " ++ fmt wp)
  hPutStrLn stderr ("biggest unnamed bands of census " ++ show worst ++ ":")
  forM_ (take 5 (sortBy (comparing (Down . snd))
                   [ b | b <- cs !! (worst - 1), not (isRts (look b)), not (named (look b)) ])) $ \b ->
    hPutStrLn stderr ("  " ++ tsv (bandRow ps b))
  where fmt x = show (fromIntegral (round (x * 100) :: Int) / 100 :: Double)

main :: IO ()
main = do
  args <- getArgs
  case args of
    ["validate", f] -> load f >>= validate
    ["bands", f] -> load f >>= \e -> bands e (Just 1)
    ["bands", f, "peak"] -> load f >>= \e -> bands e Nothing
    ["bands", f, k] -> load f >>= \e -> bands e (Just (read k))
    ["top", f] -> load f >>= top
    ["coverage", f] -> load f >>= coverage
    ["totals", f] -> load f >>= \e -> mapM_ (print . sum . map snd) (censuses e)
    _ -> die "usage: HiCheck validate|bands|top|totals|coverage EVENTLOG [N|peak]"
