/* debug_graph: the reachable heap as a graph, and its dominator tree. See
 * debug_graph.h. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note [Dominators]
 * ~~~~~~~~~~~~~~~~~
 * The graph: the closures a walk reads, numbered in the order it reads
 * them (so a closure's first-reached parent has a smaller id), and a
 * virtual root whose pointers are the GC roots. Its dominator tree is
 * computed by semi-NCA (Georgiadis, "Linear-time algorithms for dominators
 * and related problems", 2005), Lengauer and Tarjan's semidominators ("A
 * fast algorithm for finding dominators in a flowgraph", TOPLAS 1979,
 * the simple version with path compression) followed by a nearest common
 * ancestor search in place of their buckets; O(E log N) for the first
 * part, and fast in practice for the second (LLVM builds its dominator
 * trees this way); iterative throughout (a list of ten million cells is a
 * path that deep), in arrays of 32-bit indices:
 *
 *   1. a depth-first numbering from the virtual root, over the pointers;
 *   2. the predecessors of every closure, in that numbering (the pointers
 *      are freed then: nothing after needs them);
 *   3. semidominators in decreasing number, over a forest that needs no
 *      links of its own: the vertices numbered above the one at hand are
 *      linked to their DFS parents, whose array path compression then
 *      rewrites; then each immediate dominator in increasing number, the
 *      nearest dominator of its DFS parent numbered at most its
 *      semidominator;
 *   4. retained sizes: each closure's size, added to its immediate
 *      dominator's in decreasing number (a dominator is always numbered
 *      before what it dominates).
 *
 * Memory (what `debug dominators` needs beyond the heap it reads, #41):
 * the graph keeps 8 (address) + 4 (size) + 4 (info) + 4 (parent) bytes a
 * closure and 4 a pointer; the walk's pointer targets take 8 a pointer
 * until they are resolved to ids, in place. Step 2 holds the pointers and
 * the predecessors (8 a pointer) and four arrays of 4 bytes a closure,
 * step 3 the predecessors and six; the retained sizes take 8.
 * benchmarks/debug and benchmarks/explore measure it per million closures.
 *
 * Ids of addresses: their rank among the closures (addr_rank.h), and the
 * rank's id: 2.3% of the heap's size plus 4 bytes a closure, where a
 * hash table of addresses would take 24. */

#include "addr_rank.h"

/* ---- building --------------------------------------------------------- */

struct dbg_graph_builder {
    dbg_heap *h;
    dbg_graph *g;
    size_t cap;
    size_t pcur;     /* where the last parent was found */
    uint64_t *eaddr; /* pointer targets, resolved at the end */
    size_t ne, ecap;
    rankset rs;
    int nomem, toobig;
};
typedef struct dbg_graph_builder build_state;

