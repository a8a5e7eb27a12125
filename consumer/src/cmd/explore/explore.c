/* rtscope explore: browse a heap, live or from a snapshot (docs/explore.md).
 * Where the heap comes from lives here: the session (a live program
 * through its debug stub, or a snapshot file), pausing, forking and
 * resuming; the tree is xtree.c's, the screen xscreen.c's, the picker
 * xpick.c's. */
#define _GNU_SOURCE
#include "explore.h"
#include "census_table.h"
#include "cli.h"
#include "rtscope/base/procmem.h"
#include "session.h"
#include "xpick.h"
#include "xscreen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct explorer {
    debug_session s;
    xt_tree tree;
    int have_tree;
    int paused; /* we paused it (or it is a fork-mode copy) */
    xs_view v;
} explorer;

static const char explore_usage[] =
    "usage: rtscope explore [--snapshots DIR] [TARGET | SNAPSHOT]\n"
    "\n"
    "Browse a heap in the terminal: a running program's, through its debug\n"
    "stub (TARGET as for rtscope debug: a socket path, a pid or a program\n"
    "name), or a snapshot file's. Without an argument, pick one: the\n"
    "debuggees in ghc-debug's socket directory and the snapshots in DIR.\n"
    "\n"
    "A running program keeps running until you press p (pause it) or f\n"
    "(explore a forked copy while it runs on); Ctrl-R resumes it. Quitting\n"
    "always leaves it running.\n"
    "\n";

/* What `rtscope explore` is given. */
typedef struct explore_args {
    const char *snapshots;
} explore_args;

static const opt explore_opts[] = {
    {.name = "snapshots",
     .kind = OPT_STRING,
     .argname = "DIR",
     .value = OPT_AT(explore_args, snapshots),
     .help = "where the picker looks for snapshots (default\n"
             "$RTSCOPE_SNAPSHOT_DIR, else\n"
             "$XDG_DATA_HOME/rtscope/snapshots, else\n"
             "~/.local/share/rtscope/snapshots)"},
    OPT_END,
};

static void explore_print_usage(FILE *f)
{
    static const opts_layout layout = {2, 17, ' '};
    fputs(explore_usage, f);
    opts_help(f, explore_opts, &layout);
    fputs("\nKeys:\n", f);
    fputs(xs_keys_help, f);
}

/* ---- the heap ----------------------------------------------------------- */

/* The roots (and, live, which of them are saved objects) into a tree. */
static int load_tree(explorer *e)
{
    debug_session *s = &e->s;
    uint64_t *saved = NULL;
    size_t nsaved = 0;
    if (!s->is_snapshot && dbg_ptr_list(&s->conn, DEBUG_STUB_CMD_SAVED_OBJECTS,
                                        &saved, &nsaved) != 0) {
        snprintf(e->v.status, sizeof(e->v.status), "%s", s->conn.err);
        return -1;
    }
    free(saved);
    free(s->roots);
    s->roots = NULL;
    if (dbg_heap_roots(&s->heap, &s->roots, &s->nroots) != 0) {
        snprintf(e->v.status, sizeof(e->v.status), "%s", s->heap.err);
        return -1;
    }
    if (nsaved > s->nroots)
        nsaved = 0;
    if (xt_build(&e->tree, &s->heap, s->roots, s->nroots, nsaved) != 0) {
        snprintf(e->v.status, sizeof(e->v.status), "%s", e->tree.err);
        xt_free(&e->tree);
        return -1;
    }
    e->have_tree = 1;
    e->v.tree = &e->tree;
    e->v.sel = e->v.scroll = 0;
    e->tree.views[0].sel = e->tree.views[0].scroll = 0;
    snprintf(e->v.status, sizeof(e->v.status),
             "%zu roots, %zu saved objects.  Right: expand  Left: collapse  "
             "?: keys  q: quit",
             s->nroots - nsaved, nsaved);
    return 0;
}

