/* dups: see rtscope/debug/dups.h.
 *
 * Note [What counts as immutable]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Two closures are duplicates when they have the same info table and the
 * same payload word for word (pointer fields compared untagged, i.e. by
 * the object they point to: a shallow comparison). Replacing one by the
 * other must not change what the program can observe, so only closures
 * that are never written after construction count:
 *   - constructors (CONSTR, CONSTR_p_n): GHC never updates a data
 *     constructor's fields in place; a field that holds a mutable object
 *     (IORef, MVar, MutableArray#) holds a pointer to it, and equal
 *     pointers mean the same mutable object, so sharing stays invisible;
 *   - frozen arrays (MUT_ARR_PTRS_FROZEN_*, SMALL_MUT_ARR_PTRS_FROZEN_*):
 *     Array#/SmallArray#; a thawed array changes closure type. The card
 *     table is GC bookkeeping and is not compared;
 *   - byte arrays (ARR_WORDS): compared on their `bytes` of payload. The
 *     heap does not tell a ByteArray# from a MutableByteArray# (one info
 *     table for both), so these are shareable only if the program never
 *     writes them again (ByteStrings, Text, frozen arrays: yes; buffers:
 *     no). They are listed with the type ARR_WORDS so a reader can judge.
 * Not counted: thunks (updated in place), functions and PAPs (rarely
 * identical by payload, and not data), mutable objects (MUT_VAR, MVAR,
 * TVAR, unfrozen arrays: identity matters), stacks, threads, indirections
 * and blackholes, and static constructors (CONSTR_NOCAF: shared already).
 * The comparison is shallow: two `Just x` and `Just y` with x and y
 * separate but equal are not duplicates (x and y are, and a second pass
 * after sharing them would find the Justs).
 * Closures are grouped by a 128-bit hash of (info table, payload); a
 * collision between different payloads would need ~2^64 closures. */
#include "rtscope/debug/dups.h"

#include "dup_impl.h"
#include "rtscope/base/grow.h"
#include "rtscope/debug/debug_blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD ((size_t)8)
#define UNTAG(p) ((p) & ~(uint64_t)7)
/* the frozen-dirty twins of the FROZEN_CLEAN types (ClosureTypes.h) */
#define MUT_ARR_PTRS_FROZEN_DIRTY 45u
#define SMALL_MUT_ARR_PTRS_FROZEN_DIRTY 61u

void dbg_dups_init(dbg_dups *d, dbg_heap *h, size_t keep)
{
    memset(d, 0, sizeof(*d));
    d->h = h;
    d->keep = keep;
}

void dbg_dups_free(dbg_dups *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->groups[i].samp);
        free(d->groups[i].head);
    }
    free(d->groups);
    free(d->blocks);
    hmap_free(&d->index);
    memset(d, 0, sizeof(*d));
}

static uint64_t word(const dbg_closure *c, size_t i)
{
    uint64_t w = 0;
    if ((i + 1) * WORD <= c->size)
        memcpy(&w, c->mem + i * WORD, WORD);
    return w;
}

/* Hash an array of pointers (np words from word `at`): 0 if they do not
 * fit in the closure. */
static int hash_ptrs(const dbg_closure *c, size_t at, hash2 *h)
{
    uint64_t np = word(c, 1);
    if ((at + np) * WORD > c->size)
        return 0;
    hash2_word(h, np);
    for (uint64_t i = 0; i < np; i++)
        hash2_word(h, UNTAG(word(c, at + (size_t)i)));
    return 1;
}

/* Hash a candidate's identity; 0 if the closure is not a candidate. */
static int dups_hash(const dbg_closure *c, hash2 *h)
{
    uint32_t t = c->info->type;
    *h = hash2_start();
    hash2_word(h, c->info->ptr);
    hash2_word(h, c->size);
    if (t >= GHC_CONSTR && t < GHC_CONSTR_NOCAF) {
        size_t np = c->info->ptrs, nn = c->info->nptrs;
        if ((1 + np + nn) * WORD > c->size)
            return 0;
        for (size_t i = 1; i <= np; i++)
            hash2_word(h, UNTAG(word(c, i)));
        for (size_t i = 1 + np; i <= np + nn; i++)
            hash2_word(h, word(c, i));
        return 1;
    }
    if (t == GHC_ARR_WORDS) {
        uint64_t bytes = word(c, 1);
        if (2 * WORD + bytes > c->size)
            return 0;
        hash2_word(h, bytes);
        for (uint64_t off = 0; off < bytes; off += WORD) {
            uint64_t w = 0;
            size_t k = bytes - off < WORD ? (size_t)(bytes - off) : WORD;
            memcpy(&w, c->mem + 2 * WORD + off, k);
            hash2_word(h, w);
        }
        return 1;
    }
    if (t == GHC_MUT_ARR_PTRS_FROZEN_CLEAN || t == MUT_ARR_PTRS_FROZEN_DIRTY)
        return hash_ptrs(c, 3, h);
    if (t == GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN ||
        t == SMALL_MUT_ARR_PTRS_FROZEN_DIRTY)
        return hash_ptrs(c, 2, h);
    return 0;
}