static int grow_to(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need)
        nc += nc / 2; /* 1.5: the graph is most of the memory */
    void *np = realloc(*p, nc * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

int dbg_graph_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    build_state *b = ctx;
    dbg_graph *g = b->g;
    if (g->n + 1 >= DBG_GRAPH_NONE || b->ne + c->nptrs >= DBG_GRAPH_NONE)
        return b->toobig = 1;
    if (g->n == b->cap) {
        size_t nc = b->cap ? b->cap + b->cap / 2 : 65536;
        uint64_t *a = realloc(g->addr, nc * sizeof(*a));
        if (a)
            g->addr = a;
        uint32_t *s = realloc(g->size, nc * sizeof(*s));
        if (s)
            g->size = s;
        uint32_t *in = realloc(g->info, nc * sizeof(*in));
        if (in)
            g->info = in;
        uint32_t *pa = realloc(g->parent, nc * sizeof(*pa));
        if (pa)
            g->parent = pa;
        uint32_t *off = realloc(g->off, (nc + 2) * sizeof(*off));
        if (off)
            g->off = off;
        if (!a || !s || !in || !pa || !off)
            return b->nomem = 1;
        b->cap = nc;
    }
    if (grow_to((void **)&b->eaddr, &b->ecap, b->ne + c->nptrs,
                sizeof(*b->eaddr)) != 0 ||
        rank_add(&b->rs, c->addr) < 0)
        return b->nomem = 1;
    size_t i = g->n++;
    g->addr[i] = c->addr;
    g->size[i] = c->size;
    g->info[i] = (uint32_t)dbg_heap_info_index(b->h, c->info);
    /* The parent: a closure read before, and in a breadth-first walk the
     * parents come in the order they were read, so a cursor that only
     * moves forward finds each (no map of addresses needed). */
    g->parent[i] = DBG_GRAPH_NONE;
    if (parent) {
        size_t k = b->pcur;
        while (k < i && g->addr[k] != parent)
            k++;
        if (k < i) {
            g->parent[i] = (uint32_t)k;
            b->pcur = k;
        }
    }
    g->off[i] = (uint32_t)b->ne;
    if (c->nptrs)
        memcpy(b->eaddr + b->ne, c->ptrs, c->nptrs * sizeof(*c->ptrs));
    b->ne += c->nptrs;
    g->bytes += c->size;
    return 0;
}

dbg_graph_builder *dbg_graph_builder_new(dbg_heap *h, dbg_graph *g)
{
    memset(g, 0, sizeof(*g));
    build_state *b = calloc(1, sizeof(*b));
    if (b) {
        b->h = h;
        b->g = g;
    }
    return b;
}

int dbg_graph_builder_finish(dbg_graph_builder *bp, const uint64_t *roots,
                             size_t nroots)
{
    build_state b = *bp;
    free(bp);
    dbg_graph *g = b.g;
    uint32_t *rank2id = NULL;
    int r = -1;
    if (b.nomem || b.toobig) {
        snprintf(g->err, sizeof(g->err), "%s",
                 b.toobig ? "more than 4 billion closures or pointers"
                          : "out of memory");
        goto done;
    }
    if (!g->off) { /* nothing reachable */
        g->off = calloc(2, sizeof(*g->off));
        if (!g->off)
            goto oom;
    }
    g->off[g->n] = (uint32_t)b.ne;
    /* the arrays to their size, before the next ones are made */
    if (g->n) {
        uint64_t *a = realloc(g->addr, g->n * sizeof(*a));
        uint32_t *sz = realloc(g->size, g->n * sizeof(*sz));
        uint32_t *in = realloc(g->info, g->n * sizeof(*in));
        uint32_t *pa = realloc(g->parent, g->n * sizeof(*pa));
        g->addr = a ? a : g->addr;
        g->size = sz ? sz : g->size;
        g->info = in ? in : g->info;
        g->parent = pa ? pa : g->parent;
    }
    if (rank_finish(&b.rs) != 0)
        goto oom;
    rank2id = malloc((g->n ? g->n : 1) * sizeof(*rank2id));
    if (!g->parent) /* nothing reachable */
        g->parent = malloc(sizeof(*g->parent));
    g->roots = malloc((nroots ? nroots : 1) * sizeof(*g->roots));
    if (!rank2id || !g->parent || !g->roots)
        goto oom;
    for (size_t i = 0; i < g->n; i++)
        rank2id[rank_of(&b.rs, g->addr[i])] = (uint32_t)i;
#define ID_OF(a)                                                               \
    ({                                                                         \
        uint32_t k_ = rank_of(&b.rs, (a));                                     \
        k_ == DBG_GRAPH_NONE ? DBG_GRAPH_NONE : rank2id[k_];                   \
    })
    /* The targets to ids in place, each 4-byte id over the 8-byte address
     * of its own index or a lower one (4w + 4 <= 8e for w <= e, e > 0, and
     * e = 0 is read first), so that the addresses and the ids never take
     * memory at once; pointers to what could not be read are dropped. */
    unsigned char *buf = (unsigned char *)b.eaddr;
    size_t w = 0;
    for (size_t i = 0; i < g->n; i++) {
        size_t from = g->off[i], to = g->off[i + 1];
        g->off[i] = (uint32_t)w;
        for (size_t e = from; e < to; e++) {
            uint64_t a;
            memcpy(&a, buf + e * sizeof(a), sizeof(a));
            uint32_t t = ID_OF(a);
            if (t != DBG_GRAPH_NONE)
                memcpy(buf + w++ * sizeof(t), &t, sizeof(t));
        }
    }
    g->off[g->n] = (uint32_t)w;
    uint32_t *succ = realloc(buf, (w ? w : 1) * sizeof(*succ));
    g->succ = succ ? succ : (uint32_t *)buf; /* a failed shrink: as it is */
    b.eaddr = NULL;
    for (size_t i = 0; i < nroots; i++) {
        uint32_t t = ID_OF(roots[i] & ~(uint64_t)7);
        if (t != DBG_GRAPH_NONE)
            g->roots[g->nroots++] = t;
    }
#undef ID_OF
    r = 0;
    goto done;
oom:
    snprintf(g->err, sizeof(g->err), "out of memory");
done:
    free(rank2id);
    free(b.eaddr);
    rank_free(&b.rs);
    return r;
}

