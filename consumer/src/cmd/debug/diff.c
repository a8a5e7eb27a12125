/* rtscope debug diff: what grew between two heaps of one program (two
 * snapshots, or a snapshot and the live program), by info table,
 * constructor and module, and what holds the growth. The analysis is
 * lib/debug's heap_diff.c (Note [Heap diff]); the command names the info
 * tables, makes a report (diff_report) and a text writer prints it. */
#define _GNU_SOURCE
#include "debug.h"
#include "groups.h"

#include "cli.h"
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/heap_diff.h"
#include "session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G_N DEBUG_NGROUPINGS

/* ---- the report ---------------------------------------------------------- */

/* A group that grew, as a table shows it. */
typedef struct diff_row {
    const char *name;     /* in the diff's names */
    int64_t bytes, count; /* growth */
    uint64_t bytes_b, count_b;
} diff_row;

/* One grouping's table: the groups that grew, largest first. */
typedef struct diff_table {
    diff_row *rows; /* at most limit */
    size_t nrows;
    size_t more;    /* grew, beyond the rows */
    size_t shrank;  /* groups that shrank */
    int64_t shrunk; /* their bytes lost */
} diff_table;

/* One of the info tables that grew most, and a closure of it in B. */
typedef struct diff_grower {
    const char *name;
    int64_t bytes, count; /* growth */
    int shown;            /* B has a closure of it: */
    uint64_t addr;        /* its address, */
    size_t pathlen;       /* closures on its retainer path */
    char *path;           /* the path, as debug_print_graph_path prints it */
} diff_grower;

typedef struct diff_report {
    const char *target[2];
    dbg_heap_diff d; /* the groups and their names */
    diff_table table[G_N];
    diff_grower *grower;
    size_t ngrowers;
} diff_report;

static void diff_report_free(diff_report *r)
{
    for (int k = 0; k < G_N; k++)
        free(r->table[k].rows);
    for (size_t i = 0; i < r->ngrowers; i++)
        free(r->grower[i].path);
    free(r->grower);
    dbg_heap_diff_free(&r->d);
}

/* Info tables are named without their address, to match the tables of
 * two heaps of one program (Note [Heap diff]); ctx: the heap. */
static void diff_name(void *ctx, size_t info, int k, char *buf, size_t len)
{
    dbg_heap *h = ctx;
    debug_group_name(h, dbg_heap_info_at(h, info), (enum debug_grouping)k, 0,
                     buf, len);
}

/* Grouping k's table from its ranking: the groups that grew, at most
 * limit. */
static int diff_table_fill(diff_report *r, int k, const dbg_diff_rank *rank,
                           size_t limit)
{
    diff_table *t = &r->table[k];
    size_t n = rank->grew < limit ? rank->grew : limit;
    t->rows = malloc((n ? n : 1) * sizeof(*t->rows));
    if (!t->rows)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = rank->order[i];
        const dbg_diff_group *g = &r->d.group[k][id];
        t->rows[i] = (diff_row){.name = r->d.names[k].s[id],
                                .bytes = dbg_diff_growth(g),
                                .count = dbg_diff_count_growth(g),
                                .bytes_b = g->bytes[1],
                                .count_b = g->count[1]};
    }
    t->nrows = n;
    t->more = rank->grew - n;
    t->shrank = rank->shrank;
    t->shrunk = rank->shrunk;
    return 0;
}

/* Grower gid of the info-table grouping, with the closure of B the walk
 * reached last and its retainer path. */
static int diff_grower_fill(diff_report *r, diff_grower *w, dbg_heap *hb,
                            const dbg_graph *g, uint32_t gid)
{
    const dbg_diff_group *grp = &r->d.group[DEBUG_BY_INFO][gid];
    w->name = r->d.names[DEBUG_BY_INFO].s[gid];
    w->bytes = dbg_diff_growth(grp);
    w->count = dbg_diff_count_growth(grp);
    uint32_t pick = dbg_heap_diff_last_in_b(&r->d, DEBUG_BY_INFO, gid, g);
    if (pick == DBG_GRAPH_NONE)
        return 0;
    w->shown = 1;
    w->addr = g->addr[pick];
    w->pathlen = debug_graph_path_len(g, pick);
    size_t len = 0;
    FILE *mf = open_memstream(&w->path, &len);
    if (!mf)
        return -1;
    debug_print_graph_path(mf, hb, g, pick);
    return fclose(mf) == 0 ? 0 : -1;
}

