/* Unit tests of the heap walk (consumer/lib/debug/debug_heap.c) on
 * synthetic heaps, one closure kind at a time: for every closure type of
 * GHC 9.0 (x86_64, non-profiled layouts: includes/rts/storage/Closures.h,
 * TSO.h), a closure of that type is the only root, and the walk must
 * report exactly the pointers the GC follows (dbg_closure.ptrs), visit
 * each of them (and nothing else: every data word holds the address of a
 * decoy closure that must stay unvisited) and read everything. Stacks and
 * applications are decoded through pointer maps (snapshot format 2,
 * frames' SRTs included) and through stack and argument bitmaps (format
 * 1, also from a file written as version 1); the unreadable paths (an
 * AP_STACK without a map, a closure missing from the snapshot, a function
 * without an argument bitmap) are reported with their reasons. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"
#include "snap_fixture.h"
#include "snap_impl.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TCase *walk_kinds_tcase(void);

#define BASE 0x4300000000ULL
#define MISSING (BASE + 0x100000ULL) /* never in a snapshot */

/* Static closures that SRTs point to (leaves, in every snapshot). */
enum {
    S_FUN = 0x600000,
    S_FSTAT = 0x600010,
    S_TSTAT = 0x600020,
    S_FRAME = 0x600030,
    S_FRAME2 = 0x600040,
    S_THUNK = 0x600050,
};

/* One info table per kind, at I(kind). */
enum kind {
    K_LEAF,
    K_CON,
    K_CON11,
    K_NOCAF,
    K_FUN,
    K_FUN0,
    K_FSTAT,
    K_THUNK,
    K_TSTAT,
    K_SEL,
    K_BCO,
    K_AP,
    K_PAP,
    K_APS,
    K_IND,
    K_INDS,
    K_RETS,
    K_RETB,
    K_RETF,
    K_UPD,
    K_CATCH,
    K_UNDER,
    K_STOP,
    K_BQ,
    K_BH,
    K_MVARC,
    K_MVARD,
    K_TVAR,
    K_AW,
    K_MAPC,
    K_MAPF,
    K_MUTVC,
    K_MUTVD,
    K_WEAK,
    K_PRIM,
    K_MPRIM,
    K_TSO,
    K_STACK,
    K_TREC,
    K_ATOM,
    K_CRETRY,
    K_CSTM,
    K_WH,
    K_SAC,
    K_SAF,
    K_CNF,
    K_N
};
#define I(k) (0x402000ULL + 0x10ULL * (uint64_t)(k))

static const struct {
    enum kind k;
    uint32_t type, ptrs, nptrs;
    uint64_t srt;
} kinds[K_N] = {
    {K_LEAF, 3 /* CONSTR_0_1 */, 0, 1, 0},
    {K_CON, GHC_CONSTR, 2, 2, 0},
    {K_CON11, 5 /* CONSTR_1_1 */, 1, 1, 0},
    {K_NOCAF, GHC_CONSTR_NOCAF, 1, 0, 0},
    {K_FUN, GHC_FUN, 1, 1, S_FUN},
    {K_FUN0, 10 /* FUN_0_1 */, 0, 1, 0},
    {K_FSTAT, GHC_FUN_STATIC, 0, 0, S_FSTAT},
    {K_THUNK, GHC_THUNK, 2, 1, S_THUNK},
    {K_TSTAT, GHC_THUNK_STATIC, 0, 0, S_TSTAT},
    {K_SEL, GHC_THUNK_SELECTOR, 0, 0, 0},
    {K_BCO, GHC_BCO, 0, 0, 0},
    {K_AP, GHC_AP, 0, 0, 0},
    {K_PAP, GHC_PAP, 0, 0, 0},
    {K_APS, GHC_AP_STACK, 0, 0, 0},
    {K_IND, GHC_IND, 0, 0, 0},
    {K_INDS, GHC_IND_STATIC, 0, 0, 0},
    {K_RETS, GHC_RET_SMALL, 0, 0, S_FRAME},
    {K_RETB, GHC_RET_BIG, 0, 0, S_FRAME2},
    {K_RETF, GHC_RET_FUN, 0, 0, 0},
    {K_UPD, GHC_UPDATE_FRAME, 0, 0, 0},
    {K_CATCH, GHC_CATCH_FRAME, 0, 0, 0},
    {K_UNDER, GHC_UNDERFLOW_FRAME, 0, 0, 0},
    {K_STOP, GHC_STOP_FRAME, 0, 0, 0},
    {K_BQ, GHC_BLOCKING_QUEUE, 0, 0, 0},
    {K_BH, GHC_BLACKHOLE, 0, 0, 0},
    {K_MVARC, GHC_MVAR_CLEAN, 0, 0, 0},
    {K_MVARD, GHC_MVAR_DIRTY, 0, 0, 0},
    {K_TVAR, GHC_TVAR, 0, 0, 0},
    {K_AW, GHC_ARR_WORDS, 0, 0, 0},
    {K_MAPC, GHC_MUT_ARR_PTRS_CLEAN, 0, 0, 0},
    {K_MAPF, GHC_MUT_ARR_PTRS_FROZEN_CLEAN, 0, 0, 0},
    {K_MUTVC, GHC_MUT_VAR_CLEAN, 0, 0, 0},
    {K_MUTVD, GHC_MUT_VAR_DIRTY, 0, 0, 0},
    {K_WEAK, GHC_WEAK, 0, 0, 0},
    {K_PRIM, GHC_PRIM, 2, 1, 0},
    {K_MPRIM, GHC_MUT_PRIM, 2, 1, 0},
    {K_TSO, GHC_TSO, 0, 0, 0},
    {K_STACK, GHC_STACK, 0, 0, 0},
    {K_TREC, GHC_TREC_CHUNK, 0, 0, 0},
    {K_ATOM, GHC_ATOMICALLY_FRAME, 0, 0, 0},
    {K_CRETRY, GHC_CATCH_RETRY_FRAME, 0, 0, 0},
    {K_CSTM, GHC_CATCH_STM_FRAME, 0, 0, 0},
    {K_WH, GHC_WHITEHOLE, 0, 0, 0},
    {K_SAC, GHC_SMALL_MUT_ARR_PTRS_CLEAN, 0, 0, 0},
    {K_SAF, GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN, 0, 0, 0},
    {K_CNF, GHC_COMPACT_NFDATA, 0, 0, 0},
};

