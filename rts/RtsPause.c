/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The pause API of GHC 9.2 (rts_pause, rts_resume, rts_isPaused,
 * pauseTokenCapability, rts_listThreads, rts_listMiscRoots) for the 9.0
 * RTS, and the pause-after-GC hold used by the debug stub.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"
#include "RtsAPI.h"

#include "RtsUtils.h"
#include "Schedule.h"
#include "Capability.h"
#include "Task.h"
#include "StablePtr.h"
#include "StableName.h"
#include "RtsPause.h"
#include "Proftimer.h"
#include "Stats.h"

/* Note [Locking and pausing the RTS]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * This follows GHC 9.2 to the letter, names, signatures and messages
 * included, so that C code written against 9.2 (ghc-debug's stub, for one)
 * works unchanged:
 *
 *  - rts_pause() stops every Haskell thread by taking every Capability for
 *    the calling OS thread (stopAllCapabilities()). The caller must not own
 *    a Capability: it is a C thread, or Haskell code in a *safe* foreign
 *    call. If another thread has paused the RTS, rts_pause() waits until
 *    that pause ends, so any number of threads may pause concurrently.
 *  - rts_resume(), rts_listThreads() and rts_listMiscRoots() must be called
 *    on the OS thread that paused.
 *  - While paused, the pausing thread may use the rest of the RTS API
 *    through the Capability of its token (pauseTokenCapability()); it must
 *    not call rts_lock().
 *
 * Misuse ends the program with a message on stderr and exit code 1, as in
 * 9.2: pausing twice from one thread, pausing from a thread that owns a
 * Capability (an unsafe foreign call, or after rts_lock()), rts_lock()
 * while this thread has paused, resuming or listing from a thread that did
 * not pause. The non-threaded RTS cannot pause (there is no other OS
 * thread to do the pausing): rts_pause() and rts_resume() end the program
 * there, saying so.
 *
 * A pause never lands inside a GC: stopAllCapabilities() synchronises
 * through pending_sync exactly as the GC does, so a pause and a GC exclude
 * each other. See Note [Pause points] for how long it takes.
 */

/* Note [Pause points]
 * ~~~~~~~~~~~~~~~~~~~
 * A Haskell thread gives up its Capability at a pause point: a heap check
 * (the storage manager's HpLim), a stack check, or a return to the
 * scheduler. In 9.0 stopAllCapabilities() merely queued for each
 * Capability, so a pause waited for the running threads' next context
 * switch (20ms by default). rtscope makes stopAllCapabilitiesWith()
 * interrupt every Capability once its sync request is in, as scheduleDoGC()
 * does for a GC: HpLim becomes NULL, so the next heap check of every
 * running thread fails and returns to the scheduler, which yields to the
 * pausing Task. A pause therefore lands at the next allocation of every
 * running thread, typically within microseconds. A loop that never
 * allocates has no pause point (as for a GC); compile such code with
 * -fno-omit-yields.
 */

#if !RTSCOPE_GHC_HAS_PAUSE_API
struct PauseToken_ {
    Capability *capability;
};

Capability *
pauseTokenCapability (PauseToken *pauseToken)
{
    return pauseToken->capability;
}
#endif

/* The roots, for whoever holds every Capability (both RTS ways: the
 * heap snapshot writer, rts/HeapSnapshot.c, runs in the non-threaded RTS
 * too). */
void
pauseListThreads (ListThreadsCb cb, void *user)
{
    for (uint32_t g = 0; g < RtsFlags.GcFlags.generations; g++) {
        for (StgTSO *tso = generations[g].threads; tso != END_TSO_QUEUE;
             tso = tso->global_link) {
            cb(user, tso);
        }
    }
}

struct list_roots_ctx {
    ListRootsCb cb;
    void *user;
};

// An evac_fn that hands the root to the user's callback.
static void
listRootsHelper (void *user, StgClosure **p)
{
    struct list_roots_ctx *ctx = (struct list_roots_ctx *) user;
    ctx->cb(ctx->user, *p);
}

void
pauseListMiscRoots (ListRootsCb cb, void *user)
{
    struct list_roots_ctx ctx = { .cb = cb, .user = user };
    threadStableNameTable(&listRootsHelper, &ctx);
    threadStablePtrTable(&listRootsHelper, &ctx);
}

