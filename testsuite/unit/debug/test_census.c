/* Unit tests of the census by info table (consumer/lib/debug/census.c) on
 * a small heap: a list of three boxes and a thunk, then an array (an RTS
 * closure, no module) held by a box. Counts and bytes per table, the
 * first closures kept as samples in walk order, thunks only, and --by
 * module's owner: the array counted under the module of the box that
 * holds it (Note [Census by module]). */
#define _GNU_SOURCE
#include "rtscope/debug/census.h"
#include "rtscope/debug/census2.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"
#include "snap_fixture.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

TCase *census_tcase(void);

#define INFO 0x400000ULL
#define HEAP 0x4200000000ULL
#define AT(i) (HEAP + 0x40ULL * (uint64_t)(i))
enum {
    CONS = 0x1000,
    BOX = 0x1100,
    NIL = 0x1200,
    THK = 0x1300,
    ARR = 0x1400,
    HOLD = 0x1500
};

/* Cons cells 0..2 hold boxes 10..12, the last cell's tail is the thunk 20
 * whose free variable is Nil 30; a second root: Hold 40 of the array 41. */
static void build(dbg_snap *s)
{
    dbg_snap_init(s);
    ck_assert_int_eq(snapfix_info(s, INFO + CONS, GHC_CONSTR, 2, 0, 0,
                                  "main:Main.Cons", "Main", "A.hs:1:1-9"),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + BOX, GHC_CONSTR, 0, 1, 0,
                                  "main:Main.Box", "Main", "A.hs:2:1-9"),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + NIL, GHC_CONSTR, 0, 1, 0,
                                  "main:Main.Nil", "Main", "A.hs:3:1-9"),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + THK, GHC_THUNK, 1, 0, 0, NULL,
                                  "Main", "A.hs:4:1-9"),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + ARR, GHC_MUT_ARR_PTRS_FROZEN_CLEAN,
                                  0, 0, 0, NULL, NULL, NULL),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + HOLD, GHC_CONSTR, 1, 0, 0,
                                  "lib:Lib.Hold", "Lib", "L.hs:1:1-9"),
                     0);
    for (int i = 0; i < 3; i++) {
        uint64_t tail = i < 2 ? AT(i + 1) | 1 : AT(20);
        uint64_t w[] = {INFO + CONS, AT(10 + i) | 1, tail};
        ck_assert_int_eq(snapfix_closure(s, AT(i), w, 3), 0);
        uint64_t b[] = {INFO + BOX, (uint64_t)i};
        ck_assert_int_eq(snapfix_closure(s, AT(10 + i), b, 2), 0);
    }
    uint64_t t[] = {INFO + THK, 0, AT(30) | 1};
    ck_assert_int_eq(snapfix_closure(s, AT(20), t, 3), 0);
    uint64_t n[] = {INFO + NIL, 0};
    ck_assert_int_eq(snapfix_closure(s, AT(30), n, 2), 0);
    uint64_t h[] = {INFO + HOLD, AT(41)};
    ck_assert_int_eq(snapfix_closure(s, AT(40), h, 2), 0);
    uint64_t a[] = {INFO + ARR, 1, 2, AT(30) | 1}; /* 1 element, Nil */
    ck_assert_int_eq(snapfix_closure(s, AT(41), a, 4), 0);
    uint64_t roots[] = {AT(0), AT(40)};
    ck_assert_int_eq(dbg_snap_set_roots(s, roots, 2), 0);
    ck_assert_int_eq(dbg_snap_finish(s), 0);
}

static const dbg_census_entry *entry(const dbg_census *c, uint64_t info)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].info == info && !c->e[i].owner)
            return &c->e[i];
    return NULL;
}

/* A census of the heap (keep samples an entry), walked. */
static void census_of(dbg_snap *s, dbg_heap *h, dbg_census *c, size_t keep,
                      int thunks, int by_module)
{
    uint64_t *roots;
    size_t nroots;
    build(s);
    dbg_heap_init_source(h, &dbg_source_snap, s);
    ck_assert_int_eq(dbg_heap_roots(h, &roots, &nroots), 0);
    dbg_census_init(c, h, keep);
    c->thunks_only = thunks;
    c->by_module = by_module;
    ck_assert_int_eq(dbg_heap_walk(h, roots, nroots, dbg_census_visit, c), 0);
    ck_assert_int_eq(c->nomem, 0);
    ck_assert_uint_eq(h->unreadable, 0);
    free(roots);
}

static void census_done(dbg_snap *s, dbg_heap *h, dbg_census *c)
{
    dbg_census_free(c);
    dbg_heap_free(h);
    dbg_snap_free(s);
}