/* ---- building a heap ------------------------------------------------- */

typedef struct kheap {
    dbg_snap s;
    uint64_t next; /* where the next closure goes */
    uint64_t d;    /* the decoy: every data word holds its address */
    uint64_t nleaf;
} kheap;

static uint64_t put(kheap *k, const uint64_t *w, size_t n)
{
    uint64_t a = k->next;
    ck_assert_int_eq(snapfix_closure(&k->s, a, w, n), 0);
    k->next += (n + 2) * 8; /* a gap: no closure is next to another */
    return a;
}
#define PUT(k, ...)                                                            \
    put((k), (const uint64_t[]){__VA_ARGS__},                                  \
        sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* A fresh leaf: a CONSTR_0_1 with a number of its own. */
static uint64_t leaf(kheap *k)
{
    return PUT(k, I(K_LEAF), ++k->nleaf);
}

static void map(kheap *k, uint64_t addr, const unsigned char *m, uint32_t n)
{
    ck_assert_int_eq(dbg_snap_add_ptrmap(&k->s, addr, m, n), 0);
}
#define MAP(k, addr, ...)                                                      \
    map((k), (addr), (const unsigned char[]){__VA_ARGS__},                     \
        (uint32_t)sizeof((const unsigned char[]){__VA_ARGS__}))

static void kh_init(kheap *k)
{
    memset(k, 0, sizeof(*k));
    dbg_snap_init(&k->s);
    k->next = BASE;
    for (int i = 0; i < K_N; i++) {
        ck_assert_int_eq((int)kinds[i].k, i);
        ck_assert_int_eq(snapfix_info(&k->s, I(i), kinds[i].type, kinds[i].ptrs,
                                      kinds[i].nptrs, kinds[i].srt,
                                      i == K_LEAF ? "main:Main.Leaf" : NULL,
                                      NULL, NULL),
                         0);
    }
    const uint64_t statics[] = {S_FUN,   S_FSTAT,  S_TSTAT,
                                S_FRAME, S_FRAME2, S_THUNK};
    for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++) {
        const uint64_t w[2] = {I(K_LEAF), 1000 + i};
        ck_assert_int_eq(snapfix_closure(&k->s, statics[i], w, 2), 0);
    }
    k->d = leaf(k);
}

/* ---- walking it ------------------------------------------------------ */

typedef struct kvisit {
    uint64_t addr, parent;
} kvisit;

typedef struct kwalk {
    uint64_t subject;
    uint64_t *ptrs; /* the subject's pointers, as reported */
    size_t nptrs;
    int subject_seen;
    kvisit *v;
    size_t n, cap;
} kwalk;

static int visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    kwalk *w = ctx;
    ck_assert_ptr_nonnull(c->info);
    ck_assert_uint_ge(c->size, 8);
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->v = realloc(w->v, w->cap * sizeof(*w->v));
        ck_assert_ptr_nonnull(w->v);
    }
    w->v[w->n++] = (kvisit){c->addr, parent};
    if (c->addr == w->subject) {
        w->subject_seen = 1;
        w->nptrs = c->nptrs;
        w->ptrs = malloc((c->nptrs ? c->nptrs : 1) * sizeof(*w->ptrs));
        ck_assert_ptr_nonnull(w->ptrs);
        if (c->nptrs)
            memcpy(w->ptrs, c->ptrs, c->nptrs * sizeof(*w->ptrs));
    }
    return 0;
}

static void kwalk_free(kwalk *w)
{
    free(w->ptrs);
    free(w->v);
    memset(w, 0, sizeof(*w));
}

