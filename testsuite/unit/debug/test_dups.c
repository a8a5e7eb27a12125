/* Unit tests of the duplicate analyses (consumer/lib/debug/dups.c and
 * dup_strings.c) on a small heap: three boxes holding the same number
 * and one a different one, three byte arrays with the same payload and
 * one other, and the strings "ab" twice (built apart), "abc" once and a
 * "ab" whose tail is not yet evaluated. The groups, their counts and
 * waste, the samples kept from the second closure met, the size
 * histogram, ARR_WORDS only, and the strings found from their first cell
 * only (the tail "b" of "ab" is no string of its own). */
#define _GNU_SOURCE
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"
#include "rtscope/debug/dup_strings.h"
#include "rtscope/debug/dups.h"
#include "snap_fixture.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

TCase *dups_tcase(void);

#define INFO 0x400000ULL
#define HEAP 0x4200000000ULL
#define AT(i) (HEAP + 0x40ULL * (uint64_t)(i))
enum {
    HOLD = 0x1000,
    BOX = 0x1100,
    ARR = 0x1200,
    CONS = 0x1300,
    CHR = 0x1400,
    NIL = 0x1500,
    THK = 0x1600
};

#define NHOLD 16 /* fields of the root that holds everything */

static void infos(dbg_snap *s)
{
    ck_assert_int_eq(snapfix_info(s, INFO + HOLD, GHC_CONSTR, NHOLD, 0, 0,
                                  "main:Main.Hold", "Main", "A.hs:1:1-9"),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + BOX, GHC_CONSTR, 0, 1, 0,
                                  "main:Main.Box", "Main", "A.hs:2:1-9"),
                     0);
    ck_assert_int_eq(
        snapfix_info(s, INFO + ARR, GHC_ARR_WORDS, 0, 0, 0, NULL, NULL, NULL),
        0);
    ck_assert_int_eq(snapfix_info(s, INFO + CONS, GHC_CONSTR, 2, 0, 0,
                                  "ghc-prim:GHC.Types.:", NULL, NULL),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + CHR, GHC_CONSTR, 0, 1, 0,
                                  "ghc-prim:GHC.Types.C#", NULL, NULL),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + NIL, GHC_CONSTR_NOCAF, 0, 0, 0,
                                  "ghc-prim:GHC.Types.[]", NULL, NULL),
                     0);
    ck_assert_int_eq(snapfix_info(s, INFO + THK, GHC_THUNK, 0, 0, 0, NULL,
                                  "Main", "A.hs:3:1-9"),
                     0);
}

static void closure(dbg_snap *s, int i, const uint64_t *w, size_t n)
{
    ck_assert_int_eq(snapfix_closure(s, AT(i), w, n), 0);
}

/* The string of cells at..at+len-1 with characters chars[], ending in
 * tail. */
static void string(dbg_snap *s, int at, const int *chars, int len,
                   uint64_t tail)
{
    for (int k = 0; k < len; k++) {
        uint64_t w[] = {INFO + CONS, AT(chars[k]) | 1,
                        k + 1 < len ? AT(at + k + 1) | 1 : tail};
        closure(s, at + k, w, 3);
    }
}

static void build(dbg_snap *s)
{
    dbg_snap_init(s);
    infos(s);
    uint64_t hold[1 + NHOLD] = {INFO + HOLD};
    int fields[NHOLD] = {10, 11, 12, 13, 20, 21, 22, 23, 40, 43, 46, 48};
    for (int k = 0; k < NHOLD; k++)
        hold[1 + k] = fields[k] ? AT(fields[k]) | 1 : AT(10) | 1;
    closure(s, 0, hold, 1 + NHOLD);
    for (int i = 0; i < 4; i++) { /* boxes 10..13: 7, 7, 7, 8 */
        uint64_t b[] = {INFO + BOX, i < 3 ? 7 : 8};
        closure(s, 10 + i, b, 2);
    }
    for (int i = 0; i < 4; i++) { /* arrays 20..23: "hello!!!" x3, "other" */
        uint64_t a[] = {INFO + ARR, i < 3 ? 8 : 5, 0};
        memcpy(&a[2], i < 3 ? "hello!!!" : "other\0\0\0", 8);
        closure(s, 20 + i, a, 3);
    }
    for (int c = 0; c < 3; c++) { /* characters 30..32: a b c */
        uint64_t w[] = {INFO + CHR, (uint64_t)('a' + c)};
        closure(s, 30 + c, w, 2);
    }
    uint64_t nil[] = {INFO + NIL};
    closure(s, 50, nil, 1);
    uint64_t thk[] = {INFO + THK, 0, 0};
    closure(s, 51, thk, 3);
    const int ab[] = {30, 31}, abc[] = {30, 31, 32};
    string(s, 40, ab, 2, AT(50) | 1);  /* "ab" */
    string(s, 43, abc, 3, AT(50) | 1); /* "abc" */
    string(s, 46, ab, 2, AT(51));      /* "ab" ++ a thunk */
    string(s, 48, ab, 2, AT(50) | 1);  /* "ab" again */
    uint64_t roots[] = {AT(0)};
    ck_assert_int_eq(dbg_snap_set_roots(s, roots, 1), 0);
    ck_assert_int_eq(dbg_snap_finish(s), 0);
}

