/* The explorer's two-level census (lib/debug's census2, ghc-debug's
 * "two level profile"): a row an info table, as the census by info table
 * has it, expanding to a row for each kind of its closures by what they
 * point to (`-> I#, Bin x2`), each expanding to its first closures. */
#define _GNU_SOURCE
#include "explore.h"

#include "groups.h"
#include "rtscope/debug/census2.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X2_SAMPLES 50 /* closures kept a row */
#define X2_KINDS 50   /* kinds shown under a table */

/* A table's short name: its constructor's name ("Bin", "I#", ":"), else
 * its closure type. */
static const char *short_name(dbg_heap *h, dbg_info *in)
{
    const char *con = in ? dbg_heap_con_descr(h, in) : NULL;
    const char *p = con ? strchr(con, ':') : NULL;
    if (!p)
        return in ? ghc_closure_type_name(in->type) : "?";
    for (p++; isupper((unsigned char)*p) && strchr(p, '.');)
        p = strchr(p, '.') + 1; /* past the module's components */
    return p;
}

/* "-> I#, :, Bin x2 (and 3 more)" of a row, into buf. */
static void kind_text(dbg_heap *h, const dbg_census2 *c,
                      const dbg_census2_row *r, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "%s",
                                r->nruns ? "->" : "(points to nothing)");
    for (uint32_t k = 0; k < r->nruns && o < len; k++) {
        const dbg_census2_run *u = &c->runs[r->run + k];
        o += (size_t)snprintf(buf + o, len - o, "%s %s", k ? "," : "",
                              short_name(h, dbg_heap_info_at(h, u->info)));
        if (u->n > 1 && o < len)
            o += (size_t)snprintf(buf + o, len - o, " x%u", u->n);
    }
    if (r->rest && o < len)
        snprintf(buf + o, len - o, " (and %u more)", r->rest);
}

static void row_text(char *buf, size_t len, uint64_t bytes, uint64_t whole,
                     uint64_t count, const char *what)
{
    snprintf(buf, len, "%10" PRIu64 " B %5.1f%% %9" PRIu64 "  %s", bytes,
             whole ? 100.0 * (double)bytes / (double)whole : 0.0, count, what);
}

/* The kinds rows[from .. to) of one table under its row (parent). */
static int kinds(xt_tree *t, const dbg_graph *g, const dbg_census2 *c,
                 size_t from, size_t to, uint32_t parent)
{
    char key[400], buf[600];
    uint64_t samp[X2_SAMPLES];
    for (size_t k = from; k < to && k < from + X2_KINDS; k++) {
        const dbg_census2_row *r = &c->rows[k];
        kind_text(t->h, c, r, key, sizeof(key));
        row_text(buf, sizeof(buf), r->bytes, g->bytes, r->count, key);
        for (uint32_t j = 0; j < r->nsamp; j++)
            samp[j] = g->addr[r->samp[j]];
        if (xt_row_add(t, parent, strdup(buf), samp, r->nsamp) == XT_NONE)
            return -1;
    }
    if (to - from > X2_KINDS) {
        snprintf(buf, sizeof(buf), "%zu more kinds", to - from - X2_KINDS);
        if (xt_note_add(t, parent, buf) == XT_NONE)
            return -1;
    }
    return 0;
}

static int census2_view(xt_tree *t, const dbg_graph *g, const dbg_census2 *c,
                        double took)
{
    char buf[1400], name[1024];
    if (xt_view_push(t, "Census by info table, two levels") != 0)
        return -1;
    snprintf(buf, sizeof(buf), "%12s %6s %9s  %s", "bytes", "heap", "count",
             "info table; expanded: by what its closures point to");
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    size_t ntables = 0;
    for (size_t i = 0, j; i < c->n; i = j, ntables++) {
        uint64_t count = 0;
        for (j = i; j < c->n && c->rows[j].info == c->rows[i].info; j++)
            count += c->rows[j].count;
        dbg_info *in = dbg_heap_info_at(t->h, c->rows[i].info);
        debug_group_name(t->h, in, DEBUG_BY_INFO, 1, name, sizeof(name));
        row_text(buf, sizeof(buf), c->rows[i].table_bytes, g->bytes, count,
                 name);
        uint32_t top = xt_row_add(t, XT_NONE, strdup(buf), NULL, 0);
        if (top == XT_NONE || kinds(t, g, c, i, j, top) != 0)
            return -1;
    }
    snprintf(buf, sizeof(buf),
             "total: %zu closures, %" PRIu64 " bytes in %zu tables, %zu "
             "kinds (read in %.2f s); Right: a table's kinds",
             g->n, g->bytes, ntables, c->n, took);
    return xt_note_add(t, XT_NONE, buf) == XT_NONE ? -1 : xt_relist(t);
}

int xt_census2(xt_tree *t, const uint64_t *roots, size_t nroots,
               const xt_progress *p)
{
    double t0 = xt_now();
    dbg_graph *g = t->g, *own = NULL;
    if (!g || !g->succ) { /* none yet, or the dominator tree's (no pointers) */
        int r = xt_graph_walk(t, roots, nroots, p, &own);
        if (r != 0)
            return r;
        g = own;
        if (!t->g) /* kept for the dominator tree */
            t->g = own, own = NULL;
    }
    dbg_census2 c;
    int r = dbg_census2_make(&c, g, X2_SAMPLES);
    if (r != 0)
        snprintf(t->err, sizeof(t->err), "out of memory");
    else
        r = census2_view(t, g, &c, xt_now() - t0);
    dbg_census2_free(&c);
    if (own) {
        dbg_graph_free(own);
        free(own);
    }
    return r;
}
