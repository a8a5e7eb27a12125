/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Flushing the eventlog while the program runs: --eventlog-flush-interval
 * and the flushes when a capability goes idle, for every GHC rtscope
 * patches; for GHC 9.0.2, GHC 9.2's flushEventLog() and starting/stopping
 * eventlogging at run time; for GHC 9.6, its flushEventLog() from a thread
 * that holds a capability.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "Capability.h"
#include "Schedule.h"
#include "Task.h"
#include "eventlog/EventLogFlush.h"
#if !RTSCOPE_GHC_HAS_EVENTLOG_CONTROL
#include "FlushFlags.h"
#endif

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
 *  - Every buffer that is written is written whole, and an empty one as an
 *    empty block (its marker alone), whose end time says that its stream
 *    is complete up to then.  A live consumer merges the capabilities'
 *    streams in time order, so it must know how far each one is complete
 *    before it may show an event of another (Note [A stream complete up to
 *    a time] in the consumer's merge.c).  So "write every stream"
 *    (flushEveryStream) means: the capability's own buffer, the buffer of
 *    every capability that nobody holds, and the global one.  Writing the
 *    buffer of a capability that nobody holds keeps the one rule: we hold
 *    its cap->lock, without which nobody can take the capability, and so
 *    nobody can post to its buffer.  The empty blocks ride in the writer's
 *    own buffer after its own block (a batch: openEventsBufBatch in
 *    EventLog.c), so that all of it is one write.
 *
 *  - The first capability to see an epoch writes every stream; the others
 *    write their own.  A capability going idle writes every stream, so
 *    that what it posted last is not held back by a stream that stays
 *    quiet.
 *
 *  - Two capabilities that go idle at the same moment each find the other
 *    still held, on its way out.  So a capability going idle says so
 *    (idle_task), and one going idle waits, briefly (IDLE_WAIT_NS), for
 *    any capability with a lower number that has said so, and has no work,
 *    to let go of it before it writes; one with a higher number is left to
 *    do the same for it.  The highest-numbered of them thus writes every
 *    stream after the others have stopped posting, and no two wait for
 *    each other.
 *
 *  - A capability going idle that finds another one busy (running, or on
 *    its way out some other way than going idle: a safe foreign call, as
 *    the IO manager makes all the time) asks it to write every stream
 *    (coverage_wanted).  Every capability answers each request once, when
 *    it next passes the top of the scheduler loop (within a context switch
 *    if it runs Haskell code) or before it lets go of itself for a safe
 *    foreign call (eventlogFlushBeforeSuspend).  While another capability
 *    is busy, requests, and an idle capability's writing of the others'
 *    streams, come at most every 1ms (COVERAGE_EVERY_US): a program whose
 *    capabilities hand work to each other go idle tens of thousands of
 *    times a second, and an empty block for every stream each time would
 *    add half to its eventlog.  What they leave is written by the next
 *    request answered, or the next epoch.
 *
 *  - A capability that makes a safe foreign call with nothing else to run
 *    goes as quiet as one going idle, maybe for long (the IO manager waits
 *    for events in one), so it writes every stream as an idle one does,
 *    without waiting for the others, at most every 5ms (QUIET_EVERY_NS).
 *
 * What is not covered: a capability whose Haskell thread never returns to
 * the scheduler (a non-allocating loop, or a long *unsafe* foreign call)
 * cannot flush, just as it cannot be context-switched or garbage collected;
 * its events come out when it returns.  With -V0 there is no ticker and so
 * no periodic flushing, only the flushes on going idle.
 *
 * flushEventLog(), endEventLogging() and startEventLogging() at run time
 * need every buffer at once.  In the threaded RTS they stop all
 * capabilities around the work, as setNumCapabilities does; in the
 * non-threaded RTS the caller is the only thread that can post events, so
 * it writes the buffers directly.  GHC 9.2 and later have them (their
 * flushEventLog() writes the global buffer, then every capability's); GHC
 * 9.0.2 gets them from this file's last part (See Note [Calling the
 * eventlog API from anywhere]).  GHC 9.2's periodic flush called flushEventLog()
 * from the ticker, which in 9.6.6 corrupts the non-threaded RTS's eventlog
 * and hangs the threaded RTS at exit (the ticker stops every capability
 * while hs_exit does); rtscope's series for 9.6 replaces it with the
 * epochs above.
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
void
eventlogFlushActivate(void)
{
    Time tick = RtsFlags.MiscFlags.tickInterval;
    Time every = RTSCOPE_EVENTLOG_FLUSH_TIME;
    if (every <= 0 || tick <= 0) {
        return;
    }
    StgWord ticks = every / tick;
    if (ticks < 1) {
        ticks = 1;
    }
    ticks_to_flush = ticks;
    RELAXED_STORE(&flush_ticks, ticks);
    RELAXED_STORE(&eventlog_flush_active, true);
}

