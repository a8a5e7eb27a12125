/* census_table: a census (rtscope/debug/census.h) as rows, one a key (the
 * closure type, constructor, info table, module or thunk source the
 * entries are named by), largest first: what `debug census` and `thunks`
 * print and the explorer's census views show. */
#ifndef RTSCOPE_CMD_DEBUG_CENSUS_TABLE_H
#define RTSCOPE_CMD_DEBUG_CENSUS_TABLE_H

#include "rtscope/debug/census.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* BY_THUNK_SOURCE is `rtscope debug thunks`: thunks only, by source.
 * BY_HEAP_BAND is --heap-census: the bands of a -hT census. */
enum census_by {
    BY_TYPE,
    BY_CONSTRUCTOR,
    BY_INFO,
    BY_MODULE,
    BY_THUNK_SOURCE,
    BY_HEAP_BAND
};

typedef struct census_row {
    char *key;
    uint64_t count, bytes;
    uint64_t *samp; /* its first closures (the census's keep at most) */
    size_t nsamp;
} census_row;

typedef struct census_table {
    census_row *rows;
    size_t n;
} census_table;

/* The name of an entry's key (malloc'd), NULL when out of memory. */
char *debug_census_key(dbg_heap *h, const dbg_census *c,
                       const dbg_census_entry *e, enum census_by by);

/* The census's rows under their keys, largest first (-hT's pinned groups,
 * if any, as ARR_WORDS), samples merged. 0, or an exit status with the
 * error printed. */
int census_table_make(census_table *t, dbg_heap *h, const dbg_census *c,
                      enum census_by by, uint64_t pinned_groups,
                      uint64_t pinned_bytes);
void census_table_free(census_table *t);

#endif