/* The GC's roots that are neither threads nor in 9.2's
 * rts_listMiscRoots(): the live weak pointers (WEAK objects) of every
 * generation and Capability, since a live weak pointer keeps its value and
 * finalizer alive whether or not anything else points to them, and the
 * messages in every Capability's inbox (markCapability()). The debug stub
 * lists them with the other roots, so that a walk from its roots reaches
 * what the GC keeps (see Note [Pause after a census]). */
void
pauseListGcOnlyRoots (ListRootsCb cb, void *user)
{
    for (uint32_t g = 0; g < RtsFlags.GcFlags.generations; g++) {
        for (StgWeak *w = generations[g].weak_ptr_list; w != NULL; w = w->link) {
            cb(user, (StgClosure *) w);
        }
    }
    for (uint32_t i = 0; i < RTSCOPE_N_CAPS(); i++) {
        for (StgWeak *w = RTSCOPE_CAP(i)->weak_ptr_list_hd; w != NULL; w = w->link) {
            cb(user, (StgClosure *) w);
        }
#if defined(THREADED_RTS)
        Message *m = RTSCOPE_CAP(i)->inbox;
        if (m != (Message *) END_TSO_QUEUE) {
            cb(user, (StgClosure *) m);     // the rest hang off its link
        }
#endif
    }
}

#if defined(THREADED_RTS)

#if !RTSCOPE_GHC_HAS_PAUSE_API
Task *rts_pausing_task = NULL;

static void assertPausedOnMyTask (const char *functionName);

PauseToken *
rts_pause (void)
{
    Task *task = myTask();

    if (task != NULL && rts_pausing_task == task) {
        errorBelch("error: rts_pause: This thread has already paused the RTS.");
        stg_exit(EXIT_FAILURE);
    }

    if (task != NULL && task->cap != NULL &&
        RELAXED_LOAD(&task->cap->running_task) == task) {
        errorBelch(task->cap->in_haskell
            ? ("error: rts_pause: attempting to pause via an unsafe FFI call.\n"
               "   Perhaps a 'foreign import unsafe' should be 'safe'?")
            : ("error: rts_pause: attempting to pause from a Task that owns a capability.\n"
               "   Have you already acquired a capability e.g. with rts_lock?"));
        stg_exit(EXIT_FAILURE);
    }

    // A bound Task, so that the pausing thread can use rts_eval* through
    // the token's Capability. If another thread holds a pause, we wait in
    // stopAllCapabilities() until it resumes.
    task = newBoundTask();
    stopAllCapabilities(NULL, task);

    // We own every Capability, hence rts_pausing_task.
    rts_pausing_task = task;

    PauseToken *token = stgMallocBytes(sizeof(PauseToken), "rts_pause");
    token->capability = task->cap;
    return token;
}

void
rts_resume (PauseToken *pauseToken)
{
    assertPausedOnMyTask("rts_resume");
    Task *task = myTask();

    rts_pausing_task = NULL;

    // Does not block: this Task owns every Capability.
    releaseAllCapabilities(n_capabilities, NULL, task);
    boundTaskExiting(task);
    stgFree(pauseToken);
}

bool
rts_isPaused (void)
{
    return RELAXED_LOAD(&rts_pausing_task) != NULL;
}

// Exit with a message unless the calling OS thread paused the RTS and
// still owns every Capability.
static void
assertPausedOnMyTask (const char *functionName)
{
    Task *task = myTask();

    if (rts_pausing_task == NULL) {
        errorBelch("error: %s: the rts is not paused. Did you forget to call rts_pause?",
                   functionName);
        stg_exit(EXIT_FAILURE);
    }

    if (task != rts_pausing_task) {
        // rts_pausing_task may change under our feet, but never to this
        // Task, so the message is right.
        errorBelch("error: %s: called from a different OS thread than rts_pause.",
                   functionName);
        stg_exit(EXIT_FAILURE);
    }

    for (uint32_t i = 0; i < n_capabilities; i++) {
        if (capabilities[i]->running_task != task) {
            errorBelch("error: %s: the pausing thread does not own all capabilities.\n"
                       "   Have you manually released a capability after calling rts_pause?",
                       functionName);
            stg_exit(EXIT_FAILURE);
        }
    }
}