void
eventlogFlushDeactivate(void)
{
    RELAXED_STORE(&flush_ticks, 0);
    RELAXED_STORE(&eventlog_flush_active, false);
}

// Capabilities from TRACKED_CAPS up are written when free, never waited
// for, do not answer coverage_wanted, and do not write their buffers before
// a safe foreign call.
#define TRACKED_CAPS 256

// When each capability last wrote every stream because it had nothing to
// run; a safe foreign call made with nothing else to run does that too, at
// most every QUIET_EVERY_NS.  See Note [Flushing the eventlog].
static Time quiet_flush_at[TRACKED_CAPS];
#define QUIET_EVERY_NS 5000000

#if defined(THREADED_RTS)

// The task that, holding capability c, has flushed on its way to idle.
static Task *idle_task[TRACKED_CAPS];

// Bumped by a capability going idle that found another one busy; each
// capability answers every bump once (coverage_seen), when it next passes
// the top of the scheduler loop or releases itself for a safe foreign call.
// See Note [Flushing the eventlog].
static volatile StgWord coverage_wanted = 0;
static StgWord coverage_seen[TRACKED_CAPS];
// When it was last bumped: at most once every COVERAGE_EVERY_US, so that a
// capability that goes idle thousands of times a second does not make the
// busy ones write as often.  The epoch's flush covers what that leaves.
// A capability going idle while another is busy writes every stream at
// most as often too (flushGoingQuiet).
// Both times in microseconds, as words (a CAS needs one): they only limit
// a rate, and a difference of two of them is right across a wrap.
static volatile StgWord coverage_wanted_at = 0;
#define COVERAGE_EVERY_US 1000
// When a capability going idle last wrote every stream (flushGoingQuiet).
static volatile StgWord every_stream_at = 0;

static StgWord
nowUs(void)
{
    return (StgWord) (getProcessElapsedTime() / USToTime(1));
}

// How long a capability going idle waits for another one to let go.
#define IDLE_WAIT_NS 200000

static bool
idleAnnounced(Capability *x, Task *holder)
{
    return x->no < TRACKED_CAPS && holder != NULL
        && RELAXED_LOAD(&idle_task[x->no]) == holder;
}

// Wait a little for every capability with a lower number whose holder is
// going idle, and has no work, to let go of it.  See Note [Flushing the
// eventlog].
static void
waitForIdleCapabilities(Capability *mine)
{
    Time deadline = 0;
    for (uint32_t c = 0; c < mine->no && c < RTSCOPE_N_CAPS(); c++) {
        Capability *x = RTSCOPE_CAP(c);
        for (;;) {
            Task *holder = RELAXED_LOAD(&x->running_task);
            // Not for one that has work: it runs on, and answers the
            // coverage request at the top of its scheduler loop.
            if (holder == NULL || !idleAnnounced(x, holder)
                || RELAXED_LOAD(&pending_sync) != NULL
                || !emptyInbox(x) || !emptyRunQueue(x)) {
                break;
            }
            Time now = getProcessElapsedTime();
            if (deadline == 0) {
                deadline = now + NSToTime(IDLE_WAIT_NS);
            } else if (now >= deadline) {
                return;
            }
            yieldThread();
        }
    }
}

// The buffer of every other capability that nobody holds, into mine's
// batch (or written on its own).  False if one was held.
static bool
flushFreeCapabilities(Capability *mine, bool batch)
{
    bool all = true;
    for (uint32_t c = 0; c < RTSCOPE_N_CAPS(); c++) {
        Capability *x = RTSCOPE_CAP(c);
        if (x == mine) {
            continue;
        }
        // A peek first: a busy capability's lock is left alone.
        if (RELAXED_LOAD(&x->running_task) != NULL) {
            all = false;
            continue;
        }
        ACQUIRE_LOCK(&x->lock);
        if (x->running_task == NULL) {
            if (batch) {
                batchLocalEventsBuf(mine, x);
            } else {
                flushLocalEventsBuf(x);
            }
        } else {
            all = false;
        }
        RELEASE_LOCK(&x->lock);
    }
    return all;
}

