/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Pausing the RTS: what the scheduler and the debug stub share with the
 * public pause API (rts_pause() and friends, declared in RtsAPI.h).
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "RtscopeGhc.h"

#if defined(THREADED_RTS) && RTSCOPE_GHC_HAS_PAUSE_API
/* GHC's own (RtsAPI.c), exported and declared in no header: declared here
 * outside BeginPrivate.h, whose hidden visibility on this reference would
 * make the linker hide GHC's definition from the RTS's exports. */
extern Task *rts_pausing_task;
#endif

#include "BeginPrivate.h"

/* Walk the threads and the non-thread roots without the "paused on my
 * Task" check of the public functions. The caller guarantees that the RTS
 * is paused for its benefit: the debug stub, which may read the heap
 * while another thread holds the pause on its behalf, or the heap snapshot
 * writer (either RTS way). */
void pauseListThreads   (ListThreadsCb cb, void *user);
void pauseListMiscRoots (ListRootsCb cb, void *user);
void pauseListGcOnlyRoots (ListRootsCb cb, void *user);

#if defined(THREADED_RTS)

/* The Task that paused the RTS with rts_pause(), or that holds every
 * Capability after a GC for a pause-after-GC request; NULL otherwise.
 * Owned by whoever owns all the Capabilities.
 * See Note [Locking and pausing the RTS] in RtsPause.c */
#if !RTSCOPE_GHC_HAS_PAUSE_API
extern Task *rts_pausing_task;
#endif

#if !RTSCOPE_GHC_HAS_PAUSE_API
/* rts_lock() calls this before waiting for a Capability: taking a
 * Capability while this thread has paused the RTS cannot succeed. (GHC
 * 9.2 and later check it themselves.) */
void rtsPauseCheckLock (Task *task);
#endif


/* Pause after the next major GC. See Note [Pause after GC] in RtsPause.c.
 *
 * pauseAfterGcArm() arms the request; the callback runs on the thread
 * that holds every Capability at the end of the next major GC, and from
 * then on the RTS stays paused until pauseAfterGcRelease().
 * pauseAfterGcDisarm() withdraws a request that has not fired yet and
 * reports whether it had. */
typedef void (*PauseAfterGcCb)(void);
void initPauseAfterGc    (void);  // from initScheduler()
void pauseAfterGcArm     (PauseAfterGcCb on_paused);
bool pauseAfterGcDisarm  (void);
void pauseAfterGcRelease (void);
bool pauseAfterGcHeld    (void);

/* As pauseAfterGcArm(), but for the major GC that takes a heap census,
 * which it requests (requestHeapCensus()); other GCs go by. While that
 * pause is held, pauseAfterGcCensus() is the time it began, in
 * nanoseconds on the eventlog's clock (the census is the last heap sample
 * before it), and 0 for a pause after an ordinary major GC.
 * See Note [Pause after a census] in RtsPause.c. */
void pauseAfterGcArmCensus (PauseAfterGcCb on_paused);
StgWord64 pauseAfterGcCensus (void);

/* For scheduleDoGC(): whether this GC must be single-threaded because a
 * pause after it was asked for, and the hook it calls while it still owns
 * every Capability. */
bool pauseAfterGcWanted (bool major_gc);
void pauseAfterGcHook   (Task *task, bool major_gc);

#endif /* THREADED_RTS */

#include "EndPrivate.h"
