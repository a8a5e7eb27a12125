/* rec_source: a heap source that serves another source's answers and
 * records them into a snapshot (debug_snap.h): the roots, every closure
 * read, its pointer map, the info tables, the bitmaps and the block list.
 * What a walk through it reads is what the snapshot holds; the walk knows
 * nothing of snapshots. */
#ifndef RTSCOPE_DEBUG_REC_SOURCE_H
#define RTSCOPE_DEBUG_REC_SOURCE_H

#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"

/* Read h's heap through a recording of its source into snap (which the
 * caller keeps and frees) until dbg_heap_record_stop. 0, or -1 when out of
 * memory (h->err). */
int dbg_heap_record(dbg_heap *h, dbg_snap *snap);
/* Back to the source h had before. */
void dbg_heap_record_stop(dbg_heap *h);

#endif
