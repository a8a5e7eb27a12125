/* v8snap: a heap export (heap_export.h) written as V8's heap snapshot,
 * the .heapsnapshot JSON that Chrome DevTools' Memory panel and memlab
 * read. See Note [The heap as a V8 heap snapshot] in v8snap.c. */
#ifndef RTSCOPE_CMD_DEBUG_V8SNAP_H
#define RTSCOPE_CMD_DEBUG_V8SNAP_H

#include "rtscope/debug/heap_export.h"

#include <stdio.h>

/* Write the export x of heap h to f (the nodes, then the edges: two
 * passes over the heap). 0; -1 with h->err set when the heap could not
 * be read again or memory ran out. Write errors are the caller's to find
 * (ferror). */
int v8snap_write(FILE *f, dbg_heap *h, dbg_export *x);

#endif