/* Walk s from the one root `subject` (h is left initialised). */
static void walk_snap(dbg_snap *s, uint64_t subject, kwalk *w, dbg_heap *h)
{
    ck_assert_int_eq(dbg_snap_set_roots(s, &subject, 1), 0);
    ck_assert_int_eq(dbg_snap_finish(s), 0);
    memset(w, 0, sizeof(*w));
    w->subject = subject;
    dbg_heap_init_source(h, &dbg_source_snap, s);
    ck_assert_msg(dbg_heap_walk(h, &subject, 1, visit, w) == 0, "walk: %s",
                  h->err);
}

static const kvisit *visited(const kwalk *w, uint64_t addr)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].addr == addr)
            return &w->v[i];
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The walk of the heap from `subject` alone reads everything, reports
 * exactly the pointers `want` (untagged; a multiset, in any order) for
 * the subject, and visits the subject and each of them, from the subject,
 * and nothing else. */
static void expect_in(dbg_snap *s, const char *what, uint64_t subject,
                      const uint64_t *want, size_t nwant)
{
    kwalk w;
    dbg_heap h;
    walk_snap(s, subject, &w, &h);
    ck_assert_msg(h.unreadable == 0, "%s: %zu unreadable, first at 0x%llx: %s",
                  what, h.unreadable,
                  h.nunread ? (unsigned long long)h.unread[0].addr : 0ULL,
                  h.nunread ? h.unread[0].why : "");
    ck_assert_msg(w.subject_seen, "%s: the subject was not visited", what);
    uint64_t *exp = malloc((nwant ? nwant : 1) * sizeof(*exp));
    ck_assert_ptr_nonnull(exp);
    for (size_t i = 0; i < nwant; i++)
        exp[i] = want[i] & ~(uint64_t)7;
    qsort(exp, nwant, sizeof(*exp), cmp_u64);
    qsort(w.ptrs, w.nptrs, sizeof(*w.ptrs), cmp_u64);
    char got[1024] = "";
    for (size_t i = 0, o = 0; i < w.nptrs && o < sizeof(got) - 24; i++)
        o += (size_t)snprintf(got + o, sizeof(got) - o, " 0x%llx",
                              (unsigned long long)w.ptrs[i]);
    ck_assert_msg(w.nptrs == nwant,
                  "%s: %zu pointers reported (%s), %zu expected", what, w.nptrs,
                  got, nwant);
    for (size_t i = 0; i < nwant; i++)
        ck_assert_msg(w.ptrs[i] == exp[i],
                      "%s: pointer %zu is 0x%llx, expected 0x%llx (got%s)",
                      what, i, (unsigned long long)w.ptrs[i],
                      (unsigned long long)exp[i], got);
    size_t distinct = 0;
    for (size_t i = 0; i < nwant; i++) {
        if (i > 0 && exp[i] == exp[i - 1])
            continue;
        distinct++;
        const kvisit *v = visited(&w, exp[i]);
        ck_assert_msg(v != NULL, "%s: 0x%llx not visited", what,
                      (unsigned long long)exp[i]);
        ck_assert_msg(v->parent == subject, "%s: 0x%llx reached from 0x%llx",
                      what, (unsigned long long)exp[i],
                      (unsigned long long)v->parent);
    }
    ck_assert_msg(w.n == 1 + distinct, "%s: %zu closures visited, expected %zu",
                  what, w.n, 1 + distinct);
    free(exp);
    kwalk_free(&w);
    dbg_heap_free(&h);
}

#define EXPECT(k, what, subject, ...)                                          \
    expect_in(&(k)->s, (what), (subject), (const uint64_t[]){__VA_ARGS__},     \
              sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))
#define EXPECT_NONE(k, what, subject)                                          \
    expect_in(&(k)->s, (what), (subject), NULL, 0)

/* ---- the kinds ------------------------------------------------------- */

START_TEST(kinds_constr)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), b = leaf(&k), d = k.d;
    /* two pointers (tagged), two data words */
    EXPECT(&k, "CONSTR", PUT(&k, I(K_CON), a | 1, b | 2, d, d), a, b);
    EXPECT(&k, "CONSTR_1_1", PUT(&k, I(K_CON11), a | 1, d), a);
    EXPECT(&k, "CONSTR_NOCAF", PUT(&k, I(K_NOCAF), b | 3), b);
    EXPECT(&k, "CONSTR_0_1 (a leaf)", a);
    dbg_snap_free(&k.s);
}
END_TEST

START_TEST(kinds_fun)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), d = k.d;
    /* a free variable, a data word, the SRT */
    EXPECT(&k, "FUN", PUT(&k, I(K_FUN), a | 1, d), a, S_FUN);
    EXPECT(&k, "FUN_0_1", PUT(&k, I(K_FUN0), d));
    /* FUN_STATIC: the static link is not followed; the SRT is */
    EXPECT(&k, "FUN_STATIC", PUT(&k, I(K_FSTAT), d), S_FSTAT);
    dbg_snap_free(&k.s);
}
END_TEST