void
rtsPauseCheckLock (Task *task)
{
    if (rts_pausing_task == task) {
        errorBelch("error: rts_lock: The RTS is already paused by this thread.\n"
                   "   There is no need to call rts_lock if you have already called rts_pause.");
        stg_exit(EXIT_FAILURE);
    }
}

void
rts_listThreads (ListThreadsCb cb, void *user)
{
    assertPausedOnMyTask("rts_listThreads");
    pauseListThreads(cb, user);
}

void
rts_listMiscRoots (ListRootsCb cb, void *user)
{
    assertPausedOnMyTask("rts_listMiscRoots");
    pauseListMiscRoots(cb, user);
}
#endif /* !RTSCOPE_GHC_HAS_PAUSE_API */

/* Note [Pause after GC]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A debugger that wants the heap to hold only live data asks for a pause
 * right after the next major GC. Pausing from another thread once the GC
 * is over would let the mutators run (and allocate) in between, so the
 * pause is taken by the GC itself:
 *
 *  - while a request is armed, scheduleDoGC() makes a major GC
 *    single-threaded (SYNC_GC_SEQ), so that the Task doing it owns every
 *    Capability from before the GC until it releases them at the end;
 *  - just before releasing them it calls pauseAfterGcHook(), which, if the
 *    request is still armed and the RTS is running normally (not shutting
 *    down), disarms it, records the Task as rts_pausing_task, tells the
 *    requester through its callback, and waits until
 *    pauseAfterGcRelease(). Nothing ran between the end of the GC and the
 *    pause, so every generation holds only what the GC kept (the nursery
 *    is empty).
 *
 * The pause is therefore never inside the GC: the GC is complete, its
 * statistics recorded, its Capabilities about to be released. The waiting
 * happens on the GC's OS thread, which is why release is a separate call
 * and not rts_resume(). The requester (the debug stub) reads the heap
 * through pauseListThreads() and friends, which do not insist on being the
 * pausing thread.
 */

/* Note [Pause after a census]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A debugger that wants to compare its own view of the heap with a heap
 * census of the RTS (+RTS -hT, -hi) asks for a pause right after the major
 * GC that takes a census: the census (GarbageCollect() runs heapCensus()
 * after the collection) and the pause then see the same heap, since
 * nothing but the rest of that GC runs in between.
 *
 * pauseAfterGcArmCensus() arms the pause-after-GC request as usual, in
 * census mode, and only then requests the census (requestHeapCensus()).
 * A requested census makes the next GC major (scheduleDoGC()), and while
 * the request is armed every major GC is single-threaded, so the GC that
 * takes the census is one the hook sees. The hook lets every other GC go
 * by: one that still leaves the request pending (performHeapProfile, which
 * scheduleDoGC() clears once a GC has taken the census, before the hook)
 * did not take it, for instance a GC that was already under way when the
 * census was requested.
 *
 * The pause records the time (stat_getElapsedTime(), the clock of eventlog
 * timestamps): the census is the last heap sample of the eventlog before
 * that time. (9.0.2's non-profiled RTS numbers every sample 1, so the
 * sample number of HEAP_PROF_SAMPLE_BEGIN cannot tell them apart.)
 */

// The request's state, under gc_hold_lock; gc_hold_armed is also read
// without it, as a quick test, by the GC (pauseAfterGcWanted() and the
// hook), and is only ever set while holding it.
static Mutex     gc_hold_lock;
static Condition gc_hold_cond;
static bool gc_hold_armed   = false;
static bool gc_hold_active  = false;
static bool gc_hold_release = false;
static PauseAfterGcCb gc_hold_cb = NULL;
static bool gc_hold_for_census = false;     // see Note [Pause after a census]
static StgWord64 gc_hold_census_ns = 0;     // when the held pause after a census began

void
initPauseAfterGc (void)
{
    // Never closed: the debug stub's thread may still withdraw or release
    // a request while hs_exit() runs.
    initMutex(&gc_hold_lock);
    initCondition(&gc_hold_cond);
}

void
pauseAfterGcArm (PauseAfterGcCb on_paused)
{
    ACQUIRE_LOCK(&gc_hold_lock);
    gc_hold_cb = on_paused;
    gc_hold_for_census = false;
    SEQ_CST_STORE(&gc_hold_armed, true);
    RELEASE_LOCK(&gc_hold_lock);
}

