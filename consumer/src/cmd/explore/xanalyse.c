/* The explorer's analyses as views: censuses (by info table, constructor,
 * module, closure type; thunks by source) from lib/debug's census with
 * the rows `rtscope debug census` prints, each row expandable to its first
 * closures; the dominator tree and the leak suspects from lib/debug's
 * dominance (as `rtscope debug dominators`), each closure expandable to
 * what it dominates, largest first. */
#define _GNU_SOURCE
#include "explore.h"

#include "census_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XA_SAMPLES 50 /* closures kept a census row */
#define XA_SUSPECTS 16
#define XA_THRESHOLD 10.0 /* percent of the heap a suspect retains */

static const char *const census_title[] = {[BY_TYPE] = "closure type",
                                           [BY_CONSTRUCTOR] = "constructor",
                                           [BY_INFO] = "info table",
                                           [BY_MODULE] = "module",
                                           [BY_THUNK_SOURCE] = "thunk source"};

/* The table as a view: a heading, a row a key, the total. */
static int census_view(xt_tree *t, const census_table *tb, enum census_by by,
                       double took)
{
    char buf[1400];
    uint64_t tc = 0, tbytes = 0;
    for (size_t i = 0; i < tb->n; i++) {
        tc += tb->rows[i].count;
        tbytes += tb->rows[i].bytes;
    }
    snprintf(buf, sizeof(buf), "%s by %s",
             by == BY_THUNK_SOURCE ? "Thunks" : "Census", census_title[by]);
    if (xt_view_push(t, buf) != 0)
        return -1;
    snprintf(buf, sizeof(buf), "%12s %6s %9s  %s", "bytes", "heap", "count",
             census_title[by]);
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    for (size_t i = 0; i < tb->n; i++) {
        const census_row *r = &tb->rows[i];
        snprintf(buf, sizeof(buf), "%10" PRIu64 " B %5.1f%% %9" PRIu64 "  %s",
                 r->bytes,
                 tbytes ? 100.0 * (double)r->bytes / (double)tbytes : 0.0,
                 r->count, r->key);
        if (xt_row_add(t, XT_NONE, strdup(buf), r->samp, r->nsamp) == XT_NONE)
            return -1;
    }
    snprintf(buf, sizeof(buf),
             "total: %" PRIu64 " closures, %" PRIu64 " bytes in %zu rows "
             "(read in %.2f s); Right: a row's first closures",
             tc, tbytes, tb->n, took);
    return xt_note_add(t, XT_NONE, buf) == XT_NONE ? -1 : xt_relist(t);
}

int xt_census(xt_tree *t, const uint64_t *roots, size_t nroots, int by,
              const xt_progress *p)
{
    dbg_census c;
    census_table tb = {NULL, 0};
    double t0 = xt_now();
    dbg_census_init(&c, t->h, XA_SAMPLES);
    c.thunks_only = by == BY_THUNK_SOURCE;
    c.by_module = by == BY_MODULE;
    int r = xt_walk(t, roots, nroots, dbg_census_visit, &c, p);
    if (r == 0 && c.nomem)
        r = -1, snprintf(t->err, sizeof(t->err), "out of memory");
    if (r == 0 && census_table_make(&tb, t->h, &c, (enum census_by)by, 0, 0))
        r = -1, snprintf(t->err, sizeof(t->err), "out of memory");
    if (r == 0)
        r = census_view(t, &tb, (enum census_by)by, xt_now() - t0);
    if (r > 0)
        snprintf(t->err, sizeof(t->err), "census cancelled");
    census_table_free(&tb);
    dbg_census_free(&c);
    return r;
}

/* ---- the dominator tree ----------------------------------------------------
 */