START_TEST(kinds_thunk)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), b = leaf(&k), d = k.d;
    /* the word after the header (the SMP padding) is not a field */
    EXPECT(&k, "THUNK", PUT(&k, I(K_THUNK), d, a | 1, b, d), a, b, S_THUNK);
    /* THUNK_STATIC: indirectee, static link, saved info; only the SRT */
    EXPECT(&k, "THUNK_STATIC", PUT(&k, I(K_TSTAT), d, d, d), S_TSTAT);
    EXPECT(&k, "THUNK_SELECTOR", PUT(&k, I(K_SEL), d, a | 2), a);
    dbg_snap_free(&k.s);
}
END_TEST

START_TEST(kinds_ind)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), d = k.d;
    EXPECT(&k, "IND", PUT(&k, I(K_IND), a | 1), a);
    /* IND_STATIC: indirectee, static link, saved info */
    EXPECT(&k, "IND_STATIC", PUT(&k, I(K_INDS), a, d, d), a);
    EXPECT(&k, "BLACKHOLE", PUT(&k, I(K_BH), a), a);
    EXPECT_NONE(&k, "WHITEHOLE", PUT(&k, I(K_WH), d));
    dbg_snap_free(&k.s);
}
END_TEST

START_TEST(kinds_mutable)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), b = leaf(&k), c = leaf(&k), e = leaf(&k), d = k.d;
    /* link, bh, owner, queue */
    EXPECT(&k, "BLOCKING_QUEUE", PUT(&k, I(K_BQ), a, b, c, e), a, b, c, e);
    /* head, tail, value */
    EXPECT(&k, "MVAR_CLEAN", PUT(&k, I(K_MVARC), a, b, c | 1), a, b, c);
    EXPECT(&k, "MVAR_DIRTY", PUT(&k, I(K_MVARD), a, b, c), a, b, c);
    EXPECT(&k, "MUT_VAR_CLEAN", PUT(&k, I(K_MUTVC), a | 1), a);
    EXPECT(&k, "MUT_VAR_DIRTY", PUT(&k, I(K_MUTVD), b), b);
    /* current value, first watch queue entry, num_updates */
    EXPECT(&k, "TVAR", PUT(&k, I(K_TVAR), a | 1, b, d), a, b);
    /* cfinalizers, key, value, finalizer, link */
    EXPECT(&k, "WEAK", PUT(&k, I(K_WEAK), a, b, c | 1, e, a), a, b, c, e, a);
    /* PRIM and MUT_PRIM by their layout (MVAR_TSO_QUEUE, TREC_HEADER...) */
    EXPECT(&k, "PRIM", PUT(&k, I(K_PRIM), a, b, d), a, b);
    EXPECT(&k, "MUT_PRIM", PUT(&k, I(K_MPRIM), c, e, d), c, e);
    dbg_snap_free(&k.s);
}
END_TEST

/* TREC_CHUNK: prev_chunk, next_entry_idx, then 16 entries of four words
 * (tvar, expected_value, new_value, num_updates); only the first
 * next_entry_idx entries hold anything, and num_updates is a number. */
static uint64_t trec_chunk(kheap *k, uint64_t prev, uint64_t used,
                           const uint64_t *ent)
{
    uint64_t w[3 + 16 * 4];
    w[0] = I(K_TREC);
    w[1] = prev;
    w[2] = used;
    for (size_t i = 3; i < sizeof(w) / sizeof(w[0]); i++)
        w[i] = k->d;
    for (uint64_t e = 0; e < used; e++)
        memcpy(&w[3 + 4 * e], &ent[3 * e], 3 * sizeof(uint64_t));
    return put(k, w, sizeof(w) / sizeof(w[0]));
}

START_TEST(kinds_trec_chunk)
{
    kheap k;
    kh_init(&k);
    uint64_t prev = leaf(&k);
    uint64_t ent[6];
    for (int i = 0; i < 6; i++)
        ent[i] = leaf(&k);
    EXPECT(&k, "TREC_CHUNK (2 entries)", trec_chunk(&k, prev, 2, ent), prev,
           ent[0], ent[1], ent[2], ent[3], ent[4], ent[5]);
    EXPECT(&k, "TREC_CHUNK (empty)", trec_chunk(&k, prev, 0, ent), prev);
    dbg_snap_free(&k.s);
}
END_TEST

/* TSO: _link, global_link, stackobj, what_next/why_blocked/flags,
 * block_info, id, saved_errno/dirty, bound, cap, trec,
 * blocked_exceptions, bq, alloc_limit, tot_stack_size. */
