/* rtscope debug dominators: the dominator tree of the reachable heap,
 * retained sizes by info table, constructor and module, and the leak
 * suspects (Note [Leak suspects]). */
#define _GNU_SOURCE
#include "debug.h"
#include "groups.h"

#include "cli.h"
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/out/report.h"
#include "session.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Note [Retained size by group]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The retained size of a group (an info table, a constructor, a module) is
 * the sum of the retained sizes of its closures that no other closure of
 * the group dominates: a list's cells each retain the rest of the list,
 * and adding them all up would count the tail once per cell. It is what
 * the heap would lose if every closure of the group became unreachable.
 * One preorder walk of the dominator tree computes it for the three
 * groupings at once, with a count per group of its closures open on the
 * walk's path. */

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

typedef struct dom_group {
    uint64_t retained; /* Note [Retained size by group] */
    uint64_t bytes;    /* its own closures' bytes */
    uint64_t count;
    uint32_t open;
    uint32_t top; /* closures not dominated by one of the group */
} dom_group;

#define G_N DEBUG_NGROUPINGS

typedef struct dom_state {
    dbg_heap *h;
    dbg_graph g;
    /* per info table: its group in each grouping */
    uint32_t *gid[G_N];
    debug_names names[G_N]; /* group id -> name */
    dom_group *groups[G_N];
    /* the dominator tree's children */
    uint32_t *coff, *child;
} dom_state;

static void info_name(dbg_heap *h, dbg_info *in, char *buf, size_t len)
{
    debug_group_name(h, in, DEBUG_BY_INFO, 1, buf, len);
}

/* Groups of every info table, names interned. */
static int dom_groups(dom_state *s)
{
    size_t ni = s->h->ninfos;
    for (int k = 0; k < G_N; k++) {
        s->gid[k] = malloc((ni ? ni : 1) * sizeof(uint32_t));
        if (!s->gid[k])
            return -1;
        for (size_t i = 0; i < ni; i++) {
            char buf[1400];
            debug_group_name(s->h, &s->h->infos[i], (enum debug_grouping)k, 1,
                             buf, sizeof(buf));
            long id = debug_names_id(&s->names[k], buf);
            if (id < 0)
                return -1;
            s->gid[k][i] = (uint32_t)id;
        }
        s->groups[k] = calloc(s->names[k].n + 1, sizeof(dom_group));
        if (!s->groups[k])
            return -1;
    }
    return 0;
}

/* The dominator tree's children lists (the virtual root is g.n). */
static int dom_children(dom_state *s)
{
    size_t n = s->g.n;
    s->coff = calloc(n + 2, sizeof(uint32_t));
    s->child = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!s->coff || !s->child)
        return -1;
    for (size_t v = 0; v < n; v++)
        s->coff[s->g.idom[v] + 1]++;
    for (size_t i = 1; i <= n + 1; i++)
        s->coff[i] += s->coff[i - 1];
    uint32_t *fill = malloc((n + 1) * sizeof(uint32_t));
    if (!fill)
        return -1;
    memcpy(fill, s->coff, (n + 1) * sizeof(uint32_t));
    for (size_t v = 0; v < n; v++)
        s->child[fill[s->g.idom[v]]++] = (uint32_t)v;
    free(fill);
    return 0;
}

/* Note [Retained size by group]: a preorder walk of the dominator tree. */
static int dom_aggregate(dom_state *s)
{
    size_t n = s->g.n;
    uint32_t *stack = malloc((n + 1) * sizeof(uint32_t));
    uint32_t *next = malloc((n + 1) * sizeof(uint32_t));
    if (!stack || !next) {
        free(stack);
        free(next);
        return -1;
    }
    size_t sp = 0;
    stack[sp] = (uint32_t)n;
    next[sp++] = s->coff[n];
    while (sp > 0) {
        uint32_t v = stack[sp - 1];
        if (next[sp - 1] == s->coff[v + 1]) { /* leave v */
            sp--;
            if (v != n)
                for (int k = 0; k < G_N; k++)
                    s->groups[k][s->gid[k][s->g.info[v]]].open--;
            continue;
        }
        uint32_t c = s->child[next[sp - 1]++];
        for (int k = 0; k < G_N; k++) { /* enter c */
            dom_group *gr = &s->groups[k][s->gid[k][s->g.info[c]]];
            if (!gr->open) {
                gr->retained += s->g.retained[c];
                gr->top++;
            }
            gr->open++;
            gr->count++;
            gr->bytes += s->g.size[c];
        }
        stack[sp] = c;
        next[sp++] = s->coff[c];
    }
    free(stack);
    free(next);
    return 0;
}

