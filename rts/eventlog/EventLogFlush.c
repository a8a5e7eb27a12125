/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Flushing the eventlog while the program runs: flushEventLog(),
 * --eventlog-flush-interval, and starting/stopping eventlogging at run time.
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "Capability.h"
#include "Schedule.h"
#include "Task.h"
#include "FlushFlags.h"
#include "eventlog/EventLogFlush.h"

#if defined(TRACING)

#include "Trace.h"
#include "eventlog/EventLog.h"

/* Note [Flushing the eventlog]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Events are buffered: one buffer per capability, written only by the OS
 * thread that holds the capability, and one global buffer protected by
 * eventBufMutex (a no-op in the non-threaded RTS).  9.0.2 writes a buffer
 * out only when it fills up (2MB) and at exit, so a live consumer sees
 * nothing for a long time, and a killed program loses everything.
 *
 * The one rule: a buffer is written only by someone entitled to append to
 * it.  Upstream GHC 9.2 broke that rule in the non-threaded RTS (GHC
 * #26222): its timer flushed capability 0's buffer from the tick handler,
 * which there is a signal handler interrupting the mutator, possibly in the
 * middle of posting an event, so the eventlog was corrupted.  Here:
 *
 *  - The ticker (handle_tick, in a signal handler in the non-threaded RTS,
 *    in the ticker thread in the threaded one) never touches a buffer.
 *    Every --eventlog-flush-interval it just bumps eventlog_flush_epoch.
 *
 *  - A capability that is running Haskell code returns to the scheduler at
 *    least every context-switch interval (-C, 20ms by default), because
 *    the ticker forces context switches.  At the top of the scheduler loop
 *    (eventlogFlushIfDue) it compares the epoch with the one it last
 *    flushed in (kept in its EventsBuf) and, if behind, writes its own
 *    buffer.  The first capability to see a new epoch also writes the
 *    global buffer (under its lock).  So while the program is busy, every
 *    buffer reaches the writer at most one flush interval plus one context
 *    switch after it was filled.
 *
 *  - A capability that runs out of work writes its own buffer (and the
 *    global one) before it goes to sleep, or, in the non-threaded RTS,
 *    before it blocks in awaitEvent() (eventlogFlushBeforeIdle).  Nothing
 *    posts to a capability's buffer while nobody holds the capability, so
 *    an idle RTS has nothing left in its buffers: a consumer sees
 *    everything up to the moment the program went idle, even though the
 *    ticker itself stops when the RTS is idle (see Note [GC During Idle
 *    Time] in Timer.c).  This costs one write per transition to idle, and
 *    only with --eventlog-flush-interval.
 *
 * What is not covered: a capability whose Haskell thread never returns to
 * the scheduler (a non-allocating loop, or a long *unsafe* foreign call)
 * cannot flush, just as it cannot be context-switched or garbage collected;
 * its events come out when it returns.  With -V0 there is no ticker and so
 * no periodic flushing, only the flushes on going idle.
 *
 * flushEventLog(), endEventLogging() and startEventLogging() at run time
 * need every buffer at once.  In the threaded RTS they stop all
 * capabilities (rts_lock() and stopAllCapabilities(), as setNumCapabilities
 * does), after interrupting them so that the running ones come to the
 * scheduler promptly, and release them afterwards.  They must therefore be
 * called through a safe foreign call (an unsafe call holds a capability
 * that would never be given up).  In the non-threaded RTS the caller is the
 * only thread that can post events, so it writes the buffers directly.
 */

/* ---------------------------------------------------------------------------
 * Periodic flushing
 * ------------------------------------------------------------------------ */

bool eventlog_flush_active = false;

// Ticks between flushes; 0 when periodic flushing is off.
static StgWord flush_ticks = 0;
// Private to the ticker.
static StgWord ticks_to_flush = 0;
// Bumped by the ticker every flush interval.
static volatile StgWord eventlog_flush_epoch = 0;
// The epoch in which the global buffer was last written.
static volatile StgWord global_flush_epoch = 0;

void
eventlogFlushTick(void)
{
    StgWord ticks = RELAXED_LOAD(&flush_ticks);
    if (ticks == 0) {
        return;
    }
    if (ticks_to_flush <= 1) {
        ticks_to_flush = ticks;
        // Only the ticker writes the epoch, so this needs no atomicity.
        RELAXED_STORE(&eventlog_flush_epoch, eventlog_flush_epoch + 1);
    } else {
        ticks_to_flush--;
    }
}

// Called with all capabilities held (or before/after Haskell code runs).
static void
eventlogFlushActivate(void)
{
    Time tick = RtsFlags.MiscFlags.tickInterval;
    if (FlushFlags.eventlogFlushTime <= 0 || tick <= 0) {
        return;
    }
    StgWord ticks = FlushFlags.eventlogFlushTime / tick;
    if (ticks < 1) {
        ticks = 1;
    }
    ticks_to_flush = ticks;
    RELAXED_STORE(&flush_ticks, ticks);
    RELAXED_STORE(&eventlog_flush_active, true);
}

static void
eventlogFlushDeactivate(void)
{
    RELAXED_STORE(&flush_ticks, 0);
    RELAXED_STORE(&eventlog_flush_active, false);
}