int dbg_graph_build(dbg_heap *h, const uint64_t *roots, size_t nroots,
                    dbg_graph *g)
{
    dbg_graph_builder *b = dbg_graph_builder_new(h, g);
    if (!b) {
        snprintf(g->err, sizeof(g->err), "out of memory");
        return -1;
    }
    if (dbg_heap_walk(h, roots, nroots, dbg_graph_visit, b) != 0) {
        snprintf(g->err, sizeof(g->err), "%s", h->err);
        dbg_graph_builder_finish(b, NULL, 0);
        return -1;
    }
    return dbg_graph_builder_finish(b, roots, nroots);
}

/* ---- dominators ------------------------------------------------------- */

/* The pointers of node v (the virtual root's: the roots). */
static const uint32_t *out_of(const dbg_graph *g, size_t v, uint32_t *deg)
{
    if (v == g->n) {
        *deg = (uint32_t)g->nroots;
        return g->roots;
    }
    *deg = g->off[v + 1] - g->off[v];
    return g->succ + g->off[v];
}

/* The computation's arrays (Note [Dominators]), in dfs numbers 1..nn
 * (node n, the virtual root, is number 1); each step frees what no later
 * one needs. */
typedef struct dom_work {
    uint32_t nn;      /* nodes numbered: every closure and the root */
    uint32_t *dfn;    /* by node: its number, 0 if not reached */
    uint32_t *vertex; /* by number: the node */
    uint32_t *anc;    /* by number: its DFS parent's number, then its
                         ancestor in the forest of step 3 */
    uint32_t *poff;   /* predecessors of x: pred[poff[x] .. poff[x + 1]) */
    uint32_t *pred;
    uint32_t *idom;  /* by number */
    uint32_t *semi;  /* by number: its semidominator's number */
    uint32_t *label; /* by number: step 3's EVAL */
    uint32_t *stack; /* EVAL's path: grown as needed, short in practice */
    size_t cap;
} dom_work;

static void dom_work_free(dom_work *w)
{
    free(w->dfn);
    free(w->vertex);
    free(w->anc);
    free(w->poff);
    free(w->pred);
    free(w->idom);
    free(w->semi);
    free(w->label);
    free(w->stack);
    memset(w, 0, sizeof(*w));
}

/* 1. A depth-first numbering from the virtual root (node n), over the
 * pointers, iteratively: dfn and the DFS parents. 0, or -1 when out of
 * memory. */
