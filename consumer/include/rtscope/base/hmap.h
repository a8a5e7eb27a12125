/* hmap: the consumer's one hash map. Open addressing with linear probing,
 * at most half full; keys and values in arrays of their own, so that a
 * search that misses (most of them, in the walk's read-ahead cache) reads
 * only keys. A map that is done with is freed, not emptied: a large empty
 * table makes every miss a cache miss.
 *
 * Two ways to use one (never both in the same map):
 * - Numbers as keys (addresses, info pointers, ids): hmap_put, hmap_get,
 *   hmap_at. Every key is one, 0 too (kept beside the slots, where key 0
 *   marks an empty slot).
 * - Entries the caller keeps (strings, records), indexed by a 64-bit hash
 *   of theirs: hmap_add adds (hash, value) without looking, and hmap_find
 *   asks eq(ctx, value) of each entry with that hash until one matches.
 *   The value is usually the entry's index in the caller's array.
 *
 * Ownership: the map owns its slots and nothing else. Keys and values are
 * numbers to it; what they stand for is the caller's to keep and free.
 * A zeroed hmap is an empty map; hmap_free returns it to that state.
 * Functions that add return 0, or -1 when out of memory (the map is then
 * unchanged). */
#ifndef RTSCOPE_BASE_HMAP_H
#define RTSCOPE_BASE_HMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hmap {
    uint64_t *keys; /* 0: an empty slot */
    uint64_t *vals;
    size_t n;     /* entries */
    size_t cap;   /* slots: 0 or a power of two */
    int has_zero; /* key 0's entry, numbers as keys */
    uint64_t zero_val;
} hmap;

/* ---- numbers as keys ---------------------------------------------------- */

/* key -> val, replacing what key had. */
int hmap_put(hmap *m, uint64_t key, uint64_t val);
/* hmap_get's search (the map is not empty). */
int hmap_lookup(const hmap *m, uint64_t key, uint64_t *val);
/* 1 and *val (if val) when key is there, else 0. Inline: an empty map (a
 * read-ahead cache between bursts) answers without a call. */
static inline int hmap_get(const hmap *m, uint64_t key, uint64_t *val)
{
    return m->n ? hmap_lookup(m, key, val) : 0;
}
/* The value of key, added as 0 if key was not there (*added says which):
 * for counters and accumulators. NULL when out of memory. The pointer is
 * good until the next addition. */
uint64_t *hmap_at(hmap *m, uint64_t key, int *added);

/* ---- entries kept by the caller ------------------------------------------ */

/* Does the entry `val` equal what the caller looks for (ctx)? */
typedef int (*hmap_eq_fn)(const void *ctx, uint64_t val);
/* The first entry with this hash for which eq says yes: 1 and *val, or 0. */
int hmap_find(const hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx,
              uint64_t *val);
/* Add an entry (any hash, 0 too) without looking for an equal one. */
int hmap_add(hmap *m, uint64_t hash, uint64_t val);

/* ---- both ---------------------------------------------------------------- */

/* Room for n entries without growing. */
int hmap_reserve(hmap *m, size_t n);
/* The next entry from *pos (start at 0): 1 with its key and value, 0 at the
 * end. Order is the slots', not insertion's. */
int hmap_next(const hmap *m, size_t *pos, uint64_t *key, uint64_t *val);
void hmap_free(hmap *m);

#endif