void
eventlogFlushIfDue_(Capability *cap)
{
    StgWord epoch = RELAXED_LOAD(&eventlog_flush_epoch);
    if (!markLocalEventsBufEpoch(cap, epoch) || !eventlog_enabled) {
        return;
    }

    bool wrote = false;
    if (localEventsBufHasEvents(cap)) {
        flushLocalEventsBuf(cap);
        wrote = true;
    }
    StgWord seen = RELAXED_LOAD(&global_flush_epoch);
    if (seen != epoch && cas(&global_flush_epoch, seen, epoch) == seen) {
        wrote = flushGlobalEventsBuf() || wrote;
    }
    if (wrote) {
        flushEventLogWriter();
    }
}

void
eventlogFlushBeforeIdle_(Capability *cap)
{
    if (!eventlog_enabled) {
        return;
    }
    bool wrote = false;
    if (localEventsBufHasEvents(cap)) {
        flushLocalEventsBuf(cap);
        wrote = true;
    }
    if (globalEventsBufHasEvents()) {
        wrote = flushGlobalEventsBuf() || wrote;
    }
    if (wrote) {
        flushEventLogWriter();
    }
}

/* ---------------------------------------------------------------------------
 * Holding every capability
 * ------------------------------------------------------------------------ */

#if defined(THREADED_RTS)
// Is Haskell code (possibly) running on other OS threads?
static bool
haskellMayRun(void)
{
    return capabilities != NULL && n_capabilities > 0
        && RELAXED_LOAD(&sched_state) == SCHED_RUNNING;
}

typedef struct {
    Capability *cap;
    Task *task;
    bool locked;    // we took cap with rts_lock()
} HeldCapabilities;

static void
holdAllCapabilities(HeldCapabilities *held, Capability **pcap)
{
    if (pcap != NULL && *pcap != NULL) {
        held->cap = *pcap;
        held->locked = false;
    } else {
        held->cap = rts_lock();
        held->locked = true;
    }
    held->task = held->cap->running_task;
    // Make capabilities running Haskell code come to the scheduler now
    // rather than at their next context switch.
    interruptAllCapabilities();
    stopAllCapabilities(&held->cap, held->task);
}

static void
releaseHeldCapabilities(HeldCapabilities *held, Capability **pcap)
{
    releaseAllCapabilities(n_capabilities, held->cap, held->task);
    if (held->locked) {
        rts_unlock(held->cap);
    } else {
        *pcap = held->cap;
    }
}
#endif

// Everything buffered, to the writer.  The caller holds all capabilities.
static void
flushAllEventsBufs(void)
{
    if (capabilities != NULL) {
        for (uint32_t c = 0; c < n_capabilities; c++) {
            flushLocalEventsBuf(capabilities[c]);
        }
    }
    flushGlobalEventsBuf();
    flushEventLogWriter();
}

/* ---------------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------------ */

void
flushEventLog(Capability **cap USED_IF_THREADS)
{
    if (!RELAXED_LOAD(&eventlog_enabled)) {
        return;
    }
#if defined(THREADED_RTS)
    if (haskellMayRun()) {
        HeldCapabilities held;
        holdAllCapabilities(&held, cap);
        if (eventlog_enabled) {
            flushAllEventsBufs();
        }
        releaseHeldCapabilities(&held, cap);
        return;
    }
    // Start-up or shutdown: the capabilities' buffers are written by
    // endEventLogging().
    flushGlobalEventsBuf();
    flushEventLogWriter();
#else
    flushAllEventsBufs();
#endif
}

static bool
startHeld(const EventLogWriter *writer)
{
    if (eventlog_enabled) {
        return false;
    }
    if (capabilities != NULL) {
        // Whatever was posted while eventlogging was stopped does not
        // belong to the new stream.
        discardEventsBufs();
    }
    // Header, then the init events; See Note [Eventlog init events].
    bool ok = startEventLoggingHeld(writer);
    if (ok) {
        // The init events go out first, before any capability's events.
        flushGlobalEventsBuf();
        flushEventLogWriter();
        eventlogFlushActivate();
    }
    return ok;
}

bool
startEventLogging(const EventLogWriter *writer)
{
#if defined(THREADED_RTS)
    if (haskellMayRun()) {
        HeldCapabilities held;
        holdAllCapabilities(&held, NULL);
        bool ok = startHeld(writer);
        releaseHeldCapabilities(&held, NULL);
        return ok;
    }
#endif
    return startHeld(writer);
}

void
endEventLogging(void)
{
    if (!RELAXED_LOAD(&eventlog_enabled)) {
        return;
    }
#if defined(THREADED_RTS)
    if (haskellMayRun()) {
        HeldCapabilities held;
        holdAllCapabilities(&held, NULL);
        eventlogFlushDeactivate();
        endEventLoggingHeld();
        releaseHeldCapabilities(&held, NULL);
        return;
    }
#endif
    eventlogFlushDeactivate();
    endEventLoggingHeld();
}

#else /* !TRACING */

void flushEventLog(Capability **cap STG_UNUSED) {}

#endif /* TRACING */
