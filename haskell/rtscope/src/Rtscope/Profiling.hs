-- |
-- GHC 9.2's controls of heap profiling (base-4.16's "GHC.Profiling") and
-- eventlog flushing (@Debug.Trace.flushEventLog@), for GHC 9.0.2 with
-- rtscope's RTS, which implements them. Code written for 9.2 changes one
-- import:
--
-- > import GHC.Profiling (requestHeapCensus)     -- GHC 9.2
-- > import Rtscope.Profiling (requestHeapCensus)  -- GHC 9.0.2 + rtscope
--
-- The heap functions need a heap profile (@+RTS -hT@, @-hi@, ...) to act
-- on; 'flushEventLog' an eventlog (@+RTS -l@). 'requestHeapSnapshot' is
-- rtscope's own (9.2 has none).
--
-- Against GHC 9.6 with rtscope's RTS the module builds too, so code written
-- for 9.0.2 builds unchanged; base-4.18's "GHC.Profiling" has the heap
-- functions under their own names as well.
module Rtscope.Profiling
  ( requestHeapCensus
  , startHeapProfTimer
  , stopHeapProfTimer
  , startProfTimer
  , stopProfTimer
  , flushEventLog
  , requestHeapSnapshot
  ) where

import Foreign.Ptr (Ptr, nullPtr)

-- | Take a heap census at the next context switch, whether or not the heap
-- profile timer runs (with @+RTS --no-automatic-heap-samples@, the only
-- censuses are the requested ones).
foreign import ccall safe "requestHeapCensus" requestHeapCensus :: IO ()

-- | Start the heap profile's timer (automatic censuses every @-i@).
foreign import ccall safe "startHeapProfTimer" startHeapProfTimer :: IO ()

-- | Stop it: no automatic census after this returns.
foreign import ccall safe "stopHeapProfTimer" stopHeapProfTimer :: IO ()

-- | Start attributing time ticks to cost centres (profiled programs).
foreign import ccall safe "startProfTimer" startProfTimer :: IO ()

-- | Stop attributing time ticks to cost centres.
foreign import ccall safe "stopProfTimer" stopProfTimer :: IO ()

foreign import ccall safe "flushEventLog" c_flushEventLog :: Ptr () -> IO ()

-- | Write every buffered event to the eventlog's writer (the file, the
-- eventlog socket) now.
flushEventLog :: IO ()
flushEventLog = c_flushEventLog nullPtr

-- | Write a snapshot of the reachable heap, as @+RTS --heap-snapshot-*@
-- do: a child process writes it to the directory @--heap-snapshot-dir@
-- names (default: the working directory) as
-- @<prog>.<pid>.<n>.api.rsnap@, which @rtscope debug@ and
-- @rtscope explore@ read. Returns at once; the program stops only for the
-- fork. One line on stderr (and in the eventlog) says where the snapshot
-- is, or why there is none (a snapshot being written already, a full
-- disk...).
foreign import ccall safe "rts_requestHeapSnapshot" requestHeapSnapshot :: IO ()
