/* rtscope debug diff: what grew between two heaps of one program (two
 * snapshots, or a snapshot and the live program), by info table,
 * constructor and module, and what holds the growth. */
#define _GNU_SOURCE
#include "debug.h"
#include "groups.h"

#include "cli.h"
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "session.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note [Heap diff]
 * ~~~~~~~~~~~~~~~~
 * The two heaps are matched by name, not by address: an info table is
 * named without its address (its type and the name every -hi band gets),
 * so two snapshots of one binary match whether or not it was loaded at
 * the same address. Tables with the same name are added together. Growth
 * is B minus A, in closures and bytes, per info table, constructor and
 * module, largest first. For the info tables that grew most, a closure of
 * that table in B is shown with its retainer path: the one the walk of B
 * reached last (the farthest from the roots, on a growing structure
 * typically among the newest), through the parents it was first reached
 * from. */

typedef struct diff_acc {
    uint64_t count[2], bytes[2];
} diff_acc;

typedef struct diff_state {
    strtab names[DEBUG_NGROUPINGS];
    diff_acc *acc[DEBUG_NGROUPINGS];
    size_t cap[DEBUG_NGROUPINGS];
    uint64_t total_count[2], total_bytes[2];
    int nomem;
} diff_state;

/* Per info table of one heap (index into its dbg_heap.infos). */
typedef struct info_acc {
    uint64_t *count, *bytes;
    size_t cap;
    int nomem;
} info_acc;

static int acc_add(info_acc *a, size_t i, uint64_t bytes)
{
    if (i >= a->cap) {
        size_t nc = a->cap ? a->cap : 1024;
        while (nc <= i)
            nc *= 2;
        uint64_t *nc_ = realloc(a->count, nc * sizeof(*nc_));
        if (nc_)
            a->count = nc_;
        uint64_t *nb = realloc(a->bytes, nc * sizeof(*nb));
        if (nb)
            a->bytes = nb;
        if (!nc_ || !nb)
            return -1;
        memset(a->count + a->cap, 0, (nc - a->cap) * sizeof(*a->count));
        memset(a->bytes + a->cap, 0, (nc - a->cap) * sizeof(*a->bytes));
        a->cap = nc;
    }
    a->count[i]++;
    a->bytes[i] += bytes;
    return 0;
}

typedef struct census_ctx {
    dbg_heap *h;
    info_acc acc;
} census_ctx;

static int census_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    census_ctx *cc = ctx;
    (void)parent;
    if (acc_add(&cc->acc, dbg_heap_info_index(cc->h, c->info), c->size) != 0)
        return cc->acc.nomem = 1;
    return 0;
}

/* Add one heap's per-table counts (side 0: A, 1: B) to the groups. */
static int diff_add(diff_state *d, dbg_heap *h, const info_acc *a, int side)
{
    for (size_t i = 0; i < a->cap && i < dbg_heap_ninfos(h); i++) {
        if (!a->count[i])
            continue;
        for (int k = 0; k < DEBUG_NGROUPINGS; k++) {
            char name[1400];
            debug_group_name(h, dbg_heap_info_at(h, i), (enum debug_grouping)k,
                             0, name, sizeof(name));
            long id = strtab_id_str(&d->names[k], name);
            if (id < 0)
                return -1;
            if ((size_t)id >= d->cap[k]) {
                size_t nc = d->cap[k] ? d->cap[k] * 2 : 1024;
                while (nc <= (size_t)id)
                    nc *= 2;
                diff_acc *na = realloc(d->acc[k], nc * sizeof(*na));
                if (!na)
                    return -1;
                memset(na + d->cap[k], 0, (nc - d->cap[k]) * sizeof(*na));
                d->acc[k] = na;
                d->cap[k] = nc;
            }
            d->acc[k][id].count[side] += a->count[i];
            d->acc[k][id].bytes[side] += a->bytes[i];
        }
        d->total_count[side] += a->count[i];
        d->total_bytes[side] += a->bytes[i];
    }
    return 0;
}

