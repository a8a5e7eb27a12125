/* rtscope debug dups: identical immutable closures that could be one
 * shared closure (ghc-debug's duplicate analysis; lib/debug's dups.h,
 * Note [What counts as immutable] in dups.c), by bytes wasted. */
#define _GNU_SOURCE
#include "rtscope/debug/dups.h"
#include "cli.h"
#include "debug.h"
#include "session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dups_print(dbg_heap *hp, const dbg_dups *d, size_t limit)
{
    printf("%10s %8s %12s  %s\n", "count", "size", "wasted", "closure");
    for (size_t i = 0; i < d->n && i < limit; i++) {
        const dbg_dup_group *g = &d->groups[i];
        dbg_info *in = dbg_heap_info(hp, g->info);
        printf("%10" PRIu64 " %8" PRIu32 " %12" PRIu64 "  %s", g->count,
               g->size, dbg_dup_wasted(g),
               in ? ghc_closure_type_name(in->type) : "UNKNOWN");
        const char *con = in ? dbg_heap_con_descr(hp, in) : NULL;
        if (con) {
            char disp[1024];
            dbg_con_display(con, disp, sizeof(disp));
            printf(" %s", disp);
        }
        char *const *src = in ? dbg_heap_source(hp, in) : NULL;
        if (src && (src[4][0] || src[5][0]))
            printf("  at%s%s%s%s", src[4][0] ? " " : "", src[4],
                   src[5][0] ? " " : "", src[5]);
        printf("  (e.g. 0x%" PRIx64 ")\n", g->example);
    }
    if (d->n > limit)
        printf("... %zu more groups\n", d->n - limit);
    printf("total: %" PRIu64 " duplicate closures in %zu groups, %" PRIu64
           " bytes could be shared (of %" PRIu64 " bytes in %" PRIu64
           " immutable closures)\n",
           d->dup_closures, d->n, d->dup_bytes, d->candidate_bytes,
           d->candidates);
}

static int debug_dups(const char *target, size_t limit, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    dbg_heap *hp = &ss.heap;
    dbg_dups d;
    dbg_dups_init(&d, hp, 0);
    r = debug_session_walk(&ss, gc, dbg_dups_visit, &d, 0);
    if (!r && d.no_blocks[0])
        fprintf(stderr,
                "rtscope debug: warning: no block list (%s); static "
                "closures are counted too\n",
                d.no_blocks);
    if (!r && d.err[0])
        r = debug_fail("%s: %s", target, d.err);
    else if (!r && d.nomem)
        r = debug_fail("out of memory");
    if (!r) {
        dbg_dups_finish(&d);
        dups_print(hp, &d, limit);
        debug_warn_unreadable(hp, "counts may be low");
    }
    debug_session_close(&ss);
    dbg_dups_free(&d);
    return r;
}

/* What `debug dups` is given. */
typedef struct dups_args {
    long limit;
} dups_args;

static const opt dups_opts[] = {
    {.name = "limit",
     .kind = OPT_COUNT,
     .argname = "N",
     .min = 1,
     .max = 100000000,
     .value = OPT_AT(dups_args, limit),
     .help = "at most N groups (default 20)",
     .bad = "not a positive number"},
    OPT_END,
};

int debug_dups_run(int argc, char **argv)
{
    dups_args da = {.limit = 20};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_dups, argc, argv, &da, 1, &a);
    return r >= 0 ? r : debug_dups(a.target[0], (size_t)da.limit, a.gc);
}

static const char debug_dups_help[] =
    "  dups        identical immutable closures (same info table, same\n"
    "              payload): constructors, frozen arrays and byte arrays\n"
    "              that could be one shared closure, by bytes wasted\n"
    "              ((count - 1) * size), with constructor and source\n";

static const char debug_dups_example[] =
    "              e.g.       count     size       wasted  closure\n"
    "                           500       24        11976  CONSTR_2_0\n"
    "                    main:Main:Dup  at Main Fragment.hs:27:12-22 ...\n";

const debug_command debug_cmd_dups = {
    .name = "dups",
    .synopsis = "rtscope debug dups TARGET [--limit N] [--no-gc|--fork]\n",
    .help = debug_dups_help,
    .opts = dups_opts,
    .example = debug_dups_example,
    .no_gc = 1,
    .run = debug_dups_run,
};
