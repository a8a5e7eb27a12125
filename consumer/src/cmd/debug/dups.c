/* rtscope debug dups: identical immutable closures that could be one
 * shared closure (ghc-debug's duplicate analysis).
 *
 * Note [What counts as immutable]
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
#define _GNU_SOURCE
#include "cli.h"
#include "debug.h"
#include "rtscope/base/grow.h"
#include "rtscope/debug/debug_blocks.h"
#include "session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD ((size_t)8)
#define UNTAG(p) ((p) & ~(uint64_t)7)
/* the frozen-dirty twins of the FROZEN_CLEAN types (ClosureTypes.h) */
#define MUT_ARR_PTRS_FROZEN_DIRTY 45u
#define SMALL_MUT_ARR_PTRS_FROZEN_DIRTY 61u

typedef struct dup_group {
    uint64_t h1, h2; /* hash of (info, payload); h1|h2 != 0 */
    uint64_t info;
    uint64_t example; /* the first closure seen */
    uint64_t count;
    uint32_t size;
} dup_group;

typedef struct dups_state {
    dbg_heap *h;
    dbg_block *blocks; /* heap block groups, sorted; NULL: unknown */
    size_t nblocks;
    int blocks_tried;  /* read at the first visit, while paused */
    char err[600];     /* fatal: why */
    dup_group *groups; /* in the order met */
    size_t n, cap;
    hmap index; /* h1 -> group */
    uint64_t candidates, candidate_bytes;
    int nomem;
} dups_state;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

typedef struct hash2 {
    uint64_t a, b;
} hash2;

static void hash_word(hash2 *h, uint64_t w)
{
    h->a = mix64(h->a ^ w) + 0x9e3779b97f4a7c15ULL;
    h->b = mix64(h->b + w * 0xff51afd7ed558ccdULL) ^ (h->b >> 17);
}

static uint64_t word(const dbg_closure *c, size_t i)
{
    uint64_t w = 0;
    if ((i + 1) * WORD <= c->size)
        memcpy(&w, c->mem + i * WORD, WORD);
    return w;
}

/* Hash a candidate's identity; 0 if the closure is not a candidate. */
static int dups_hash(const dbg_closure *c, hash2 *h)
{
    uint32_t t = c->info->type;
    h->a = 0x243f6a8885a308d3ULL;
    h->b = 0x13198a2e03707344ULL;
    hash_word(h, c->info->ptr);
    hash_word(h, c->size);
    if (t >= GHC_CONSTR && t < GHC_CONSTR_NOCAF) {
        size_t np = c->info->ptrs, nn = c->info->nptrs;
        if ((1 + np + nn) * WORD > c->size)
            return 0;
        for (size_t i = 1; i <= np; i++)
            hash_word(h, UNTAG(word(c, i)));
        for (size_t i = 1 + np; i <= np + nn; i++)
            hash_word(h, word(c, i));
        return 1;
    }
    if (t == GHC_ARR_WORDS) {
        uint64_t bytes = word(c, 1);
        if (2 * WORD + bytes > c->size)
            return 0;
        hash_word(h, bytes);
        for (uint64_t off = 0; off < bytes; off += WORD) {
            uint64_t w = 0;
            size_t k = bytes - off < WORD ? (size_t)(bytes - off) : WORD;
            memcpy(&w, c->mem + 2 * WORD + off, k);
            hash_word(h, w);
        }
        return 1;
    }
    if (t == GHC_MUT_ARR_PTRS_FROZEN_CLEAN || t == MUT_ARR_PTRS_FROZEN_DIRTY) {
        uint64_t np = word(c, 1);
        if ((3 + np) * WORD > c->size)
            return 0;
        hash_word(h, np);
        for (uint64_t i = 0; i < np; i++)
            hash_word(h, UNTAG(word(c, 3 + (size_t)i)));
        return 1;
    }
    if (t == GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN ||
        t == SMALL_MUT_ARR_PTRS_FROZEN_DIRTY) {
        uint64_t np = word(c, 1);
        if ((2 + np) * WORD > c->size)
            return 0;
        hash_word(h, np);
        for (uint64_t i = 0; i < np; i++)
            hash_word(h, UNTAG(word(c, 2 + (size_t)i)));
        return 1;
    }
    return 0;
}

typedef struct dup_key {
    const dups_state *s;
    uint64_t h2;
} dup_key;

static int dup_eq(const void *ctx, uint64_t i)
{
    const dup_key *k = ctx;
    return k->s->groups[i].h2 == k->h2;
}

/* The group of hash h, added (count 0) if new; NULL when out of memory. */
static dup_group *dups_group(dups_state *s, hash2 h)
{
    uint64_t i;
    dup_key k = {s, h.b};
    if (hmap_find(&s->index, h.a, dup_eq, &k, &i))
        return &s->groups[i];
    if (rt_grow((void **)&s->groups, &s->cap, s->n, sizeof(*s->groups), 4096) !=
        0)
        return NULL;
    if (hmap_add(&s->index, h.a, s->n) != 0)
        return NULL;
    s->groups[s->n] = (dup_group){.h1 = h.a, .h2 = h.b};
    return &s->groups[s->n++];
}

/* The block list tells heap from static closures. A target without one
 * (a snapshot taken with --no-blocks) is read whole, static closures
 * included, with a warning; a connection lost is fatal. */