START_TEST(counts_and_samples)
{
    dbg_snap s;
    dbg_heap h;
    dbg_census c;
    census_of(&s, &h, &c, 2, 0, 0);
    const dbg_census_entry *box = entry(&c, INFO + BOX);
    ck_assert_ptr_nonnull(box);
    ck_assert_uint_eq(box->count, 3);
    ck_assert_uint_eq(box->bytes, 3 * 16);
    ck_assert_uint_eq(box->nsamp, 2); /* the first two the walk met */
    ck_assert_uint_eq(box->samp[0], AT(10));
    ck_assert_uint_eq(box->samp[1], AT(11));
    ck_assert_uint_eq(entry(&c, INFO + CONS)->count, 3);
    ck_assert_uint_eq(entry(&c, INFO + THK)->count, 1);
    ck_assert_uint_eq(entry(&c, INFO + NIL)->count, 1); /* reached twice */
    census_done(&s, &h, &c);
}
END_TEST

START_TEST(thunks_only)
{
    dbg_snap s;
    dbg_heap h;
    dbg_census c;
    census_of(&s, &h, &c, 0, 1, 0);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_uint_eq(c.e[0].info, INFO + THK);
    ck_assert_uint_eq(c.e[0].nsamp, 0);
    census_done(&s, &h, &c);
}
END_TEST

START_TEST(owner_module)
{
    dbg_snap s;
    dbg_heap h;
    dbg_census c;
    census_of(&s, &h, &c, 1, 0, 1);
    const dbg_census_entry *arr = NULL;
    for (size_t i = 0; i < c.n; i++)
        if (c.e[i].info == INFO + ARR)
            arr = &c.e[i];
    ck_assert_ptr_nonnull(arr);
    ck_assert_uint_ne(arr->owner, 0); /* held by Lib's Hold */
    ck_assert_str_eq(c.modules.s[arr->owner - 1], "Lib");
    ck_assert_uint_eq(c.held_bytes, arr->bytes);
    ck_assert_uint_eq(arr->samp[0], AT(41));
    census_done(&s, &h, &c);
}
END_TEST

/* The two-level census: the cells 0 and 1 point to a box and a cell,
 * the last one to a box and the thunk; one row each, under the table's
 * bytes; the array's key is its one element, the holder's the array. */
START_TEST(two_levels)
{
    dbg_snap s;
    dbg_heap h;
    dbg_graph g;
    dbg_census2 c;
    uint64_t *roots;
    size_t nroots;
    build(&s);
    dbg_heap_init_source(&h, &dbg_source_snap, &s);
    ck_assert_int_eq(dbg_heap_roots(&h, &roots, &nroots), 0);
    ck_assert_int_eq(dbg_graph_build(&h, roots, nroots, &g), 0);
    ck_assert_int_eq(dbg_census2_make(&c, &g, 1), 0);
    uint32_t cons =
        (uint32_t)dbg_heap_info_index(&h, dbg_heap_info(&h, INFO + CONS));
    uint32_t box =
        (uint32_t)dbg_heap_info_index(&h, dbg_heap_info(&h, INFO + BOX));
    uint32_t thk =
        (uint32_t)dbg_heap_info_index(&h, dbg_heap_info(&h, INFO + THK));
    /* Cons (72 bytes) first: [Box, Cons] x2 (48), then [Box, THK] (24) */
    ck_assert_uint_eq(c.rows[0].info, cons);
    ck_assert_uint_eq(c.rows[0].table_bytes, 72);
    ck_assert_uint_eq(c.rows[0].count, 2);
    ck_assert_uint_eq(c.rows[0].bytes, 48);
    ck_assert_uint_eq(c.rows[0].nruns, 2);
    ck_assert_uint_eq(c.runs[c.rows[0].run].info, box);
    ck_assert_uint_eq(c.runs[c.rows[0].run + 1].info, cons);
    ck_assert_uint_eq(c.rows[0].nsamp, 1);
    ck_assert_uint_eq(g.addr[c.rows[0].samp[0]], AT(0));
    ck_assert_uint_eq(c.rows[1].info, cons);
    ck_assert_uint_eq(c.rows[1].count, 1);
    ck_assert_uint_eq(c.runs[c.rows[1].run + 1].info, thk);
    size_t nbox = 0;
    for (size_t i = 0; i < c.n; i++)
        if (c.rows[i].info == box) {
            nbox++;
            ck_assert_uint_eq(c.rows[i].nruns, 0); /* points to nothing */
            ck_assert_uint_eq(c.rows[i].count, 3);
        }
    ck_assert_uint_eq(nbox, 1);
    dbg_census2_free(&c);
    dbg_graph_free(&g);
    free(roots);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}
END_TEST

TCase *census_tcase(void)
{
    TCase *tc = tcase_create("census");
    tcase_add_test(tc, counts_and_samples);
    tcase_add_test(tc, thunks_only);
    tcase_add_test(tc, owner_module);
    tcase_add_test(tc, two_levels);
    return tc;
}
