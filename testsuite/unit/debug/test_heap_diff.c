/* Unit tests of the heap diff (consumer/lib/debug/heap_diff.c, Note [Heap
 * diff]) on two small heaps of one "program" whose info tables sit at
 * other addresses in the second: a request log that grew from two
 * requests to five, boxes that went from three to one, a constructor
 * that is gone. Groups match by the names the caller gives (not by
 * address), tables named alike are added together, growth is ranked
 * largest first with what shrank counted apart, and a group of B is shown
 * by the closure of it the walk of B reached last. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"
#include "rtscope/debug/heap_diff.h"
#include "snap_fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TCase *heap_diff_tcase(void);

/* The groupings of these tests: by constructor, and by info-table
 * address (which never matches across heaps loaded elsewhere). */
enum { BY_CON, BY_ADDR, NGROUPINGS };

/* Info tables, as offsets from a heap's base: the second heap has them
 * 0x100000 further, as a binary loaded elsewhere would. REQ2 is a second
 * table of the same constructor (only the second heap uses it). */
enum { CONS = 0x1000, REQ = 0x1100, REQ2 = 0x1180, NIL = 0x1200 };
enum { BOX = 0x1300, OLD = 0x1400 };
#define INFO_A 0x400000ULL
#define INFO_B 0x500000ULL
#define HEAP_A 0x4200000000ULL
#define HEAP_B 0x4300000000ULL
#define AT(heap, i) ((heap) + 0x40ULL * (uint64_t)(i))