START_TEST(kinds_tso)
{
    kheap k;
    kh_init(&k);
    uint64_t link = leaf(&k), stack = leaf(&k), blk = leaf(&k), trec = leaf(&k),
             bex = leaf(&k), bq = leaf(&k), d = k.d;
    /* NotBlocked, BlockedOnMVar, on a black hole, on a throwTo, on
     * readMVar, on an I/O completion: block_info is a closure */
    static const uint16_t on_closure[] = {0, 1, 2, 12, 14, 15};
    for (size_t i = 0; i < sizeof(on_closure) / sizeof(on_closure[0]); i++) {
        uint64_t w4 = 1 /* ThreadRunGHC */ | ((uint64_t)on_closure[i] << 16);
        char what[64];
        snprintf(what, sizeof(what), "TSO (why_blocked %u)", on_closure[i]);
        EXPECT(&k, what,
               PUT(&k, I(K_TSO), link, d, stack, w4, blk | 1, d, d, d, d, trec,
                   bex, bq, d, d),
               link, stack, blk, trec, bex, bq);
    }
    /* on STM, on a delay, on a foreign call: block_info is not a closure */
    static const uint16_t not_closure[] = {5, 6, 10, 13};
    for (size_t i = 0; i < sizeof(not_closure) / sizeof(not_closure[0]); i++) {
        uint64_t w4 = 1 | ((uint64_t)not_closure[i] << 16);
        char what[64];
        snprintf(what, sizeof(what), "TSO (why_blocked %u)", not_closure[i]);
        EXPECT(&k, what,
               PUT(&k, I(K_TSO), link, d, stack, w4, d, d, d, d, d, trec, bex,
                   bq, d, d),
               link, stack, trec, bex, bq);
    }
    dbg_snap_free(&k.s);
}
END_TEST

START_TEST(kinds_arrays)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), b = leaf(&k), c = leaf(&k), d = k.d;
    /* ptrs 3, size 4 (one word of card table, not pointers) */
    EXPECT(&k, "MUT_ARR_PTRS_CLEAN", PUT(&k, I(K_MAPC), 3, 4, a, b | 1, c, d),
           a, b, c);
    EXPECT(&k, "MUT_ARR_PTRS_FROZEN_CLEAN", PUT(&k, I(K_MAPF), 2, 3, c, c, d),
           c, c);
    EXPECT(&k, "SMALL_MUT_ARR_PTRS_CLEAN", PUT(&k, I(K_SAC), 2, a, b), a, b);
    EXPECT(&k, "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN", PUT(&k, I(K_SAF), 1, c | 2),
           c);
    EXPECT_NONE(&k, "ARR_WORDS", PUT(&k, I(K_AW), 16, d, d));
    /* an empty array */
    EXPECT_NONE(&k, "MUT_ARR_PTRS_CLEAN (empty)", PUT(&k, I(K_MAPC), 0, 0));
    dbg_snap_free(&k.s);
}
END_TEST

START_TEST(kinds_bco_compact)
{
    kheap k;
    kh_init(&k);
    uint64_t a = leaf(&k), b = leaf(&k), c = leaf(&k), d = k.d;
    /* instrs, literals, ptrs, arity/size, bitmap (size, bits) */
    EXPECT(&k, "BCO", PUT(&k, I(K_BCO), a, b, c, 1 | (2ULL << 32), 1, d), a, b,
           c);
    /* COMPACT_NFDATA: totalW, autoBlockW, hp, hpLim, nursery, last, hash,
     * result, link: block pointers, nothing the walk follows */
    EXPECT_NONE(&k, "COMPACT_NFDATA",
                PUT(&k, I(K_CNF), 64, 8, d, d, d, d, d, d, d));
    dbg_snap_free(&k.s);
}
END_TEST

/* PAP, AP and AP_STACK through their pointer maps (format 2). */
START_TEST(kinds_apps_mapped)
{
    kheap k;
    kh_init(&k);
    uint64_t fun = PUT(&k, I(K_FUN0), k.d);
    uint64_t a = leaf(&k), b = leaf(&k), c = leaf(&k), d = k.d;
    /* PAP: arity 4, 3 arguments (pointer, data, pointer) */
    uint64_t pap = PUT(&k, I(K_PAP), 4 | (3ULL << 32), fun | 4, a | 1, d, b);
    MAP(&k, pap, 0, 0, 1, 1, 0, 1);
    EXPECT(&k, "PAP (map)", pap, fun, a, b);
    /* AP: padding word, arity 0 and 2 arguments (data, pointer) */
    uint64_t ap = PUT(&k, I(K_AP), d, 2ULL << 32, fun, d, c);
    MAP(&k, ap, 0, 0, 0, 1, 0, 1);
    EXPECT(&k, "AP (map)", ap, fun, c);
    /* AP_STACK: padding, size 8, fun, then a stack chunk: a RET_SMALL
     * frame (pointer, data) whose info table has an SRT, an
     * UPDATE_FRAME (updatee) and a CATCH_FRAME (exceptions_blocked,
     * handler) */
    uint64_t aps = PUT(&k, I(K_APS), d, 8, fun, I(K_RETS), a, d, I(K_UPD),
                       b | 1, I(K_CATCH), d, c | 2);
    MAP(&k, aps, 0, 0, 0, 1, 2, 1, 0, 2, 1, 2, 0, 1);
    EXPECT(&k, "AP_STACK (map)", aps, fun, a, S_FRAME, b, c);
    dbg_snap_free(&k.s);
}
END_TEST

