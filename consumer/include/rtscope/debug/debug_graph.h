/* debug_graph: the reachable heap as a graph (closures numbered in the
 * order the walk reads them, their sizes, info tables, first-reached
 * parents and pointers), and its dominator tree: closure d dominates c
 * when every path from the roots to c passes through d, and the retained
 * size of d is what the GC would free if d became unreachable (d and
 * everything it dominates). See Note [Dominators] in debug_graph.c. */
#ifndef RTSCOPE_DEBUG_GRAPH_H
#define RTSCOPE_DEBUG_GRAPH_H

#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

#define DBG_GRAPH_NONE UINT32_MAX

typedef struct dbg_graph {
    size_t n;         /* closures */
    uint64_t bytes;   /* their bytes */
    uint64_t *addr;   /* by id */
    uint32_t *size;   /* bytes */
    uint32_t *info;   /* index into the heap's info tables (dbg_heap.infos) */
    uint32_t *parent; /* the closure it was first reached from, or NONE */
    uint32_t *off;    /* pointers of id i: succ[off[i] .. off[i + 1]) */
    uint32_t *succ;   /* (freed by dbg_graph_dominators) */
    uint32_t *roots;  /* ids of the roots */
    size_t nroots;
    /* after dbg_graph_dominators: */
    uint32_t *idom; /* immediate dominator, NONE for the roots' virtual root */
    uint64_t *retained;
    char err[600];
} dbg_graph;

/* Walk the heap from roots and keep its graph. Returns 0, or -1 with
 * g->err set. */
int dbg_graph_build(dbg_heap *h, const uint64_t *roots, size_t nroots,
                    dbg_graph *g);
/* The same in steps, for a walk run by someone else: a builder, its visit
 * function (a dbg_visit_fn, ctx = the builder) and the end, which frees
 * the builder (also when the walk failed). */
typedef struct dbg_graph_builder dbg_graph_builder;
dbg_graph_builder *dbg_graph_builder_new(dbg_heap *h, dbg_graph *g);
int dbg_graph_visit(void *builder, const dbg_closure *c, uint64_t parent);
int dbg_graph_builder_finish(dbg_graph_builder *b, const uint64_t *roots,
                             size_t nroots);
/* The dominator tree (Lengauer-Tarjan) and retained sizes. Frees succ and
 * off. Returns 0, or -1 (out of memory) with g->err set. */
int dbg_graph_dominators(dbg_graph *g);
void dbg_graph_free(dbg_graph *g);

#endif
