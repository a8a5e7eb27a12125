/* Analyses of the dominator tree: see rtscope/debug/dominance.h. */
#include "rtscope/debug/dominance.h"
#include "rtscope/base/hmap.h"

#include <stdlib.h>
#include <string.h>

/* Note [Retained size by group]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The retained size of a group (an info table, a constructor, a module) is
 * the sum of the retained sizes of its closures that no other closure of
 * the group dominates: a list's cells each retain the rest of the list,
 * and adding them all up would count the tail once per cell. It is what
 * the heap would lose if every closure of the group became unreachable.
 * One preorder walk of the dominator tree computes it, with a count per
 * group of its closures open on the walk's path. */

/* Note [Leak suspects]
 * ~~~~~~~~~~~~~~~~~~~~
 * A suspect retains at least THRESHOLD of the heap. From the root of the
 * dominator tree, the closures retaining that much are followed down to
 * where the bytes spread out: a closure is a suspect when none of the
 * closures it immediately dominates retains that much (the bytes are
 * spread over many), or when one that does has its own info table (the
 * top of a recursive structure: a Map's root node, the first cell of a
 * list, the newest thunk of a chain). Above a suspect are its owners (the
 * thread, its stack, the IORef), shown by its retainer path: the shortest
 * path from a root, as the walk first reached it. */

int dbg_domtree_build(const dbg_graph *g, dbg_domtree *t)
{
    size_t n = g->n;
    memset(t, 0, sizeof(*t));
    t->n = n;
    t->coff = calloc(n + 2, sizeof(uint32_t));
    t->child = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *fill = malloc((n + 1) * sizeof(uint32_t));
    if (!t->coff || !t->child || !fill) {
        free(fill);
        dbg_domtree_free(t);
        return -1;
    }
    for (size_t v = 0; v < n; v++)
        t->coff[g->idom[v] + 1]++;
    for (size_t i = 1; i <= n + 1; i++)
        t->coff[i] += t->coff[i - 1];
    memcpy(fill, t->coff, (n + 1) * sizeof(uint32_t));
    for (size_t v = 0; v < n; v++)
        t->child[fill[g->idom[v]]++] = (uint32_t)v;
    free(fill);
    return 0;
}

void dbg_domtree_free(dbg_domtree *t)
{
    free(t->coff);
    free(t->child);
    memset(t, 0, sizeof(*t));
}

/* Entering c (enter 1) or leaving it (enter 0), for each grouping. */
static void group_step(const dbg_graph *g, int k, const uint32_t *const *gid,
                       dbg_group_sum *const *out, uint32_t *const *open,
                       uint32_t c, int enter)
{
    for (int j = 0; j < k; j++) {
        uint32_t x = gid[j][g->info[c]];
        if (!enter) {
            open[j][x]--;
            continue;
        }
        if (!open[j][x]) {
            out[j][x].retained += g->retained[c];
            out[j][x].top++;
        }
        open[j][x]++;
        out[j][x].count++;
        out[j][x].bytes += g->size[c];
    }
}

/* Note [Retained size by group]: a preorder walk of the dominator tree. */
int dbg_dom_group_sums(const dbg_graph *g, const dbg_domtree *t, int k,
                       const uint32_t *const *gid, const size_t *ngroups,
                       dbg_group_sum *const *out)
{
    size_t n = t->n;
    uint32_t *stack = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *next = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *open[8] = {0};
    int bad = !stack || !next || k > 8;
    for (int j = 0; j < k && !bad; j++) {
        memset(out[j], 0, ngroups[j] * sizeof(*out[j]));
        bad =
            !(open[j] = calloc(ngroups[j] ? ngroups[j] : 1, sizeof(uint32_t)));
    }
    size_t sp = 0;
    if (!bad) {
        stack[sp] = (uint32_t)n;
        next[sp++] = t->coff[n];
    }
    while (sp > 0) {
        uint32_t v = stack[sp - 1];
        if (next[sp - 1] == t->coff[v + 1]) { /* leave v */
            sp--;
            if (v != n)
                group_step(g, k, gid, out, open, v, 0);
            continue;
        }
        uint32_t c = t->child[next[sp - 1]++];
        group_step(g, k, gid, out, open, c, 1);
        stack[sp] = c;
        next[sp++] = t->coff[c];
    }
    free(stack);
    free(next);
    for (int j = 0; j < k; j++)
        free(open[j]);
    return bad ? -1 : 0;
}

/* Does closure c end the descent (Note [Leak suspects])? */
static int suspect_here(const dbg_graph *g, const dbg_domtree *t, uint32_t c,
                        uint64_t thr)
{
    int big = 0, same = 0;
    for (uint32_t f = t->coff[c]; f < t->coff[c + 1]; f++) {
        uint32_t d = t->child[f];
        if (g->retained[d] >= thr) {
            big = 1;
            same |= g->info[d] == g->info[c];
        }
    }
    return !big || same;
}

/* Note [Leak suspects] */
size_t dbg_dom_suspects(const dbg_graph *g, const dbg_domtree *t, uint64_t thr,
                        uint32_t *out, size_t max)
{
    size_t n = t->n, ns = 0;
    uint32_t *stack = malloc((n + 1) * sizeof(uint32_t));
    if (!stack)
        return (size_t)-1;
    size_t sp = 0;
    stack[sp++] = (uint32_t)n;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        for (uint32_t e = t->coff[v]; e < t->coff[v + 1]; e++) {
            uint32_t c = t->child[e];
            if (g->retained[c] < thr)
                continue;
            if (!suspect_here(g, t, c, thr))
                stack[sp++] = c;
            else if (ns < max)
                out[ns++] = c;
        }
    }
    free(stack);
    /* largest first */
    for (size_t i = 1; i < ns; i++)
        for (size_t j = i;
             j > 0 && g->retained[out[j]] > g->retained[out[j - 1]]; j--) {
            uint32_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return ns;
}

/* Insert p into the top list out[0..*n) of at most max. */
static void top_insert(dbg_dom_part *out, size_t *n, size_t max, dbg_dom_part p)
{
    size_t j = *n;
    while (j > 0 && (p.bytes > out[j - 1].bytes ||
                     (p.bytes == out[j - 1].bytes && p.info < out[j - 1].info)))
        j--;
    if (j >= max)
        return;
    size_t last = *n < max ? *n : max - 1;
    memmove(out + j + 1, out + j, (last - j) * sizeof(*out));
    out[j] = p;
    if (*n < max)
        (*n)++;
}

size_t dbg_dom_composition(const dbg_graph *g, const dbg_domtree *t, uint32_t v,
                           dbg_dom_part *out, size_t max)
{
    hmap bytes = {0};
    uint32_t *stack = malloc((t->n + 1) * sizeof(uint32_t));
    size_t sp = 0, n = 0;
    int bad = !stack;
    if (stack)
        stack[sp++] = v;
    while (sp > 0 && !bad) {
        uint32_t u = stack[--sp];
        uint64_t *b = hmap_at(&bytes, g->info[u], NULL);
        if (!b) {
            bad = 1;
            break;
        }
        *b += g->size[u];
        for (uint32_t e = t->coff[u]; e < t->coff[u + 1]; e++)
            stack[sp++] = t->child[e];
    }
    free(stack);
    size_t pos = 0;
    uint64_t info, b;
    while (!bad && max && hmap_next(&bytes, &pos, &info, &b))
        top_insert(out, &n, max,
                   (dbg_dom_part){.info = (uint32_t)info, .bytes = b});
    hmap_free(&bytes);
    return bad ? (size_t)-1 : n;
}
