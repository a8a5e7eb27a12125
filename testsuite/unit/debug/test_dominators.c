/* Unit tests of the dominator tree (consumer/lib/debug/debug_graph.c) on
 * hand-built heaps whose dominator trees are known: for every closure its
 * immediate dominator and its exact retained size (its bytes and those of
 * everything it dominates), on a chain, a diamond, a shared child of two
 * roots, cycles (one through a root), a long list (a deep iterative DFS),
 * the textbook flowgraph of Lengauer and Tarjan's paper, and random heaps
 * against dominators found the slow way. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"
#include "snap_fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TCase *dominators_tcase(void);

#define DBASE 0x4400000000ULL
#define NODE(i) (DBASE + 0x100ULL * (uint64_t)(i))
#define CON_INFO(n) (0x403000ULL + 0x10ULL * (uint64_t)(n)) /* n pointers */
#define MAXPTRS 4
#define PAD 3 /* non-pointer words: every node is (1 + ptrs + PAD) words */

/* A heap of n constructor closures; edges[i] lists node i's pointers (-1
 * ends), roots lists the roots (-1 ends). Node i is at NODE(i), its size
 * (1 + ptrs + PAD) words. */
static void build(dbg_snap *s, int n, const int edges[][MAXPTRS + 1],
                  const int *roots)
{
    dbg_snap_init(s);
    for (int k = 0; k <= MAXPTRS; k++)
        ck_assert_int_eq(snapfix_info(s, CON_INFO(k), GHC_CONSTR, (uint32_t)k,
                                      PAD, 0, "main:Main.N", NULL, NULL),
                         0);
    for (int i = 0; i < n; i++) {
        uint64_t w[1 + MAXPTRS + PAD];
        int k = 0;
        while (k < MAXPTRS && edges[i][k] >= 0) {
            w[1 + k] = NODE(edges[i][k]) | 1; /* tagged, as the heap has them */
            k++;
        }
        w[0] = CON_INFO(k);
        for (int j = 0; j < PAD; j++)
            w[1 + k + j] = 0;
        ck_assert_int_eq(snapfix_closure(s, NODE(i), w, (size_t)(1 + k + PAD)),
                         0);
    }
    uint64_t r[16];
    size_t nr = 0;
    for (; roots[nr] >= 0; nr++)
        r[nr] = NODE(roots[nr]);
    ck_assert_int_eq(dbg_snap_set_roots(s, r, nr), 0);
    ck_assert_int_eq(dbg_snap_finish(s), 0);
}

static uint64_t size_of(const int edges[][MAXPTRS + 1], int i)
{
    int k = 0;
    while (k < MAXPTRS && edges[i][k] >= 0)
        k++;
    return 8 * (uint64_t)(1 + k + PAD);
}

/* Walk, compute, and check node i's immediate dominator (idom[i]: a node,
 * or -1 for the virtual root) and retained size (the sum of the sizes of
 * the nodes in dominated[i], -1 ended, which includes i). */
static void check(int n, const int edges[][MAXPTRS + 1], const int *roots,
                  const int *idom, const int dominated[][16])
{
    dbg_snap s;
    build(&s, n, edges, roots);
    dbg_heap h;
    dbg_heap_init_source(&h, &dbg_source_snap, &s);
    uint64_t *r;
    size_t nr;
    ck_assert_int_eq(dbg_heap_roots(&h, &r, &nr), 0);
    dbg_graph g;
    ck_assert_msg(dbg_graph_build(&h, r, nr, &g) == 0, "%s", g.err);
    ck_assert_uint_eq(h.unreadable, 0);
    ck_assert_uint_eq(g.n, (size_t)n);
    ck_assert_int_eq(dbg_graph_dominators(&g), 0);
    for (size_t v = 0; v < g.n; v++) {
        int i = (int)((g.addr[v] - DBASE) / 0x100);
        ck_assert_int_lt(i, n);
        uint64_t want_idom = idom[i] < 0 ? DBG_GRAPH_NONE : NODE(idom[i]);
        uint64_t got_idom =
            g.idom[v] == g.n ? DBG_GRAPH_NONE : g.addr[g.idom[v]];
        ck_assert_msg(
            got_idom == want_idom, "node %d: idom 0x%llx, want 0x%llx", i,
            (unsigned long long)got_idom, (unsigned long long)want_idom);
        uint64_t want = 0;
        for (int k = 0; dominated[i][k] >= 0; k++)
            want += size_of(edges, dominated[i][k]);
        ck_assert_msg(g.retained[v] == want, "node %d: retains %llu, want %llu",
                      i, (unsigned long long)g.retained[v],
                      (unsigned long long)want);
    }
    uint64_t all = 0;
    for (int i = 0; i < n; i++)
        all += size_of(edges, i);
    ck_assert_uint_eq(g.bytes, all);
    ck_assert_uint_eq(g.retained[g.n], all); /* the virtual root: everything */
    dbg_graph_free(&g);
    free(r);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}