static const dom_group *sort_groups;
static int by_retained(const void *a, const void *b)
{
    const dom_group *x = &sort_groups[*(const uint32_t *)a],
                    *y = &sort_groups[*(const uint32_t *)b];
    if (x->retained != y->retained)
        return x->retained < y->retained ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void pct_of(char *buf, size_t len, uint64_t part, uint64_t whole)
{
    snprintf(buf, len, "%.1f%%",
             whole ? 100.0 * (double)part / (double)whole : 0.0);
}

/* Where the report goes: text on stdout, or an HTML page (--html). */
typedef struct dom_out {
    FILE *f;
    int html;
} dom_out;

static int dom_print_groups(dom_state *s, dom_out *o, int k, size_t limit)
{
    const char *const *title = debug_grouping_title;
    size_t ng = s->names[k].n;
    uint32_t *order = malloc((ng + 1) * sizeof(uint32_t));
    if (!order)
        return -1;
    for (uint32_t i = 0; i < ng; i++)
        order[i] = i;
    sort_groups = s->groups[k];
    qsort(order, ng, sizeof(*order), by_retained);
    if (o->html)
        fprintf(o->f,
                "<h2>Retained by %s</h2>\n<p>What no closure of the "
                "same %s dominates.</p>\n<table class=\"rows\" id=\"by-%s\">"
                "<tr><th>retained</th><th>heap</th><th>count</th>"
                "<th>own bytes</th><th class=\"name\">%s</th></tr>\n",
                title[k], title[k],
                k == 0   ? "info"
                : k == 1 ? "constructor"
                         : "module",
                title[k]);
    else
        fprintf(o->f,
                "\nretained by %s (what no closure of the same %s "
                "dominates)\n%14s %7s %10s %14s  %s\n",
                title[k], title[k], "retained", "heap", "count", "own bytes",
                title[k]);
    for (size_t i = 0; i < ng && i < limit; i++) {
        const dom_group *gr = &s->groups[k][order[i]];
        if (!gr->count)
            break;
        char pct[32];
        pct_of(pct, sizeof(pct), gr->retained, s->g.bytes);
        if (o->html) {
            fprintf(o->f,
                    "<tr><td>%" PRIu64 "</td><td>%s</td><td>%" PRIu64
                    "</td><td>%" PRIu64 "</td><td class=\"name\">",
                    gr->retained, pct, gr->count, gr->bytes);
            report_html_escape(o->f, s->names[k].names[order[i]]);
            fputs("</td></tr>\n", o->f);
        } else {
            fprintf(o->f, "%14" PRIu64 " %7s %10" PRIu64 " %14" PRIu64 "  %s\n",
                    gr->retained, pct, gr->count, gr->bytes,
                    s->names[k].names[order[i]]);
        }
    }
    if (o->html)
        fputs("</table>\n", o->f);
    free(order);
    return 0;
}

/* Note [Leak suspects] */
static size_t dom_suspects(dom_state *s, uint64_t thr, uint32_t *out,
                           size_t max)
{
    size_t n = s->g.n, ns = 0;
    uint32_t *stack = malloc((n + 1) * sizeof(uint32_t));
    if (!stack)
        return 0;
    size_t sp = 0;
    stack[sp++] = (uint32_t)n;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        for (uint32_t e = s->coff[v]; e < s->coff[v + 1]; e++) {
            uint32_t c = s->child[e];
            if (s->g.retained[c] < thr)
                continue;
            int big = 0, same = 0;
            for (uint32_t f = s->coff[c]; f < s->coff[c + 1]; f++) {
                uint32_t d = s->child[f];
                if (s->g.retained[d] >= thr) {
                    big = 1;
                    same |= s->g.info[d] == s->g.info[c];
                }
            }
            if (!big || same) {
                if (ns < max)
                    out[ns++] = c;
            } else {
                stack[sp++] = c;
            }
        }
    }
    free(stack);
    /* largest first */
    for (size_t i = 1; i < ns; i++)
        for (size_t j = i;
             j > 0 && s->g.retained[out[j]] > s->g.retained[out[j - 1]]; j--) {
            uint32_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return ns;
}

/* What a suspect's dominated closures are, by info table: the top three,
 * into buf. */
static void dom_composition(dom_state *s, uint32_t top, char *buf, size_t len)
{
    dbg_u64map bytes = {0};
    buf[0] = '\0';
    uint32_t *stack = malloc((s->g.n + 1) * sizeof(uint32_t));
    if (!stack)
        return;
    size_t sp = 0;
    stack[sp++] = top;
    while (sp > 0) {
        uint32_t v = stack[--sp];
        uint64_t b = 0, key = (uint64_t)s->g.info[v] + 1;
        dbg_u64map_get(&bytes, key, &b);
        if (dbg_u64map_put(&bytes, key, b + s->g.size[v]) != 0)
            break;
        for (uint32_t e = s->coff[v]; e < s->coff[v + 1]; e++)
            stack[sp++] = s->child[e];
    }
    free(stack);
    uint64_t bk[3] = {0}, bb[3] = {0};
    for (size_t i = 0; i < bytes.cap; i++) {
        if (!bytes.keys[i])
            continue;
        uint64_t k = bytes.keys[i], b = bytes.vals[i];
        for (int j = 0; j < 3; j++) {
            if (b > bb[j]) {
                for (int m = 2; m > j; m--) {
                    bb[m] = bb[m - 1];
                    bk[m] = bk[m - 1];
                }
                bb[j] = b;
                bk[j] = k;
                break;
            }
        }
    }
    dbg_u64map_free(&bytes);
    size_t at = 0;
    for (int j = 0; j < 3 && bk[j] && at < len; j++) {
        char name[1400], pct[32];
        debug_group_name(s->h, &s->h->infos[bk[j] - 1], DEBUG_BY_INFO, 0, name,
                         sizeof(name));
        pct_of(pct, sizeof(pct), bb[j], s->g.retained[top]);
        int w =
            snprintf(buf + at, len - at, "%s%s %s", j ? "; " : "", pct, name);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

static void dom_print_suspect(dom_state *s, dom_out *o, size_t k, uint32_t v)
{
    char name[1400], pct[32], mostly[4400];
    info_name(s->h, &s->h->infos[s->g.info[v]], name, sizeof(name));
    pct_of(pct, sizeof(pct), s->g.retained[v], s->g.bytes);
    dom_composition(s, v, mostly, sizeof(mostly));
    size_t n = debug_graph_path_len(&s->g, v);
    char *text = NULL;
    size_t textlen = 0;
    FILE *mf = open_memstream(&text, &textlen);
    if (mf) {
        debug_print_graph_path(mf, s->h, &s->g, v);
        fclose(mf);
    }
    if (o->html) {
        fprintf(o->f, "<h3 class=\"suspect\">Suspect %zu: 0x%012" PRIx64 " ", k,
                s->g.addr[v]);
        report_html_escape(o->f, name);
        fprintf(o->f,
                "</h3>\n<p>Retains %" PRIu64 " bytes (%s of the heap), "
                "mostly: ",
                s->g.retained[v], pct);
        report_html_escape(o->f, mostly);
        fprintf(o->f,
                ".</p>\n<p>Retainer path: %zu closures, root first</p>\n"
                "<pre class=\"path\">",
                n);
        if (text)
            report_html_escape_pre(o->f, text);
        fputs("</pre>\n", o->f);
    } else {
        fprintf(o->f,
                "\nsuspect %zu: 0x%012" PRIx64 " %s\n  retains %" PRIu64
                " bytes (%s of the heap)\n  mostly: %s\n  retainer path: %zu "
                "closures, root first\n%s",
                k, s->g.addr[v], name, s->g.retained[v], pct, mostly, n,
                text ? text : "");
    }
    free(text);
}

static int debug_dominators(const char *target, int gc, double threshold,
                            size_t limit, const char *html)
{
    debug_session ss;
    dom_state s = {0};
    dom_out o = {stdout, 0};
    /* the page's file before any pause: a path that cannot be written
     * is refused without touching the program */
    if (html) {
        o.f = fopen(html, "w");
        if (!o.f)
            return debug_fail("%s: cannot write: %s", html, strerror(errno));
        o.html = 1;
    }
    int r = debug_session_open(&ss, target);
    if (r) {
        if (o.html)
            fclose(o.f);
        return r;
    }
    s.h = &ss.heap;
    double t0 = debug_now_s();
    dbg_graph_builder *b = dbg_graph_builder_new(s.h, &s.g);
    if (!b) {
        r = debug_fail("out of memory");
        goto done;
    }
    r = debug_session_walk(&ss, gc, dbg_graph_visit, b, 0);
    if (dbg_graph_builder_finish(b, ss.roots, ss.nroots) != 0 && !r)
        r = debug_fail("%s", s.g.err);
    if (r)
        goto done;
    double t1 = debug_now_s();
    if (dbg_graph_dominators(&s.g) != 0) {
        r = debug_fail("%s", s.g.err);
        goto done;
    }
    double t2 = debug_now_s();
    if (dom_groups(&s) != 0 || dom_children(&s) != 0 ||
        dom_aggregate(&s) != 0) {
        r = debug_fail("out of memory");
        goto done;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (o.html) {
        char title[4200];
        snprintf(title, sizeof(title), "rtscope debug dominators %s", target);
        if (report_page_begin(o.f, title) != 0) {
            r = debug_fail("%s: cannot write the page", html);
            goto done;
        }
    }
    uint64_t thr = (uint64_t)((double)s.g.bytes * threshold / 100.0);
    if (thr == 0)
        thr = 1;
    uint32_t sus[16];
    size_t ns = dom_suspects(&s, thr, sus, 16);
    fprintf(o.f,
            o.html ? "<p id=\"summary\">Dominator tree: %zu closures, "
                     "%" PRIu64 " bytes reachable from %zu roots; heap "
                     "read in %.2f s, dominators computed in %.2f s (peak "
                     "memory %ld MiB).</p>\n"
                   : "dominator tree: %zu closures, %" PRIu64 " bytes "
                     "reachable from %zu roots; heap read in %.2f s, "
                     "dominators computed in %.2f s (peak memory %ld "
                     "MiB)\n",
            s.g.n, s.g.bytes, s.g.nroots, t1 - t0, t2 - t1,
            ru.ru_maxrss / 1024);
    /* a page shows the suspects first: they are what it is opened for */
    for (int pass = 0; pass < 2; pass++) {
        if (pass != o.html) {
            fprintf(o.f,
                    o.html ? "<h2>Leak suspects</h2>\n<p id=\"suspects\">"
                             "%zu closure%s retaining at least %.1f%% "
                             "of the heap (%" PRIu64 " bytes) each.</p>\n"
                           : "\nleak suspects: %zu closure%s retaining at "
                             "least %.1f%% of the heap (%" PRIu64
                             " bytes) each\n",
                    ns, ns == 1 ? "" : "s", threshold, thr);
            for (size_t i = 0; i < ns; i++)
                dom_print_suspect(&s, &o, i + 1, sus[i]);
        } else {
            for (int k = 0; k < G_N; k++)
                if (dom_print_groups(&s, &o, k, limit) != 0) {
                    r = debug_fail("out of memory");
                    break;
                }
        }
    }
    if (o.html) {
        int bad = report_page_end(o.f) != 0;
        bad |= fclose(o.f) != 0;
        o.f = NULL;
        if (bad && !r)
            r = debug_fail("%s: cannot write the page", html);
        if (!r)
            printf("dominators: %zu closures, %zu leak suspect%s; report "
                   "written to %s\n",
                   s.g.n, ns, ns == 1 ? "" : "s", html);
    }
    debug_warn_unreadable(s.h, "sizes may be low");
done:
    if (o.html && o.f)
        fclose(o.f);
    debug_session_close(&ss);
    dbg_graph_free(&s.g);
    for (int k = 0; k < G_N; k++) {
        debug_names_free(&s.names[k]);
        free(s.gid[k]);
        free(s.groups[k]);
    }
    free(s.coff);
    free(s.child);
    return r;
}

int debug_dominators_run(int argc, char **argv)
{
    const char *html = NULL;
    double threshold = 10.0;
    long limit = 20;
    const debug_opt opts[] = {
        {.name = "threshold",
         .kind = DEBUG_OPT_PERCENT,
         .value = &threshold,
         .bad = "a percentage above 0, at most 100"},
        {.name = "limit",
         .kind = DEBUG_OPT_COUNT,
         .value = &limit,
         .min = 1,
         .max = 1000000,
         .bad = "not a positive number"},
        {.name = "html", .kind = DEBUG_OPT_STRING, .value = &html},
        DEBUG_OPT_END,
    };
    debug_args a;
    int r = debug_parse_args(&debug_cmd_dominators, argc, argv, opts, 1, &a);
    return r >= 0 ? r
                  : debug_dominators(a.target[0], a.gc, threshold,
                                     (size_t)limit, html);
}
