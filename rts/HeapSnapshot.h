/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Heap snapshots the program takes of itself (rts/HeapSnapshot.c): at heap
 * overflow, at a live-heap size, on a signal, a control command or an API
 * call. See Note [Heap snapshots] in HeapSnapshot.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* What the flags ask for (rts/HeapSnapshotFlags.c). */
typedef struct {
    char *dir;              // --heap-snapshot-dir=DIR; NULL: the working directory
    bool on_overflow;       // --heap-snapshot-on-overflow[=DIR]
    char *overflow_dir;     // its DIR, or NULL
    StgWord64 at_size;      // --heap-snapshot-at=SIZE[:FACTOR[:COUNT]]; 0: off
    double at_factor;
    uint32_t at_count;
    int signal;             // --heap-snapshot-signal=SIG; 0: none
    bool raw;               // --heap-snapshot-raw: not compressed
} HeapSnapshotConfig;

extern HeapSnapshotConfig heap_snapshot_config;

/* A size as -M takes one: a number of bytes, with k, m or g (either
 * case); *end is left after it. Also --sample-alloc's (rts/Sampling.c). */
bool rtscopeParseSize (const char *s, char **end, StgWord64 *out);

/* From procRtsOpts: arg is what follows "--heap-snapshot"; false if it is
 * not one of ours or is bad (*bad then says why). */
bool heapSnapshotFlag (const char *arg, const char **bad);

/* From hs_init (after the flags) and hs_exit (before the RTS stops: waits
 * for writers still at work, so that a snapshot taken at heap overflow is
 * complete when the program exits). */
void initHeapSnapshots (void);
void exitHeapSnapshots (void);

/* From scheduleDoGC() right after GarbageCollect(), while no mutator runs
 * (every Capability held, or the parallel GC's workers not yet released):
 * takes the snapshots that heap overflow or the live-heap threshold ask
 * for. */
void heapSnapshotAfterGc (bool major_gc);

/* From the scheduler loop, and from awaitEvent() when a signal interrupts
 * its wait: the non-threaded RTS serves requests (signal, control
 * command, API) there, where no Haskell code runs, and reaps finished
 * writers. A no-op in the threaded RTS (this module's thread does both). */
void heapSnapshotSchedule (void);

/* A request for one snapshot; async-signal-safe. why: a short word for the
 * file name ("signal", "control", "api"). */
void heapSnapshotRequest (const char *why);

/* The same from a thread that may start one (not a signal handler): the
 * eventlog socket's control command, rts_requestHeapSnapshot(). */
void heapSnapshotAsk (const char *why);

#include "EndPrivate.h"
