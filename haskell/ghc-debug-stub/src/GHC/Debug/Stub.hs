{-# LANGUAGE ExistentialQuantification #-}
-- |
-- ghc-debug-stub's API on rtscope's RTS, whose debug stub serves
-- ghc-debug's protocol from inside the RTS (rtscope's docs/debug-stub.md).
-- Wrap @main@ as with ghc-debug:
--
-- > main = withGhcDebug $ do ...
--
-- and debug the program with ghc-debug's clients or @rtscope debug@. The
-- program must be linked with @-threaded@, as ghc-debug-stub requires.
--
-- What differs from ghc-debug-stub (rtscope's docs/haskell-packages.md):
-- the stub runs in the RTS, so a program whose stub cannot start (no
-- @-threaded@, a path in use) says why on stderr and runs on without it,
-- instead of failing; the stub has no TCP listener, so 'withGhcDebugTCP'
-- says so and runs the program without a stub.
module GHC.Debug.Stub
  ( withGhcDebug
  , withGhcDebugUnix
  , withGhcDebugTCP
  , SocketAddr (..)
  , withGhcDebugX
  , saveClosures
  , Box (..)
  , pause
  , resume
  ) where

import Data.Word (Word16)
import Foreign.C.String (CString, withCString)
import Foreign.C.Types (CInt (..))
import Foreign.Ptr (nullPtr)
import Foreign.StablePtr (StablePtr, newStablePtr)
import System.Directory (createDirectoryIfMissing)
import System.FilePath (takeDirectory)
import System.IO (hPutStrLn, stderr)
import System.Mem (performGC)

foreign import ccall safe "rts_debugStubStart"
  c_start :: CString -> IO CInt

foreign import ccall safe "rts_debugStubSaveClosure"
  c_save :: StablePtr a -> IO ()

foreign import ccall safe "rts_debugStubPause"
  c_pause :: IO ()

foreign import ccall safe "rts_debugStubResume"
  c_resume :: IO ()

-- | Start the stub on @$GHC_DEBUG_SOCKET@, or else on ghc-debug's socket
-- convention (@$XDG_DATA_HOME/ghc-debug/debuggee/sockets/\<pid\>-\<program\>@),
-- then run the action. The RTS removes the socket when the program exits.
withGhcDebug :: IO a -> IO a
withGhcDebug main = do
  _ <- c_start (nullPtr :: CString)
  main

-- | As 'withGhcDebug', on the given socket path (its directory is created).
withGhcDebugUnix :: String -> IO a -> IO a
withGhcDebugUnix path main = do
  createDirectoryIfMissing True (takeDirectory path)
  _ <- withCString path c_start
  main

-- | ghc-debug's TCP listener: rtscope's stub has none. Says so on stderr
-- and runs the action without a stub.
withGhcDebugTCP :: String -> Word16 -> IO a -> IO a
withGhcDebugTCP host port main = do
  hPutStrLn stderr ("ghc-debug: rtscope's debug stub listens on Unix sockets only; not started on tcp "
                    ++ host ++ ":" ++ show port
                    ++ " (use withGhcDebugUnix, or +RTS --debug-stub=PATH)")
  main

data SocketAddr
  = SocketAddrIp !String !Word16
  | SocketAddrUnix !String
  deriving (Show, Eq)

withGhcDebugX :: SocketAddr -> IO a -> IO a
withGhcDebugX (SocketAddrUnix path) = withGhcDebugUnix path
withGhcDebugX (SocketAddrIp host port) = withGhcDebugTCP host port

-- | Any value, to save for the debugger.
data Box = forall a . Box a

-- | Make the values the debugger's saved objects (ghc-debug's
-- @RequestSavedObjects@): the closures a debugging session starts from.
saveClosures :: [Box] -> IO ()
saveClosures = mapM_ (\(Box x) -> newStablePtr x >>= c_save)

-- | Stop the program here, after a major GC, until a debugger resumes it.
-- Returns at once if the stub does not run.
pause :: IO ()
pause = performGC >> c_pause

-- | Resume the program the stub has paused. No Haskell thread runs while
-- the program is paused, so this is for code that runs outside it (a C
-- thread, a foreign callback); from Haskell it finds the program running
-- and does nothing.
resume :: IO ()
resume = c_resume