void
pauseAfterGcArmCensus (PauseAfterGcCb on_paused)
{
    ACQUIRE_LOCK(&gc_hold_lock);
    gc_hold_cb = on_paused;
    gc_hold_for_census = true;
    SEQ_CST_STORE(&gc_hold_armed, true);
    RELEASE_LOCK(&gc_hold_lock);
    requestHeapCensus();
}

StgWord64
pauseAfterGcCensus (void)
{
    ACQUIRE_LOCK(&gc_hold_lock);
    StgWord64 t = gc_hold_active ? gc_hold_census_ns : 0;
    RELEASE_LOCK(&gc_hold_lock);
    return t;
}

bool
pauseAfterGcDisarm (void)
{
    ACQUIRE_LOCK(&gc_hold_lock);
    bool was = gc_hold_armed;
    SEQ_CST_STORE(&gc_hold_armed, false);
    RELEASE_LOCK(&gc_hold_lock);
    return was;
}

bool
pauseAfterGcHeld (void)
{
    ACQUIRE_LOCK(&gc_hold_lock);
    bool held = gc_hold_active;
    RELEASE_LOCK(&gc_hold_lock);
    return held;
}

void
pauseAfterGcRelease (void)
{
    ACQUIRE_LOCK(&gc_hold_lock);
    if (gc_hold_active) {
        gc_hold_release = true;
        broadcastCondition(&gc_hold_cond);
    }
    RELEASE_LOCK(&gc_hold_lock);
}

bool
pauseAfterGcWanted (bool major_gc)
{
    return major_gc && SEQ_CST_LOAD(&gc_hold_armed)
        && RELAXED_LOAD(&sched_state) == SCHED_RUNNING;
}

void
pauseAfterGcHook (Task *task, bool major_seq_gc)
{
    if (!major_seq_gc || !SEQ_CST_LOAD(&gc_hold_armed)) return;

    ACQUIRE_LOCK(&gc_hold_lock);
    if (!gc_hold_armed || RELAXED_LOAD(&sched_state) != SCHED_RUNNING
        || (gc_hold_for_census && RELAXED_LOAD(&performHeapProfile))) {
        // (not the census's GC: see Note [Pause after a census])
        RELEASE_LOCK(&gc_hold_lock);
        return;
    }
    gc_hold_census_ns = gc_hold_for_census ? TimeToNS(stat_getElapsedTime()) : 0;
    SEQ_CST_STORE(&gc_hold_armed, false);
    gc_hold_active = true;
    gc_hold_release = false;
    rts_pausing_task = task;
    PauseAfterGcCb cb = gc_hold_cb;
    RELEASE_LOCK(&gc_hold_lock);

    if (cb != NULL) cb();

    ACQUIRE_LOCK(&gc_hold_lock);
    while (!gc_hold_release) {
        waitCondition(&gc_hold_cond, &gc_hold_lock);
    }
    rts_pausing_task = NULL;
    gc_hold_active = false;
    gc_hold_release = false;
    gc_hold_census_ns = 0;
    RELEASE_LOCK(&gc_hold_lock);
}

#elif !RTSCOPE_GHC_HAS_PAUSE_API /* !THREADED_RTS */

GNUC3_ATTRIBUTE(__noreturn__) PauseToken *
rts_pause (void)
{
    errorBelch("Warning: Pausing the RTS is only possible for "
               "multithreaded RTS.");
    stg_exit(EXIT_FAILURE);
}

GNUC3_ATTRIBUTE(__noreturn__) void
rts_resume (PauseToken *pauseToken STG_UNUSED)
{
    errorBelch("Warning: Resuming the RTS is only possible for "
               "multithreaded RTS.");
    stg_exit(EXIT_FAILURE);
}

bool
rts_isPaused (void)
{
    errorBelch("Warning: Pausing/Resuming the RTS is only possible for "
               "multithreaded RTS.");
    return false;
}

void
rts_listThreads (ListThreadsCb cb STG_UNUSED, void *user STG_UNUSED)
{
    errorBelch("Warning: rts_listThreads is only possible for multithreaded RTS.");
}

void
rts_listMiscRoots (ListRootsCb cb STG_UNUSED, void *user STG_UNUSED)
{
    errorBelch("Warning: rts_listMiscRoots is only possible for multithreaded RTS.");
}

#endif /* THREADED_RTS */
