/* dups: identical immutable closures that could be one shared closure
 * (ghc-debug's duplicate analysis), as one walk of the heap meets them:
 * `rtscope debug dups` and the explorer's ARR_WORDS view. Closures are
 * grouped by their info table and payload (Note [What counts as
 * immutable] in dups.c); static closures are left out when the heap's
 * block list tells them apart. Names and output are the caller's. */
#ifndef RTSCOPE_DEBUG_DUPS_H
#define RTSCOPE_DEBUG_DUPS_H

#include "rtscope/base/hmap.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes of an ARR_WORDS' payload a duplicate group keeps (dbg_dup_group
 * head) when samples are kept. */
#define DBG_DUP_HEAD 64
/* Histogram buckets: closures of 2^k .. 2^(k+1) - 1 bytes in bucket k. */
#define DBG_DUP_BUCKETS 40

/* Identical closures: the same info table and the same payload. */
typedef struct dbg_dup_group {
    uint64_t h1, h2; /* hash of (info, payload); first (dup_impl.h) */
    uint64_t info;
    uint64_t example; /* the first closure met */
    uint64_t count;
    uint32_t size;  /* bytes, each */
    uint32_t nsamp; /* samples kept (once a second closure is met) */
    uint64_t *samp; /* the first keep closures, in walk order */
    /* ARR_WORDS with samples kept: the payload's length, and its first
     * DBG_DUP_HEAD bytes (malloc'd) */
    uint64_t payload;
    unsigned char *head;
} dbg_dup_group;

/* Closures of one histogram bucket (all of them, duplicated or not). */
typedef struct dbg_dup_bucket {
    uint64_t count, bytes;
    uint64_t dups;   /* closures that are a copy of an earlier one */
    uint64_t wasted; /* their bytes */
} dbg_dup_bucket;

typedef struct dbg_dups {
    dbg_heap *h;
    uint32_t only_type; /* count closures of this type only (0: all kinds) */
    size_t keep;        /* samples kept a duplicated group (0: none) */
    /* why there is no block list (static closures counted too), if so */
    char no_blocks[520];
    char err[600]; /* fatal: why (the walk stopped) */
    int nomem;
    dbg_dup_group *groups; /* in the order met; after dbg_dups_finish, the
                              duplicated ones, most bytes wasted first */
    size_t n, cap;
    /* counted by the walk */
    uint64_t candidates, candidate_bytes;
    /* after dbg_dups_finish */
    uint64_t dup_closures, dup_bytes;
    dbg_dup_bucket hist[DBG_DUP_BUCKETS];
    /* (private) */
    hmap index;
    dbg_block *blocks;
    size_t nblocks;
    int blocks_tried;
} dbg_dups;

/* An empty analysis of h keeping keep samples a duplicated group. */
void dbg_dups_init(dbg_dups *d, dbg_heap *h, size_t keep);
/* A dbg_visit_fn (ctx: the analysis). Reads the heap's block list at its
 * first call; stops the walk when out of memory (nomem) or when the heap
 * can no longer be read (err). */
int dbg_dups_visit(void *ctx, const dbg_closure *c, uint64_t parent);
/* After the walk: the histogram, the totals, and the groups cut to those
 * with duplicates, most bytes wasted first. */
void dbg_dups_finish(dbg_dups *d);
void dbg_dups_free(dbg_dups *d);

/* Bytes that sharing one closure of the group would free. */
static inline uint64_t dbg_dup_wasted(const dbg_dup_group *g)
{
    return (g->count - 1) * g->size;
}

#endif
