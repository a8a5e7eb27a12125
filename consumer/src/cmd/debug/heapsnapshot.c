/* rtscope debug heapsnapshot: the reachable heap of a paused program or
 * a snapshot file as a V8 heap snapshot (.heapsnapshot), for Chrome
 * DevTools' Memory panel and memlab. The graph comes from
 * lib/debug/heap_export.c, the format from v8snap.c. */
#define _GNU_SOURCE
#include "cli.h"
#include "debug.h"
#include "session.h"
#include "v8snap.h"

#include "rtscope/debug/heap_export.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The saved objects of a live program (the last of its roots), so they
 * get a group of their own; a snapshot does not tell them apart. */
static size_t saved_objects(debug_session *ss)
{
    uint64_t *saved = NULL;
    size_t n = 0;
    if (ss->is_snapshot ||
        dbg_ptr_list(&ss->conn, DEBUG_STUB_CMD_SAVED_OBJECTS, &saved, &n) != 0)
        n = 0;
    free(saved);
    return n;
}

/* Write the export to out; an exit status. */
static int heapsnapshot_write(debug_session *ss, dbg_export *x, const char *out)
{
    FILE *f = cli_open_output(out);
    if (!f)
        return CLI_EXIT_DATA;
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof(buf));
    if (v8snap_write(f, &ss->heap, x) != 0) {
        cli_close_output(f, out);
        return ss->is_snapshot ? debug_fail("%s: %s", ss->target, ss->heap.err)
                               : debug_fail("%s", ss->heap.err);
    }
    return cli_close_output(f, out) != 0 ? CLI_EXIT_DATA : 0;
}

static int debug_heapsnapshot(const char *target, const char *out, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    dbg_export *x = dbg_export_new(&ss.heap);
    if (!x) {
        debug_session_close(&ss);
        return debug_fail("out of memory");
    }
    /* held paused: the nodes and edges are read again after the walk */
    r = debug_session_walk(&ss, gc, dbg_export_visit, x, 1);
    if (r == 0 &&
        dbg_export_finish(x, ss.roots, ss.nroots, saved_objects(&ss)) != 0)
        r = debug_fail("%s", ss.heap.err);
    if (r == 0)
        r = heapsnapshot_write(&ss, x, out);
    debug_session_release(&ss);
    if (r == 0 && strcmp(out, "-") != 0)
        fprintf(stderr,
                "rtscope debug: %s: %zu nodes (%zu closures, %zu groups of "
                "roots), %zu edges\n",
                out, dbg_export_nnodes(x),
                dbg_export_nnodes(x) - 1 - dbg_export_ngroups(x),
                dbg_export_ngroups(x), dbg_export_nedges(x));
    if (r == 0)
        debug_warn_unreadable(&ss.heap, "the snapshot lacks them");
    dbg_export_free(x);
    debug_session_close(&ss);
    return r;
}

/* What `debug heapsnapshot` is given. */
typedef struct heapsnapshot_args {
    const char *out;
} heapsnapshot_args;

static const opt heapsnapshot_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(heapsnapshot_args, out),
     .help = "the output file, FILE.heapsnapshot (- for standard output)"},
    OPT_END,
};

int debug_heapsnapshot_run(int argc, char **argv)
{
    heapsnapshot_args ha = {NULL};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_heapsnapshot, argc, argv, &ha, 1, &a);
    if (r >= 0)
        return r;
    if (!ha.out)
        return debug_usage_error(&debug_cmd_heapsnapshot,
                                 "heapsnapshot needs -o FILE");
    return debug_heapsnapshot(a.target[0], ha.out, a.gc);
}

static const char debug_heapsnapshot_help[] =
    "  heapsnapshot\n"
    "              write the reachable heap as a V8 heap snapshot, for\n"
    "              Chrome DevTools' Memory panel (Load profile) and memlab:\n"
    "              a node per closure (its -hi name, its closure type as\n"
    "              node type, its size), an edge per pointer named by its\n"
    "              field, the roots grouped under one root\n";

const debug_command debug_cmd_heapsnapshot = {
    .name = "heapsnapshot",
    .synopsis = "rtscope debug heapsnapshot TARGET -o FILE [--no-gc|--fork]\n",
    .help = debug_heapsnapshot_help,
    .opts = heapsnapshot_opts,
    .no_gc = 1,
    .run = debug_heapsnapshot_run,
};