static void drop_tree(explorer *e)
{
    if (e->have_tree)
        xt_free(&e->tree);
    e->have_tree = 0;
    e->v.tree = NULL;
}

static void show_running(explorer *e)
{
    snprintf(e->v.state, sizeof(e->v.state), "running");
    snprintf(e->v.message, sizeof(e->v.message),
             "The program is running.\n\n"
             "  p       pause it and explore its heap\n"
             "  f       explore a forked copy of it while it runs on\n"
             "  ?       keys\n"
             "  q       quit (the program runs on)\n");
}

static void ex_pause(xs_view *v, int fork)
{
    explorer *e = v->ctx;
    debug_session *s = &e->s;
    if (s->is_snapshot || e->have_tree) {
        snprintf(v->status, sizeof(v->status), "%s",
                 s->is_snapshot ? "a snapshot: nothing runs"
                                : "already paused (Ctrl-R resumes)");
        return;
    }
    int already = 0;
    double t0 = debug_now_s();
    if (dbg_pause(&s->conn, fork ? DBG_PAUSE_FORK : DBG_PAUSE_NOW, &already) !=
        0) {
        snprintf(v->status, sizeof(v->status), "%s", s->conn.err);
        return;
    }
    double took = debug_now_s() - t0;
    e->paused = !already;
    /* what a source kept of an earlier pause is out of date */
    if (s->heap.ops->walk_begins)
        s->heap.ops->walk_begins(s->heap.src);
    snprintf(v->state, sizeof(v->state), "%s",
             fork && !already ? "forked copy (the program runs on)"
             : already        ? "paused (by someone else)"
                              : "paused");
    if (load_tree(e) == 0 && took >= 0.001) {
        size_t len = strlen(v->status);
        snprintf(v->status + len, sizeof(v->status) - len,
                 "  (paused in %.0f ms)", took * 1000);
    }
}

static void ex_resume(xs_view *v)
{
    explorer *e = v->ctx;
    if (e->s.is_snapshot || !e->have_tree) {
        snprintf(v->status, sizeof(v->status), "%s",
                 e->s.is_snapshot ? "a snapshot: nothing to resume"
                                  : "the program is running");
        return;
    }
    drop_tree(e);
    if (e->paused && dbg_resume(&e->s.conn, NULL) != 0) {
        snprintf(v->status, sizeof(v->status), "%s", e->s.conn.err);
        return;
    }
    e->paused = 0;
    show_running(e);
    snprintf(v->status, sizeof(v->status), "resumed");
}

static xt_progress progress_of(xs_view *v, const char *what)
{
    return (xt_progress){.poll = xs_progress, .ui = v, .what = what};
}

static void ex_retain(xs_view *v)
{
    explorer *e = v->ctx;
    xt_tree *t = &e->tree;
    uint32_t i = t->vis[v->sel];
    if (t->v[i].kind != XT_CLOSURE && t->v[i].kind != XT_DOM) {
        snprintf(v->status, sizeof(v->status),
                 "r: select a closure (not a heading or a frame)");
        return;
    }
    double t0 = debug_now_s();
    uint64_t target = t->v[i].addr;
    xt_progress p = progress_of(v, "looking for a retainer path");
    int r = xt_retainers(t, e->s.roots, e->s.nroots, target, &p);
    if (r != 0) {
        snprintf(v->status, sizeof(v->status), "%s", t->err);
        t->err[0] = '\0';
        return;
    }
    snprintf(v->status, sizeof(v->status),
             "retainers of 0x%" PRIx64 " (%.2f s), root last; [ goes back",
             target, debug_now_s() - t0);
}

