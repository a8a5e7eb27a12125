/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Info table provenance: the RTS-internal side (heap profiling by info
 * table, IPE events). The public API is includes/rts/IPE.h.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* +RTS -hi: census bands are info tables.
 * See Note [-hi and RtsFlags.ProfFlags.doHeapProfile] in rts/IPE.c */
extern bool heapProfByInfoTable;

/* -hi is on: start indexing the loaded binaries in the background, so that
 * the first census finds the provenance index built (called by
 * initHeapProfiling). See Note [The provenance index] in IPEProvenance.c. */
void ipeStart(void);

/* Called by the census (rts/ProfHeap.c) for each info table that a sample
 * is about to mention, before the sample begins: posts the table's
 * EVENT_IPE unless this eventlog stream has already carried it.
 * `itbl` is the info table itself (get_itbl(p)), the census identity.
 * See Note [IPE events: once per stream, before first use] */
void ipeTraceForSample(const StgInfoTable *itbl);

/* A new eventlog stream has begun (called when the eventlog header is
 * posted): every table will be posted again before its next use. */
void ipeEventlogRestarted(void);

/* Post EVENT_IPE for every info table looked up so far, now, and mark them
 * as carried by the current stream. For code that starts a stream (an
 * eventlog restart, a newly connected socket consumer) and wants every
 * name known so far in it at once rather than lazily before next use. */
void ipeRepostAll(void);

/* In a child of fork() that will look tables up (the heap snapshot
 * writer): the lookup's lock, which another thread of the parent may
 * have held at the fork, starts unlocked. */
void ipeForkChild(void);


#include "EndPrivate.h"