/* A STACK through its pointer map: the words below sp are dead and not
 * followed; every frame kind's fields, and the SRTs of frames whose info
 * tables have one. */
START_TEST(kinds_stack_mapped)
{
    kheap k;
    kh_init(&k);
    uint64_t fun = PUT(&k, I(K_FUN0), k.d);
    uint64_t a = leaf(&k), b = leaf(&k), c = leaf(&k), e1 = leaf(&k),
             e2 = leaf(&k), g = leaf(&k), h = leaf(&k), nx = leaf(&k),
             upd = leaf(&k), d = k.d;
    uint64_t stack = k.next; /* where PUT puts it */
    /* words: 0 header, 1 stack_size, 2 sp, 3.. the stack (2 dead words,
     * then the frames from sp = word 5) */
    const uint64_t w[] = {
        I(K_STACK),  24,    stack + 5 * 8,
        d,           d,        /* dead, below sp */
        I(K_RETS),   a | 1, d, /* 5: RET_SMALL, SRT S_FRAME */
        I(K_RETB),   d,     b, /* 8: RET_BIG, SRT S_FRAME2 */
        I(K_RETF),   2,     fun | 1,
        c,           d,         /* 11: RET_FUN, 2 arguments */
        I(K_UPD),    upd,       /* 16: UPDATE_FRAME */
        I(K_ATOM),   e1,    e2, /* 18: ATOMICALLY_FRAME */
        I(K_CRETRY), 0,     g,
        h,               /* 21: CATCH_RETRY_FRAME */
        I(K_UNDER),  nx, /* 25: UNDERFLOW_FRAME */
    };
    ck_assert_uint_eq(sizeof(w) / 8, 3 + 24);
    ck_assert_uint_eq(put(&k, w, sizeof(w) / 8), stack);
    MAP(&k, stack, 0, 0, 0, 0, 0, 2, 1, 0, 2, 0, 1, 2, 0, 1, 1, 0, 2, 1, 2, 1,
        1, 2, 0, 1, 1, 2, 1);
    EXPECT(&k, "STACK (map)", stack, a, S_FRAME, b, S_FRAME2, fun, c, upd, e1,
           e2, g, h, nx);
    /* a thread's last chunk: CATCH_STM_FRAME (code, handler), STOP_FRAME */
    uint64_t s2 = k.next;
    const uint64_t w2[] = {I(K_STACK), 5, s2 + 4 * 8, d,
                           I(K_CSTM),  a, b,          I(K_STOP)};
    ck_assert_uint_eq(put(&k, w2, sizeof(w2) / 8), s2);
    MAP(&k, s2, 0, 0, 0, 0, 2, 1, 1, 2);
    EXPECT(&k, "STACK (map, STOP_FRAME)", s2, a, b);
    dbg_snap_free(&k.s);
}
END_TEST

/* Format 1 (no pointer maps): a STACK through the stack bitmaps of its
 * frames, PAP and AP through their function's argument bitmap. */
static void format1_heap(kheap *k, uint64_t *stack, uint64_t *pap, uint64_t *ap,
                         uint64_t want_stack[6], uint64_t want_pap[3],
                         uint64_t want_ap[2])
{
    uint64_t fun = PUT(k, I(K_FUN0), k->d);
    uint64_t a = leaf(k), b = leaf(k), c = leaf(k), h = leaf(k), d = k->d;
    uint64_t s = k->next;
    const uint64_t w[] = {
        I(K_STACK), 14,    s + 3 * 8,
        I(K_RETS),  a,     d, /* 3: RET_SMALL (SRT S_FRAME) */
        I(K_UPD),   b | 1,    /* 6: UPDATE_FRAME */
        I(K_RETF),  2,     fun,
        d,          c | 2,    /* 8: RET_FUN, args: data, pointer */
        I(K_CATCH), d,     h, /* 13: CATCH_FRAME */
        I(K_STOP),            /* 16 */
    };
    ck_assert_uint_eq(put(k, w, sizeof(w) / 8), s);
    ck_assert_int_eq(
        snapfix_bitmap(&k->s, 1, s + 3 * 8, 2, (const unsigned char[]){1, 0}),
        0);
    ck_assert_int_eq(
        snapfix_bitmap(&k->s, 1, s + 6 * 8, 1, (const unsigned char[]){1}), 0);
    ck_assert_int_eq(
        snapfix_bitmap(&k->s, 1, s + 8 * 8, 2, (const unsigned char[]){0, 1}),
        0);
    ck_assert_int_eq(
        snapfix_bitmap(&k->s, 1, s + 13 * 8, 2, (const unsigned char[]){0, 1}),
        0);
    *stack = s;
    const uint64_t ws[6] = {a, S_FRAME, b, fun, c, h};
    memcpy(want_stack, ws, sizeof(ws));
    /* the function's argument bitmap: pointer, data, pointer */
    ck_assert_int_eq(
        snapfix_bitmap(&k->s, 0, fun, 3, (const unsigned char[]){1, 0, 1}), 0);
    *pap = PUT(k, I(K_PAP), 4 | (3ULL << 32), fun | 1, a, d, b);
    const uint64_t wp[3] = {fun, a, b};
    memcpy(want_pap, wp, sizeof(wp));
    *ap = PUT(k, I(K_AP), d, 2ULL << 32, fun, c, d);
    const uint64_t wa[2] = {fun, c};
    memcpy(want_ap, wa, sizeof(wa));
}

