/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * GHC 9.2's heap memory events: EVENT_MEM_RETURN and EVENT_BLOCKS_SIZE.
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#if defined(TRACING)

#include "Capability.h"
#include "Trace.h"
#include "eventlog/EventLog.h"
#include "eventlog/HeapEvents.h"

/* Note [Memory return and blocks size events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC 9.2 added two events that tell how much memory the RTS holds and how
 * much of it is in use, which 9.0.2 lacks.  rtscope posts them with 9.2's
 * numbers, layouts, meaning and emission points, so that ghc-events,
 * eventlog2html and rtscope's exporter read them as they read a 9.2 log:
 *
 *   EVENT_MEM_RETURN (90), fixed size 16:
 *       (heap_capset: Word32, current_mblocks: Word32,
 *        needed_mblocks: Word32, returned_mblocks: Word32)
 *   After every major GC, once GarbageCollect() has worked out how many
 *   megablocks the next cycle needs and asked returnMemoryToOS() to free
 *   the excess: `current` is mblocks_allocated before that, `needed` the
 *   estimate, `returned` how many megablocks were actually freed (0 when
 *   nothing was in excess, and possibly less than current - needed when
 *   the free megablocks are fragmented).  9.0.2's returnMemoryToOS()
 *   returns nothing, so the hook in GC.c takes `returned` from the fall of
 *   mblocks_allocated, which freeMBlocks() lowers by exactly what it frees
 *   (all capabilities are stopped, nothing allocates meanwhile).
 *
 *   EVENT_BLOCKS_SIZE (91), fixed size 12:
 *       (heap_capset: Word32, size_bytes: Word64)
 *   After every GC, in stat_endGC() right after EVENT_HEAP_SIZE (under the
 *   same condition): n_alloc_blocks * BLOCK_SIZE, the bytes in blocks the
 *   block allocator handed out.  HEAP_SIZE minus BLOCKS_SIZE is the memory
 *   held in free blocks and megablocks.
 *
 * Both carry CAPSET_HEAP_DEFAULT and go into the buffer of the capability
 * that led the collection, like HEAP_SIZE.  Both are in the `g` (GC) class
 * of +RTS -l, like the other heap events.  The event types are registered in
 * the header of every eventlog (init_event_types), so a parser that does not
 * know them skips them by size.  The only difference from 9.2 is that
 * 9.2's dtrace probes for them are absent: Debian's GHC is built without
 * dtrace.
 *
 * The EventLog.c primitive postEventPayload() copies a payload encoded here
 * into the capability's buffer, so the layout lives in this file only.
 */

static StgWord8 *
putWord32BE (StgWord8 *p, StgWord32 w)
{
    p[0] = (StgWord8)(w >> 24);
    p[1] = (StgWord8)(w >> 16);
    p[2] = (StgWord8)(w >> 8);
    p[3] = (StgWord8)w;
    return p + 4;
}

void
traceEventMemReturn_ (Capability *cap,
                      uint32_t    current_mblocks,
                      uint32_t    needed_mblocks,
                      uint32_t    returned_mblocks)
{
#if defined(DEBUG)
    if (RtsFlags.TraceFlags.tracing == TRACE_STDERR) {
        traceCap_(cap, "Memory Return (Current: %u) (Needed: %u) "
                  "(Returned: %u)",
                  current_mblocks, needed_mblocks, returned_mblocks);
        return;
    }
#endif
    StgWord8 payload[sizeof(EventCapsetID) + 3 * sizeof(StgWord32)];
    StgWord8 *p = payload;
    p = putWord32BE(p, CAPSET_HEAP_DEFAULT);
    p = putWord32BE(p, current_mblocks);
    p = putWord32BE(p, needed_mblocks);
    p = putWord32BE(p, returned_mblocks);
    postEventPayload(cap, EVENT_MEM_RETURN, payload, (uint32_t)(p - payload));
}

#endif /* TRACING */
