-- Service: the example application of docs/guide.md, a small request
-- handler with three memory problems real services have:
--
--   map     the request log keeps every request, forever (a Map that
--           only grows);
--   thunk   the statistics are updated with a lazy modifyIORef: each
--           request adds a thunk to a chain nobody forces;
--   pinned  a login keeps its session id as a slice of the request body:
--           the slice shares the body's pinned buffer, so every session
--           keeps a whole pinned block alive (fragmentation).
--
-- The fixed code is in the same file, chosen at run time, so that the
-- guide can show both profiles from one binary.
--
--   Service [--requests N] [--rate R] [--fix=map,thunk,pinned | --fixed]
--           [--wait-for FILE]
--
-- --requests N   requests to handle (default 60000)
-- --rate R       at most R requests per second (default: as fast as it can)
-- --fix=LIST     run the fixed code for these problems; --fixed: all three
-- --wait-for F   when done, print "ready: ..." and wait until the file F
--                exists before printing the summary and exiting (so a
--                debugger or a scraper can look at the final heap)
--
-- Every 10000 requests it puts a marker in the eventlog (traceMarkerIO).
-- The output depends only on the arguments.
{-# LANGUAGE BangPatterns, OverloadedStrings #-}
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Monad (forM_, unless, when)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import qualified Data.ByteString.Short as SBS
import Data.IORef
import Debug.Trace (traceMarkerIO)
import GHC.Clock (getMonotonicTime)
import qualified Data.IntMap.Strict as IM
import Data.List (foldl', isPrefixOf)
import qualified Data.Map.Strict as M
import System.Directory (doesFileExist)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (..))
import System.IO

-- | A request as the handler sees it: the body is the raw bytes read from
-- the client (a pinned ByteString, as every ByteString read from a socket
-- or file is).
data Request = Request { reqId :: !Int, reqPath :: !B.ByteString, reqBody :: !B.ByteString }

-- | Request counters. The fields are lazy: see 'countRequest'.
data Stats = Stats
  { statRequests :: Int
  , statBytes    :: Int
  }

-- | A logged-in session. Its id is either a slice of the login request's
-- body (sharing that body's pinned buffer) or an unpinned copy.
data Session = Session !Int !SessionId

data SessionId
  = SliceOf !B.ByteString        -- ^ points into the request body
  | Copied !SBS.ShortByteString  -- ^ 16 bytes of its own, movable

data Fixes = Fixes { fixMap, fixThunk, fixPinned :: !Bool }

data Server = Server
  { srvFixes    :: !Fixes
  , srvLog      :: !(IORef (M.Map Int Request))
  , srvStats    :: !(IORef Stats)
  , srvSessions :: !(IORef (IM.IntMap Session))
  , srvLogins   :: !(IORef Int)
  }

-- | The request log keeps this many requests when the map leak is fixed.
logLimit :: Int
logLimit = 1000

-- | The session table keeps this many sessions (the oldest are logged out).
sessionLimit :: Int
sessionLimit = 1000

-- | Handle one request; the response is a checksum of the body.
handle :: Server -> Request -> IO Int
handle srv req = do
  let fixes = srvFixes srv
      !size = B.length (reqBody req)
  -- the request log
  if fixMap fixes
    then modifyIORef' (srvLog srv) (M.delete (reqId req - logLimit) . M.insert (reqId req) req)
    else modifyIORef' (srvLog srv) (M.insert (reqId req) req)  -- LEAK: never pruned
  -- the statistics
  if fixThunk fixes
    then modifyIORef' (srvStats srv) (countRequest' size)
    else modifyIORef (srvStats srv) (countRequest size)         -- LEAK: a chain of thunks
  -- sessions
  when (reqPath req == "/login") $ do
    n <- readIORef (srvLogins srv)
    writeIORef (srvLogins srv) (n + 1)
    let slice = sessionCookie (reqBody req)
        sid | fixPinned fixes = Copied (SBS.toShort slice)
            | otherwise       = SliceOf slice                   -- LEAK: pins the body
    modifyIORef' (srvSessions srv) (IM.delete (n - sessionLimit) . IM.insert n (Session (reqId req) sid))
  return $! B.foldl' (\h w -> (h * 31 + fromIntegral w) `mod` 1000000007) 7 (reqBody req)

-- | Count a request (lazily: 'modifyIORef' stores this call unevaluated,
-- and the lazy fields would keep their sums unevaluated too).
countRequest :: Int -> Stats -> Stats
countRequest size s = s { statRequests = statRequests s + 1, statBytes = statBytes s + size }

-- | Count a request, evaluating the sums now.
countRequest' :: Int -> Stats -> Stats
countRequest' size (Stats n b) = let !n' = n + 1; !b' = b + size in Stats n' b'

-- | The 16 bytes after "session=" in a request body.
sessionCookie :: B.ByteString -> B.ByteString
sessionCookie body = B.take 16 (B.drop 8 (snd (B.breakSubstring "session=" body)))

-- | The I-th request, as if read from the network: one fresh pinned
-- buffer of 150 to 450 bytes per request; the path is a slice of it.
mkRequest :: Int -> Request
mkRequest i = Request i (BC.takeWhile (/= ' ') (B.drop 5 body)) body
  where
    r = (i * 1103515245 + 12345) `mod` 2147483648
    path | r `mod` 20 == 0 = "/login"
         | otherwise       = paths !! (r `mod` length paths)
    cookie = take 16 (show (r * 7919) ++ repeat '0')
    body = BC.pack ("POST " ++ path ++ " HTTP/1.1\r\nCookie: session=" ++ cookie
                    ++ "\r\n\r\n" ++ replicate (100 + r `mod` 300) 'x')

paths :: [String]
paths = ["/cart", "/search", "/item", "/checkout"]

data Options = Options
  { optRequests :: !Int
  , optRate     :: !Int
  , optFixes    :: !Fixes
  , optWaitFor  :: !(Maybe FilePath)
  }

parseArgs :: [String] -> IO Options
parseArgs = go (Options 60000 0 (Fixes False False False) Nothing)
  where
    go o [] = return o
    go o ("--requests" : n : rest) | [(k, "")] <- reads n, k >= 0 = go o { optRequests = k } rest
    go o ("--rate" : n : rest) | [(k, "")] <- reads n, k >= 0 = go o { optRate = k } rest
    go o ("--fixed" : rest) = go o { optFixes = Fixes True True True } rest
    go o (a : rest)
      | "--fix=" `isPrefixOf` a
      , Just f <- foldl' fixOne (Just (optFixes o)) (splitComma (drop 6 a))
      = go o { optFixes = f } rest
    go o ("--wait-for" : file : rest) = go o { optWaitFor = Just file } rest
    go _ (a : _) = do
      hPutStrLn stderr ("Service: bad argument " ++ show a ++ "\nusage: Service [--requests N] [--rate R]"
                        ++ " [--fix=map,thunk,pinned | --fixed] [--wait-for FILE]")
      exitWith (ExitFailure 2)
    fixOne (Just f) "map"    = Just f { fixMap = True }
    fixOne (Just f) "thunk"  = Just f { fixThunk = True }
    fixOne (Just f) "pinned" = Just f { fixPinned = True }
    fixOne _ _               = Nothing
    splitComma s = case break (== ',') s of
      (x, [])       -> [x]
      (x, _ : rest) -> x : splitComma rest

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  Options n rate fixes waitFor <- getArgs >>= parseArgs
  srv <- Server fixes <$> newIORef M.empty <*> newIORef (Stats 0 0)
                      <*> newIORef IM.empty <*> newIORef 0
  sumRef <- newIORef (0 :: Int)
  t0 <- getMonotonicTime
  let batch = max 1 (rate `div` 100)
  forM_ [1 .. n] $ \i -> do
    h <- handle srv (mkRequest i)
    modifyIORef' sumRef (\s -> (s + h) `mod` 1000000007)
    when (i `mod` 10000 == 0) $ traceMarkerIO ("handled " ++ show i ++ " requests")
    when (rate > 0 && i `mod` batch == 0) $ do
      now <- getMonotonicTime
      let due = t0 + fromIntegral i / fromIntegral rate
      when (due > now) $ threadDelay (ceiling ((due - now) * 1e6))
  case waitFor of
    Nothing -> return ()
    Just file -> do
      putStrLn ("ready: " ++ show n ++ " requests handled; waiting for " ++ file)
      let wait = do e <- doesFileExist file
                    unless e (threadDelay 50000 >> wait)
      wait
  reqLog <- readIORef (srvLog srv)
  stats <- readIORef (srvStats srv)
  sessions <- readIORef (srvSessions srv)
  checksum <- readIORef sumRef
  putStrLn ("handled " ++ show (statRequests stats) ++ " requests, "
            ++ show (statBytes stats) ++ " bytes; checksum " ++ show checksum)
  putStrLn ("request log: " ++ show (M.size reqLog) ++ " requests; sessions: "
            ++ show (IM.size sessions))