// Has another capability asked cap to write every stream since it last did?
static bool
coverageWanted(Capability *cap)
{
    StgWord w = RELAXED_LOAD(&coverage_wanted);
    if (cap->no >= TRACKED_CAPS || coverage_seen[cap->no] == w) {
        return false;
    }
    coverage_seen[cap->no] = w;
    return true;
}

// Some capability is busy: ask it to write every stream when it can, at
// most every COVERAGE_EVERY_US.
static void
requestCoverage(void)
{
    StgWord now = nowUs();
    StgWord last = RELAXED_LOAD(&coverage_wanted_at);
    if (now - last >= COVERAGE_EVERY_US
        && cas(&coverage_wanted_at, last, now) == last) {
        atomic_inc(&coverage_wanted, 1);
    }
}
#endif

// cap's own buffer, every free capability's and the global one, in one
// write where they fit (a batch: See Note [Flushing the eventlog]).  False
// if a capability was busy and not written.
static bool
flushEveryStream(Capability *cap)
{
    bool all = true;
    bool batch = openEventsBufBatch(cap, RTSCOPE_N_CAPS() + 1);
    if (!batch) {
        flushLocalEventsBuf(cap);
    }
#if defined(THREADED_RTS)
    all = flushFreeCapabilities(cap, batch);
    if (cap->no < TRACKED_CAPS) {
        coverage_seen[cap->no] = RELAXED_LOAD(&coverage_wanted);
    }
#endif
    if (batch) {
        batchGlobalEventsBuf(cap);
        flushLocalEventsBuf(cap); // the batch
    } else {
        flushGlobalEventsBuf();
    }
    flushEventLogWriter();
    return all;
}

void
eventlogFlushIfDue_(Capability *cap)
{
#if defined(THREADED_RTS)
    if (cap->no < TRACKED_CAPS
        && RELAXED_LOAD(&idle_task[cap->no]) != NULL) {
        RELAXED_STORE(&idle_task[cap->no], NULL); // running again
    }
#endif
    StgWord epoch = RELAXED_LOAD(&eventlog_flush_epoch);
    if (!markLocalEventsBufEpoch(cap, epoch) || !eventlog_enabled) {
#if defined(THREADED_RTS)
        if (eventlog_enabled && coverageWanted(cap)) {
            flushEveryStream(cap);
        }
#endif
        return;
    }

    // Every stream is written once an epoch, empty or not: the first
    // capability to see the epoch writes the free ones and the global one.
    StgWord seen = RELAXED_LOAD(&global_flush_epoch);
    if (seen != epoch && cas(&global_flush_epoch, seen, epoch) == seen) {
        flushEveryStream(cap);
    } else {
        flushLocalEventsBuf(cap);
        flushEventLogWriter();
    }
}

#if defined(THREADED_RTS)
// Is any other capability held, or about to run work handed to it?  It
// passes the top of its scheduler loop soon.  A peek, as a hint.
static bool
othersActive(Capability *mine)
{
    for (uint32_t c = 0; c < RTSCOPE_N_CAPS(); c++) {
        Capability *x = RTSCOPE_CAP(c);
        if (x != mine && (RELAXED_LOAD(&x->running_task) != NULL
                          || !emptyInbox(x) || !emptyRunQueue(x))) {
            return true;
        }
    }
    return false;
}
#endif

// cap has nothing to run: write every stream.  While another capability
// is busy (othersActive), the others' streams are written at most every COVERAGE_EVERY_US
// (the busy one is asked to write them when it can instead), so that a
// program that goes idle thousands of times a second does not write an
// empty block for every stream each time.
static void
flushGoingQuiet(Capability *cap)
{
#if defined(THREADED_RTS)
    StgWord now = nowUs();
    if (othersActive(cap)
        && now - RELAXED_LOAD(&every_stream_at) < COVERAGE_EVERY_US) {
        flushLocalEventsBuf(cap);
        flushEventLogWriter();
        requestCoverage();
    } else {
        RELAXED_STORE(&every_stream_at, now);
        if (!flushEveryStream(cap)) {
            requestCoverage();
        }
    }
#else
    flushEveryStream(cap);
#endif
    if (cap->no < TRACKED_CAPS) {
        quiet_flush_at[cap->no] = getProcessElapsedTime();
    }
}

void
eventlogFlushBeforeIdle_(Capability *cap)
{
    if (!eventlog_enabled) {
        return;
    }
#if defined(THREADED_RTS)
    if (cap->no < TRACKED_CAPS) {
        RELAXED_STORE(&idle_task[cap->no], cap->running_task);
    }
    waitForIdleCapabilities(cap);
#endif
    flushGoingQuiet(cap);
}

