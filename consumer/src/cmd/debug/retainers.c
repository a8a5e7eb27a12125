/* rtscope debug retainers: a shortest path from a root to each closure of
 * a constructor, an info table or an address; and the retainer-path
 * printing the other analyses share (debug.h). */
#define _GNU_SOURCE
#include "debug.h"

#include "cli.h"
#include "rtscope/debug/debug_blocks.h"
#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/model/ipe.h"
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- retainers -------------------------------------------------------- */

typedef struct ret_state {
    dbg_heap *h;
    const char *name;   /* match by constructor, */
    uint64_t want_info; /* or by info pointer, */
    uint64_t want_addr; /* or by address */
    hmap parent;        /* addr -> parent (0 for a root) */
    hmap info;          /* addr -> info ptr */
    uint64_t *found;
    size_t nfound, limit;
    int nomem;
} ret_state;

static int ret_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    ret_state *s = ctx;
    if (hmap_put(&s->parent, c->addr, parent) != 0 ||
        hmap_put(&s->info, c->addr, c->info->ptr) != 0)
        return s->nomem = 1;
    int match;
    if (s->name) {
        const char *con = dbg_heap_con_descr(s->h, c->info);
        match = con && dbg_con_matches(con, s->name);
    } else if (s->want_info) {
        match = c->info->ptr == s->want_info;
    } else {
        match = c->addr == s->want_addr;
    }
    if (match) {
        s->found[s->nfound++] = c->addr;
        if (s->nfound == s->limit)
            return 1;
    }
    return 0;
}

void debug_print_closure(FILE *f, dbg_heap *h, uint64_t addr, uint64_t infoptr,
                         int root)
{
    dbg_info *in = dbg_heap_info(h, infoptr);
    fprintf(f, "  0x%012" PRIx64 "  %-14s", addr,
            in ? ghc_closure_type_name(in->type) : "UNKNOWN");
    const char *con = in ? dbg_heap_con_descr(h, in) : NULL;
    if (con) {
        char disp[1024];
        dbg_con_display(con, disp, sizeof(disp));
        fprintf(f, "  %s", disp);
    }
    char *const *src = in ? dbg_heap_source(h, in) : NULL;
    if (src && (src[4][0] || src[5][0])) {
        fprintf(f, "  at");
        if (src[4][0])
            fprintf(f, " %s", src[4]);
        if (src[5][0])
            fprintf(f, " %s", src[5]);
    }
    if (root)
        fprintf(f, "  (root)");
    fprintf(f, "\n");
}

/* A run of more than PATH_RUN closures with one info table (the cells of
 * a long list, the nodes of a deep tree spine) is shown by its first two
 * and last closures and a count, so the path stays readable. */
#define PATH_RUN 4
void debug_print_path(FILE *f, dbg_heap *h, const uint64_t *path,
                      const uint64_t *infos, size_t n)
{
    size_t j = n;
    while (j > 0) {
        uint64_t iptr = infos[j - 1];
        size_t run = 1; /* path[j-1], path[j-2], ... with this table */
        while (run < j && infos[j - 1 - run] == iptr)
            run++;
        if (run <= PATH_RUN) {
            for (size_t k = 0; k < run; k++, j--)
                debug_print_closure(f, h, path[j - 1], iptr, j == n);
            continue;
        }
        debug_print_closure(f, h, path[j - 1], iptr, j == n);
        debug_print_closure(f, h, path[j - 2], iptr, 0);
        fprintf(f, "  ... %zu more closures with the same info table\n",
                run - 3);
        debug_print_closure(f, h, path[j - run], iptr, 0);
        j -= run;
    }
}

size_t debug_graph_path_len(const dbg_graph *g, uint32_t id)
{
    size_t n = 0;
    for (uint32_t u = id; u != DBG_GRAPH_NONE; u = g->parent[u])
        n++;
    return n;
}

int debug_print_graph_path(FILE *f, dbg_heap *h, const dbg_graph *g,
                           uint32_t id)
{
    size_t n = debug_graph_path_len(g, id);
    uint64_t *path = malloc((n + 1) * sizeof(*path));
    uint64_t *infos = malloc((n + 1) * sizeof(*infos));
    int r = path && infos ? 0 : -1;
    if (r == 0) {
        uint32_t u = id;
        for (size_t i = 0; i < n; i++, u = g->parent[u]) {
            path[i] = g->addr[u];
            infos[i] = dbg_heap_info_at(h, g->info[u])->ptr;
        }
        debug_print_path(f, h, path, infos, n);
    }
    free(path);
    free(infos);
    return r;
}

/* The path from a root to `addr`, target first, into *path (realloc'd).
 * Returns its length, 0 when out of memory. */
