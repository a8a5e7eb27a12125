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
 * capabilities around the work, as setNumCapabilities does, from wherever
 * they are called: See Note [Calling the eventlog API from anywhere].  In
 * the non-threaded RTS the caller is the only thread that can post events,
 * so it writes the buffers directly.
 */

/* Note [Calling the eventlog API from anywhere]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Nothing in 9.0.2's EventLogWriter.h says how startEventLogging() and
 * endEventLogging() may be called, and GHC's own test rts/InitEventLogging
 * calls startEventLogging() through an *unsafe* foreign call.  Stock 9.0.2
 * never waits in them (it writes other capabilities' buffers without owning
 * them), so every calling convention works there, and must work here.
 * holdAllCapabilities() takes every capability for the calling OS thread
 * according to what that thread already holds (see callerCapability()):
 *
 *  - Nothing (a safe foreign call, a foreign or C thread): rts_lock() a
 *    capability, then stopAllCapabilities(), as setNumCapabilities does.
 *
 *  - Every capability (-N1 in an unsafe call; the thread that paused the
 *    RTS with rts_pause()): nothing to take.
 *
 *  - One capability that it cannot give up: Haskell code in an unsafe
 *    foreign call (its thread's state is not saved, so no GC may run), or a
 *    C thread after rts_lock() (the capability it will rts_unlock() must
 *    stay the same).  rts_lock() would wait for a capability forever, and
 *    stopAllCapabilities() may yield the caller's capability to a GC.
 *    stopAllCapabilitiesHeld() (Schedule.c) never yields: it claims the
 *    sync, so that the others hand their capabilities over at their next
 *    pause point, and waits for them.  If another sync is already pending
 *    (a GC, a pause), its requester is waiting for *our* capability, so
 *    we cannot wait for it: the call does nothing and says so on stderr,
 *    at once, rather than hang.  That happens only with -N2 or more, and
 *    only when the call races with such a sync.
 *
 *  - flushEventLog(cap) with the caller's capability, from C code that
 *    runs no Haskell on it (cap->in_haskell is false): the 9.2 contract,
 *    stopAllCapabilities(cap), which may hand back another capability
 *    through *cap.
 *
 * As everywhere in the RTS, a capability whose thread neither allocates
 * nor returns to the scheduler (a non-allocating loop, another long unsafe
 * call) holds up the stop until it does, as it would hold up a GC.
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

typedef enum {
    HELD_BY_LOCK,       // we took a capability with rts_lock(), then all
    HELD_FROM_CALLER,   // the caller's capability, then all the others
    HELD_ALREADY,       // the caller holds every capability
} HowHeld;

typedef struct {
    Capability *cap;
    Task *task;
    HowHeld how;
} HeldCapabilities;

// The capability the calling OS thread holds, if any: Haskell code in an
// unsafe foreign call, a C thread after rts_lock(), or the thread that
// paused the RTS.  A Task in a safe foreign call has given its
// capability up (suspendThread), so running_task is someone else or NULL.
static Capability *
callerCapability(Task *task)
{
    if (task == NULL || task->cap == NULL) {
        return NULL;
    }
    return RELAXED_LOAD(&task->cap->running_task) == task ? task->cap : NULL;
}

static bool
callerHoldsEvery(Task *task)
{
    for (uint32_t c = 0; c < n_capabilities; c++) {
        if (RELAXED_LOAD(&capabilities[c]->running_task) != task) {
            return false;
        }
    }
    return true;
}

// Take every capability for the calling OS thread, from wherever it calls.
// See Note [Calling the eventlog API from anywhere].  False, with a
// message naming fn, when that cannot be done without a deadlock.
static bool
holdAllCapabilities(HeldCapabilities *held, Capability **pcap, const char *fn)
{
    Task *task = myTask();
    Capability *mine = callerCapability(task);

    if (mine == NULL) {
        // A safe foreign call or a foreign thread.  A capability passed
        // in by a caller that does not hold it would be a misuse; ignore
        // it rather than take somebody else's.
        held->cap = rts_lock();
        held->task = held->cap->running_task;
        held->how = HELD_BY_LOCK;
        stopAllCapabilities(&held->cap, held->task);
        return true;
    }

    held->cap = mine;
    held->task = task;
    if (callerHoldsEvery(task)) {
        // -N1 in an unsafe call, or the thread that paused the RTS.
        held->how = HELD_ALREADY;
        return true;
    }
    held->how = HELD_FROM_CALLER;
    if (pcap != NULL && *pcap == mine && !mine->in_haskell) {
        // The caller handed us its capability (as GHC 9.2's
        // flushEventLog(cap) asks) and runs no Haskell code on it, so it
        // may be given up while another sync (a GC) completes; it may
        // come back as a different capability, returned through *pcap.
        stopAllCapabilities(&held->cap, task);
        return true;
    }
    if (stopAllCapabilitiesHeld(mine, task)) {
        return true;
    }
    errorBelch("%s: another thread is stopping the RTS (a garbage "
               "collection or a pause) and waits for the capability that "
               "this thread holds, so the call cannot wait for it; nothing "
               "was done.\n"
               "   Call %s through a 'safe' foreign import, or from a "
               "thread that holds no capability.", fn, fn);
    return false;
}

static void
releaseHeldCapabilities(HeldCapabilities *held, Capability **pcap)
{
    switch (held->how) {
    case HELD_ALREADY:
        return;
    case HELD_FROM_CALLER:
        releaseAllCapabilities(n_capabilities, held->cap, held->task);
        if (pcap != NULL && *pcap != NULL) {
            *pcap = held->cap;
        }
        return;
    case HELD_BY_LOCK:
        releaseAllCapabilities(n_capabilities, held->cap, held->task);
        rts_unlock(held->cap);
        return;
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
        if (!holdAllCapabilities(&held, cap, "flushEventLog")) {
            return;
        }
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
    // The header and the init events go out in one write
    // (See Note [Eventlog init events]): the writer sees the calls stock
    // 9.0.2 makes, and only periodic flushing adds a flush here.
    bool ok = startEventLoggingHeld(writer);
    if (ok) {
        eventlogFlushActivate();
        if (RELAXED_LOAD(&eventlog_flush_active)) {
            flushEventLogWriter();
        }
    }
    return ok;
}

bool
startEventLogging(const EventLogWriter *writer)
{
#if defined(THREADED_RTS)
    if (haskellMayRun()) {
        HeldCapabilities held;
        if (!holdAllCapabilities(&held, NULL, "startEventLogging")) {
            return false;
        }
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
        if (!holdAllCapabilities(&held, NULL, "endEventLogging")) {
            return;
        }
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