static void infos(dbg_snap *s, uint64_t base)
{
    static const struct {
        uint32_t off, ptrs;
        const char *con;
    } t[] = {{CONS, 2, "main:Main.Cons"}, {REQ, 0, "main:Main.Req"},
             {REQ2, 0, "main:Main.Req"},  {NIL, 0, "main:Main.Nil"},
             {BOX, 0, "main:Main.Box"},   {OLD, 0, "main:Main.Old"}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        ck_assert_int_eq(snapfix_info(s, base + t[i].off, GHC_CONSTR, t[i].ptrs,
                                      t[i].ptrs ? 0 : 1, 0, t[i].con, "Main",
                                      "Log.hs:1:1-9"),
                         0);
}

/* A closure of one word after the header (Req, Nil, Box, Old: 16 bytes). */
static void small(dbg_snap *s, uint64_t addr, uint64_t info)
{
    ck_assert_int_eq(snapfix_closure(s, addr, (const uint64_t[]){info, 7}, 2),
                     0);
}

/* A heap: a log of nreq requests (Cons cells of 24 bytes, each holding a
 * Req, ended by a Nil) as the first root; nbox boxes and nold Olds as
 * roots after it. The last request uses REQ2 when last2. Closure i is at
 * AT(heap, i): the cells 0.., their requests 100.., the Nil 200, boxes
 * 300.., Olds 400... */
static void build(dbg_snap *s, uint64_t heap, uint64_t info, int nreq, int nbox,
                  int nold, int last2)
{
    dbg_snap_init(s);
    infos(s, info);
    for (int i = 0; i < nreq; i++) {
        uint64_t next = i + 1 < nreq ? AT(heap, i + 1) : AT(heap, 200);
        uint64_t w[] = {info + CONS, AT(heap, 100 + i) | 1, next | 1};
        ck_assert_int_eq(snapfix_closure(s, AT(heap, i), w, 3), 0);
        small(s, AT(heap, 100 + i),
              info + (last2 && i == nreq - 1 ? REQ2 : REQ));
    }
    small(s, AT(heap, 200), info + NIL);
    uint64_t roots[16];
    size_t nr = 0;
    roots[nr++] = nreq ? AT(heap, 0) : AT(heap, 200);
    for (int i = 0; i < nbox; i++) {
        small(s, AT(heap, 300 + i), info + BOX);
        roots[nr++] = AT(heap, 300 + i);
    }
    for (int i = 0; i < nold; i++) {
        small(s, AT(heap, 400 + i), info + OLD);
        roots[nr++] = AT(heap, 400 + i);
    }
    ck_assert_int_eq(dbg_snap_set_roots(s, roots, nr), 0);
    ck_assert_int_eq(dbg_snap_finish(s), 0);
}

/* The caller's naming: the constructor, or the table's address. */
static void name_of(void *ctx, size_t info, int k, char *buf, size_t len)
{
    dbg_heap *h = ctx;
    dbg_info *in = dbg_heap_info_at(h, info);
    if (k == BY_CON)
        snprintf(buf, len, "%s", dbg_heap_con_descr(h, in));
    else
        snprintf(buf, len, "0x%llx", (unsigned long long)in->ptr);
}

/* The id of the group named `name` in grouping k (it must exist). */
static uint32_t group(const dbg_heap_diff *d, int k, const char *name)
{
    for (size_t i = 0; i < d->names[k].n; i++)
        if (strcmp(d->names[k].s[i], name) == 0)
            return (uint32_t)i;
    ck_abort_msg("no group %s", name);
    return DBG_DIFF_NONE;
}

typedef struct two_heaps {
    dbg_snap sa, sb;
    dbg_heap ha, hb;
    uint64_t *ra, *rb;
    size_t nra, nrb;
    dbg_info_census ca; /* A by a walk */
    dbg_graph g;        /* B */
} two_heaps;

/* A: 2 requests, 3 boxes, 1 Old; B: 5 requests (the last of REQ2), 1 box. */
static void two_heaps_open(two_heaps *t)
{
    memset(t, 0, sizeof(*t));
    build(&t->sa, HEAP_A, INFO_A, 2, 3, 1, 0);
    build(&t->sb, HEAP_B, INFO_B, 5, 1, 0, 1);
    dbg_heap_init_source(&t->ha, &dbg_source_snap, &t->sa);
    dbg_heap_init_source(&t->hb, &dbg_source_snap, &t->sb);
    ck_assert_int_eq(dbg_heap_roots(&t->ha, &t->ra, &t->nra), 0);
    ck_assert_int_eq(dbg_heap_roots(&t->hb, &t->rb, &t->nrb), 0);
    t->ca.h = &t->ha;
    ck_assert_int_eq(
        dbg_heap_walk(&t->ha, t->ra, t->nra, dbg_info_census_visit, &t->ca), 0);
    ck_assert_int_eq(t->ca.nomem, 0);
    ck_assert_msg(dbg_graph_build(&t->hb, t->rb, t->nrb, &t->g) == 0, "%s",
                  t->g.err);
    ck_assert_uint_eq(t->ha.unreadable + t->hb.unreadable, 0);
}

static void two_heaps_close(two_heaps *t)
{
    dbg_info_census_free(&t->ca);
    dbg_graph_free(&t->g);
    free(t->ra);
    free(t->rb);
    dbg_heap_free(&t->ha);
    dbg_heap_free(&t->hb);
    dbg_snap_free(&t->sa);
    dbg_snap_free(&t->sb);
}

/* The diff of the two heaps in both groupings. */
static void diff_of(two_heaps *t, dbg_heap_diff *d)
{
    dbg_info_census cb = {0};
    ck_assert_int_eq(dbg_info_census_of_graph(&cb, &t->g), 0);
    dbg_heap_diff_init(d, NGROUPINGS);
    ck_assert_int_eq(dbg_heap_diff_add(d, 0, &t->ca, name_of, &t->ha), 0);
    ck_assert_int_eq(dbg_heap_diff_add(d, 1, &cb, name_of, &t->hb), 0);
    dbg_info_census_free(&cb);
}

/* Totals, and the groups of one constructor matched across the heaps
 * although every table moved; REQ and REQ2 are one group. */
START_TEST(groups_match_by_name)
{
    two_heaps t;
    two_heaps_open(&t);
    dbg_heap_diff d;
    diff_of(&t, &d);
    /* A: 2 cells, 2 requests, Nil, 3 boxes, Old; B: 5, 5, Nil, 1 box */
    ck_assert_uint_eq(d.count[0], 9);
    ck_assert_uint_eq(d.bytes[0], 2 * 24 + 7 * 16);
    ck_assert_uint_eq(d.count[1], 12);
    ck_assert_uint_eq(d.bytes[1], 5 * 24 + 7 * 16);
    ck_assert_uint_eq(d.names[BY_CON].n, 5);
    const dbg_diff_group *req =
        &d.group[BY_CON][group(&d, BY_CON, "main:Main.Req")];
    ck_assert_uint_eq(req->count[0], 2);
    ck_assert_uint_eq(req->count[1], 5); /* 4 of REQ, 1 of REQ2 */
    ck_assert_int_eq(dbg_diff_growth(req), 3 * 16);
    ck_assert_int_eq(dbg_diff_count_growth(req), 3);
    const dbg_diff_group *cons =
        &d.group[BY_CON][group(&d, BY_CON, "main:Main.Cons")];
    ck_assert_int_eq(dbg_diff_growth(cons), 3 * 24);
    const dbg_diff_group *old =
        &d.group[BY_CON][group(&d, BY_CON, "main:Main.Old")];
    ck_assert_uint_eq(old->count[1], 0);
    ck_assert_int_eq(dbg_diff_count_growth(old), -1);
    /* by address nothing matches: A's 5 tables, B's 5 */
    ck_assert_uint_eq(d.names[BY_ADDR].n, 10);
    /* the census of B by a walk is the census of its graph */
    dbg_info_census cw = {.h = &t.hb}, cg = {0};
    ck_assert_int_eq(
        dbg_heap_walk(&t.hb, t.rb, t.nrb, dbg_info_census_visit, &cw), 0);
    ck_assert_int_eq(dbg_info_census_of_graph(&cg, &t.g), 0);
    ck_assert_uint_eq(cw.cap, cg.cap);
    ck_assert(memcmp(cw.count, cg.count, cw.cap * sizeof(uint64_t)) == 0);
    ck_assert(memcmp(cw.bytes, cg.bytes, cw.cap * sizeof(uint64_t)) == 0);
    dbg_info_census_free(&cw);
    dbg_info_census_free(&cg);
    dbg_heap_diff_free(&d);
    two_heaps_close(&t);
}
END_TEST

/* Largest growth first, what shrank last and counted apart. */
START_TEST(rank_largest_growth_first)
{
    two_heaps t;
    two_heaps_open(&t);
    dbg_heap_diff d;
    diff_of(&t, &d);
    dbg_diff_rank r;
    ck_assert_int_eq(dbg_heap_diff_rank(&d, BY_CON, &r), 0);
    ck_assert_uint_eq(r.n, 5);
    static const char *const want[] = {"main:Main.Cons", "main:Main.Req",
                                       "main:Main.Nil", "main:Main.Old",
                                       "main:Main.Box"};
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(d.names[BY_CON].s[r.order[i]], want[i]);
    ck_assert_uint_eq(r.grew, 2);
    ck_assert_uint_eq(r.shrank, 2); /* Nil neither grew nor shrank */
    ck_assert_int_eq(r.shrunk, 2 * 16 + 16);
    dbg_diff_rank_free(&r);
    /* by address: everything of B grew, everything of A shrank */
    ck_assert_int_eq(dbg_heap_diff_rank(&d, BY_ADDR, &r), 0);
    ck_assert_uint_eq(r.grew, 5);
    ck_assert_uint_eq(r.shrank, 5);
    ck_assert_int_eq(r.shrunk, (int64_t)d.bytes[0]);
    dbg_diff_rank_free(&r);
    dbg_heap_diff_free(&d);
    two_heaps_close(&t);
}
END_TEST

/* A group of B is shown by the closure of it the walk reached last: the
 * newest request (of REQ2, named alike), the one Nil; none for Old. */
START_TEST(last_reached_in_b)
{
    two_heaps t;
    two_heaps_open(&t);
    dbg_heap_diff d;
    diff_of(&t, &d);
    uint32_t v = dbg_heap_diff_last_in_b(
        &d, BY_CON, group(&d, BY_CON, "main:Main.Req"), &t.g);
    ck_assert_uint_ne(v, DBG_GRAPH_NONE);
    ck_assert_uint_eq(t.g.addr[v], AT(HEAP_B, 104));
    v = dbg_heap_diff_last_in_b(&d, BY_CON, group(&d, BY_CON, "main:Main.Nil"),
                                &t.g);
    ck_assert_uint_eq(t.g.addr[v], AT(HEAP_B, 200));
    v = dbg_heap_diff_last_in_b(&d, BY_CON, group(&d, BY_CON, "main:Main.Old"),
                                &t.g);
    ck_assert_uint_eq(v, DBG_GRAPH_NONE);
    /* by address, A's request table has no closure in B */
    char a_req[32];
    snprintf(a_req, sizeof(a_req), "0x%llx",
             (unsigned long long)(INFO_A + REQ));
    v = dbg_heap_diff_last_in_b(&d, BY_ADDR, group(&d, BY_ADDR, a_req), &t.g);
    ck_assert_uint_eq(v, DBG_GRAPH_NONE);
    dbg_heap_diff_free(&d);
    two_heaps_close(&t);
}
END_TEST

/* Hand-made censuses: names from a table of strings (ctx), index i. */
static void name_from(void *ctx, size_t info, int k, char *buf, size_t len)
{
    const char *const *names = ctx;
    (void)k;
    snprintf(buf, len, "%s", names[info]);
}

/* Equal growth keeps the order the groups were first named in (A's
 * tables first); an info table numbered far out counts; an empty A
 * makes everything growth. */
START_TEST(ties_keep_first_named_order)
{
    static const char *const na[] = {"p", "q"};
    static const char *names_b[5000];
    names_b[0] = "r", names_b[1] = "q", names_b[4999] = "p";
    dbg_info_census ca = {0}, cb = {0};
    ck_assert_int_eq(dbg_info_census_add(&ca, 0, 8), 0);
    ck_assert_int_eq(dbg_info_census_add(&ca, 1, 8), 0);
    ck_assert_int_eq(dbg_info_census_add(&cb, 0, 8), 0);
    ck_assert_int_eq(dbg_info_census_add(&cb, 1, 16), 0);
    ck_assert_int_eq(dbg_info_census_add(&cb, 4999, 16), 0);
    ck_assert_uint_ge(cb.cap, 5000);
    dbg_heap_diff d;
    dbg_heap_diff_init(&d, 1);
    ck_assert_int_eq(dbg_heap_diff_add(&d, 0, &ca, name_from, (void *)na), 0);
    ck_assert_int_eq(dbg_heap_diff_add(&d, 1, &cb, name_from, names_b), 0);
    dbg_diff_rank r;
    ck_assert_int_eq(dbg_heap_diff_rank(&d, 0, &r), 0);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_str_eq(d.names[0].s[r.order[0]], "p"); /* +8, named first */
    ck_assert_str_eq(d.names[0].s[r.order[1]], "q"); /* +8 */
    ck_assert_str_eq(d.names[0].s[r.order[2]], "r"); /* +8, named last */
    ck_assert_uint_eq(r.grew, 3);
    ck_assert_uint_eq(r.shrank, 0);
    dbg_diff_rank_free(&r);
    dbg_heap_diff_free(&d);
    /* nothing in A */
    dbg_info_census empty = {0};
    dbg_heap_diff_init(&d, 1);
    ck_assert_int_eq(dbg_heap_diff_add(&d, 0, &empty, name_from, (void *)na),
                     0);
    ck_assert_int_eq(dbg_heap_diff_add(&d, 1, &cb, name_from, names_b), 0);
    ck_assert_uint_eq(d.count[0], 0);
    ck_assert_uint_eq(d.bytes[1], 40);
    ck_assert_int_eq(dbg_heap_diff_rank(&d, 0, &r), 0);
    ck_assert_str_eq(d.names[0].s[r.order[0]], "q"); /* +16, ties by id */
    ck_assert_str_eq(d.names[0].s[r.order[1]], "p");
    ck_assert_str_eq(d.names[0].s[r.order[2]], "r");
    dbg_diff_rank_free(&r);
    dbg_heap_diff_free(&d);
    dbg_info_census_free(&ca);
    dbg_info_census_free(&cb);
}
END_TEST

TCase *heap_diff_tcase(void)
{
    TCase *tc = tcase_create("heap_diff");
    tcase_add_test(tc, groups_match_by_name);
    tcase_add_test(tc, rank_largest_growth_first);
    tcase_add_test(tc, last_reached_in_b);
    tcase_add_test(tc, ties_keep_first_named_order);
    return tc;
}