#define E(...)                                                                 \
    {                                                                          \
        __VA_ARGS__, -1                                                        \
    }
#define NONE                                                                   \
    {                                                                          \
        -1                                                                     \
    }

/* 0 -> 1 -> 2 -> 3: each retains the rest. */
START_TEST(dom_chain)
{
    static const int edges[][MAXPTRS + 1] = {E(1), E(2), E(3), NONE};
    static const int roots[] = {0, -1};
    static const int idom[] = {-1, 0, 1, 2};
    static const int dom[][16] = {E(0, 1, 2, 3), E(1, 2, 3), E(2, 3), E(3)};
    check(4, edges, roots, idom, dom);
}
END_TEST

/* 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4: 3 is reached two ways, so 0
 * dominates it, not 1 or 2. */
START_TEST(dom_diamond)
{
    static const int edges[][MAXPTRS + 1] = {E(1, 2), E(3), E(3), E(4), NONE};
    static const int roots[] = {0, -1};
    static const int idom[] = {-1, 0, 0, 0, 3};
    static const int dom[][16] = {E(0, 1, 2, 3, 4), E(1), E(2), E(3, 4), E(4)};
    check(5, edges, roots, idom, dom);
}
END_TEST

/* Two roots sharing a child: only the virtual root dominates it. */
START_TEST(dom_shared_by_roots)
{
    static const int edges[][MAXPTRS + 1] = {E(2), E(2), E(3), NONE};
    static const int roots[] = {0, 1, -1};
    static const int idom[] = {-1, -1, -1, 2};
    static const int dom[][16] = {E(0), E(1), E(2, 3), E(3)};
    check(4, edges, roots, idom, dom);
}
END_TEST

/* Cycles: 0 -> 1 -> 2 -> 1 (a loop below 0), 2 -> 3 -> 0 (back to the
 * root), 3 -> 4. */
START_TEST(dom_cycles)
{
    static const int edges[][MAXPTRS + 1] = {E(1), E(2), E(1, 3), E(0, 4),
                                             NONE};
    static const int roots[] = {0, -1};
    static const int idom[] = {-1, 0, 1, 2, 3};
    static const int dom[][16] = {E(0, 1, 2, 3, 4), E(1, 2, 3, 4), E(2, 3, 4),
                                  E(3, 4), E(4)};
    check(5, edges, roots, idom, dom);
}
END_TEST

/* Lengauer and Tarjan's example flowgraph (R=0, A..L = 1..12), its
 * dominator tree from the paper: R dominates A B C D E H I K; C: F G; G: J;
 * D: L. */