static void walk(dbg_snap *s, dbg_heap *h, dbg_visit_fn fn, void *ctx)
{
    uint64_t *roots;
    size_t nroots;
    dbg_heap_init_source(h, &dbg_source_snap, s);
    ck_assert_int_eq(dbg_heap_roots(h, &roots, &nroots), 0);
    ck_assert_int_eq(dbg_heap_walk(h, roots, nroots, fn, ctx), 0);
    ck_assert_uint_eq(h->unreadable, 0);
    free(roots);
}

START_TEST(groups_and_samples)
{
    dbg_snap s;
    dbg_heap h;
    dbg_dups d;
    build(&s);
    dbg_dups_init(&d, &h, 2);
    walk(&s, &h, dbg_dups_visit, &d);
    ck_assert_int_eq(d.nomem, 0);
    ck_assert_str_eq(d.err, "");
    ck_assert_str_ne(d.no_blocks, ""); /* no block list: said so */
    dbg_dups_finish(&d);
    /* the arrays (3 x 24 B) waste 48, the boxes (3 x 16 B) 32, the
     * two finished "ab"s' last cells ('b' : []) 24 */
    ck_assert_uint_eq(d.n, 3);
    ck_assert_uint_eq(d.groups[2].info, INFO + CONS);
    const dbg_dup_group *a = &d.groups[0];
    ck_assert_uint_eq(a->info, INFO + ARR);
    ck_assert_uint_eq(a->count, 3);
    ck_assert_uint_eq(a->size, 24);
    ck_assert_uint_eq(dbg_dup_wasted(a), 48);
    ck_assert_uint_eq(a->nsamp, 2); /* keep 2: the first two met */
    ck_assert_uint_eq(a->samp[0], a->example);
    ck_assert_uint_eq(a->payload, 8);
    ck_assert_int_eq(memcmp(a->head, "hello!!!", 8), 0);
    int boxes = 0;
    for (size_t i = 0; i < d.n; i++)
        if (d.groups[i].info == INFO + BOX) {
            boxes++;
            ck_assert_uint_eq(d.groups[i].count, 3);
            ck_assert_ptr_null(d.groups[i].head);
        }
    ck_assert_int_eq(boxes, 1);
    /* 16..31 B: the 4 arrays, boxes are 16 B too */
    ck_assert_uint_ge(d.hist[4].count, 8);
    ck_assert_uint_ge(d.hist[4].dups, 4);
    dbg_dups_free(&d);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}
END_TEST

START_TEST(arr_words_only)
{
    dbg_snap s;
    dbg_heap h;
    dbg_dups d;
    build(&s);
    dbg_dups_init(&d, &h, 0);
    d.only_type = GHC_ARR_WORDS;
    walk(&s, &h, dbg_dups_visit, &d);
    dbg_dups_finish(&d);
    ck_assert_uint_eq(d.candidates, 4);
    ck_assert_uint_eq(d.candidate_bytes, 4 * 24);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_uint_eq(d.dup_closures, 2);
    ck_assert_uint_eq(d.dup_bytes, 48);
    ck_assert_ptr_null(d.groups[0].samp); /* keep 0: none */
    ck_assert_uint_eq(d.hist[4].count, 4);
    ck_assert_uint_eq(d.hist[4].bytes, 96);
    ck_assert_uint_eq(d.hist[4].wasted, 48);
    dbg_dups_free(&d);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}
END_TEST

START_TEST(strings)
{
    dbg_snap s;
    dbg_heap h;
    dbg_strings st;
    build(&s);
    dbg_strings_init(&st, &h, 4);
    walk(&s, &h, dbg_strings_visit, &st);
    ck_assert_int_eq(st.nomem, 0);
    ck_assert_int_eq(dbg_strings_finish(&st), 0);
    /* "ab", "abc", "ab"++thunk, "ab": four strings, none from "b" */
    ck_assert_uint_eq(st.strings, 4);
    ck_assert_uint_eq(st.n, 1);
    const dbg_string_group *g = &st.groups[0];
    ck_assert_uint_eq(g->count, 2);
    ck_assert_uint_eq(g->length, 2);
    ck_assert_int_eq(g->ends, 1);
    ck_assert_uint_eq(g->bytes, 48);
    ck_assert_uint_eq(dbg_string_wasted(g), 48);
    ck_assert_uint_eq(g->nsamp, 2);
    ck_assert_uint_eq(st.dup_strings, 1);
    char buf[16];
    ck_assert_uint_eq(dbg_strings_text(&st, g->samp[1], buf, sizeof(buf)), 2);
    ck_assert_str_eq(buf, "ab");
    ck_assert_uint_eq(dbg_strings_text(&st, AT(43), buf, 3), 3); /* cut */
    ck_assert_str_eq(buf, "ab");
    dbg_strings_free(&st);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}
END_TEST

TCase *dups_tcase(void)
{
    TCase *tc = tcase_create("dups");
    tcase_add_test(tc, groups_and_samples);
    tcase_add_test(tc, arr_words_only);
    tcase_add_test(tc, strings);
    return tc;
}
