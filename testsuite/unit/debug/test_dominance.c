/* Unit tests of the dominator tree's analyses (consumer/lib/debug's
 * dominance.c) on hand-made dominator trees: retained sizes by group
 * (Note [Retained size by group]: a list's cells counted once), the leak
 * suspects (Note [Leak suspects]: down to where the bytes spread out, or
 * the top of a recursive structure) and what a closure retains. */
#include "rtscope/debug/dominance.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

TCase *dominance_tcase(void);

#define ROOT UINT32_MAX /* the virtual root, made n by tree() */

/* A graph of n closures with their immediate dominators (ROOT for the
 * virtual root), info indexes and sizes; retained sizes computed here
 * (each closure's size plus its dominated closures'). */
static void tree(dbg_graph *g, size_t n, const uint32_t *idom,
                 const uint32_t *info, const uint32_t *size)
{
    memset(g, 0, sizeof(*g));
    g->n = n;
    g->idom = malloc(n * sizeof(uint32_t));
    g->info = malloc(n * sizeof(uint32_t));
    g->size = malloc(n * sizeof(uint32_t));
    g->retained = calloc(n, sizeof(uint64_t));
    ck_assert(g->idom && g->info && g->size && g->retained);
    for (size_t i = 0; i < n; i++) {
        g->idom[i] = idom[i] == ROOT ? (uint32_t)n : idom[i];
        g->info[i] = info[i];
        g->size[i] = size[i];
        g->bytes += size[i];
    }
    for (size_t i = 0; i < n; i++) /* up the dominators */
        for (uint32_t v = (uint32_t)i; v != n; v = g->idom[v])
            g->retained[v] += size[i];
}

static void untree(dbg_graph *g)
{
    free(g->idom);
    free(g->info);
    free(g->size);
    free(g->retained);
}

/* A list of four cells (info 0, 24 bytes), each holding a payload (info
 * 1, 16 bytes), under a box (info 2, 16 bytes): the cells' group retains
 * the first cell's retained size, not the sum of the four. */
START_TEST(group_sums_count_a_list_once)
{
    const uint32_t idom[] = {ROOT, 0, 1, 2, 3, 1, 2, 3, 4};
    const uint32_t info[] = {2, 0, 0, 0, 0, 1, 1, 1, 1};
    const uint32_t size[] = {16, 24, 24, 24, 24, 16, 16, 16, 16};
    dbg_graph g;
    tree(&g, 9, idom, info, size);
    dbg_domtree t;
    ck_assert_int_eq(dbg_domtree_build(&g, &t), 0);
    ck_assert_uint_eq(t.coff[9 + 1] - t.coff[9], 1); /* one root child */
    const uint32_t gid[] = {0, 1, 2};                /* info i -> group i */
    dbg_group_sum s[3], m[2];
    /* by info table and by "module" (box and cells in group 0, payloads
     * in 1), in one walk */
    const uint32_t mod[] = {0, 1, 0};
    const uint32_t *gids[] = {gid, mod};
    const size_t ng[] = {3, 2};
    dbg_group_sum *const out[] = {s, m};
    ck_assert_int_eq(dbg_dom_group_sums(&g, &t, 2, gids, ng, out), 0);
    ck_assert_uint_eq(s[0].retained, 4 * 24 + 4 * 16);
    ck_assert_uint_eq(s[0].bytes, 4 * 24);
    ck_assert_uint_eq(s[0].count, 4);
    ck_assert_uint_eq(s[0].top, 1);
    ck_assert_uint_eq(s[1].retained, 4 * 16); /* four tops of their own */
    ck_assert_uint_eq(s[1].top, 4);
    ck_assert_uint_eq(s[2].retained, g.bytes);
    ck_assert_uint_eq(m[0].retained, g.bytes);
    ck_assert_uint_eq(m[0].top, 1);
    ck_assert_uint_eq(m[0].count, 5);
    ck_assert_uint_eq(m[1].retained, 64);
    dbg_domtree_free(&t);
    untree(&g);
}
END_TEST

/* Under the root: a thread's stack (info 0) holding a Map (a root node of
 * info 1 over two subtrees of info 1, 400 bytes each), and a box (info 2)
 * holding 100 small closures (info 3, 8 bytes each); a third root closure
 * retains 8 bytes. At 20%: the Map's root node (its big child has its own
 * info table) and the box (its bytes spread out), largest first; the
 * stack above the Map is not one. At 90%: nothing. */
START_TEST(suspects_stop_where_bytes_spread)
{
    enum { N = 3 + 3 + 100 + 1 };
    uint32_t idom[N], info[N], size[N];
    idom[0] = ROOT, info[0] = 0, size[0] = 64; /* stack */
    idom[1] = 0, info[1] = 1, size[1] = 40;    /* Map root */
    idom[2] = 1, info[2] = 1, size[2] = 400;   /* subtrees */
    idom[3] = 1, info[3] = 1, size[3] = 400;
    idom[4] = ROOT, info[4] = 2, size[4] = 16; /* box */
    idom[5] = ROOT, info[5] = 4, size[5] = 8;  /* small root */
    for (int i = 6; i < N; i++)
        idom[i] = 4, info[i] = 3, size[i] = 8;
    dbg_graph g;
    tree(&g, N, idom, info, size);
    dbg_domtree t;
    ck_assert_int_eq(dbg_domtree_build(&g, &t), 0);
    uint32_t out[8];
    uint64_t thr = g.bytes / 5;
    size_t n = dbg_dom_suspects(&g, &t, thr, out, 8);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(out[0], 1); /* 840 bytes */
    ck_assert_uint_eq(out[1], 4); /* 816 bytes */
    ck_assert_uint_eq(dbg_dom_suspects(&g, &t, g.bytes / 10 * 9, out, 8), 0);
    /* max bounds what is returned */
    ck_assert_uint_eq(dbg_dom_suspects(&g, &t, thr, out, 1), 1);
    dbg_domtree_free(&t);
    untree(&g);
}
END_TEST

/* What closure 0 retains, by info table: 3 has most, then 1 and 2 tie
 * (the lower index first), 0 is fourth and cut at three. */
START_TEST(composition_top_three)
{
    const uint32_t idom[] = {ROOT, 0, 0, 0, 3, 0, 1};
    const uint32_t info[] = {0, 1, 2, 3, 3, 2, 1};
    const uint32_t size[] = {8, 16, 24, 40, 40, 8, 16};
    dbg_graph g;
    tree(&g, 7, idom, info, size);
    dbg_domtree t;
    ck_assert_int_eq(dbg_domtree_build(&g, &t), 0);
    dbg_dom_part p[3];
    size_t n = dbg_dom_composition(&g, &t, 0, p, 3);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(p[0].info, 3);
    ck_assert_uint_eq(p[0].bytes, 80);
    ck_assert_uint_eq(p[1].info, 1);
    ck_assert_uint_eq(p[1].bytes, 32);
    ck_assert_uint_eq(p[2].info, 2);
    ck_assert_uint_eq(p[2].bytes, 32);
    /* a subtree: only what closure 3 dominates */
    n = dbg_dom_composition(&g, &t, 3, p, 3);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(p[0].bytes, 80);
    dbg_domtree_free(&t);
    untree(&g);
}
END_TEST

TCase *dominance_tcase(void)
{
    TCase *tc = tcase_create("dominance");
    tcase_add_test(tc, group_sums_count_a_list_once);
    tcase_add_test(tc, suspects_stop_where_bytes_spread);
    tcase_add_test(tc, composition_top_three);
    return tc;
}
