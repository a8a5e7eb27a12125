/* rtscope debug dominators: the dominator tree of the reachable heap,
 * retained sizes by info table, constructor and module, and the leak
 * suspects (lib/debug's dominance.c: Note [Leak suspects]). The analyses
 * make a report (dom_report); a text and an HTML writer print it. */
#define _GNU_SOURCE
#include "debug.h"
#include "groups.h"

#include "cli.h"
#include "rtscope/base/procmem.h"
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/dominance.h"
#include "rtscope/out/report.h"
#include "session.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define G_N DEBUG_NGROUPINGS
#define DOM_MAX_SUSPECTS 16
#define DOM_MOSTLY 3

/* ---- the report ---------------------------------------------------------- */

typedef struct dom_row {
    const char *name; /* in the report's names */
    uint32_t id;      /* the name's id */
    dbg_group_sum sum;
} dom_row;

typedef struct dom_suspect {
    uint64_t addr, retained;
    char name[1400];   /* its info table */
    char mostly[4400]; /* "P% NAME; ..." of what it retains */
    size_t pathlen;    /* closures on its retainer path */
    char *path;        /* the path, as debug_print_graph_path prints it */
} dom_suspect;

typedef struct dom_report {
    size_t n, nroots;
    uint64_t bytes;
    double read_s, dom_s;
    long peak_mib;
    long held_mib;    /* resident before the walk: a snapshot's heap, read */
    double threshold; /* percent */
    uint64_t thr;     /* bytes */
    strtab names[G_N];
    dom_row *rows[G_N]; /* largest retained first, at most limit */
    size_t nrows[G_N];
    dom_suspect sus[DOM_MAX_SUSPECTS];
    size_t ns;
} dom_report;

static void dom_report_free(dom_report *r)
{
    for (int k = 0; k < G_N; k++) {
        strtab_free(&r->names[k]);
        free(r->rows[k]);
    }
    for (size_t i = 0; i < r->ns; i++)
        free(r->sus[i].path);
}

