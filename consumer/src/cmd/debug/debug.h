/* debug.h: what the `rtscope debug` subcommands share beyond session.h.
 * debug.c holds the command table (one entry a subcommand: its synopsis,
 * help, options and run function), the dispatch and help, and list, pause
 * and resume; every other subcommand has a file of its own. */
#ifndef RTSCOPE_CMD_DEBUG_H
#define RTSCOPE_CMD_DEBUG_H

#include "opts.h"
#include "rtscope/base/hmap.h"
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A subcommand: `rtscope debug NAME`. argv[0] of `run` is NAME; it parses
 * its options with debug_parse_args and returns an exit status. Its help
 * is its synopsis, its help text, its options (from opts) and its example;
 * then the pause options when no_gc. */
typedef struct debug_command {
    const char *name;
    const char *synopsis; /* its usage lines, "rtscope debug NAME ..." */
    const char *help;     /* what it does, indented ("  NAME        ...") */
    const opt *opts;      /* its options (opts.h), or NULL */
    const char *example;  /* after its options, indented; or NULL */
    int no_gc;            /* takes the pause options (debug_pause_table) */
    int (*run)(int argc, char **argv);
} debug_command;

extern const debug_command debug_cmd_list, debug_cmd_pause, debug_cmd_resume,
    debug_cmd_census, debug_cmd_thunks, debug_cmd_retainers, debug_cmd_snapshot,
    debug_cmd_blocks, debug_cmd_dups, debug_cmd_gml, debug_cmd_dominators,
    debug_cmd_diff, debug_cmd_heapsnapshot;

/* "rtscope debug NAME: MSG" and where its help is; returns
 * CLI_EXIT_USAGE. */
int debug_usage_error(const debug_command *dc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What every subcommand gets besides its own options. */
typedef struct debug_args {
    int gc;       /* an enum dbg_pause_mode: after a GC unless --no-gc/--fork */
    int gc_given; /* times --no-gc or --fork was given */
    const char *target[2];
} debug_args;

/* The options that choose how a walking subcommand pauses the program,
 * into a debug_args: --no-gc and --fork. Without them it pauses after a
 * major GC (DBG_PAUSE_AFTER_GC). See Note [The pause options] in args.c. */
extern const opt debug_pause_table[];

/* Parse argv (argv[0] the subcommand's name) against dc->opts (values into
 * *args, the struct that table describes), the pause options when
 * dc->no_gc, and exactly ntargets TARGETs (1 or 2). Returns -1 when all is
 * good (*a filled), else the exit status of the usage error it printed. */
int debug_parse_args(const debug_command *dc, int argc, char **argv, void *args,
                     int ntargets, debug_args *a);

/* One line of a retainer path: address, closure type, constructor,
 * source; "(root)" when root. */
void debug_print_closure(FILE *f, dbg_heap *h, uint64_t addr, uint64_t infoptr,
                         int root);
/* A retainer path, path[n-1] the root and infos[i] the info pointer of
 * path[i], printed root first; long runs of one info table shortened to
 * their ends and a count. */
void debug_print_path(FILE *f, dbg_heap *h, const uint64_t *path,
                      const uint64_t *infos, size_t n);
/* The retainer path of closure id of a walked graph, through the parents
 * it was first reached from: its length, and printed as debug_print_path
 * prints (-1 when out of memory). */
size_t debug_graph_path_len(const dbg_graph *g, uint32_t id);
int debug_print_graph_path(FILE *f, dbg_heap *h, const dbg_graph *g,
                           uint32_t id);
/* The path from a root to `addr` through the first-reached parents
 * (addr -> parent, 0 for a root), target first, into *path (realloc'd).
 * Returns its length, 0 when out of memory. */
size_t debug_retainer_path(const hmap *parent, uint64_t addr, uint64_t **path);

/* The subcommands' run functions. */
int debug_census_run(int argc, char **argv);

/* The census by info table of a live program or a snapshot (TARGET, as
 * `debug census` takes it, paused as gc says: a dbg_pause_mode, -1 for
 * none), for other commands (rtscope pprof): fn is called once per info
 * table with the heap (its tables, names and provenance valid during the
 * call), the table's address, its closures and their bytes. A non-zero
 * return of fn stops and is returned; errors are reported (debug_fail)
 * and returned as an exit status. */
typedef int (*debug_census_info_fn)(void *ctx, dbg_heap *h, uint64_t info,
                                    uint64_t count, uint64_t bytes);
int debug_census_each_info(const char *target, int gc, debug_census_info_fn fn,
                           void *ctx);
int debug_thunks_run(int argc, char **argv);
int debug_retainers_run(int argc, char **argv);
int debug_snapshot_cmd_run(int argc, char **argv);
int debug_blocks_run(int argc, char **argv);
int debug_dups_run(int argc, char **argv);
int debug_gml_run(int argc, char **argv);
int debug_dominators_run(int argc, char **argv);
int debug_diff_run(int argc, char **argv);
int debug_heapsnapshot_run(int argc, char **argv);

/* `rtscope help debug [NAME]` and `rtscope debug NAME --help`. */
int debug_help(const char *name);

#endif