/* The first npaths growers of the ranking by info table. */
static int diff_growers(diff_report *r, const dbg_diff_rank *by_info,
                        dbg_heap *hb, const dbg_graph *g, size_t npaths)
{
    size_t ng = by_info->grew < npaths ? by_info->grew : npaths;
    diff_grower *w = calloc(ng ? ng : 1, sizeof(*w));
    if (!w)
        return -1;
    r->grower = w;
    for (size_t i = 0; i < ng; i++) {
        r->ngrowers = i + 1; /* what is filled is freed */
        if (diff_grower_fill(r, &w[i], hb, g, by_info->order[i]) != 0)
            return -1;
    }
    return 0;
}

/* The report of heap A's census and heap B's graph: every grouping's
 * table of at most limit rows, and the first npaths growers by info
 * table. 0, or -1 when out of memory. */
static int diff_report_build(diff_report *r, dbg_heap *ha,
                             const dbg_info_census *ca, dbg_heap *hb,
                             const dbg_graph *g, size_t limit, size_t npaths)
{
    dbg_info_census cb = {0};
    int bad = dbg_info_census_of_graph(&cb, g) != 0 ||
              dbg_heap_diff_add(&r->d, 0, ca, diff_name, ha) != 0 ||
              dbg_heap_diff_add(&r->d, 1, &cb, diff_name, hb) != 0;
    dbg_info_census_free(&cb);
    dbg_diff_rank rank[G_N] = {{0}};
    for (int k = 0; k < G_N && !bad; k++)
        bad = dbg_heap_diff_rank(&r->d, k, &rank[k]) != 0 ||
              diff_table_fill(r, k, &rank[k], limit) != 0;
    if (!bad)
        bad = diff_growers(r, &rank[DEBUG_BY_INFO], hb, g, npaths) != 0;
    for (int k = 0; k < G_N; k++)
        dbg_diff_rank_free(&rank[k]);
    return bad ? -1 : 0;
}

/* ---- the text writer ------------------------------------------------------
 */

static void diff_text_table(FILE *f, const diff_report *r, int k)
{
    const diff_table *t = &r->table[k];
    const char *title = debug_grouping_title[k];
    fprintf(f, "\ngrowth by %s\n", title);
    fprintf(f, "%13s %11s %14s %11s  %s\n", "+bytes", "+count", "bytes in B",
            "count in B", title);
    for (size_t i = 0; i < t->nrows; i++) {
        const diff_row *row = &t->rows[i];
        fprintf(f,
                "%+13" PRId64 " %+11" PRId64 " %14" PRIu64 " %11" PRIu64
                "  %s\n",
                row->bytes, row->count, row->bytes_b, row->count_b, row->name);
    }
    if (t->more)
        fprintf(f, "... %zu more that grew\n", t->more);
    if (t->shrank)
        fprintf(f, "%zu shrank, by %" PRId64 " bytes in all\n", t->shrank,
                t->shrunk);
}

static void diff_text_grower(FILE *f, const diff_grower *w, size_t rank)
{
    fprintf(f, "\ngrower %zu: %s, %+" PRId64 " bytes, %+" PRId64 " closures\n",
            rank, w->name, w->bytes, w->count);
    if (!w->shown)
        return;
    fprintf(f,
            "  what holds one in B (0x%012" PRIx64 "): %zu closures, root "
            "first\n%s",
            w->addr, w->pathlen, w->path ? w->path : "");
}

