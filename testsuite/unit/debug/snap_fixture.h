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

/* Building blocks, for other synthetic heaps (each returns 0 or -1):
 * the closure of n words w (host order) at addr; an info table (con and
 * mod may be NULL: no constructor, no source information); a
 * STACK_BITMAP (stack != 0, keyed by frame address) or FUN_BITMAP (keyed
 * by function closure) reply of n bits. */
int snapfix_closure(dbg_snap *s, uint64_t addr, const uint64_t *w, size_t n);
int snapfix_info(dbg_snap *s, uint64_t ptr, uint32_t type, uint32_t ptrs,
                 uint32_t nptrs, uint64_t srt, const char *con,
                 const char *mod, const char *span);
int snapfix_bitmap(dbg_snap *s, int stack, uint64_t key, uint32_t n,
                   const unsigned char *bits);

/* Fill s (dbg_snap_init'ed) and finish it. Returns 0 or -1. */
int snapfix_build(dbg_snap *s);

#endif