START_TEST(kinds_format1)
{
    kheap k;
    kh_init(&k);
    uint64_t stack, pap, ap, ws[6], wp[3], wa[2];
    format1_heap(&k, &stack, &pap, &ap, ws, wp, wa);
    expect_in(&k.s, "STACK (format 1)", stack, ws, 6);
    expect_in(&k.s, "PAP (format 1)", pap, wp, 3);
    expect_in(&k.s, "AP (format 1)", ap, wa, 2);
    dbg_snap_free(&k.s);
}
END_TEST

/* The same heap written to a file of format version 1 and loaded back. */
START_TEST(kinds_format1_file)
{
    kheap k;
    kh_init(&k);
    uint64_t stack, pap, ap, ws[6], wp[3], wa[2];
    format1_heap(&k, &stack, &pap, &ap, ws, wp, wa);
    const uint64_t roots[] = {stack, pap, ap};
    ck_assert_int_eq(dbg_snap_set_roots(&k.s, roots, 3), 0);
    ck_assert_int_eq(dbg_snap_finish(&k.s), 0);
    char path[] = "/tmp/rtscope-kinds-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    uint64_t bytes = 0;
    ck_assert_msg(dbg_snap_write(&k.s, path, 3, &bytes) == 0, "%s", k.s.err);
    dbg_snap_free(&k.s);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *p = malloc(bytes);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(fread(p, 1, bytes, f), bytes);
    fclose(f);
    unlink(path);
    /* version 1, header checksum recomputed */
    ck_assert_int_eq(p[8], DBG_SNAP_VERSION);
    p[8] = 1;
    unsigned char head[TABLE_END];
    memcpy(head, p, TABLE_END);
    memset(head + 20, 0, 4);
    le_put(p + 20, sum_of(head, TABLE_END) & 0xffffffffu, 4);
    dbg_snap s;
    ck_assert_msg(dbg_snap_load_mem(&s, p, (size_t)bytes, 0) == 0, "%s", s.err);
    ck_assert_uint_eq(s.nmaps, 0);
    expect_in(&s, "STACK (format 1 file)", stack, ws, 6);
    expect_in(&s, "PAP (format 1 file)", pap, wp, 3);
    expect_in(&s, "AP (format 1 file)", ap, wa, 2);
    dbg_snap_free(&s);
    free(p);
}
END_TEST

/* What cannot be read is counted and reported with where and why, and
 * the rest of the walk goes on. */
START_TEST(kinds_unreadable)
{
    kheap k;
    kh_init(&k);
    uint64_t fun = PUT(&k, I(K_FUN0), k.d);
    uint64_t a = leaf(&k), d = k.d;
    /* an AP_STACK without a map (format 1): its fun is followed, its
     * stack chunk is not, and it says so */
    uint64_t aps = PUT(&k, I(K_APS), d, 3, fun, I(K_RETS), a, d);
    kwalk w;
    dbg_heap h;
    walk_snap(&k.s, aps, &w, &h);
    ck_assert_uint_eq(h.unreadable, 1);
    ck_assert_uint_eq(h.nunread, 1);
    ck_assert_uint_eq(h.unread[0].addr, aps);
    ck_assert_uint_eq(h.unread[0].parent, 0);
    ck_assert_msg(strstr(h.unread[0].why, "AP_STACK without a pointer map"),
                  "%s", h.unread[0].why);
    ck_assert_ptr_nonnull(visited(&w, fun));
    ck_assert_ptr_null(visited(&w, a));
    kwalk_free(&w);
    dbg_heap_free(&h);
    /* a closure the snapshot does not hold, reached from a constructor */
    uint64_t con = PUT(&k, I(K_CON), a, MISSING | 1, d, d);
    walk_snap(&k.s, con, &w, &h);
    ck_assert_uint_eq(h.unreadable, 1);
    ck_assert_uint_eq(h.unread[0].addr, MISSING);
    ck_assert_uint_eq(h.unread[0].parent, con);
    ck_assert_str_eq(h.unread[0].why, "not in the snapshot");
    ck_assert_uint_eq(w.n, 2); /* the constructor and a */
    ck_assert_ptr_nonnull(visited(&w, a));
    kwalk_free(&w);
    dbg_heap_free(&h);
    /* a missing root */
    walk_snap(&k.s, MISSING + 0x40, &w, &h);
    ck_assert_uint_eq(h.unreadable, 1);
    ck_assert_uint_eq(h.unread[0].parent, 0);
    ck_assert_str_eq(h.unread[0].why, "not in the snapshot");
    ck_assert_uint_eq(w.n, 0);
    kwalk_free(&w);
    dbg_heap_free(&h);
    /* a PAP without a map whose function has no argument bitmap */
    uint64_t fun2 = PUT(&k, I(K_FUN0), d);
    uint64_t pap = PUT(&k, I(K_PAP), 2 | (1ULL << 32), fun2, a);
    walk_snap(&k.s, pap, &w, &h);
    ck_assert_uint_eq(h.unreadable, 1);
    ck_assert_uint_eq(h.unread[0].addr, pap);
    ck_assert_msg(
        strstr(h.unread[0].why, "no argument bitmap for the function"), "%s",
        h.unread[0].why);
    ck_assert_ptr_nonnull(visited(&w, fun2));
    kwalk_free(&w);
    dbg_heap_free(&h);
    /* more than DBG_UNREADABLE_KEPT: all counted, the first kept */
    uint64_t many[DBG_UNREADABLE_KEPT + 3];
    for (size_t i = 0; i < DBG_UNREADABLE_KEPT + 3; i++)
        many[i] = MISSING + 0x100 + 0x10 * i;
    uint64_t arr[3 + DBG_UNREADABLE_KEPT + 3];
    arr[0] = I(K_SAC);
    arr[1] = DBG_UNREADABLE_KEPT + 3;
    memcpy(arr + 2, many, sizeof(many));
    uint64_t sarr = put(&k, arr, 2 + DBG_UNREADABLE_KEPT + 3);
    walk_snap(&k.s, sarr, &w, &h);
    ck_assert_uint_eq(h.unreadable, DBG_UNREADABLE_KEPT + 3);
    ck_assert_uint_eq(h.nunread, DBG_UNREADABLE_KEPT);
    ck_assert_uint_eq(h.unread[0].addr, many[0]);
    ck_assert_uint_eq(h.unread[0].parent, sarr);
    kwalk_free(&w);
    dbg_heap_free(&h);
    dbg_snap_free(&k.s);
}
END_TEST

