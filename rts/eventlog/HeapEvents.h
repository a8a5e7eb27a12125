/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * GHC 9.2's heap memory events: EVENT_MEM_RETURN and EVENT_BLOCKS_SIZE.
 * See Note [Memory return and blocks size events] in HeapEvents.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "Trace.h"

#include "BeginPrivate.h"

#if defined(TRACING)

void traceEventMemReturn_ (Capability *cap,
                           uint32_t    current_mblocks,
                           uint32_t    needed_mblocks,
                           uint32_t    returned_mblocks);

/* After a major GC tried to give megablocks back to the OS: how many the
 * RTS held, how many it wanted to keep, how many it returned. */
INLINE_HEADER void traceEventMemReturn (Capability *cap,
                                        uint32_t    current_mblocks,
                                        uint32_t    needed_mblocks,
                                        uint32_t    returned_mblocks)
{
    if (RTS_UNLIKELY(TRACE_gc)) {
        traceEventMemReturn_(cap, current_mblocks, needed_mblocks,
                             returned_mblocks);
    }
}

/* After every GC, with EVENT_HEAP_SIZE: the bytes in allocated blocks. */
INLINE_HEADER void traceEventBlocksSize (Capability *cap,
                                         CapsetID    heap_capset,
                                         W_          blocks_size)
{
    traceHeapEvent(cap, EVENT_BLOCKS_SIZE, heap_capset, blocks_size);
}

#else /* !TRACING */

#define traceEventMemReturn(cap, current, needed, returned) /* nothing */
#define traceEventBlocksSize(cap, heap_capset, blocks_size) /* nothing */

#endif /* TRACING */

#include "EndPrivate.h"