void
eventlogFlushBeforeSuspend_(Capability *cap)
{
    if (!eventlog_enabled) {
        return;
    }
#if defined(THREADED_RTS)
    if (coverageWanted(cap)) {
        flushEveryStream(cap);
        return;
    }
#endif
    // Nothing else to run while the call lasts: as good as going idle, for
    // all we know for a long time (the IO manager's poll).  At most every
    // QUIET_EVERY_NS, so that a loop of short calls does not write each time.
    if (emptyRunQueue(cap) && cap->no < TRACKED_CAPS
        && getProcessElapsedTime() - quiet_flush_at[cap->no]
               >= NSToTime(QUIET_EVERY_NS)) {
        flushGoingQuiet(cap);
    }
}

/* ---------------------------------------------------------------------------
 * GHC 9.2's eventlog API, for GHC 9.0.2
 *
 * flushEventLog(), and startEventLogging()/endEventLogging() at run time,
 * callable from anywhere stock 9.0.2 allows.  GHC 9.2 and later have their
 * own (RTSCOPE_GHC_HAS_EVENTLOG_CONTROL); their series start and stop
 * periodic flushing from them (eventlogFlushActivate/Deactivate).
 * ------------------------------------------------------------------------ */

/* ---------------------------------------------------------------------------
 * What the calling OS thread holds (both GHCs)
 * ------------------------------------------------------------------------ */

#if defined(THREADED_RTS)
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
    for (uint32_t c = 0; c < RTSCOPE_N_CAPS(); c++) {
        if (RELAXED_LOAD(&RTSCOPE_CAP(c)->running_task) != task) {
            return false;
        }
    }
    return true;
}

static void
heldCallRefused(const char *fn)
{
    errorBelch("%s: another thread is stopping the RTS (a garbage "
               "collection or a pause) and waits for the capability that "
               "this thread holds, so the call cannot wait for it; nothing "
               "was done.\n"
               "   Call %s through a 'safe' foreign import, or from a "
               "thread that holds no capability.", fn, fn);
}
#endif

#if RTSCOPE_GHC_HAS_EVENTLOG_CONTROL && defined(THREADED_RTS)

/* Note [GHC 9.6's flushEventLog from a thread that holds a capability]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * 9.6's flushEventLog(cap), and endEventLogging(), which calls it with
 * NULL, stop every capability with stopAllCapabilitiesWith(cap, ...).  That
 * waits for each capability but *cap, so a caller that holds one and does
 * not pass it waits for itself, forever: Haskell code in an unsafe foreign
 * call (with -N1 as with more), a C thread after rts_lock(), the thread
 * that paused the RTS.  And a caller in an unsafe call that does pass its
 * capability may have it handed to a GC while its thread's state is not
 * saved.  Stock 9.6.6 hangs in all of these; 9.0.2 never waited, and its
 * series keeps that (Note [Calling the eventlog API from anywhere]).
 * flushEventLog() asks eventlogFlushHeld() first, which takes exactly these
 * cases as 9.0's series does: a caller that holds every capability flushes
 * at once; one that holds one claims the sync without ever giving its own
 * up (stopAllCapabilitiesHeld), or, when another sync is pending (whose
 * requester waits for our capability), does nothing and says so on stderr.
 * Every other caller (a safe call, a foreign thread, C code passing the
 * capability it holds and runs no Haskell on: GHC 9.2's contract) goes
 * 9.6's own way, unchanged.
 */
bool
eventlogFlushHeld(Capability **pcap)
{
    Task *task = myTask();
    Capability *mine = callerCapability(task);
    if (mine == NULL) {
        return false;
    }
    if (pcap != NULL && *pcap == mine && !mine->in_haskell) {
        return false;
    }
    if (callerHoldsEvery(task)) {
        flushAllCapsEventsBufs();
        return true;
    }
    if (!stopAllCapabilitiesHeld(mine, task)) {
        heldCallRefused(pcap == NULL ? "flushEventLog (or endEventLogging)"
                                     : "flushEventLog");
        return true;
    }
    flushAllCapsEventsBufs();
    releaseAllCapabilities(RTSCOPE_N_CAPS(), mine, task);
    return true;
}

#endif

#if !RTSCOPE_GHC_HAS_EVENTLOG_CONTROL

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
    heldCallRefused(fn);
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

#endif /* !RTSCOPE_GHC_HAS_EVENTLOG_CONTROL */

#elif !RTSCOPE_GHC_HAS_EVENTLOG_CONTROL /* !TRACING */

void flushEventLog(Capability **cap STG_UNUSED) {}

#endif /* TRACING */