size_t debug_retainer_path(const hmap *parent, uint64_t addr, uint64_t **path)
{
    size_t n = 0, cap = 0;
    for (uint64_t a = addr; a;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            uint64_t *np = realloc(*path, cap * sizeof(*np));
            if (!np)
                return 0;
            *path = np;
        }
        (*path)[n++] = a;
        uint64_t p = 0;
        hmap_get(parent, a, &p);
        a = p;
    }
    return n;
}

static int debug_retainers(const char *target, const char *name, uint64_t info,
                           uint64_t addr, size_t limit, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    uint64_t *path = NULL;
    dbg_heap *h = &ss.heap;
    ret_state s = {.h = h,
                   .name = name,
                   .want_info = info,
                   .want_addr = addr & ~(uint64_t)7,
                   .limit = limit};
    s.found = calloc(limit, sizeof(*s.found));
    if (!s.found) {
        r = debug_fail("out of memory");
        goto done;
    }
    r = debug_session_walk(&ss, gc, ret_visit, &s, 0);
    if (r)
        goto done;
    if (s.nomem) {
        r = debug_fail("out of memory");
        goto done;
    }
    if (s.nfound == 0) {
        if (name)
            printf("no closure of constructor %s is reachable\n", name);
        else
            printf("no closure %s 0x%" PRIx64 " is reachable\n",
                   info ? "with info table" : "at", info ? info : addr);
        goto done;
    }
    for (size_t k = 0; k < s.nfound; k++) {
        size_t n = debug_retainer_path(&s.parent, s.found[k], &path);
        if (n == 0) {
            r = debug_fail("out of memory");
            goto done;
        }
        printf("path %zu: %zu closures, root first\n", k + 1, n);
        for (size_t i = n; i-- > 0;) {
            uint64_t iptr = 0;
            hmap_get(&s.info, path[i], &iptr);
            debug_print_closure(stdout, h, path[i], iptr, i == n - 1);
        }
    }
done:
    debug_session_close(&ss);
    free(path);
    free(s.found);
    hmap_free(&s.parent);
    hmap_free(&s.info);
    return r;
}

/* What `debug retainers` is given: one of name, info and addr. */
typedef struct retainers_args {
    const char *name;
    uint64_t info, addr;
    int nsel; /* how many of them */
    long limit;
} retainers_args;

static const opt retainers_opts[] = {
    {.name = "constructor",
     .kind = OPT_STRING,
     .argname = "NAME",
     .value = OPT_AT(retainers_args, name),
     .given = OPT_AT(retainers_args, nsel),
     .help = "the constructor to look for, or"},
    {.name = "info",
     .kind = OPT_ADDR,
     .argname = "ADDR",
     .value = OPT_AT(retainers_args, info),
     .given = OPT_AT(retainers_args, nsel),
     .help = "closures with this info table (hex), or",
     .bad = "not an address"},
    {.name = "address",
     .kind = OPT_ADDR,
     .argname = "ADDR",
     .value = OPT_AT(retainers_args, addr),
     .given = OPT_AT(retainers_args, nsel),
     .help = "the closure at this address (hex)",
     .bad = "not an address"},
    {.name = "limit",
     .kind = OPT_COUNT,
     .argname = "K",
     .min = 1,
     .max = 1000000,
     .value = OPT_AT(retainers_args, limit),
     .help = "at most K paths (default 1)",
     .bad = "not a positive number"},
    OPT_END,
};

int debug_retainers_run(int argc, char **argv)
{
    retainers_args ra = {.limit = 1};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_retainers, argc, argv, &ra, 1, &a);
    if (r >= 0)
        return r;
    if (ra.nsel != 1)
        return debug_usage_error(&debug_cmd_retainers,
                                 "needs one of --constructor NAME, --info "
                                 "ADDR, --address ADDR");
    return debug_retainers(a.target[0], ra.name, ra.info, ra.addr,
                           (size_t)ra.limit, a.gc);
}

static const char debug_retainers_help[] =
    "  retainers   pause, search the heap breadth-first from the roots and\n"
    "              print, for each closure of constructor NAME found (Leak,\n"
    "              Main.Leak or main:Main:Leak), a shortest path from a root\n"
    "              to it: address, closure type, constructor and source\n"
    "              location (when the program was built with -g)\n";

const debug_command debug_cmd_retainers = {
    .name = "retainers",
    .synopsis =
        "rtscope debug retainers TARGET (--constructor NAME | --info ADDR |\n"
        "                                       --address ADDR) [--limit K] "
        "[--no-gc|--fork]\n",
    .help = debug_retainers_help,
    .opts = retainers_opts,
    .no_gc = 1,
    .run = debug_retainers_run,
};
