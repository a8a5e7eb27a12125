/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Eventlog init events: the events a stream must begin with to be complete.
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#if defined(TRACING)

#include "RtsUtils.h"
#include "Capability.h"
#include "Trace.h"
#include "eventlog/EventLog.h"
#include "eventlog/InitEvents.h"

/* Note [Eventlog init events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A handful of events are posted once, while the RTS starts: the wall-clock
 * time (which anchors the stream's timestamps), the process id, RTS
 * identifier and arguments, the heap's static parameters, the start of the
 * heap profile (which says which breakdown the samples use), and - with -hi -
 * the IPE events naming every info table seen so far.  A consumer needs all
 * of them to make sense of what follows.
 *
 * In 9.0.2 they appear only in the stream that was running at start-up.  A
 * stream started later with startEventLogging() (after endEventLogging(), or
 * because an eventlog socket client connected late) would lack them.  So
 * every module that posts such an event registers a zero-argument poster
 * with postInitEvent(), which posts the event now and keeps the poster in a
 * list; repostInitEvents() runs the whole list, in registration order, right
 * after each new stream's header.  The capability sets and capabilities,
 * posted by initCapabilities() before any poster is registered, are
 * re-posted first (they are not in the list because at start-up they are
 * already in the stream).
 *
 * startEventLogging_() posts them between the header and its write, in a
 * block of their own: a consumer reads them before any capability's
 * events, and a custom EventLogWriter sees exactly the calls of stock
 * 9.0.2 (init, one write for the header, ...), with no extra write or
 * flush for a stream that rtscope made complete.
 *
 * Registration never unregisters: the list lives as long as the process
 * (a fork child inherits it, which is right since restartEventLogging()
 * starts the child's stream).  Other features add their own posters the
 * same way:
 *
 *     traceInitEvent(postMyStateEvents);
 *
 * (-hi's IPE events are not init events: a new stream carries a table
 * again just before the first sample that names it, see
 * Note [IPE events: once per stream, before first use] in rts/IPEBinary.c.)
 */

typedef struct InitEventPoster_ {
    EventlogInitPost post;
    struct InitEventPoster_ *next;
} InitEventPoster;

static InitEventPoster *init_posters = NULL;
static InitEventPoster **init_posters_tail = &init_posters;

#if defined(THREADED_RTS)
static Mutex init_posters_lock;
static bool init_posters_lock_ready = false;
#endif

static void
lockPosters(void)
{
#if defined(THREADED_RTS)
    // Registration happens first during hs_init, single-threaded, so lazy
    // initialisation of the lock is safe.
    if (!init_posters_lock_ready) {
        initMutex(&init_posters_lock);
        init_posters_lock_ready = true;
    }
    ACQUIRE_LOCK(&init_posters_lock);
#endif
}

static void
unlockPosters(void)
{
#if defined(THREADED_RTS)
    RELEASE_LOCK(&init_posters_lock);
#endif
}

void
postInitEvent(EventlogInitPost post_init)
{
    InitEventPoster *p = stgMallocBytes(sizeof(InitEventPoster),
                                        "postInitEvent");
    p->post = post_init;
    p->next = NULL;
    lockPosters();
    *init_posters_tail = p;
    init_posters_tail = &p->next;
    unlockPosters();

    post_init();
}

bool
initEventsToRepost(void)
{
    // Before initCapabilities() there is nothing to repost, and the
    // start-up stream gets these events from initCapabilities() itself.
    return capabilities != NULL && n_capabilities > 0;
}

static void
repostCapabilities(void)
{
    traceCapsetCreate(CAPSET_OSPROCESS_DEFAULT, CapsetTypeOsProcess);
    traceCapsetCreate(CAPSET_CLOCKDOMAIN_DEFAULT, CapsetTypeClockdomain);
    for (uint32_t i = 0; i < n_capabilities; i++) {
        Capability *cap = capabilities[i];
        traceCapCreate(cap);
        traceCapsetAssignCap(CAPSET_OSPROCESS_DEFAULT, i);
        traceCapsetAssignCap(CAPSET_CLOCKDOMAIN_DEFAULT, i);
        if (cap->disabled) {
            traceCapDisable(cap);
        }
    }
}

void
repostInitEvents(void)
{
    repostCapabilities();

    // Posters run without the lock: a poster may itself take locks (the
    // event buffer's, the IPE table's).  The list only ever grows at the
    // tail, so walking it unlocked sees a consistent prefix.
    lockPosters();
    InitEventPoster *p = init_posters;
    unlockPosters();
    for (; p != NULL; p = p->next) {
        p->post();
    }
}

void
traceHeapInfo(void)
{
    traceEventHeapInfo(CAPSET_HEAP_DEFAULT,
                       RtsFlags.GcFlags.generations,
                       RtsFlags.GcFlags.maxHeapSize * BLOCK_SIZE,
                       RtsFlags.GcFlags.minAllocAreaSize * BLOCK_SIZE,
                       MBLOCK_SIZE,
                       BLOCK_SIZE);
}

void
traceHeapProfBeginInit(void)
{
    traceHeapProfBegin(0);
}

#endif /* TRACING */