static int dups_load_blocks(dups_state *s)
{
    s->blocks_tried = 1;
    if (dbg_heap_blocks(s->h, &s->blocks, &s->nblocks) != 0) {
        s->blocks = NULL;
        if (s->h->ops->dead(s->h->src)) {
            snprintf(s->err, sizeof(s->err), "%s", s->h->err);
            return -1;
        }
        fprintf(stderr,
                "rtscope debug: warning: no block list (%s); static "
                "closures are counted too\n",
                s->h->err);
        return 0;
    }
    if (dbg_blocks_sort_check(s->blocks, s->nblocks, s->err, sizeof(s->err)) !=
        0)
        return -1;
    return 0;
}

static int dups_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    dups_state *s = ctx;
    hash2 h;
    (void)parent;
    if (!s->blocks_tried && dups_load_blocks(s) != 0)
        return 1; /* stop the walk */
    if (!c->mem || !dups_hash(c, &h))
        return 0;
    /* static closures (in the program's data) are shared already */
    if (s->blocks && dbg_blocks_find(s->blocks, s->nblocks, c->addr) < 0)
        return 0;
    s->candidates++;
    s->candidate_bytes += c->size;
    dup_group *g = dups_group(s, h);
    if (!g)
        return s->nomem = 1;
    if (!g->count) {
        g->info = c->info->ptr;
        g->example = c->addr;
        g->size = c->size;
    }
    g->count++;
    return 0;
}

static uint64_t wasted(const dup_group *g)
{
    return (g->count - 1) * g->size;
}

static int by_wasted(const void *a, const void *b)
{
    const dup_group *x = a, *y = b;
    if (wasted(x) != wasted(y))
        return wasted(x) < wasted(y) ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->example < y->example ? -1 : x->example > y->example;
}

static int debug_dups(const char *target, size_t limit, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    dbg_heap *hp = &ss.heap;
    dups_state s = {.h = hp};
    r = debug_session_walk(&ss, gc, dups_visit, &s, 0);
    if (r)
        goto done;
    if (s.err[0]) {
        r = debug_fail("%s: %s", target, s.err);
        goto done;
    }
    if (s.nomem) {
        r = debug_fail("out of memory");
        goto done;
    }
    /* keep the groups with duplicates, largest waste first */
    size_t m = 0;
    uint64_t dup_closures = 0, dup_bytes = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.groups[i].count < 2)
            continue;
        dup_closures += s.groups[i].count - 1;
        dup_bytes += wasted(&s.groups[i]);
        s.groups[m++] = s.groups[i];
    }
    if (m)
        qsort(s.groups, m, sizeof(*s.groups), by_wasted);
    printf("%10s %8s %12s  %s\n", "count", "size", "wasted", "closure");
    for (size_t i = 0; i < m && i < limit; i++) {
        const dup_group *g = &s.groups[i];
        dbg_info *in = dbg_heap_info(hp, g->info);
        printf("%10" PRIu64 " %8" PRIu32 " %12" PRIu64 "  %s", g->count,
               g->size, wasted(g),
               in ? ghc_closure_type_name(in->type) : "UNKNOWN");
        const char *con = in ? dbg_heap_con_descr(hp, in) : NULL;
        if (con) {
            char disp[1024];
            dbg_con_display(con, disp, sizeof(disp));
            printf(" %s", disp);
        }
        char *const *src = in ? dbg_heap_source(hp, in) : NULL;
        if (src && (src[4][0] || src[5][0]))
            printf("  at%s%s%s%s", src[4][0] ? " " : "", src[4],
                   src[5][0] ? " " : "", src[5]);
        printf("  (e.g. 0x%" PRIx64 ")\n", g->example);
    }
    if (m > limit)
        printf("... %zu more groups\n", m - limit);
    printf("total: %" PRIu64 " duplicate closures in %zu groups, %" PRIu64
           " bytes could be shared (of %" PRIu64 " bytes in %" PRIu64
           " immutable closures)\n",
           dup_closures, m, dup_bytes, s.candidate_bytes, s.candidates);
    debug_warn_unreadable(hp, "counts may be low");
done:
    debug_session_close(&ss);
    free(s.blocks);
    free(s.groups);
    hmap_free(&s.index);
    return r;
}

/* What `debug dups` is given. */
typedef struct dups_args {
    long limit;
} dups_args;

static const opt dups_opts[] = {
    {.name = "limit",
     .kind = OPT_COUNT,
     .argname = "N",
     .min = 1,
     .max = 100000000,
     .value = OPT_AT(dups_args, limit),
     .help = "at most N groups (default 20)",
     .bad = "not a positive number"},
    OPT_END,
};

int debug_dups_run(int argc, char **argv)
{
    dups_args da = {.limit = 20};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_dups, argc, argv, &da, 1, &a);
    return r >= 0 ? r : debug_dups(a.target[0], (size_t)da.limit, a.gc);
}

static const char debug_dups_help[] =
    "  dups        identical immutable closures (same info table, same\n"
    "              payload): constructors, frozen arrays and byte arrays\n"
    "              that could be one shared closure, by bytes wasted\n"
    "              ((count - 1) * size), with constructor and source\n";

static const char debug_dups_example[] =
    "              e.g.       count     size       wasted  closure\n"
    "                           500       24        11976  CONSTR_2_0\n"
    "                    main:Main:Dup  at Main Fragment.hs:27:12-22 ...\n";

const debug_command debug_cmd_dups = {
    .name = "dups",
    .synopsis = "rtscope debug dups TARGET [--limit N] [--no-gc|--fork]\n",
    .help = debug_dups_help,
    .opts = dups_opts,
    .example = debug_dups_example,
    .no_gc = 1,
    .run = debug_dups_run,
};
