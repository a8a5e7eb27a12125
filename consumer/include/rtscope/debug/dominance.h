/* dominance: analyses of a heap's dominator tree (debug_graph.h), free of
 * names and output: the tree's children, retained sizes by group, the leak
 * suspects and what a suspect retains. Groups are numbers the caller
 * gives each info table (by info table, constructor, module...); the
 * commands name them and write the reports. */
#ifndef RTSCOPE_DEBUG_DOMINANCE_H
#define RTSCOPE_DEBUG_DOMINANCE_H

#include "rtscope/debug/debug_graph.h"

#include <stddef.h>
#include <stdint.h>

/* The dominator tree's children: those of closure v (or of the virtual
 * root, v = n) are child[coff[v] .. coff[v + 1]). */
typedef struct dbg_domtree {
    size_t n;
    uint32_t *coff; /* n + 2 */
    uint32_t *child;
} dbg_domtree;

/* After dbg_graph_dominators. 0, or -1 when out of memory. */
int dbg_domtree_build(const dbg_graph *g, dbg_domtree *t);
void dbg_domtree_free(dbg_domtree *t);

/* A group's sizes (Note [Retained size by group] in dominance.c). */
typedef struct dbg_group_sum {
    uint64_t retained; /* what no closure of the same group dominates */
    uint64_t bytes;    /* its closures' own bytes */
    uint64_t count;    /* its closures */
    uint32_t top;      /* its closures no other of the group dominates */
} dbg_group_sum;

/* The sums of the groups of k groupings at once (one walk of the tree):
 * grouping j has ngroups[j] groups, gid[j] gives the group of each info
 * table (indexed as dbg_graph.info), and its sums go to out[j] (ngroups[j]
 * of them, zeroed here). 0, or -1 when out of memory. */
int dbg_dom_group_sums(const dbg_graph *g, const dbg_domtree *t, int k,
                       const uint32_t *const *gid, const size_t *ngroups,
                       dbg_group_sum *const *out);

/* The leak suspects of threshold thr bytes (Note [Leak suspects] in
 * dominance.c), largest first, at most max into out. Their number, or
 * (size_t)-1 when out of memory. */
size_t dbg_dom_suspects(const dbg_graph *g, const dbg_domtree *t, uint64_t thr,
                        uint32_t *out, size_t max);

/* Bytes of one info table among what a closure dominates. */
typedef struct dbg_dom_part {
    uint32_t info; /* index, as dbg_graph.info */
    uint64_t bytes;
} dbg_dom_part;

/* The info tables with the most bytes among v and what it dominates,
 * largest first (ties: lower index first), at most max into out. Their
 * number, or (size_t)-1 when out of memory. */
size_t dbg_dom_composition(const dbg_graph *g, const dbg_domtree *t, uint32_t v,
                           dbg_dom_part *out, size_t max);

#endif
