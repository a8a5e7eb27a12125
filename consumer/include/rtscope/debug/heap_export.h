/* heap_export: the reachable heap as a graph of nodes and edges, handed
 * out one at a time to a writer (a V8 .heapsnapshot, `rtscope debug
 * heapsnapshot`) in constant memory beyond the heap's source: a synthetic
 * root, the GC roots grouped under it, then every reachable closure in
 * address order with its pointers, each named by the field it is in. See
 * Note [Exporting a heap] in heap_export.c. */
#ifndef RTSCOPE_DEBUG_HEAP_EXPORT_H
#define RTSCOPE_DEBUG_HEAP_EXPORT_H

#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* The groups of the roots, as `rtscope explore` shows them: the objects
 * the program saved (rts_debugStubSaveClosure), then the GC roots by the
 * closure type of the root. */
enum dbg_root_group {
    DBG_RG_SAVED,
    DBG_RG_THREADS,
    DBG_RG_STATIC,
    DBG_RG_STABLE,
    DBG_RG_WEAK,
    DBG_RG_OTHER,
    DBG_RG_N
};
/* "Saved objects", "Threads", "CAFs and static roots", ... */
extern const char *const dbg_root_group_title[DBG_RG_N];
/* The group of a GC root of closure type `type`. */
enum dbg_root_group dbg_root_group_of(uint32_t type);

typedef struct dbg_export dbg_export;

/* Pass 1, the walk: an exporter of the heap h, whose visit function the
 * walk from the roots calls (a dbg_visit_fn, ctx = the exporter). Sets
 * h->want_fields. NULL when out of memory. */
dbg_export *dbg_export_new(dbg_heap *h);
int dbg_export_visit(void *exporter, const dbg_closure *c, uint64_t parent);
/* After the walk, with the roots it started from (kept, not copied: the
 * last nsaved of them the saved objects): 0, or -1 with h->err set. The
 * heap must stay readable as it was walked (the program paused) until the
 * last pass. */
int dbg_export_finish(dbg_export *x, const uint64_t *roots, size_t nroots,
                      size_t nsaved);
void dbg_export_free(dbg_export *x);

/* Nodes are numbered 0 (the root), 1 .. ngroups (the groups that have
 * roots), then the closures. */
size_t dbg_export_nnodes(const dbg_export *x);
size_t dbg_export_nedges(const dbg_export *x);
size_t dbg_export_ngroups(const dbg_export *x);

enum dbg_export_kind { DBG_XN_ROOT, DBG_XN_GROUP, DBG_XN_CLOSURE };

/* A node: the root, a group (its title) or a closure (valid during the
 * call), and how many edges leave it. */
typedef struct dbg_export_node {
    enum dbg_export_kind kind;
    const char *title;    /* root and group */
    const dbg_closure *c; /* closure */
    size_t nedges;
} dbg_export_node;

/* An edge of a node, to node `to`: from the root, to group number index
 * (title its title); from a group, to its root number index; from a
 * closure, its pointer `field` (DBG_FIELD). */
typedef struct dbg_export_edge {
    enum dbg_export_kind from;
    const char *title;
    uint32_t index;
    uint64_t field;
    uint32_t to;
} dbg_export_edge;

/* Every node in order, then (a second pass) every edge in order, the
 * edges of node 0 first. fn returns 0 to go on; a non-zero return stops
 * and is returned. -1 with the heap's err set when it could not be read. */
typedef int (*dbg_export_node_fn)(void *ctx, const dbg_export_node *n);
typedef int (*dbg_export_edge_fn)(void *ctx, const dbg_export_edge *e);
int dbg_export_nodes(dbg_export *x, dbg_export_node_fn fn, void *ctx);
int dbg_export_edges(dbg_export *x, dbg_export_edge_fn fn, void *ctx);

#endif