/* w: the selected ARR_WORDS' payload to a file the user names. */
static void ex_write(xs_view *v)
{
    explorer *e = v->ctx;
    xt_tree *t = &e->tree;
    uint64_t addr, bytes;
    int r = xt_payload_of(t, t->vis[v->sel], &addr);
    char path[1024];
    snprintf(path, sizeof(path), "arr-0x%" PRIx64 ".bin", addr);
    if (r == 0 && !xs_prompt(v, "write the payload to: ", path, sizeof(path)))
        snprintf(t->err, sizeof(t->err), "nothing written");
    else if (r == 0 && !path[0])
        snprintf(t->err, sizeof(t->err), "nothing written (no file name)");
    else if (r == 0 && xt_payload_write(t, addr, path, &bytes) == 0)
        snprintf(t->err, sizeof(t->err),
                 "wrote the %" PRIu64 " bytes of 0x%" PRIx64
                 "'s payload to %.400s",
                 bytes, addr, path);
    snprintf(v->status, sizeof(v->status), "%s", t->err);
    t->err[0] = '\0';
}

/* s: a snapshot of what is explored. */
static void ex_snapshot(xs_view *v)
{
    explorer *e = v->ctx;
    xt_tree *t = &e->tree;
    char path[512];
    if (e->s.is_snapshot) {
        snprintf(v->status, sizeof(v->status),
                 "already a snapshot: %.400s (copy the file to keep one)",
                 e->s.target);
        return;
    }
    xt_progress p = progress_of(v, "taking a snapshot");
    xt_snapshot(t, &e->s, &p, path, sizeof(path));
    snprintf(v->status, sizeof(v->status), "%s", t->err);
    t->err[0] = '\0';
}

static void ex_search(xs_view *v, const char *query)
{
    explorer *e = v->ctx;
    xt_tree *t = &e->tree;
    double t0 = debug_now_s();
    xt_progress p = progress_of(v, "searching");
    int r = xt_search(t, e->s.roots, e->s.nroots, query, &p);
    if (r != 0) {
        snprintf(v->status, sizeof(v->status), "%s", t->err);
        t->err[0] = '\0';
        return;
    }
    snprintf(v->status, sizeof(v->status),
             "searched the heap in %.2f s; Right expands a closure, [ goes "
             "back",
             debug_now_s() - t0);
}

/* An analysis as a new view. */
static void ex_analyse(xs_view *v, enum xs_cmd c)
{
    explorer *e = v->ctx;
    xt_tree *t = &e->tree;
    double t0 = debug_now_s();
    int r;
    if (c == XC_DOMINATORS || c == XC_SUSPECTS) {
        xt_progress p = progress_of(v, "reading the heap's graph");
        r = xt_dominators(t, e->s.roots, e->s.nroots, c == XC_SUSPECTS, &p);
    } else if (c == XC_CENSUS2) {
        xt_progress p = progress_of(v, "reading the heap's graph");
        r = xt_census2(t, e->s.roots, e->s.nroots, &p);
    } else if (c == XC_ARR_WORDS || c == XC_STRINGS) {
        xt_progress p = progress_of(v, "looking for copies");
        r = xt_dups(t, e->s.roots, e->s.nroots, c == XC_STRINGS, &p);
    } else {
        int by = c == XC_CENSUS_INFO     ? BY_INFO
                 : c == XC_CENSUS_CON    ? BY_CONSTRUCTOR
                 : c == XC_CENSUS_MODULE ? BY_MODULE
                 : c == XC_CENSUS_TYPE   ? BY_TYPE
                                         : BY_THUNK_SOURCE;
        xt_progress p = progress_of(v, "census");
        r = xt_census(t, e->s.roots, e->s.nroots, by, &p);
    }
    if (r != 0) {
        snprintf(v->status, sizeof(v->status), "%s", t->err);
        t->err[0] = '\0';
        return;
    }
    snprintf(v->status, sizeof(v->status),
             "%s in %.2f s; Right expands a row, [ goes back",
             t->views[t->cur].title, debug_now_s() - t0);
}