static void pct_of(char *buf, size_t len, uint64_t part, uint64_t whole)
{
    snprintf(buf, len, "%.1f%%",
             whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static int by_retained(const void *a, const void *b)
{
    const dom_row *x = a, *y = b;
    if (x->sum.retained != y->sum.retained)
        return x->sum.retained < y->sum.retained ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The group of every info table in grouping k, named into r->names[k];
 * NULL when out of memory. */
static uint32_t *dom_gids(dom_report *r, dbg_heap *h, int k)
{
    size_t ni = dbg_heap_ninfos(h);
    uint32_t *gid = malloc((ni ? ni : 1) * sizeof(uint32_t));
    for (size_t i = 0; gid && i < ni; i++) {
        char buf[1400];
        debug_group_name(h, dbg_heap_info_at(h, i), (enum debug_grouping)k, 1,
                         buf, sizeof(buf));
        int64_t id = strtab_id_str(&r->names[k], buf);
        if (id < 0) {
            free(gid);
            return NULL;
        }
        gid[i] = (uint32_t)id;
    }
    return gid;
}

/* The rows of grouping k from its sums: largest first, at most limit with
 * closures. Takes sums. */
static void dom_rows(dom_report *r, int k, dbg_group_sum *sums, size_t limit,
                     dom_row *rows)
{
    size_t ng = r->names[k].n;
    for (size_t i = 0; i < ng; i++)
        rows[i] = (dom_row){
            .name = r->names[k].s[i], .id = (uint32_t)i, .sum = sums[i]};
    qsort(rows, ng, sizeof(*rows), by_retained);
    size_t m = 0;
    while (m < ng && m < limit && rows[m].sum.count)
        m++;
    r->rows[k] = rows;
    r->nrows[k] = m;
}

/* Every grouping's rows, summed in one walk of the tree. */
static int dom_groups(dom_report *r, dbg_heap *h, const dbg_graph *g,
                      const dbg_domtree *t, size_t limit)
{
    uint32_t *gid[G_N] = {0};
    dbg_group_sum *sums[G_N] = {0};
    size_t ng[G_N] = {0};
    int bad = 0;
    for (int k = 0; k < G_N && !bad; k++) {
        gid[k] = dom_gids(r, h, k);
        ng[k] = r->names[k].n;
        sums[k] = malloc((ng[k] ? ng[k] : 1) * sizeof(*sums[k]));
        bad = !gid[k] || !sums[k];
    }
    bad = bad || dbg_dom_group_sums(g, t, G_N, (const uint32_t *const *)gid, ng,
                                    sums) != 0;
    for (int k = 0; k < G_N; k++) {
        dom_row *rows =
            bad ? NULL : malloc((ng[k] ? ng[k] : 1) * sizeof(*rows));
        bad |= !rows;
        if (rows)
            dom_rows(r, k, sums[k], limit, rows);
        free(gid[k]);
        free(sums[k]);
    }
    return bad ? -1 : 0;
}

/* Suspect v, named, with its composition and retainer path. */
static int dom_suspect_fill(dom_suspect *d, dbg_heap *h, const dbg_graph *g,
                            const dbg_domtree *t, uint32_t v)
{
    d->addr = g->addr[v];
    d->retained = g->retained[v];
    debug_group_name(h, dbg_heap_info_at(h, g->info[v]), DEBUG_BY_INFO, 1,
                     d->name, sizeof(d->name));
    dbg_dom_part part[DOM_MOSTLY];
    size_t np = dbg_dom_composition(g, t, v, part, DOM_MOSTLY);
    if (np == (size_t)-1)
        return -1;
    size_t at = 0;
    d->mostly[0] = '\0';
    for (size_t j = 0; j < np && at < sizeof(d->mostly); j++) {
        char name[1400], pct[32];
        debug_group_name(h, dbg_heap_info_at(h, part[j].info), DEBUG_BY_INFO, 0,
                         name, sizeof(name));
        pct_of(pct, sizeof(pct), part[j].bytes, d->retained);
        int w = snprintf(d->mostly + at, sizeof(d->mostly) - at, "%s%s %s",
                         j ? "; " : "", pct, name);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    d->pathlen = debug_graph_path_len(g, v);
    size_t len = 0;
    FILE *mf = open_memstream(&d->path, &len);
    if (!mf)
        return -1;
    debug_print_graph_path(mf, h, g, v);
    return fclose(mf) == 0 ? 0 : -1;
}

/* The analyses of a walked heap with its dominators into r. */
static int dom_report_build(dom_report *r, dbg_heap *h, const dbg_graph *g,
                            size_t limit)
{
    dbg_domtree t;
    if (dbg_domtree_build(g, &t) != 0)
        return -1;
    int bad = dom_groups(r, h, g, &t, limit) != 0;
    r->thr = (uint64_t)((double)g->bytes * r->threshold / 100.0);
    if (r->thr == 0)
        r->thr = 1;
    uint32_t sus[DOM_MAX_SUSPECTS];
    size_t ns =
        bad ? 0 : dbg_dom_suspects(g, &t, r->thr, sus, DOM_MAX_SUSPECTS);
    bad |= ns == (size_t)-1;
    for (size_t i = 0; !bad && i < ns; i++) {
        bad = dom_suspect_fill(&r->sus[i], h, g, &t, sus[i]) != 0;
        r->ns = i + 1; /* what is filled is freed */
    }
    dbg_domtree_free(&t);
    return bad ? -1 : 0;
}

/* ---- the text writer ------------------------------------------------------
 */

static void dom_text_groups(FILE *f, const dom_report *r, int k)
{
    const char *title = debug_grouping_title[k];
    fprintf(f,
            "\nretained by %s (what no closure of the same %s "
            "dominates)\n%14s %7s %10s %14s  %s\n",
            title, title, "retained", "heap", "count", "own bytes", title);
    for (size_t i = 0; i < r->nrows[k]; i++) {
        const dom_row *row = &r->rows[k][i];
        char pct[32];
        pct_of(pct, sizeof(pct), row->sum.retained, r->bytes);
        fprintf(f, "%14" PRIu64 " %7s %10" PRIu64 " %14" PRIu64 "  %s\n",
                row->sum.retained, pct, row->sum.count, row->sum.bytes,
                row->name);
    }
}

static void dom_write_text(FILE *f, const dom_report *r)
{
    fprintf(f,
            "dominator tree: %zu closures, %" PRIu64 " bytes "
            "reachable from %zu roots; heap read in %.2f s, "
            "dominators computed in %.2f s (peak memory %ld "
            "MiB, %ld MiB of it held before the walk)\n",
            r->n, r->bytes, r->nroots, r->read_s, r->dom_s, r->peak_mib,
            r->held_mib);
    for (int k = 0; k < G_N; k++)
        dom_text_groups(f, r, k);
    fprintf(f,
            "\nleak suspects: %zu closure%s retaining at "
            "least %.1f%% of the heap (%" PRIu64 " bytes) each\n",
            r->ns, r->ns == 1 ? "" : "s", r->threshold, r->thr);
    for (size_t i = 0; i < r->ns; i++) {
        const dom_suspect *d = &r->sus[i];
        char pct[32];
        pct_of(pct, sizeof(pct), d->retained, r->bytes);
        fprintf(f,
                "\nsuspect %zu: 0x%012" PRIx64 " %s\n  retains %" PRIu64
                " bytes (%s of the heap)\n  mostly: %s\n  retainer path: %zu "
                "closures, root first\n%s",
                i + 1, d->addr, d->name, d->retained, pct, d->mostly,
                d->pathlen, d->path ? d->path : "");
    }
}

/* ---- the HTML writer ------------------------------------------------------
 */

static void dom_html_groups(FILE *f, const dom_report *r, int k)
{
    static const char *const ids[G_N] = {"info", "constructor", "module"};
    const char *title = debug_grouping_title[k];
    fprintf(f,
            "<h2>Retained by %s</h2>\n<p>What no closure of the "
            "same %s dominates.</p>\n<table class=\"rows\" id=\"by-%s\">"
            "<tr><th>retained</th><th>heap</th><th>count</th>"
            "<th>own bytes</th><th class=\"name\">%s</th></tr>\n",
            title, title, ids[k], title);
    for (size_t i = 0; i < r->nrows[k]; i++) {
        const dom_row *row = &r->rows[k][i];
        char pct[32];
        pct_of(pct, sizeof(pct), row->sum.retained, r->bytes);
        fprintf(f,
                "<tr><td>%" PRIu64 "</td><td>%s</td><td>%" PRIu64
                "</td><td>%" PRIu64 "</td><td class=\"name\">",
                row->sum.retained, pct, row->sum.count, row->sum.bytes);
        report_html_escape(f, row->name);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void dom_html_suspect(FILE *f, const dom_report *r, size_t i)
{
    const dom_suspect *d = &r->sus[i];
    char pct[32];
    pct_of(pct, sizeof(pct), d->retained, r->bytes);
    fprintf(f, "<h3 class=\"suspect\">Suspect %zu: 0x%012" PRIx64 " ", i + 1,
            d->addr);
    report_html_escape(f, d->name);
    fprintf(f,
            "</h3>\n<p>Retains %" PRIu64 " bytes (%s of the heap), "
            "mostly: ",
            d->retained, pct);
    report_html_escape(f, d->mostly);
    fprintf(f,
            ".</p>\n<p>Retainer path: %zu closures, root first</p>\n"
            "<pre class=\"path\">",
            d->pathlen);
    if (d->path)
        report_html_escape_pre(f, d->path);
    fputs("</pre>\n", f);
}

/* The page's body (report_page_begin/end around it): the suspects first,
 * which are what the page is opened for. */
static void dom_write_html(FILE *f, const dom_report *r)
{
    fprintf(f,
            "<p id=\"summary\">Dominator tree: %zu closures, "
            "%" PRIu64 " bytes reachable from %zu roots; heap "
            "read in %.2f s, dominators computed in %.2f s (peak "
            "memory %ld MiB, %ld MiB of it held before the walk).</p>\n",
            r->n, r->bytes, r->nroots, r->read_s, r->dom_s, r->peak_mib,
            r->held_mib);
    fprintf(f,
            "<h2>Leak suspects</h2>\n<p id=\"suspects\">"
            "%zu closure%s retaining at least %.1f%% "
            "of the heap (%" PRIu64 " bytes) each.</p>\n",
            r->ns, r->ns == 1 ? "" : "s", r->threshold, r->thr);
    for (size_t i = 0; i < r->ns; i++)
        dom_html_suspect(f, r, i);
    for (int k = 0; k < G_N; k++)
        dom_html_groups(f, r, k);
}

/* ---- the command ----------------------------------------------------------
 */

/* Walk the heap of the open session into g with its dominators, timed
 * into r. 0, or an exit status with the error printed. */
static int dom_walk(debug_session *ss, int gc, dbg_graph *g, dom_report *r)
{
    double t0 = debug_now_s();
    dbg_graph_builder *b = dbg_graph_builder_new(&ss->heap, g);
    if (!b)
        return debug_fail("out of memory");
    int rc = debug_session_walk(ss, gc, dbg_graph_visit, b, 0);
    if (dbg_graph_builder_finish(b, ss->roots, ss->nroots) != 0 && !rc)
        rc = debug_fail("%s", g->err);
    if (rc)
        return rc;
    double t1 = debug_now_s();
    if (dbg_graph_dominators(g) != 0)
        return debug_fail("%s", g->err);
    r->read_s = t1 - t0;
    r->dom_s = debug_now_s() - t1;
    r->n = g->n;
    r->bytes = g->bytes;
    r->nroots = g->nroots;
    return 0;
}

/* Write the report to html as a page; 0 or an exit status. */
static int dom_page(const dom_report *r, FILE *f, const char *html,
                    const char *target)
{
    char title[4200];
    snprintf(title, sizeof(title), "rtscope debug dominators %s", target);
    int bad = report_page_begin(f, title) != 0;
    if (!bad) {
        dom_write_html(f, r);
        bad = report_page_end(f) != 0;
    }
    bad |= fclose(f) != 0;
    if (bad)
        return debug_fail("%s: cannot write the page", html);
    printf("dominators: %zu closures, %zu leak suspect%s; report "
           "written to %s\n",
           r->n, r->ns, r->ns == 1 ? "" : "s", html);
    return 0;
}

static int debug_dominators(const char *target, int gc, double threshold,
                            size_t limit, const char *html)
{
    debug_session ss;
    dbg_graph g = {0};
    dom_report r = {.threshold = threshold};
    FILE *page = NULL;
    /* the page's file before any pause: a path that cannot be written
     * is refused without touching the program */
    if (html && !(page = fopen(html, "w")))
        return debug_fail("%s: cannot write: %s", html, strerror(errno));
    int rc = debug_session_open(&ss, target);
    if (rc) {
        if (page)
            fclose(page);
        return rc;
    }
    long long held = rt_resident_bytes();
    r.held_mib = held > 0 ? (long)(held >> 20) : 0;
    rc = dom_walk(&ss, gc, &g, &r);
    if (!rc && dom_report_build(&r, &ss.heap, &g, limit) != 0)
        rc = debug_fail("out of memory");
    if (!rc) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        r.peak_mib = ru.ru_maxrss / 1024;
        if (page) {
            rc = dom_page(&r, page, html, target);
            page = NULL;
        } else {
            dom_write_text(stdout, &r);
        }
        debug_warn_unreadable(&ss.heap, "sizes may be low");
    }
    if (page)
        fclose(page);
    debug_session_close(&ss);
    dbg_graph_free(&g);
    dom_report_free(&r);
    return rc;
}

/* What `debug dominators` is given. */
typedef struct dominators_args {
    double threshold;
    long limit;
    const char *html;
} dominators_args;

static const opt dominators_opts[] = {
    {.name = "threshold",
     .kind = OPT_NUMBER,
     .argname = "PCT",
     .lo = DBL_TRUE_MIN,
     .hi = 100,
     .value = OPT_AT(dominators_args, threshold),
     .help = "a suspect retains at least PCT% (default 10)",
     .bad = "a percentage above 0, at most 100"},
    {.name = "limit",
     .kind = OPT_COUNT,
     .argname = "N",
     .min = 1,
     .max = 1000000,
     .value = OPT_AT(dominators_args, limit),
     .help = "at most N rows a table (default 20)",
     .bad = "not a positive number"},
    {.name = "html",
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(dominators_args, html),
     .help = "write the report as a self-contained page"},
    OPT_END,
};

int debug_dominators_run(int argc, char **argv)
{
    dominators_args da = {.threshold = 10.0, .limit = 20};
    rt_mmap_big_arrays(); /* each step's arrays given back for the next */
    debug_args a;
    int r = debug_parse_args(&debug_cmd_dominators, argc, argv, &da, 1, &a);
    return r >= 0 ? r
                  : debug_dominators(a.target[0], a.gc, da.threshold,
                                     (size_t)da.limit, da.html);
}

static const char debug_dominators_help[] =
    "  dominators  the dominator tree of the reachable heap: retained sizes\n"
    "              by info table, constructor and module (a group's closures\n"
    "              that no other of the group dominates), and the leak\n"
    "              suspects: closures retaining at least PCT% of the heap,\n"
    "              followed down to where the bytes spread out, each with\n"
    "              what it mostly holds and its retainer path\n";

static const char debug_dominators_example[] =
    "              e.g.  suspect 1: 0x004200a1b2c0 0x4d2e10 CONSTR\n"
    "                    containers:Data.Map.Internal.Bin\n"
    "                      retains 41230000 bytes (71.2% of the heap)\n";

const debug_command debug_cmd_dominators = {
    .name = "dominators",
    .synopsis = "rtscope debug dominators TARGET [--threshold PCT] [--limit N] "
                "[--html FILE]\n"
                "                         [--no-gc|--fork]\n",
    .help = debug_dominators_help,
    .opts = dominators_opts,
    .example = debug_dominators_example,
    .no_gc = 1,
    .run = debug_dominators_run,
};
