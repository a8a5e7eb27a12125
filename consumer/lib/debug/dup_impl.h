/* What the duplicate analyses (dups.c: closures, dup_strings.c: strings)
 * share, private to lib/debug: a 128-bit hash of a sequence of words to
 * group by content (two 64-bit lanes, so that a collision between
 * different contents would need ~2^64 of them), and the order of their
 * groups. */
#ifndef RTSCOPE_DEBUG_DUP_IMPL_H
#define RTSCOPE_DEBUG_DUP_IMPL_H

#include "rtscope/strhash.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct hash2 {
    uint64_t a, b;
} hash2;

static inline hash2 hash2_start(void)
{
    return (hash2){0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
}

static inline void hash2_word(hash2 *h, uint64_t w)
{
    h->a = rtscope_mix64(h->a ^ w) + 0x9e3779b97f4a7c15ULL;
    h->b = rtscope_mix64(h->b + w * 0xff51afd7ed558ccdULL) ^ (h->b >> 17);
}

/* Looking a group up by its hash (hmap_find, hash a, eq dup_key_eq): the
 * groups are an array of records of `size` bytes that begin with their
 * two lanes (uint64_t a, b). */
typedef struct dup_key {
    const void *groups;
    size_t size;
    uint64_t b; /* the second lane, which the map does not hold */
} dup_key;

static inline int dup_key_eq(const void *ctx, uint64_t i)
{
    const dup_key *k = ctx;
    uint64_t b;
    memcpy(&b, (const char *)k->groups + i * k->size + sizeof(uint64_t),
           sizeof(b));
    return b == k->b;
}

/* Groups by bytes wasted, then copies, most first; then by the address of
 * their first member. */
static inline int dup_order(uint64_t wasted_x, uint64_t count_x,
                            uint64_t first_x, uint64_t wasted_y,
                            uint64_t count_y, uint64_t first_y)
{
    if (wasted_x != wasted_y)
        return wasted_x < wasted_y ? 1 : -1;
    if (count_x != count_y)
        return count_x < count_y ? 1 : -1;
    return first_x < first_y ? -1 : first_x > first_y;
}

#endif