static void diff_write_text(FILE *f, const diff_report *r)
{
    const dbg_heap_diff *d = &r->d;
    fprintf(f,
            "heap diff: A %s: %" PRIu64 " closures, %" PRIu64 " bytes; "
            "B %s: %" PRIu64 " closures, %" PRIu64 " bytes; "
            "%+" PRId64 " bytes, %+" PRId64 " closures\n",
            r->target[0], d->count[0], d->bytes[0], r->target[1], d->count[1],
            d->bytes[1], (int64_t)d->bytes[1] - (int64_t)d->bytes[0],
            (int64_t)d->count[1] - (int64_t)d->count[0]);
    for (int k = 0; k < G_N; k++)
        diff_text_table(f, r, k);
    for (size_t i = 0; i < r->ngrowers; i++)
        diff_text_grower(f, &r->grower[i], i + 1);
}

/* ---- the command ----------------------------------------------------------
 */

/* Walk heap B of the open session into g. 0, or an exit status with the
 * error printed. */
static int diff_walk_b(debug_session *sb, int gc, dbg_graph *g)
{
    dbg_graph_builder *b = dbg_graph_builder_new(&sb->heap, g);
    if (!b)
        return debug_fail("out of memory");
    int rc = debug_session_walk(sb, gc, dbg_graph_visit, b, 0);
    if (dbg_graph_builder_finish(b, sb->roots, sb->nroots) != 0 && !rc)
        rc = debug_fail("%s", g->err);
    return rc;
}

/* ---- two programs? ------------------------------------------------------ */

/* An info table of a snapshot: its address and name, sorted by address. */
typedef struct diff_info_key {
    uint64_t ptr;
    const char *name;
} diff_info_key;

static int diff_info_cmp(const void *x, const void *y)
{
    uint64_t a = ((const diff_info_key *)x)->ptr;
    uint64_t b = ((const diff_info_key *)y)->ptr;
    return a < b ? -1 : a > b;
}

static const char *diff_info_name(const dbg_snap_info *in)
{
    if (in->nsrc == DBG_SOURCE_FIELDS && in->src[0] && in->src[0][0])
        return in->src[0];
    return in->con ? in->con : "";
}

static diff_info_key *diff_infos_sorted(const dbg_snap *s)
{
    diff_info_key *v = malloc((s->ninfos ? s->ninfos : 1) * sizeof(*v));
    if (!v)
        return NULL;
    for (size_t i = 0; i < s->ninfos; i++)
        v[i] = (diff_info_key){s->infos[i].ptr, diff_info_name(&s->infos[i])};
    qsort(v, s->ninfos, sizeof(*v), diff_info_cmp);
    return v;
}

/* Of the info tables at addresses both snapshots have, how many they name
 * differently (*shared: how many addresses they share): code that moved,
 * so another build or another program. -1 when out of memory. */
static long diff_renamed_tables(const dbg_snap *a, const dbg_snap *b,
                                size_t *shared)
{
    diff_info_key *va = diff_infos_sorted(a), *vb = diff_infos_sorted(b);
    long renamed = 0;
    *shared = 0;
    if (!va || !vb)
        renamed = -1;
    for (size_t i = 0, j = 0; renamed >= 0 && i < a->ninfos && j < b->ninfos;) {
        if (va[i].ptr < vb[j].ptr) {
            i++;
        } else if (va[i].ptr > vb[j].ptr) {
            j++;
        } else {
            (*shared)++;
            if (strcmp(va[i].name, vb[j].name) != 0)
                renamed++;
            i++;
            j++;
        }
    }
    free(va);
    free(vb);
    return renamed;
}

/* A diff of two programs, or two builds of one, compares groups by name
 * only: say so on stderr (the diff is still made). Snapshots name their
 * program (its control characters blanked when loaded); a live target's
 * name is not known here. */
