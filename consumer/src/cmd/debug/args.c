/* The options and TARGETs of `rtscope debug` subcommands: each declares
 * its options as a table (opts.h) in its debug_command; the pause options
 * are debug_pause_table. See debug.h.
 *
 * Note [The pause options]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Every walking subcommand takes the pause options (--no-gc, --fork), a
 * few counts, names or addresses, and one or two TARGETs. Its own options
 * are its table (Note [Options as tables] in opts.c); the pause options
 * are one table, debug_pause_table, that debug_parse_args binds exactly
 * for the commands marked no_gc in the command table, so `debug pause T
 * --by type` and `debug pause T --fork` stay usage errors, and that the
 * help prints once for all of them. `rtscope pprof --debug` includes the
 * same table.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "debug.h"

#include "rtscope/debug/debug_client.h"
#include "session.h"

#include <stdarg.h>
#include <string.h>

const opt debug_pause_table[] = {
    {.name = "no-gc",
     .kind = OPT_FLAG,
     .set = DBG_PAUSE_NOW,
     .value = OPT_AT(debug_args, gc),
     .given = OPT_AT(debug_args, gc_given),
     .help = "pause at once, without a major GC first (no effect on a\n"
             "snapshot file)"},
    {.name = "fork",
     .kind = OPT_FLAG,
     .set = DBG_PAUSE_FORK,
     .value = OPT_AT(debug_args, gc),
     .given = OPT_AT(debug_args, gc_given),
     .help = "ghc-debug's fork mode: the stub pauses the program, forks\n"
             "it and resumes it at once; rtscope reads the paused copy\n"
             "while the program runs on (no major GC first)"},
    OPT_END,
};

int debug_parse_args(const debug_command *dc, int argc, char **argv, void *args,
                     int ntargets, debug_args *a)
{
    char name[64];
    snprintf(name, sizeof(name), "debug %s", dc->name);
    memset(a, 0, sizeof(*a));
    a->gc = DBG_PAUSE_AFTER_GC;
    const opts_bind binds[] = {{dc->opts, args}, {debug_pause_table, a}};
    int first = opts_parse(name, argc, argv, binds, dc->no_gc ? 2 : 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (a->gc_given > 1)
        return debug_usage_error(dc, "--no-gc and --fork: give one of them, "
                                     "once");
    if (argc - first != ntargets)
        return debug_usage_error(dc, ntargets == 1 ? "needs one TARGET"
                                                   : "needs two TARGETs: A B");
    for (int i = 0; i < ntargets; i++)
        a->target[i] = argv[first + i];
    return -1;
}

int debug_usage_error(const debug_command *dc, const char *fmt, ...)
{
    char name[64];
    va_list ap;
    snprintf(name, sizeof(name), "debug %s", dc->name);
    va_start(ap, fmt);
    int r = cli_usage_errorv(name, fmt, ap);
    va_end(ap);
    return r;
}
