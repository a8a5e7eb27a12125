/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Getting buffered events to the EventLogWriter while the program runs.
 * See Note [Flushing the eventlog] in EventLogFlush.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "Capability.h"

#include "BeginPrivate.h"

#if defined(TRACING)

// True while eventlogging runs with --eventlog-flush-interval.
extern bool eventlog_flush_active;

// Called from handle_tick(); may run in a signal handler.
void eventlogFlushTick(void);

// Periodic flushing on (with --eventlog-flush-interval and a ticker) and
// off, as eventlogging starts and ends.  The caller holds all capabilities
// (or no Haskell code runs yet, or any more).
void eventlogFlushActivate(void);
void eventlogFlushDeactivate(void);

#if defined(THREADED_RTS)
// GHC 9.6's flushEventLog() asks this first (only its series defines it):
// true if it flushed every capability's buffer for a caller that holds a
// capability (or refused, on stderr), false for 9.6's own way.  See Note
// [GHC 9.6's flushEventLog from a thread that holds a capability] in
// EventLogFlush.c.
bool eventlogFlushHeld(Capability **pcap);
#endif

void eventlogFlushIfDue_(Capability *cap);
void eventlogFlushBeforeIdle_(Capability *cap);
void eventlogFlushBeforeSuspend_(Capability *cap);

// The scheduler calls this at the top of its loop, holding cap.
INLINE_HEADER void eventlogFlushIfDue(Capability *cap)
{
    if (RTS_UNLIKELY(RELAXED_LOAD(&eventlog_flush_active))) {
        eventlogFlushIfDue_(cap);
    }
}

// The scheduler calls this, holding cap, when it has nothing to run and is
// about to sleep (threaded) or block in awaitEvent() (non-threaded).
INLINE_HEADER void eventlogFlushBeforeIdle(Capability *cap)
{
    if (RTS_UNLIKELY(RELAXED_LOAD(&eventlog_flush_active))) {
        eventlogFlushBeforeIdle_(cap);
    }
}

// suspendThread() calls this, holding cap, before it lets go of it for a
// safe foreign call.
INLINE_HEADER void eventlogFlushBeforeSuspend(Capability *cap)
{
    if (RTS_UNLIKELY(RELAXED_LOAD(&eventlog_flush_active))) {
        eventlogFlushBeforeSuspend_(cap);
    }
}

#else

INLINE_HEADER void eventlogFlushTick(void) {}
INLINE_HEADER void eventlogFlushIfDue(Capability *cap STG_UNUSED) {}
INLINE_HEADER void eventlogFlushBeforeIdle(Capability *cap STG_UNUSED) {}
INLINE_HEADER void eventlogFlushBeforeSuspend(Capability *cap STG_UNUSED) {}

#endif /* TRACING */

#include "EndPrivate.h"