START_TEST(dom_lengauer_tarjan)
{
    enum { R, A, B, C, D, E_, F, G, H, I, J, K, L };
    static const int edges[][MAXPTRS + 1] = {
        [R] = E(A, B, C), [A] = E(D),  [B] = E(A, D, E_), [C] = E(F, G),
        [D] = E(L),       [E_] = E(H), [F] = E(I),        [G] = E(I, J),
        [H] = E(E_, K),   [I] = E(K),  [J] = E(I),        [K] = E(I, R),
        [L] = E(H)};
    static const int roots[] = {R, -1};
    static const int idom[] = {
        [R] = -1, [A] = R, [B] = R, [C] = R, [D] = R, [E_] = R, [F] = C,
        [G] = C,  [H] = R, [I] = R, [J] = G, [K] = R, [L] = D};
    static const int dom[][16] = {[R] =
                                      E(R, A, B, C, D, E_, F, G, H, I, J, K, L),
                                  [A] = E(A),
                                  [B] = E(B),
                                  [C] = E(C, F, G, J),
                                  [D] = E(D, L),
                                  [E_] = E(E_),
                                  [F] = E(F),
                                  [G] = E(G, J),
                                  [H] = E(H),
                                  [I] = E(I),
                                  [J] = E(J),
                                  [K] = E(K),
                                  [L] = E(L)};
    check(13, edges, roots, idom, dom);
}
END_TEST

/* Where the semidominator is not the immediate dominator (the deferred
 * step of the algorithm): 0 -> 1 -> 2 -> 3 -> 4, 0 -> 3, 2 -> 4. The
 * semidominator of 4 is 2, but 0 -> 3 -> 4 passes by 2 and 0 -> 1 -> 2 ->
 * 4 by 3: only 0 dominates 4. */
START_TEST(dom_deferred)
{
    static const int edges[][MAXPTRS + 1] = {E(1, 3), E(2), E(3, 4), E(4),
                                             NONE};
    static const int roots[] = {0, -1};
    static const int idom[] = {-1, 0, 1, 0, 0};
    static const int dom[][16] = {E(0, 1, 2, 3, 4), E(1, 2), E(2), E(3), E(4)};
    check(5, edges, roots, idom, dom);
}
END_TEST

/* A list of 200000 cells: the DFS is 200000 deep (iterative), the first
 * cell retains them all, the last only itself. */
START_TEST(dom_long_list)
{
    enum { N = 200000 };
    dbg_snap s;
    dbg_snap_init(&s);
    ck_assert_int_eq(snapfix_info(&s, CON_INFO(1), GHC_CONSTR, 1, 0, 0,
                                  "ghc-prim:GHC.Types.:", NULL, NULL),
                     0);
    ck_assert_int_eq(snapfix_info(&s, CON_INFO(0), GHC_CONSTR, 0, 0, 0,
                                  "ghc-prim:GHC.Types.[]", NULL, NULL),
                     0);
    for (int i = 0; i < N; i++) {
        uint64_t w[2] = {i + 1 < N ? CON_INFO(1) : CON_INFO(0),
                         DBASE + 16ULL * (uint64_t)(i + 1)};
        ck_assert_int_eq(snapfix_closure(&s, DBASE + 16ULL * (uint64_t)i, w,
                                         i + 1 < N ? 2 : 1),
                         0);
    }
    uint64_t root = DBASE;
    ck_assert_int_eq(dbg_snap_set_roots(&s, &root, 1), 0);
    ck_assert_int_eq(dbg_snap_finish(&s), 0);
    dbg_heap h;
    dbg_heap_init_source(&h, &dbg_source_snap, &s);
    dbg_graph g;
    ck_assert_int_eq(dbg_graph_build(&h, &root, 1, &g), 0);
    ck_assert_uint_eq(g.n, N);
    ck_assert_int_eq(dbg_graph_dominators(&g), 0);
    uint64_t total = 16ULL * (N - 1) + 8;
    ck_assert_uint_eq(g.retained[0], total); /* id 0: the first cell */
    for (size_t v = 0; v < g.n; v++) {
        uint64_t i = (g.addr[v] - DBASE) / 16;
        ck_assert_uint_eq(g.retained[v], total - 16 * i);
        if (i)
            ck_assert_uint_eq(g.addr[g.idom[v]], g.addr[v] - 16);
    }
    dbg_graph_free(&g);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}
