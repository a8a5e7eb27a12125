/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Info table provenance from the program's own binary (rts/IPEBinary.c),
 * behind lookupIPE: the RTS-internal side, on every GHC rtscope patches.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* What the binaries say about the info table whose info pointer is `info`
 * (a closure's header.info), cached: lookupIPE's answer for every table the
 * compiler did not register. NULL when nothing beyond the closure type is
 * known. The entry lives until the RTS exits. Thread-safe. */
InfoProvEnt *lookupIPEFromBinary(const StgInfoTable *info);

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

/* The current eventlog stream's number: a table given to
 * ipeTraceForSample() has been posted in this stream for as long as the
 * number stays the same (for callers that remember which they gave, as
 * the sampler does per capability: rts/Sampling.c). */
StgWord ipeCurrentStream(void);

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

/* An entry's source location as one string, "file:line:col-col" as GHC
 * 9.2's InfoProv has it (srcloc), or "" without one: what the debug stub's
 * SOURCE_INFO and a heap snapshot's source fields carry. A GHC that keeps
 * the file and the span apart (9.4 and later) has them joined into buf, of
 * len bytes (cut to fit). */
const char *ipeSrcLoc(const InfoProv *p, char *buf, size_t len);

#include "EndPrivate.h"
