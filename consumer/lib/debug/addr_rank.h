/* addr_rank: a set of closure addresses (a bit per heap word in 1 MiB
 * pages, found through a map of the pages) and, once finished, the rank of
 * each among them (with counts of the bits before each 64-bit word): a
 * dense id in address order for every closure of a heap, in 2.3% of the
 * heap's size. A breadth-first walk meets nearby addresses together, so
 * the set touches far less memory than a hash set of every address (which
 * made the walk wait on cache misses). Internal to librtscope-debug (the
 * walk's closures met, the dominator graph's ids). */
#ifndef RTSCOPE_ADDR_RANK_H
#define RTSCOPE_ADDR_RANK_H

#include "rtscope/base/hmap.h"

#include <stddef.h>
#include <stdint.h>

#define RANK_NONE UINT32_MAX

typedef struct rpage {
    uint64_t key; /* (address >> 20) + 1 */
    uint64_t *bits;
    uint32_t *pre; /* bits set before word w of this page */
    uint32_t base; /* rank of the page's first closure */
} rpage;

typedef struct rankset {
    hmap index; /* (addr >> PAGE_SHIFT) + 1 -> page + 1 */
    rpage *pages;
    size_t n, cap;
    uint64_t last_key;
    rpage *last;
    size_t total; /* after rank_finish: the addresses in the set */
} rankset;

#define RANK_PAGE_SHIFT 20

/* rank_add when a is not in the last page used. */
int rank_add_slow(rankset *s, uint64_t a);

/* Add an address (8-aligned): 1 if it was not in the set, 0 if it was,
 * -1 when out of memory. Inline: the walk adds every pointer it meets, and
 * a breadth-first walk mostly meets the page it met last. */
static inline int rank_add(rankset *s, uint64_t a)
{
    if (s->last && (a >> RANK_PAGE_SHIFT) + 1 == s->last_key) {
        uint64_t w = (a & (((uint64_t)1 << RANK_PAGE_SHIFT) - 1)) >> 3;
        uint64_t bit = (uint64_t)1 << (w & 63);
        uint64_t *word = &s->last->bits[w >> 6];
        if (*word & bit)
            return 0;
        *word |= bit;
        return 1;
    }
    return rank_add_slow(s, a);
}
/* After the last rank_add: compute the ranks (in address order). */
int rank_finish(rankset *s);
/* The rank of a, or RANK_NONE when a is not in the set. */
uint32_t rank_of(rankset *s, uint64_t a);
void rank_free(rankset *s);

/* The addresses of a finished set in address order, a batch at a time:
 * a cursor starts zeroed; rank_list fills out with up to max of the next
 * ones and returns how many (0 at the end). */
typedef struct rank_cursor {
    size_t page, word;
    uint64_t left; /* bits of the word not yet listed */
    int started;
} rank_cursor;
size_t rank_list(const rankset *s, rank_cursor *c, uint64_t *out, size_t max);

#endif