END_TEST

/* Random heaps against dominators found the slow way: d dominates v when
 * v cannot be reached from the roots once d is taken out. 2000 heaps of 2
 * to 15 closures (every one reachable: a random spanning tree first),
 * 1 to 3 roots, then random pointers, self-pointers and repeats among
 * them; the generator is seeded, so a failure repeats. */
static uint32_t rnd_state = 0x2545f491u;
static uint32_t rnd(uint32_t n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state % n;
}

/* The nodes reached from roots without passing through `gone` (-1: none). */
static void reach(int n, const int edges[][MAXPTRS + 1], const int *roots,
                  int gone, int *seen)
{
    int stack[64], sp = 0;
    memset(seen, 0, (size_t)n * sizeof(*seen));
    for (int r = 0; roots[r] >= 0; r++)
        if (roots[r] != gone && !seen[roots[r]])
            seen[roots[r]] = 1, stack[sp++] = roots[r];
    while (sp > 0) {
        int v = stack[--sp];
        for (int k = 0; edges[v][k] >= 0; k++) {
            int u = edges[v][k];
            if (u != gone && !seen[u])
                seen[u] = 1, stack[sp++] = u;
        }
    }
}

START_TEST(dom_random_against_slow)
{
    for (int round = 0; round < 2000; round++) {
        int n = 2 + (int)rnd(14), deg[16] = {0};
        int edges[16][MAXPTRS + 1], roots[4];
        for (int i = 0; i < n; i++)
            edges[i][0] = -1;
        int nr = 1 + (int)rnd(3);
        for (int r = 0; r < nr; r++)
            roots[r] = r ? (int)rnd((uint32_t)n) : 0;
        roots[nr] = -1;
        for (int i = 1; i < n; i++) { /* a parent with room, read before */
            int p = (int)rnd((uint32_t)i);
            while (deg[p] == MAXPTRS)
                p = (p + 1) % i;
            edges[p][deg[p]++] = i;
            edges[p][deg[p]] = -1;
        }
        for (int extra = (int)rnd((uint32_t)(2 * n)); extra > 0; extra--) {
            int p = (int)rnd((uint32_t)n);
            if (deg[p] < MAXPTRS) {
                edges[p][deg[p]++] = (int)rnd((uint32_t)n);
                edges[p][deg[p]] = -1;
            }
        }
        /* dom[d][v]: d dominates v (each dominates itself) */
        int dom[16][16], seen[16];
        for (int d = 0; d < n; d++) {
            reach(n, edges, roots, d, seen);
            for (int v = 0; v < n; v++)
                dom[d][v] = v == d || !seen[v];
        }
        int idom[16], dominated[16][16];
        for (int v = 0; v < n; v++) {
            /* the strict dominator that the others dominate: the one
             * with most dominators of its own */
            idom[v] = -1;
            int best = 0;
            for (int d = 0; d < n; d++) {
                if (d == v || !dom[d][v])
                    continue;
                int c = 0;
                for (int x = 0; x < n; x++)
                    c += dom[x][d];
                if (c > best)
                    best = c, idom[v] = d;
            }
            int k = 0;
            for (int x = 0; x < n; x++)
                if (dom[v][x])
                    dominated[v][k++] = x;
            dominated[v][k] = -1;
        }
        check(n, (const int(*)[MAXPTRS + 1])edges, roots, idom,
              (const int(*)[16])dominated);
    }
}
END_TEST

TCase *dominators_tcase(void)
{
    TCase *tc = tcase_create("dominators");
    tcase_add_test(tc, dom_chain);
    tcase_add_test(tc, dom_diamond);
    tcase_add_test(tc, dom_shared_by_roots);
    tcase_add_test(tc, dom_cycles);
    tcase_add_test(tc, dom_lengauer_tarjan);
    tcase_add_test(tc, dom_deferred);
    tcase_add_test(tc, dom_long_list);
    tcase_add_test(tc, dom_random_against_slow);
    return tc;
}
