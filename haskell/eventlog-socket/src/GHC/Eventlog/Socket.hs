{-# LANGUAGE LambdaCase #-}
{-# LANGUAGE PatternSynonyms #-}
-- |
-- eventlog-socket's Haskell API (0.1.3.0) on rtscope's RTS, which serves
-- the eventlog on a socket itself (@+RTS --eventlog-socket@, rtscope's
-- docs/eventlog-socket.md): these functions drive that socket, so a
-- program written for eventlog-socket builds and streams unchanged.
--
-- What differs from the library (rtscope's docs/haskell-packages.md):
--
--  * the RTS reads eventlog-socket's environment variables at start-up by
--    itself; 'startFromEnv' then finds the socket serving already, which
--    is no error;
--  * 'esoSndbuf' and 'esoLinger' are accepted and not applied (the RTS
--    bounds each client's queue instead: @--eventlog-socket-buffer@);
--  * custom control commands are not supported: 'registerNamespace' and
--    'registerCommand' throw 'EventlogSocketControlUnsupported', as a
--    build of eventlog-socket without its @control@ flag (the default)
--    does; the built-in commands work whatever the build;
--  * hooks run on the program's side: 'HookPostStartEventLogging' when a
--    client has connected, 'HookPreEndEventLogging' when one has gone.
module GHC.Eventlog.Socket
  ( -- * High-level API
    startWith
  , EventlogSocketAddr (..)
  , EventlogSocketOpts (esoWait, esoSndbuf, esoLinger)
  , defaultEventlogSocketOpts
    -- * Configuration via environment
  , startFromEnv
  , fromEnv
  , EventlogSocketAddrError (..)
    -- * Hooks
  , Hook (HookPostStartEventLogging, HookPreEndEventLogging)
  , HookHandler
  , registerHook
    -- * Control commands
  , Namespace
  , CommandId (..)
  , CommandHandler
  , namespaceName
  , registerNamespace
  , registerCommand
  , EventlogSocketControlError (..)
    -- * Legacy API
  , startWait
  , start
  , wait
  ) where

import Control.Concurrent (forkIO, threadDelay)
import Control.Exception (Exception (..), SomeException, throwIO, try)
import Control.Monad (forM_, unless, void, when)
import Data.Int (Int32)
import Data.IORef
import Data.Maybe (isJust)
import Data.Word (Word8)
import Foreign.C.String (CString, withCString)
import Foreign.C.Types (CInt (..), CULong (..))
import Foreign.Marshal.Alloc (alloca)
import Foreign.Ptr (Ptr)
import Foreign.Storable (peek)
import System.Environment (lookupEnv)
import System.IO (hPutStrLn, stderr)
import System.IO.Unsafe (unsafePerformIO)

-- ---------------------------------------------------------------------------
-- Addresses and options

-- | Where the socket listens.
data EventlogSocketAddr
  = EventlogSocketUnixAddr
      { esaUnixPath :: FilePath
        -- ^ Unix domain socket path (at most 107 bytes).
      }
  | EventlogSocketInetAddr
      { esaInetHost :: String
        -- ^ TCP host or interface, e.g. @\"127.0.0.1\"@.
      , esaInetPort :: String
        -- ^ TCP port, e.g. @\"4242\"@.
      }
  deriving (Eq, Show)

-- | Socket options; build them from 'defaultEventlogSocketOpts'.
data EventlogSocketOpts = EventlogSocketOpts
  { esoWait :: Bool
    -- ^ Block 'startWith' until a client has connected.
  , esoSndbuf :: Maybe Int32
    -- ^ Accepted, not applied (see the module's notes).
  , esoLinger :: Maybe Int32
    -- ^ Accepted, not applied.
  }
  deriving (Eq, Show)

defaultEventlogSocketOpts :: EventlogSocketOpts
defaultEventlogSocketOpts = EventlogSocketOpts False Nothing Nothing

-- The RTS's address grammar: PATH or tcp:HOST:PORT ([HOST] for IPv6).
rtsAddress :: EventlogSocketAddr -> String
rtsAddress (EventlogSocketUnixAddr p) = p
rtsAddress (EventlogSocketInetAddr h p)
  | ':' `elem` h && take 1 h /= "[" = "tcp:[" ++ h ++ "]:" ++ p
  | otherwise = "tcp:" ++ h ++ ":" ++ p

foreign import ccall safe "rtscope_eventlog_socket_start"
  c_start :: CString -> IO CInt

foreign import ccall unsafe "rtscope_eventlog_socket_clients"
  c_clients :: Ptr CULong -> Ptr CULong -> IO ()

clients :: IO (Integer, Integer)
clients =
  alloca $ \ever -> alloca $ \now -> do
    c_clients ever now
    (,) <$> (toInteger <$> peek ever) <*> (toInteger <$> peek now)

-- | Serve the eventlog on the given address. Starting again on the address
-- the socket serves on already (from @+RTS --eventlog-socket@ or the
-- environment) does nothing; another address, or a socket that cannot be
-- opened, is an 'IOError' (the RTS says why on stderr). A program run
-- without @+RTS -l@ gets eventlogging with the socket as its only writer.
startWith :: EventlogSocketAddr -> EventlogSocketOpts -> IO ()
startWith addr opts = do
  let a = rtsAddress addr
  r <- withCString a c_start
  case r of
    1 -> return ()
    -1 -> ioError (userError ("eventlog-socket: the RTS serves the eventlog on another address; not " ++ a))
    _ -> ioError (userError ("eventlog-socket: cannot serve the eventlog on " ++ a))
  startHookWatcher
  when (esoWait opts) wait

-- | Block until a client has connected (at any time since the socket
-- started).
wait :: IO ()
wait = do
  (ever, _) <- clients
  unless (ever > 0) $ threadDelay 10000 >> wait

-- | Serve on a Unix socket.
start :: FilePath -> IO ()
start p = startWith (EventlogSocketUnixAddr p) defaultEventlogSocketOpts

-- | Serve on a Unix socket and block until a client connects.
startWait :: FilePath -> IO ()
startWait p = startWith (EventlogSocketUnixAddr p) defaultEventlogSocketOpts {esoWait = True}

-- ---------------------------------------------------------------------------
-- The environment

-- | What 'fromEnv' finds wrong with the environment.
data EventlogSocketAddrError
  = EventlogSocketAddrUnixPathTooLong FilePath
    -- ^ @GHC_EVENTLOG_UNIX_PATH@ is longer than a Unix socket path can be.
  | EventlogSocketAddrInetHostMissing String
    -- ^ @GHC_EVENTLOG_INET_PORT@ (the port given) without a host.
  | EventlogSocketAddrInetPortMissing String
    -- ^ @GHC_EVENTLOG_INET_HOST@ (the host given) without a port.
  deriving (Eq, Show)

instance Exception EventlogSocketAddrError where
  displayException = \case
    EventlogSocketAddrUnixPathTooLong p ->
      "GHC_EVENTLOG_UNIX_PATH is " ++ show (length p)
        ++ " characters; a Unix domain socket path has at most 107: " ++ p
    EventlogSocketAddrInetHostMissing port ->
      "GHC_EVENTLOG_INET_PORT is " ++ port ++ " but GHC_EVENTLOG_INET_HOST is not set"
    EventlogSocketAddrInetPortMissing host ->
      "GHC_EVENTLOG_INET_HOST is " ++ host ++ " but GHC_EVENTLOG_INET_PORT is not set"

-- | The address and options eventlog-socket's variables give:
-- @GHC_EVENTLOG_UNIX_PATH@, else @GHC_EVENTLOG_INET_HOST@ and
-- @GHC_EVENTLOG_INET_PORT@; @GHC_EVENTLOG_WAIT@ (any value) sets 'esoWait'.
fromEnv :: IO (Maybe (EventlogSocketAddr, EventlogSocketOpts))
fromEnv = do
  path <- lookupEnv "GHC_EVENTLOG_UNIX_PATH"
  host <- lookupEnv "GHC_EVENTLOG_INET_HOST"
  port <- lookupEnv "GHC_EVENTLOG_INET_PORT"
  w <- isJust <$> lookupEnv "GHC_EVENTLOG_WAIT"
  let opts = defaultEventlogSocketOpts {esoWait = w}
  case (path, host, port) of
    (Just p, _, _)
      | length p > 107 -> throwIO (EventlogSocketAddrUnixPathTooLong p)
      | otherwise -> return (Just (EventlogSocketUnixAddr p, opts))
    (Nothing, Just h, Just pt) -> return (Just (EventlogSocketInetAddr h pt, opts))
    (Nothing, Nothing, Just pt) -> throwIO (EventlogSocketAddrInetHostMissing pt)
    (Nothing, Just h, Nothing) -> throwIO (EventlogSocketAddrInetPortMissing h)
    (Nothing, Nothing, Nothing) -> return Nothing

-- | 'startWith' what 'fromEnv' finds, if anything.
startFromEnv :: IO ()
startFromEnv = fromEnv >>= maybe (return ()) (uncurry startWith)

-- ---------------------------------------------------------------------------
-- Hooks

-- | When a hook runs.
newtype Hook = Hook Int
  deriving (Eq, Show)

-- | After a client has connected and its eventlog has started.
pattern HookPostStartEventLogging :: Hook
pattern HookPostStartEventLogging = Hook 0

-- | When a client has gone.
pattern HookPreEndEventLogging :: Hook
pattern HookPreEndEventLogging = Hook 1

{-# COMPLETE HookPostStartEventLogging, HookPreEndEventLogging #-}

type HookHandler = IO ()

hooks :: IORef [(Hook, HookHandler)]
hooks = unsafePerformIO (newIORef [])
{-# NOINLINE hooks #-}

watching :: IORef Bool
watching = unsafePerformIO (newIORef False)
{-# NOINLINE watching #-}

-- | Run the handler at every such moment from now on.
registerHook :: Hook -> HookHandler -> IO ()
registerHook h act = do
  atomicModifyIORef' hooks (\hs -> (hs ++ [(h, act)], ()))
  startHookWatcher

-- One thread watches the socket's client counts and runs the hooks; a
-- failing hook is reported and does not stop the others.
startHookWatcher :: IO ()
startHookWatcher = do
  first <- atomicModifyIORef' watching (\w -> (True, not w))
  when first $ do
    c0 <- clients
    void $ forkIO (loop c0)
  where
    loop (ever0, now0) = do
      threadDelay 20000
      (ever, now) <- clients
      hs <- readIORef hooks
      let gone = max 0 (now0 + (ever - ever0) - now)
      forM_ [1 .. ever - ever0] $ \_ -> runHooks HookPostStartEventLogging hs
      forM_ [1 .. gone] $ \_ -> runHooks HookPreEndEventLogging hs
      loop (ever, now)
    runHooks which hs =
      forM_ [act | (h, act) <- hs, h == which] $ \act -> do
        r <- try act
        case r of
          Left e -> hPutStrLn stderr ("eventlog-socket: a hook failed: " ++ show (e :: SomeException))
          Right () -> return ()

-- ---------------------------------------------------------------------------
-- Control commands

-- | A namespace of custom control commands.
newtype Namespace = Namespace String

-- | A command's number in its namespace (1 to 255).
newtype CommandId = CommandId Word8
  deriving (Eq, Show)

type CommandHandler = IO ()

-- | Why a namespace or command could not be registered.
data EventlogSocketControlError
  = EventlogSocketControlNamespaceTooLong String Int Int
  | EventlogSocketControlNamespaceExists String
  | EventlogSocketControlCommandExists String CommandId
  | EventlogSocketControlUnsupported
  deriving (Eq, Show)

instance Exception EventlogSocketControlError where
  displayException = \case
    EventlogSocketControlNamespaceTooLong n len maxLen ->
      "The name '" ++ n ++ "' was " ++ show len ++ " bytes. The maximum length is "
        ++ show maxLen ++ " bytes."
    EventlogSocketControlNamespaceExists n -> "The name '" ++ n ++ "' is already registered."
    EventlogSocketControlCommandExists n (CommandId i) ->
      "The ID " ++ show i ++ " is already registered for " ++ n ++ "."
    EventlogSocketControlUnsupported ->
      "Custom control commands are not supported by rtscope's eventlog socket "
        ++ "(its built-in commands are)."

namespaceName :: Namespace -> IO String
namespaceName (Namespace n) = return n

-- | Throws 'EventlogSocketControlUnsupported'.
registerNamespace :: String -> IO Namespace
registerNamespace _ = throwIO EventlogSocketControlUnsupported

-- | Throws 'EventlogSocketControlUnsupported'.
registerCommand :: Namespace -> CommandId -> CommandHandler -> IO ()
registerCommand _ _ _ = throwIO EventlogSocketControlUnsupported