/* All kinds at once: one heap holding every closure above, reachable from
 * one array; nothing unreadable, each closure visited once. */
START_TEST(kinds_together)
{
    kheap k;
    kh_init(&k);
    uint64_t fun = PUT(&k, I(K_FUN0), k.d);
    uint64_t a = leaf(&k), b = leaf(&k), d = k.d;
    uint64_t objs[] = {
        PUT(&k, I(K_CON), a, b, d, d),
        PUT(&k, I(K_FUN), a, d),
        PUT(&k, I(K_THUNK), d, a, b, d),
        PUT(&k, I(K_SEL), d, a),
        PUT(&k, I(K_BQ), a, b, a, b),
        PUT(&k, I(K_MVARD), a, b, a),
        PUT(&k, I(K_TVAR), a, b, d),
        PUT(&k, I(K_WEAK), a, b, a, b, a),
        PUT(&k, I(K_MAPC), 1, 2, a, d),
        PUT(&k, I(K_CNF), d, d),
        PUT(&k, I(K_PAP), 2 | (1ULL << 32), fun, a),
    };
    size_t n = sizeof(objs) / sizeof(objs[0]);
    MAP(&k, objs[n - 1], 0, 0, 1, 1);
    uint64_t arr[2 + sizeof(objs) / sizeof(objs[0])];
    arr[0] = I(K_SAF);
    arr[1] = n;
    memcpy(arr + 2, objs, sizeof(objs));
    uint64_t root = put(&k, arr, 2 + n);
    kwalk w;
    dbg_heap h;
    walk_snap(&k.s, root, &w, &h);
    ck_assert_uint_eq(h.unreadable, 0);
    /* the root, its objects, a, b, fun, S_FUN, S_THUNK */
    ck_assert_uint_eq(w.n, 1 + n + 5);
    for (size_t i = 0; i < w.n; i++)
        for (size_t j = i + 1; j < w.n; j++)
            ck_assert(w.v[i].addr != w.v[j].addr);
    ck_assert_ptr_null(visited(&w, d));
    kwalk_free(&w);
    dbg_heap_free(&h);
    dbg_snap_free(&k.s);
}
END_TEST

TCase *walk_kinds_tcase(void)
{
    TCase *tc = tcase_create("walk kinds");
    tcase_add_test(tc, kinds_constr);
    tcase_add_test(tc, kinds_fun);
    tcase_add_test(tc, kinds_thunk);
    tcase_add_test(tc, kinds_ind);
    tcase_add_test(tc, kinds_mutable);
    tcase_add_test(tc, kinds_trec_chunk);
    tcase_add_test(tc, kinds_tso);
    tcase_add_test(tc, kinds_arrays);
    tcase_add_test(tc, kinds_bco_compact);
    tcase_add_test(tc, kinds_apps_mapped);
    tcase_add_test(tc, kinds_stack_mapped);
    tcase_add_test(tc, kinds_format1);
    tcase_add_test(tc, kinds_format1_file);
    tcase_add_test(tc, kinds_unreadable);
    tcase_add_test(tc, kinds_together);
    return tc;
}
