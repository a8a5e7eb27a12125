/* census: closures and bytes per info table, as one walk of the heap meets
 * them (rtscope debug census and thunks, the explorer's census views),
 * with the first closures of each kept as samples. --by module's owners
 * (Note [Census by module] in census.c): a closure of the RTS's own (an
 * array, a generic thunk) is counted under the module of the nearest
 * closure above it in the walk's tree that has one. Names and ordering
 * are the caller's. */
#ifndef RTSCOPE_DEBUG_CENSUS_H
#define RTSCOPE_DEBUG_CENSUS_H

#include "rtscope/base/hmap.h"
#include "rtscope/base/strtab.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* One info table's count (with by_module: one per owning module too). */
typedef struct dbg_census_entry {
    uint64_t info;  /* info pointer */
    uint32_t owner; /* by_module: the holder's module id + 1, else 0 */
    uint32_t nsamp; /* samples kept: its first closures, in walk order */
    uint64_t count, bytes;
    uint64_t *samp; /* keep of them (malloc'd at its first closure) */
} dbg_census_entry;

typedef struct dbg_census {
    dbg_heap *h;
    int thunks_only; /* count thunks only */
    int by_module;   /* find owners (dbg_closure.down) */
    size_t keep;     /* samples kept an entry */
    dbg_census_entry *e;
    size_t n, cap;
    strtab modules;      /* owner - 1 -> module name */
    uint64_t held_bytes; /* RTS closures counted under their holder */
    int nomem;
    hmap index; /* (private) (info, owner) -> entry + 1 */
    hmap modof; /* (private) info ptr -> module id + 1, or 0 */
} dbg_census;

/* An empty census of h keeping keep samples an entry; set thunks_only and
 * by_module before the walk. */
void dbg_census_init(dbg_census *c, dbg_heap *h, size_t keep);
/* Count closure cl. 0, or -1 when out of memory (c->nomem set too). */
int dbg_census_add(dbg_census *c, const dbg_closure *cl);
/* dbg_census_add as a dbg_visit_fn (ctx: the census); stops the walk when
 * out of memory. */
int dbg_census_visit(void *ctx, const dbg_closure *cl, uint64_t parent);
void dbg_census_free(dbg_census *c);

#endif