/* The heap's graph for the dominator tree and the two-level census. */
int xt_graph_walk(xt_tree *t, const uint64_t *roots, size_t nroots,
                  const xt_progress *p, dbg_graph **out)
{
    dbg_graph *g = calloc(1, sizeof(*g));
    dbg_graph_builder *b = g ? dbg_graph_builder_new(t->h, g) : NULL;
    if (!b) {
        free(g);
        snprintf(t->err, sizeof(t->err), "out of memory");
        return -1;
    }
    int r = xt_walk(t, roots, nroots, dbg_graph_visit, b, p);
    int fin = dbg_graph_builder_finish(b, roots, nroots);
    if (r == 0 && fin != 0)
        r = -1, snprintf(t->err, sizeof(t->err), "%.500s", g->err);
    if (r != 0) {
        if (r > 0)
            snprintf(t->err, sizeof(t->err), "cancelled");
        dbg_graph_free(g);
        free(g);
        return r;
    }
    *out = g;
    return 0;
}

/* The heap's graph and dominator tree, once (kept in t; the graph may be
 * the two-level census'). 0; 1 cancelled; -1 (t->err). */
static int dominators(xt_tree *t, const uint64_t *roots, size_t nroots,
                      const xt_progress *p)
{
    if (t->dom)
        return 0;
    if (!t->g) {
        int r = xt_graph_walk(t, roots, nroots, p, &t->g);
        if (r != 0)
            return r;
    }
    dbg_domtree *d = NULL;
    if (dbg_graph_dominators(t->g) != 0)
        snprintf(t->err, sizeof(t->err), "%.500s", t->g->err);
    else if (!(d = calloc(1, sizeof(*d))) || dbg_domtree_build(t->g, d) != 0)
        snprintf(t->err, sizeof(t->err), "out of memory");
    else
        return t->dom = d, 0;
    free(d);
    dbg_graph_free(t->g);
    free(t->g);
    t->g = NULL;
    return -1;
}

/* A closure of the dominator tree at the view's top (id n: the roots'
 * virtual root, a heading). */
static uint32_t dom_top(xt_tree *t, uint32_t id, char *label)
{
    const dbg_graph *g = t->g;
    uint32_t i =
        xt_node_new(t, XT_DOM, XT_NONE, id < g->n ? g->addr[id] : 0, label);
    if (i == XT_NONE || xt_top_add(t, i) != 0)
        return XT_NONE;
    t->v[i].id = id;
    t->v[i].retained = id < g->n ? g->retained[id] : 0;
    return i;
}

int xt_dominators(xt_tree *t, const uint64_t *roots, size_t nroots,
                  int suspects, const xt_progress *p)
{
    double t0 = xt_now();
    int r = dominators(t, roots, nroots, p);
    if (r != 0)
        return r;
    const dbg_graph *g = t->g;
    char buf[400];
    if (xt_view_push(t, suspects ? "Leak suspects" : "Dominator tree") != 0)
        return -1;
    if (!suspects) {
        snprintf(buf, sizeof(buf),
                 "%zu closures, %" PRIu64 " bytes from %zu roots (%.2f s)",
                 g->n, g->bytes, g->nroots, xt_now() - t0);
        uint32_t top = dom_top(t, (uint32_t)g->n, strdup("Dominator tree"));
        if (top == XT_NONE || !(t->v[top].text = strdup(buf)))
            return -1;
        t->v[top].read = 1;
        return xt_open(t, top);
    }
    uint64_t thr = (uint64_t)((double)g->bytes * XA_THRESHOLD / 100.0);
    uint32_t sus[XA_SUSPECTS];
    size_t ns = dbg_dom_suspects(g, t->dom, thr ? thr : 1, sus, XA_SUSPECTS);
    if (ns == (size_t)-1)
        return snprintf(t->err, sizeof(t->err), "out of memory"), -1;
    snprintf(buf, sizeof(buf),
             "%zu closure%s retaining at least %.0f%% of the heap (%" PRIu64
             " of %" PRIu64 " bytes) each; Right: what it dominates",
             ns, ns == 1 ? "" : "s", XA_THRESHOLD, thr, g->bytes);
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    for (size_t k = 0; k < ns; k++) {
        snprintf(buf, sizeof(buf), "suspect %zu", k + 1);
        if (dom_top(t, sus[k], strdup(buf)) == XT_NONE)
            return -1;
    }
    return xt_relist(t);
}
