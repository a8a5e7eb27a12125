/* census2: a two-level census of a heap's graph (debug_graph.h, before
 * dbg_graph_dominators frees its pointers): closures by their info table
 * and, within it, by the info tables of what their pointer fields point
 * to, in field order (ghc-debug's census2LevelClosureType, which keys
 * `Bin[I#,:,Bin,Bin]`): it tells a list of Ints from a list of Maps,
 * which a census by info table counts together. See Note [Two-level
 * keys] in census2.c. Names and output are the caller's. */
#ifndef RTSCOPE_DEBUG_CENSUS2_H
#define RTSCOPE_DEBUG_CENSUS2_H

#include "rtscope/base/hmap.h"
#include "rtscope/debug/debug_graph.h"

#include <stddef.h>
#include <stdint.h>

/* Runs of pointed-to tables a key holds at most. */
#define DBG_CENSUS2_RUNS 6

/* n pointers in a row to closures of one info table. */
typedef struct dbg_census2_run {
    uint32_t info; /* index, as dbg_graph.info */
    uint32_t n;
} dbg_census2_run;

/* The closures of one key: an info table and what they point to. */
typedef struct dbg_census2_row {
    uint32_t info; /* index, as dbg_graph.info */
    uint32_t run;  /* the key's runs: c->runs[run .. run + nruns) */
    uint32_t nruns;
    uint32_t rest; /* pointers after the key's runs (not told apart) */
    uint64_t count, bytes;
    uint64_t table_bytes; /* the bytes of all rows of its info table */
    uint32_t nsamp;
    uint32_t *samp; /* graph ids of its first keep closures */
} dbg_census2_row;

typedef struct dbg_census2 {
    /* after dbg_census2_make: by their info table's bytes (most first),
     * then by their own */
    dbg_census2_row *rows;
    size_t n, cap;
    dbg_census2_run *runs;
    size_t nruns, runcap;
    size_t keep;
    hmap index; /* (private) key hash -> row */
} dbg_census2;

/* The two-level census of g (g->succ needed), keeping keep samples a
 * row. 0, or -1 when out of memory (c freed). */
int dbg_census2_make(dbg_census2 *c, const dbg_graph *g, size_t keep);
void dbg_census2_free(dbg_census2 *c);

#endif