static int dom_number(const dbg_graph *g, dom_work *w)
{
    size_t nv = g->n + 1;
    uint32_t root = (uint32_t)g->n;
    uint32_t *dfn = w->dfn = calloc(nv, sizeof(*dfn));
    uint32_t *anc = w->anc = malloc((nv + 1) * sizeof(*anc));
    uint32_t *cursor = malloc(nv * sizeof(*cursor)); /* DFS stack: nodes */
    uint32_t *pos = malloc(nv * sizeof(*pos));       /* and next pointer */
    if (!dfn || !anc || !cursor || !pos) {
        free(cursor);
        free(pos);
        return -1;
    }
    uint32_t k = 0;
    size_t sp = 0;
    dfn[root] = ++k;
    anc[k] = 0;
    cursor[sp] = root;
    pos[sp++] = 0;
    while (sp > 0) {
        uint32_t v = cursor[sp - 1], deg;
        const uint32_t *out = out_of(g, v, &deg);
        if (pos[sp - 1] == deg) {
            sp--;
            continue;
        }
        uint32_t u = out[pos[sp - 1]++];
        if (dfn[u])
            continue;
        dfn[u] = ++k;
        anc[k] = dfn[v];
        cursor[sp] = u;
        pos[sp++] = 0;
    }
    free(cursor);
    free(pos);
    w->nn = k; /* every closure: all were reached */
    return 0;
}

/* 2. The predecessors of every node, by dfs number (counted, then placed
 * from each list's end: no cursor array); then the pointers are freed,
 * and the numbering turned around (vertex) and freed. 0, or -1 when out
 * of memory. */
static int dom_preds(dbg_graph *g, dom_work *w)
{
    size_t nv = g->n + 1, nn = w->nn;
    const uint32_t *dfn = w->dfn;
    uint32_t *poff = w->poff = calloc(nn + 2, sizeof(*poff));
    if (!poff)
        return -1;
    for (size_t v = 0; v < nv; v++) {
        uint32_t deg;
        const uint32_t *out = out_of(g, v, &deg);
        if (!dfn[v])
            continue;
        for (uint32_t e = 0; e < deg; e++)
            if (dfn[out[e]])
                poff[dfn[out[e]]]++;
    }
    for (size_t i = 1; i <= nn + 1; i++) /* poff[x]: the end of x's list */
        poff[i] += poff[i - 1];
    uint32_t *pred = w->pred =
        malloc((poff[nn + 1] ? poff[nn + 1] : 1) * sizeof(*pred));
    if (!pred)
        return -1;
    for (size_t v = 0; v < nv; v++) {
        uint32_t deg;
        const uint32_t *out = out_of(g, v, &deg);
        if (!dfn[v])
            continue;
        for (uint32_t e = 0; e < deg; e++)
            if (dfn[out[e]])
                pred[--poff[dfn[out[e]]]] = dfn[v]; /* then: its start */
    }
    free(g->succ);
    g->succ = NULL;
    free(g->off);
    g->off = NULL;
    uint32_t *vertex = w->vertex = malloc((nn + 1) * sizeof(*vertex));
    if (!vertex)
        return -1;
    for (size_t v = 0; v < nv; v++)
        if (dfn[v])
            vertex[dfn[v]] = (uint32_t)v;
    free(w->dfn);
    w->dfn = NULL;
    return 0;
}

/* EVAL with path compression, iteratively: of the path from v up to its
 * tree's root (excluded), the vertex of least semidominator. The forest
 * is implicit: the vertices numbered above `last` are linked, each to its
 * DFS parent (anc[], compressed as it goes); the others are roots. -1
 * when out of memory. */
static int64_t dom_eval(dom_work *w, uint32_t v, uint32_t last)
{
    uint32_t *anc = w->anc, *label = w->label;
    const uint32_t *semi = w->semi;
    if (v <= last)
        return v;
    size_t n = 0;
    for (uint32_t u = v; anc[u] > last; u = anc[u]) {
        if (n == w->cap) {
            size_t nc = w->cap ? w->cap * 2 : 4096;
            uint32_t *ns = realloc(w->stack, nc * sizeof(*ns));
            if (!ns)
                return -1;
            w->stack = ns;
            w->cap = nc;
        }
        w->stack[n++] = u;
    }
    while (n-- > 0) {
        uint32_t u = w->stack[n], a = anc[u];
        if (semi[label[a]] < semi[label[u]])
            label[u] = label[a];
        anc[u] = anc[a];
    }
    return label[v];
}