/* The group of hash h, added (count 0) if new; NULL when out of memory. */
static dbg_dup_group *dups_group(dbg_dups *d, hash2 h)
{
    uint64_t i;
    dup_key k = {d->groups, sizeof(*d->groups), h.b};
    if (hmap_find(&d->index, h.a, dup_key_eq, &k, &i))
        return &d->groups[i];
    if (rt_grow((void **)&d->groups, &d->cap, d->n, sizeof(*d->groups), 4096) !=
        0)
        return NULL;
    if (hmap_add(&d->index, h.a, d->n) != 0)
        return NULL;
    d->groups[d->n] = (dbg_dup_group){.h1 = h.a, .h2 = h.b};
    return &d->groups[d->n++];
}

/* The block list tells heap from static closures. A heap without one (a
 * snapshot taken with --no-blocks) is read whole, static closures
 * included (no_blocks says why); a connection lost is fatal. */
static int dups_load_blocks(dbg_dups *d)
{
    d->blocks_tried = 1;
    if (dbg_heap_blocks(d->h, &d->blocks, &d->nblocks) != 0) {
        d->blocks = NULL;
        if (d->h->ops->dead(d->h->src)) {
            snprintf(d->err, sizeof(d->err), "%s", d->h->err);
            return -1;
        }
        snprintf(d->no_blocks, sizeof(d->no_blocks), "%s", d->h->err);
        return 0;
    }
    return dbg_blocks_sort_check(d->blocks, d->nblocks, d->err, sizeof(d->err));
}

/* A group met a second time: room for its samples (the first two), and an
 * ARR_WORDS' payload head. 0, or -1 when out of memory. */
static int dups_keep(dbg_dups *d, dbg_dup_group *g, const dbg_closure *c)
{
    if (!(g->samp = malloc(d->keep * sizeof(*g->samp))))
        return -1;
    g->samp[g->nsamp++] = g->example;
    if (c->info->type != GHC_ARR_WORDS)
        return 0;
    g->payload = word(c, 1);
    size_t n = g->payload < DBG_DUP_HEAD ? (size_t)g->payload : DBG_DUP_HEAD;
    if (!(g->head = malloc(n ? n : 1)))
        return -1;
    memcpy(g->head, c->mem + 2 * WORD, n);
    return 0;
}

int dbg_dups_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    dbg_dups *d = ctx;
    hash2 h;
    (void)parent;
    if (!d->blocks_tried && dups_load_blocks(d) != 0)
        return 1; /* stop the walk */
    if (!c->mem || (d->only_type && c->info->type != d->only_type) ||
        !dups_hash(c, &h))
        return 0;
    /* static closures (in the program's data) are shared already */
    if (d->blocks && dbg_blocks_find(d->blocks, d->nblocks, c->addr) < 0)
        return 0;
    d->candidates++;
    d->candidate_bytes += c->size;
    dbg_dup_group *g = dups_group(d, h);
    if (!g)
        return d->nomem = 1;
    if (!g->count) {
        g->info = c->info->ptr;
        g->example = c->addr;
        g->size = c->size;
    } else if (d->keep && g->count == 1 && dups_keep(d, g, c) != 0) {
        return d->nomem = 1;
    }
    if (g->samp && g->nsamp < d->keep)
        g->samp[g->nsamp++] = c->addr;
    g->count++;
    return 0;
}

static int by_wasted(const void *a, const void *b)
{
    const dbg_dup_group *x = a, *y = b;
    return dup_order(dbg_dup_wasted(x), x->count, x->example, dbg_dup_wasted(y),
                     y->count, y->example);
}

static unsigned bucket_of(uint32_t size)
{
    unsigned k = 0;
    while (size > 1 && k + 1 < DBG_DUP_BUCKETS)
        size >>= 1, k++;
    return k;
}

void dbg_dups_finish(dbg_dups *d)
{
    size_t m = 0;
    for (size_t i = 0; i < d->n; i++) {
        dbg_dup_group *g = &d->groups[i];
        dbg_dup_bucket *b = &d->hist[bucket_of(g->size)];
        b->count += g->count;
        b->bytes += g->count * g->size;
        b->dups += g->count - 1;
        b->wasted += dbg_dup_wasted(g);
        if (g->count < 2)
            continue;
        d->dup_closures += g->count - 1;
        d->dup_bytes += dbg_dup_wasted(g);
        d->groups[m++] = *g;
    }
    d->n = m;
    hmap_free(&d->index); /* its indexes are the old ones */
    if (m)
        qsort(d->groups, m, sizeof(*d->groups), by_wasted);
}