static const diff_acc *sort_acc;
static int64_t growth(const diff_acc *a)
{
    return (int64_t)a->bytes[1] - (int64_t)a->bytes[0];
}
static int by_growth(const void *x, const void *y)
{
    int64_t a = growth(&sort_acc[*(const uint32_t *)x]),
            b = growth(&sort_acc[*(const uint32_t *)y]);
    if (a != b)
        return a < b ? 1 : -1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* The groups of grouping k by growth, largest first (caller frees). */
static uint32_t *diff_order(diff_state *d, int k)
{
    size_t n = d->names[k].n;
    uint32_t *order = malloc((n + 1) * sizeof(*order));
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    sort_acc = d->acc[k];
    qsort(order, n, sizeof(*order), by_growth);
    return order;
}

static void diff_print(diff_state *d, int k, const uint32_t *order,
                       size_t limit)
{
    size_t n = d->names[k].n, shown = 0, grew = 0, shrank = 0;
    int64_t lost = 0;
    printf("\ngrowth by %s\n", debug_grouping_title[k]);
    printf("%13s %11s %14s %11s  %s\n", "+bytes", "+count", "bytes in B",
           "count in B", debug_grouping_title[k]);
    for (size_t i = 0; i < n; i++) {
        const diff_acc *a = &d->acc[k][order[i]];
        int64_t g = growth(a);
        if (g > 0)
            grew++;
        if (g < 0) {
            shrank++;
            lost += g;
        }
        if (g <= 0 || shown == limit)
            continue;
        shown++;
        printf("%+13" PRId64 " %+11" PRId64 " %14" PRIu64 " %11" PRIu64
               "  %s\n",
               g, (int64_t)a->count[1] - (int64_t)a->count[0], a->bytes[1],
               a->count[1], d->names[k].s[order[i]]);
    }
    if (grew > shown)
        printf("... %zu more that grew\n", grew - shown);
    if (shrank)
        printf("%zu shrank, by %" PRId64 " bytes in all\n", shrank, -lost);
}

/* For the info-table group gid: the closure of B of that group the walk
 * reached last, and its retainer path. */
static void diff_path(dbg_heap *h, const dbg_graph *g, diff_state *d,
                      uint32_t gid, size_t rank)
{
    uint32_t pick = DBG_GRAPH_NONE;
    char name[1400];
    unsigned char *match =
        calloc(dbg_heap_ninfos(h) + 1, 1); /* per info table */
    if (!match)
        return;
    for (size_t i = 0; i < dbg_heap_ninfos(h); i++) {
        debug_group_name(h, dbg_heap_info_at(h, i), DEBUG_BY_INFO, 0, name,
                         sizeof(name));
        match[i] = strcmp(name, d->names[DEBUG_BY_INFO].s[gid]) == 0;
    }
    for (size_t i = g->n; i-- > 0;)
        if (match[g->info[i]]) {
            pick = (uint32_t)i;
            break;
        }
    free(match);
    const diff_acc *a = &d->acc[DEBUG_BY_INFO][gid];
    printf("\ngrower %zu: %s, %+" PRId64 " bytes, %+" PRId64 " closures\n",
           rank, d->names[DEBUG_BY_INFO].s[gid], growth(a),
           (int64_t)a->count[1] - (int64_t)a->count[0]);
    if (pick == DBG_GRAPH_NONE)
        return;
    printf("  what holds one in B (0x%012" PRIx64 "): %zu closures, root "
           "first\n",
           g->addr[pick], debug_graph_path_len(g, pick));
    debug_print_graph_path(stdout, h, g, pick);
}

static int debug_diff(const char *ta, const char *tb, int gc, size_t limit,
                      size_t npaths)
{
    debug_session sa, sb;
    census_ctx ca = {0};
    dbg_graph g = {0};
    diff_state d = {0};
    uint32_t *order[DEBUG_NGROUPINGS] = {0};
    int r = debug_session_open(&sa, ta), opened_b = 0;
    if (r)
        return r;
    ca.h = &sa.heap;
    r = debug_session_walk(&sa, gc, census_visit, &ca, 0);
    if (!r && ca.acc.nomem)
        r = debug_fail("out of memory");
    if (r)
        goto done;
    r = debug_session_open(&sb, tb);
    if (r)
        goto done;
    opened_b = 1;
    dbg_graph_builder *b = dbg_graph_builder_new(&sb.heap, &g);
    if (!b) {
        r = debug_fail("out of memory");
        goto done;
    }
    r = debug_session_walk(&sb, gc, dbg_graph_visit, b, 0);
    if (dbg_graph_builder_finish(b, sb.roots, sb.nroots) != 0 && !r)
        r = debug_fail("%s", g.err);
    if (r)
        goto done;
    census_ctx cb = {.h = &sb.heap};
    for (size_t i = 0; i < g.n; i++)
        if (acc_add(&cb.acc, g.info[i], g.size[i]) != 0)
            cb.acc.nomem = 1;
    if (cb.acc.nomem || diff_add(&d, &sa.heap, &ca.acc, 0) != 0 ||
        diff_add(&d, &sb.heap, &cb.acc, 1) != 0) {
        free(cb.acc.count);
        free(cb.acc.bytes);
        r = debug_fail("out of memory");
        goto done;
    }
    free(cb.acc.count);
    free(cb.acc.bytes);
    printf("heap diff: A %s: %" PRIu64 " closures, %" PRIu64 " bytes; "
           "B %s: %" PRIu64 " closures, %" PRIu64 " bytes; "
           "%+" PRId64 " bytes, %+" PRId64 " closures\n",
           ta, d.total_count[0], d.total_bytes[0], tb, d.total_count[1],
           d.total_bytes[1],
           (int64_t)d.total_bytes[1] - (int64_t)d.total_bytes[0],
           (int64_t)d.total_count[1] - (int64_t)d.total_count[0]);
    for (int k = 0; k < DEBUG_NGROUPINGS; k++) {
        order[k] = diff_order(&d, k);
        if (!order[k]) {
            r = debug_fail("out of memory");
            goto done;
        }
        diff_print(&d, k, order[k], limit);
    }
    for (size_t i = 0; i < npaths && i < d.names[DEBUG_BY_INFO].n; i++) {
        uint32_t gid = order[DEBUG_BY_INFO][i];
        if (growth(&d.acc[DEBUG_BY_INFO][gid]) <= 0)
            break;
        diff_path(&sb.heap, &g, &d, gid, i + 1);
    }
    debug_warn_unreadable(&sa.heap, "A's counts may be low");
    debug_warn_unreadable(&sb.heap, "B's counts may be low");
done:
    debug_session_close(&sa);
    if (opened_b)
        debug_session_close(&sb);
    dbg_graph_free(&g);
    free(ca.acc.count);
    free(ca.acc.bytes);
    for (int k = 0; k < DEBUG_NGROUPINGS; k++) {
        strtab_free(&d.names[k]);
        free(d.acc[k]);
        free(order[k]);
    }
    return r;
}

int debug_diff_run(int argc, char **argv)
{
    long limit = 20, paths = 3;
    const debug_opt opts[] = {
        {.name = "limit",
         .kind = DEBUG_OPT_COUNT,
         .value = &limit,
         .min = 1,
         .max = 1000000,
         .bad = "not a positive number"},
        {.name = "paths",
         .kind = DEBUG_OPT_COUNT,
         .value = &paths,
         .max = 100,
         .bad = "a number from 0 to 100"},
        DEBUG_OPT_END,
    };
    debug_args a;
    int r = debug_parse_args(&debug_cmd_diff, argc, argv, opts, 2, &a);
    return r >= 0 ? r
                  : debug_diff(a.target[0], a.target[1], a.gc, (size_t)limit,
                               (size_t)paths);
}

const debug_command debug_cmd_diff = {
    "diff", "rtscope debug diff A B [--limit N] [--paths K] [--no-gc|--fork]\n",
    "  diff        what grew from heap A to heap B of one program (A and B\n"
    "              snapshots, or B the live program): closures and bytes\n"
    "              by info table, constructor and module, largest growth\n"
    "              first, and for the K info tables that grew most a\n"
    "              closure of B and its retainer path\n"
    "    --limit N          at most N rows a table (default 20)\n"
    "    --paths K          retainer paths for K growers (default 3)\n"
    "              e.g.         +bytes      +count     bytes in B  count in B\n"
    "                        +1920000      +60000        1920032       60001\n"
    "                    CONSTR main:Main.Request\n",
    1, debug_diff_run};
