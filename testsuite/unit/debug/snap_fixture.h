/* A small synthetic heap as a snapshot, for the snapshot unit tests and
 * the fuzzer's seeds: constructors, a thunk with an SRT, a PAP with an
 * argument bitmap, a thread with a stack of two frames, a static closure,
 * three roots and one block. */
#ifndef RTSCOPE_SNAP_FIXTURE_H
#define RTSCOPE_SNAP_FIXTURE_H

#include "rtscope/debug/debug_snap.h"

#define SNAPFIX_HEAP 0x4200000000ULL
#define SNAPFIX_CLOSURES 8      /* reachable from the roots */
#define SNAPFIX_BYTES 208       /* their bytes */
#define SNAPFIX_STATIC 0x500000ULL

/* Fill s (dbg_snap_init'ed) and finish it. Returns 0 or -1. */
int snapfix_build(dbg_snap *s);

#endif
