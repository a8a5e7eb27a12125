-- | ghc-debug's conventions for where a debuggee puts its socket and where
-- snapshots are kept: under the XDG data directory
-- (@$XDG_DATA_HOME@, by default @~/.local/share@), in @ghc-debug/debuggee/@.
-- The RTS's debug stub (@+RTS --debug-stub@) follows the same convention.
module GHC.Debug.Convention
  ( ghcDebugDirectory
  , socketDirectory
  , snapshotDirectory
  ) where

import System.Directory (XdgDirectory (XdgData), getXdgDirectory)
import System.FilePath ((</>))

-- | @$XDG_DATA_HOME/ghc-debug/debuggee/@.
ghcDebugDirectory :: IO FilePath
ghcDebugDirectory = (</> "ghc-debug" </> "debuggee/") <$> getXdgDirectory XdgData ""

-- | The directory of debuggees' sockets, named @\<pid\>-\<program\>@.
socketDirectory :: IO FilePath
socketDirectory = (</> "sockets") <$> ghcDebugDirectory

-- | The directory where snapshots are kept.
snapshotDirectory :: IO FilePath
snapshotDirectory = (</> "snapshots") <$> ghcDebugDirectory
