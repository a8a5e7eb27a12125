/* heap_export: the reachable heap as nodes and edges for a writer. See
 * heap_export.h.
 *
 * Note [Exporting a heap]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Graph formats for viewers (V8's .heapsnapshot) give the node count and
 * edge count up front, then every node with its number of edges, then
 * every edge as the number of the node it leads to. Keeping the graph to
 * write it (as dominators do, debug_graph.h) costs 20 bytes a closure and
 * 4 a pointer, and the writer's own tables more; instead the heap is read
 * in passes and nothing per closure is kept but one bit:
 *
 *   1. the walk, from the roots: the set of closures it reads (an
 *      addr_rank set, a bit per heap word: 2.3% of the heap's size), the
 *      closure type of each root (for its group), and the pointers
 *      counted;
 *   2. the nodes: the root, the groups, then the closures in address
 *      order, read again from the source a batch at a time;
 *   3. the edges, from the same reads in the same order.
 *
 * A closure's node number is then 1 + groups + its rank in the set, found
 * from its address in constant time, so an edge needs no table from
 * addresses to nodes. A pointer to a closure the walk could not read
 * (counted by its warning) leads to no node and is left out; when there
 * were such, the edges are counted once more before the nodes are written
 * (pass 1 counted them all). The program stays paused (or the forked copy
 * is read) until the last pass: the passes must read the heap the walk
 * read. The source's own reading (a loaded snapshot, a stub connection)
 * is the only other memory: constant beyond it.
 */
#include "rtscope/debug/heap_export.h"

#include "addr_rank.h"
#include "heap_impl.h"

#include <stdlib.h>
#include <string.h>

/* Closures read at once in passes 2 and 3. */
#define EXPORT_BATCH 4096

const char *const dbg_root_group_title[DBG_RG_N] = {
    "Saved objects",         "Threads",
    "CAFs and static roots", "Stable pointers and names",
    "Weak pointers",         "Other roots (capabilities' messages)"};

enum dbg_root_group dbg_root_group_of(uint32_t type)
{
    if (type == GHC_TSO)
        return DBG_RG_THREADS;
    if (type == GHC_WEAK)
        return DBG_RG_WEAK;
    if (type == GHC_IND_STATIC || type == GHC_THUNK_STATIC ||
        type == GHC_FUN_STATIC || type == GHC_CONSTR_NOCAF)
        return DBG_RG_STATIC;
    if (type == GHC_PRIM || type == GHC_MUT_PRIM)
        return DBG_RG_OTHER;
    return DBG_RG_STABLE;
}

struct dbg_export {
    dbg_heap *h;
    const uint64_t *roots;
    size_t nroots, nsaved;
    rankset set;              /* the closures the walk read */
    hmap root_type;           /* root -> its closure type + 1 */
    uint8_t *group;           /* of each root; DBG_RG_N: not read */
    uint32_t gnode[DBG_RG_N]; /* node number of each group (0: empty) */
    size_t groots[DBG_RG_N];  /* roots in each group */
    size_t ngroups;
    uint64_t nclosures, nedges; /* closures, and their edges */
    int nomem;
};

dbg_export *dbg_export_new(dbg_heap *h)
{
    dbg_export *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->h = h;
    h->want_fields = 1;
    return x;
}

int dbg_export_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    dbg_export *x = ctx;
    if (rank_add(&x->set, c->addr) < 0 ||
        (parent == 0 &&
         hmap_put(&x->root_type, c->addr, (uint64_t)c->info->type + 1) != 0))
        return x->nomem = 1;
    x->nclosures++;
    x->nedges += c->nptrs;
    return 0;
}

/* The node of closure addr, or UINT32_MAX when the walk did not read
 * it. */
static uint32_t node_of(dbg_export *x, uint64_t addr)
{
    uint32_t r = rank_of(&x->set, UNTAG(addr));
    return r == RANK_NONE ? UINT32_MAX : (uint32_t)(1 + x->ngroups + r);
}

/* Calls fn on every closure of the set in address order (passes 2 and
 * 3); what cannot be read is not counted again. */
static int export_scan(dbg_export *x, dbg_visit_fn fn, void *ctx)
{
    dbg_heap *h = x->h;
    size_t unreadable = h->unreadable, nunread = h->nunread;
    uint64_t *addrs = malloc(EXPORT_BATCH * sizeof(*addrs));
    rank_cursor cur = {0};
    int r = 0;
    if (!addrs) {
        heap_err(h, "out of memory");
        return -1;
    }
    size_t n;
    while (r == 0 && (n = rank_list(&x->set, &cur, addrs, EXPORT_BATCH)) > 0)
        r = heap_visit_list(h, addrs, n, fn, ctx);
    h->unreadable = unreadable;
    h->nunread = nunread;
    free(addrs);
    return r;
}

/* The edges of a closure that lead to a node. */
static size_t closure_nedges(dbg_export *x, const dbg_closure *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nptrs; i++)
        n += node_of(x, c->ptrs[i]) != UINT32_MAX;
    return n;
}

static int count_edges(void *ctx, const dbg_closure *c, uint64_t parent)
{
    dbg_export *x = ctx;
    (void)parent;
    x->nedges += closure_nedges(x, c);
    return 0;
}

