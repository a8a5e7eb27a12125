/* stub_source: a live debug stub as a heap source (dbg_source_ops). It
 * borrows the connection, which its owner connects, pauses and closes, and
 * owns what the stub read ahead (Note [Reading ahead] in
 * rts/DebugStubHeap.c): closures sent with a reply before they were
 * asked for, served from a cache when the walk asks for them. */
#ifndef RTSCOPE_DEBUG_STUB_SOURCE_H
#define RTSCOPE_DEBUG_STUB_SOURCE_H

#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_heap.h"

typedef struct dbg_stub_source dbg_stub_source;

/* NULL when out of memory. */
dbg_stub_source *dbg_stub_source_new(dbg_conn *conn);
void dbg_stub_source_free(dbg_stub_source *s);
/* The same, for dbg_heap.src_free. */
void dbg_stub_source_free_fn(void *s);

/* src = a dbg_stub_source */
extern const dbg_source_ops dbg_source_stub;

#endif
