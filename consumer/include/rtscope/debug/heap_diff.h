/* heap_diff: what grew from one heap of a program to another (A, the
 * earlier, to B), free of output: each heap counted by info table, the
 * counts put in groups by the names the caller gives the info tables (one
 * naming per grouping: by info table, constructor, module...), groups of
 * the same name matched across the two heaps, ranked by growth, and for a
 * group the closure of B that stands for it (Note [Heap diff] in
 * heap_diff.c). The command names the tables and writes the report. */
#ifndef RTSCOPE_DEBUG_HEAP_DIFF_H
#define RTSCOPE_DEBUG_HEAP_DIFF_H

#include "rtscope/base/strtab.h"
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* ---- one heap by info table ---------------------------------------------- */

/* Closures and bytes of one heap by info table, indexed as
 * dbg_heap_info_index and dbg_graph.info number the tables; a zeroed one
 * is empty. */
typedef struct dbg_info_census {
    uint64_t *count, *bytes;
    size_t cap;  /* indexes with room (those never counted hold 0) */
    dbg_heap *h; /* the heap walked, for dbg_info_census_visit */
    int nomem;   /* dbg_info_census_visit ran out of memory */
} dbg_info_census;

/* Count one closure of `bytes` bytes of info table `info`: 0, or -1 when
 * out of memory. */
int dbg_info_census_add(dbg_info_census *c, size_t info, uint64_t bytes);
/* A dbg_visit_fn (ctx: a census with h set) counting each closure the
 * walk visits; out of memory stops the walk with nomem set. */
int dbg_info_census_visit(void *census, const dbg_closure *c, uint64_t parent);
/* Count every closure of a walked graph: 0, or -1 when out of memory. */
int dbg_info_census_of_graph(dbg_info_census *c, const dbg_graph *g);
void dbg_info_census_free(dbg_info_census *c);

/* ---- the two heaps in groups ----------------------------------------------
 */

#define DBG_DIFF_GROUPINGS_MAX 8
#define DBG_DIFF_NAME_MAX 1400 /* room for a name, NUL included */
#define DBG_DIFF_NONE UINT32_MAX

/* A group's closures and bytes in heap A ([0]) and in heap B ([1]). */
typedef struct dbg_diff_group {
    uint64_t count[2], bytes[2];
} dbg_diff_group;

/* Growth from A to B, in bytes and in closures. */
int64_t dbg_diff_growth(const dbg_diff_group *g);
int64_t dbg_diff_count_growth(const dbg_diff_group *g);

/* The name of info table `info` of one heap in grouping k, into buf (len
 * bytes, DBG_DIFF_NAME_MAX): tables named alike are one group, in one heap
 * or across the two. */
typedef void (*dbg_diff_name_fn)(void *ctx, size_t info, int k, char *buf,
                                 size_t len);

typedef struct dbg_heap_diff {
    int ngroupings;
    strtab names[DBG_DIFF_GROUPINGS_MAX];          /* groups by id */
    dbg_diff_group *group[DBG_DIFF_GROUPINGS_MAX]; /* by id */
    size_t cap[DBG_DIFF_GROUPINGS_MAX];
    /* each heap's info tables' groups (DBG_DIFF_NONE: not counted) */
    uint32_t *gid[2][DBG_DIFF_GROUPINGS_MAX];
    size_t ninfos[2];
    uint64_t count[2], bytes[2]; /* the heaps' totals */
} dbg_heap_diff;

/* An empty diff of ngroupings (at most DBG_DIFF_GROUPINGS_MAX) groupings. */
void dbg_heap_diff_init(dbg_heap_diff *d, int ngroupings);
/* Add heap A (side 0) or B (side 1), once each, A first: its census, its
 * tables named by name(ctx, ...) for every grouping. 0, or -1 when out of
 * memory. */
int dbg_heap_diff_add(dbg_heap_diff *d, int side, const dbg_info_census *c,
                      dbg_diff_name_fn name, void *ctx);
void dbg_heap_diff_free(dbg_heap_diff *d);

/* The groups of one grouping by growth in bytes, largest first (ties: the
 * first named first), and how many grew and shrank. */
typedef struct dbg_diff_rank {
    uint32_t *order; /* every group's id */
    size_t n;
    size_t grew, shrank; /* groups with more bytes in B, with fewer */
    int64_t shrunk;      /* the bytes those that shrank lost, in all */
} dbg_diff_rank;

/* Rank the groups of grouping k: 0, or -1 when out of memory. */
int dbg_heap_diff_rank(const dbg_heap_diff *d, int k, dbg_diff_rank *r);
void dbg_diff_rank_free(dbg_diff_rank *r);

/* The closure of group gid (grouping k) that the walk of B reached last,
 * in g, the graph of heap B (whose census was side 1), or DBG_GRAPH_NONE
 * when B has none. */
uint32_t dbg_heap_diff_last_in_b(const dbg_heap_diff *d, int k, uint32_t gid,
                                 const dbg_graph *g);

#endif