/* Each root's group, and the groups' node numbers. */
static int group_roots(dbg_export *x)
{
    x->group = malloc(x->nroots ? x->nroots : 1);
    if (!x->group)
        return -1;
    size_t ngc = x->nroots - x->nsaved;
    for (size_t i = 0; i < x->nroots; i++) {
        uint64_t a = UNTAG(x->roots[i]), type;
        enum dbg_root_group g = DBG_RG_N;
        if (hmap_get(&x->root_type, a, &type))
            g = i >= ngc ? DBG_RG_SAVED : dbg_root_group_of((uint32_t)type - 1);
        x->group[i] = (uint8_t)g;
        if (g != DBG_RG_N)
            x->groots[g]++;
    }
    for (int g = 0; g < DBG_RG_N; g++)
        if (x->groots[g])
            x->gnode[g] = (uint32_t)++x->ngroups;
    return 0;
}

int dbg_export_finish(dbg_export *x, const uint64_t *roots, size_t nroots,
                      size_t nsaved)
{
    dbg_heap *h = x->h;
    x->roots = roots;
    x->nroots = nroots;
    x->nsaved = nsaved <= nroots ? nsaved : 0;
    if (x->nomem || rank_finish(&x->set) != 0 || group_roots(x) != 0) {
        heap_err(h, "out of memory");
        return -1;
    }
    if (x->nclosures >= UINT32_MAX - DBG_RG_N - 1) {
        heap_err(h, "too many closures to number (2^32 or more)");
        return -1;
    }
    if (h->unreadable) {
        /* pointers to what could not be read lead nowhere: count again */
        x->nedges = 0;
        if (export_scan(x, count_edges, x) != 0)
            return -1;
    }
    return 0;
}

void dbg_export_free(dbg_export *x)
{
    if (!x)
        return;
    rank_free(&x->set);
    hmap_free(&x->root_type);
    free(x->group);
    free(x);
}

size_t dbg_export_nnodes(const dbg_export *x)
{
    return 1 + x->ngroups + x->nclosures;
}

size_t dbg_export_ngroups(const dbg_export *x)
{
    return x->ngroups;
}

size_t dbg_export_nedges(const dbg_export *x)
{
    size_t n = x->ngroups;
    for (int g = 0; g < DBG_RG_N; g++)
        n += x->groots[g];
    return n + x->nedges;
}

/* ---- passes 2 and 3 ---------------------------------------------------- */

typedef struct export_pass {
    dbg_export *x;
    dbg_export_node_fn node_fn;
    dbg_export_edge_fn edge_fn;
    void *ctx;
    int stop; /* what fn returned */
} export_pass;

static int pass_node(void *ctx, const dbg_closure *c, uint64_t parent)
{
    export_pass *p = ctx;
    (void)parent;
    dbg_export_node n = {
        .kind = DBG_XN_CLOSURE, .c = c, .nedges = closure_nedges(p->x, c)};
    return p->stop = p->node_fn(p->ctx, &n);
}

static int pass_edges(void *ctx, const dbg_closure *c, uint64_t parent)
{
    export_pass *p = ctx;
    (void)parent;
    for (size_t i = 0; i < c->nptrs; i++) {
        uint32_t to = node_of(p->x, c->ptrs[i]);
        if (to == UINT32_MAX)
            continue;
        dbg_export_edge e = {.from = DBG_XN_CLOSURE,
                             .field = c->fields ? c->fields[i] : 0,
                             .to = to};
        if ((p->stop = p->edge_fn(p->ctx, &e)) != 0)
            return 1;
    }
    return 0;
}

int dbg_export_nodes(dbg_export *x, dbg_export_node_fn fn, void *ctx)
{
    dbg_export_node n = {
        .kind = DBG_XN_ROOT, .title = "(GC roots)", .nedges = x->ngroups};
    int r = fn(ctx, &n);
    for (int g = 0; g < DBG_RG_N && r == 0; g++) {
        if (!x->groots[g])
            continue;
        n = (dbg_export_node){.kind = DBG_XN_GROUP,
                              .title = dbg_root_group_title[g],
                              .nedges = x->groots[g]};
        r = fn(ctx, &n);
    }
    if (r != 0)
        return r;
    export_pass p = {.x = x, .node_fn = fn, .ctx = ctx};
    if (export_scan(x, pass_node, &p) != 0)
        return -1;
    return p.stop;
}

/* The root's edges to the groups, and the groups' to their roots. */
static int group_edges(dbg_export *x, dbg_export_edge_fn fn, void *ctx)
{
    int r = 0;
    uint32_t k = 0;
    for (int g = 0; g < DBG_RG_N && r == 0; g++)
        if (x->groots[g]) {
            dbg_export_edge e = {.from = DBG_XN_ROOT,
                                 .title = dbg_root_group_title[g],
                                 .index = k++,
                                 .to = x->gnode[g]};
            r = fn(ctx, &e);
        }
    for (int g = 0; g < DBG_RG_N && r == 0; g++) {
        k = 0;
        for (size_t i = 0; i < x->nroots && r == 0; i++) {
            if (x->group[i] != g)
                continue;
            dbg_export_edge e = {.from = DBG_XN_GROUP,
                                 .title = dbg_root_group_title[g],
                                 .index = k++,
                                 .to = node_of(x, x->roots[i])};
            r = fn(ctx, &e);
        }
    }
    return r;
}

int dbg_export_edges(dbg_export *x, dbg_export_edge_fn fn, void *ctx)
{
    int r = group_edges(x, fn, ctx);
    if (r != 0)
        return r;
    export_pass p = {.x = x, .edge_fn = fn, .ctx = ctx};
    if (export_scan(x, pass_edges, &p) != 0)
        return -1;
    return p.stop;
}