static void ex_command(xs_view *v, enum xs_cmd c, const char *arg)
{
    explorer *e = v->ctx;
    if (c == XC_PAUSE || c == XC_FORK) {
        ex_pause(v, c == XC_FORK);
        return;
    }
    if (c == XC_RESUME) {
        ex_resume(v);
        return;
    }
    if (!e->have_tree) {
        snprintf(v->status, sizeof(v->status),
                 "the program runs: p pauses it, f explores a forked copy");
        return;
    }
    switch (c) {
    case XC_SEARCH:
        ex_search(v, arg ? arg : "");
        break;
    case XC_RETAIN:
        ex_retain(v);
        break;
    case XC_WRITE:
        ex_write(v);
        break;
    case XC_SNAPSHOT:
        ex_snapshot(v);
        break;
    case XC_ROOTS:
        xt_view_go(&e->tree, 0);
        break;
    case XC_CENSUS_INFO:
    case XC_CENSUS_CON:
    case XC_CENSUS_MODULE:
    case XC_CENSUS_TYPE:
    case XC_CENSUS2:
    case XC_THUNKS:
    case XC_DOMINATORS:
    case XC_SUSPECTS:
    case XC_ARR_WORDS:
    case XC_STRINGS:
        ex_analyse(v, c);
        break;
    default:
        snprintf(v->status, sizeof(v->status), "not there yet");
        break;
    }
}

/* ---- the command -------------------------------------------------------- */

/* Explore target; *opened (when not NULL) says whether it opened: a
 * failure before the screen came up leaves it 0. */
static int explore_target(const char *target, int *opened)
{
    if (opened)
        *opened = 0;
    explorer *e = calloc(1, sizeof(*e));
    if (!e)
        return debug_fail("out of memory");
    int r = debug_session_open(&e->s, target);
    if (r) {
        free(e);
        return r;
    }
    e->v.ctx = e;
    e->v.command = ex_command;
    snprintf(e->v.what, sizeof(e->v.what), "%s", target);
    if (e->s.is_snapshot) {
        snprintf(e->v.state, sizeof(e->v.state), "snapshot");
        if (load_tree(e) != 0)
            r = debug_fail("%s: %s", target, e->v.status);
    } else {
        show_running(e);
        snprintf(e->v.status, sizeof(e->v.status),
                 "p: pause  f: explore a forked copy  ?: keys  q: quit");
    }
    if (!r && opened)
        *opened = 1;
    if (!r && xs_run(&e->v) != 0)
        r = debug_fail("cannot use the terminal (TERM=%s)",
                       getenv("TERM") ? getenv("TERM") : "");
    drop_tree(e);
    if (e->paused && e->s.conn.fd >= 0)
        dbg_resume(&e->s.conn, NULL);
    debug_session_close(&e->s);
    free(e);
    return r;
}

static int explore_run(int argc, char **argv)
{
    rt_mmap_big_arrays(); /* it lives long: its graphs come and go */
    explore_args a = {NULL};
    debug_fail_as("explore");
    int first =
        opts_parse("explore", argc, argv, &(opts_bind){explore_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (argc - first > 1)
        return cli_usage_error(&cli_cmd_explore, "one TARGET or SNAPSHOT");
    if (argc - first == 1)
        return explore_target(argv[first], NULL);
    /* A pick that does not open (a corrupt snapshot, a program that died
     * meanwhile) goes back to the picker, which says why. */
    char target[4096], why[700] = "";
    for (;;) {
        int r = xpick_run(a.snapshots, target, sizeof(target), why);
        if (r != 0)
            return r < 0 ? CLI_EXIT_DATA : CLI_EXIT_OK;
        int opened;
        r = explore_target(target, &opened);
        if (opened)
            return r;
        const char *base = strrchr(target, '/'), *err = debug_last_failure();
        size_t tl = strlen(target);
        if (strncmp(err, target, tl) == 0 && strncmp(err + tl, ": ", 2) == 0)
            err += tl + 2; /* the file is named once */
        snprintf(why, sizeof(why), "cannot open %.120s: %.500s",
                 base ? base + 1 : target, err);
    }
}

const cli_command cli_cmd_explore = {
    .name = "explore",
    .summary = "browse a heap: a running program's or a snapshot's",
    .run = explore_run,
    .print_usage = explore_print_usage,
};