/* 3. The immediate dominators, in dfs numbers, by semi-NCA: the
 * semidominators in decreasing number, then each vertex's immediate
 * dominator as the nearest of its DFS parent's dominators numbered at
 * most its semidominator, in increasing number. Frees the predecessors.
 * 0, or -1 when out of memory. */
static int dom_idoms(dom_work *w)
{
    uint32_t nn = w->nn;
    size_t na = (size_t)nn + 1;
    uint32_t *idom = w->idom = malloc(na * sizeof(uint32_t));
    uint32_t *semi = w->semi = malloc(na * sizeof(uint32_t));
    uint32_t *label = w->label = malloc(na * sizeof(uint32_t));
    if (!idom || !semi || !label)
        return -1;
    memcpy(idom, w->anc, na * sizeof(uint32_t)); /* the DFS parents */
    for (uint32_t v = 1; v <= nn; v++)
        label[v] = semi[v] = v;
    const uint32_t *poff = w->poff, *pred = w->pred;
    for (uint32_t v = nn; v >= 2; v--)
        for (uint32_t e = poff[v]; e < poff[v + 1]; e++) {
            int64_t u = dom_eval(w, pred[e], v);
            if (u < 0)
                return -1;
            if (semi[u] < semi[v])
                semi[v] = semi[u];
        }
    free(w->pred);
    free(w->poff);
    free(w->anc);
    free(w->label);
    w->pred = w->poff = w->anc = w->label = NULL;
    for (uint32_t v = 2; v <= nn; v++) {
        uint32_t d = idom[v];
        while (d > semi[v])
            d = idom[d];
        idom[v] = d;
    }
    free(w->semi);
    w->semi = NULL;
    return 0;
}

/* 4. Retained sizes, each closure's added to its immediate dominator's in
 * decreasing number, and the dominators back in closure ids. 0, or -1
 * when out of memory. */
static int dom_retained(dbg_graph *g, const dom_work *w)
{
    size_t nv = g->n + 1;
    const uint32_t *vertex = w->vertex, *idom = w->idom;
    g->retained = calloc(nv, sizeof(*g->retained));
    g->idom = malloc(nv * sizeof(*g->idom));
    if (!g->retained || !g->idom)
        return -1;
    for (size_t v = 0; v < nv; v++)
        g->idom[v] = DBG_GRAPH_NONE;
    for (uint32_t x = w->nn; x >= 2; x--) {
        uint32_t v = vertex[x], d = vertex[idom[x]];
        g->retained[v] += g->size[v];
        g->retained[d] += g->retained[v];
        g->idom[v] = d;
    }
    return 0;
}

/* Note [Dominators]: the four steps. */
int dbg_graph_dominators(dbg_graph *g)
{
    dom_work w = {0};
    if (g->n >= DBG_GRAPH_NONE) { /* ids and the root: 32 bits */
        snprintf(g->err, sizeof(g->err), "more than 4 billion closures");
        return -1;
    }
    int bad = dom_number(g, &w) != 0 || dom_preds(g, &w) != 0 ||
              dom_idoms(&w) != 0 || dom_retained(g, &w) != 0;
    if (bad)
        snprintf(g->err, sizeof(g->err), "out of memory");
    dom_work_free(&w);
    return bad ? -1 : 0;
}

void dbg_graph_free(dbg_graph *g)
{
    free(g->addr);
    free(g->size);
    free(g->info);
    free(g->parent);
    free(g->off);
    free(g->succ);
    free(g->roots);
    free(g->idom);
    free(g->retained);
    memset(g, 0, sizeof(*g));
}