static void diff_warn_programs(const debug_session *sa, const debug_session *sb)
{
    if (!sa->is_snapshot || !sb->is_snapshot)
        return;
    const char *pa = sa->snap.program, *pb = sb->snap.program;
    if (pa[0] && pb[0] && strcmp(pa, pb) != 0) {
        fprintf(stderr,
                "rtscope debug: warning: A is a heap of %s, B of %s: "
                "different programs, compared by the names of their "
                "info tables only\n",
                pa, pb);
        return;
    }
    size_t shared;
    long renamed = diff_renamed_tables(&sa->snap, &sb->snap, &shared);
    if (renamed > 0)
        fprintf(stderr,
                "rtscope debug: warning: %ld of the %zu info-table addresses "
                "A and B share hold different tables: two builds of %s, "
                "compared by the names of their info tables only\n",
                renamed, shared, pa[0] ? pa : "the program");
}

static int debug_diff(const char *ta, const char *tb, int gc, size_t limit,
                      size_t npaths)
{
    debug_session sa, sb;
    dbg_info_census ca = {0};
    dbg_graph g = {0};
    diff_report r = {.target = {ta, tb}};
    dbg_heap_diff_init(&r.d, G_N);
    int rc = debug_session_open(&sa, ta), opened_b = 0;
    if (rc)
        return rc;
    ca.h = &sa.heap;
    rc = debug_session_walk(&sa, gc, dbg_info_census_visit, &ca, 0);
    if (!rc && ca.nomem)
        rc = debug_fail("out of memory");
    if (!rc) {
        rc = debug_session_open(&sb, tb);
        opened_b = !rc;
    }
    if (!rc)
        diff_warn_programs(&sa, &sb);
    if (!rc)
        rc = diff_walk_b(&sb, gc, &g);
    if (!rc &&
        diff_report_build(&r, &sa.heap, &ca, &sb.heap, &g, limit, npaths) != 0)
        rc = debug_fail("out of memory");
    if (!rc) {
        diff_write_text(stdout, &r);
        debug_warn_unreadable(&sa.heap, "A's counts may be low");
        debug_warn_unreadable(&sb.heap, "B's counts may be low");
    }
    debug_session_close(&sa);
    if (opened_b)
        debug_session_close(&sb);
    dbg_graph_free(&g);
    dbg_info_census_free(&ca);
    diff_report_free(&r);
    return rc;
}

/* What `debug diff` is given. */
typedef struct diff_args {
    long limit, paths;
} diff_args;

static const opt diff_opts[] = {
    {.name = "limit",
     .kind = OPT_COUNT,
     .argname = "N",
     .min = 1,
     .max = 1000000,
     .value = OPT_AT(diff_args, limit),
     .help = "at most N rows a table (default 20)",
     .bad = "not a positive number"},
    {.name = "paths",
     .kind = OPT_COUNT,
     .argname = "K",
     .max = 100,
     .value = OPT_AT(diff_args, paths),
     .help = "retainer paths for K growers (default 3)",
     .bad = "a number from 0 to 100"},
    OPT_END,
};

int debug_diff_run(int argc, char **argv)
{
    diff_args da = {.limit = 20, .paths = 3};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_diff, argc, argv, &da, 2, &a);
    return r >= 0 ? r
                  : debug_diff(a.target[0], a.target[1], a.gc, (size_t)da.limit,
                               (size_t)da.paths);
}

static const char debug_diff_help[] =
    "  diff        what grew from heap A to heap B of one program (A and B\n"
    "              snapshots, or B the live program): closures and bytes\n"
    "              by info table, constructor and module, largest growth\n"
    "              first, and for the K info tables that grew most a\n"
    "              closure of B and its retainer path\n";

static const char debug_diff_example[] =
    "              e.g.         +bytes      +count     bytes in B  count in B\n"
    "                        +1920000      +60000        1920032       60001\n"
    "                    CONSTR main:Main.Request\n";

const debug_command debug_cmd_diff = {
    .name = "diff",
    .synopsis =
        "rtscope debug diff A B [--limit N] [--paths K] [--no-gc|--fork]\n",
    .help = debug_diff_help,
    .opts = diff_opts,
    .example = debug_diff_example,
    .no_gc = 1,
    .run = debug_diff_run,
};
