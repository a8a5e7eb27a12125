/* rtscope debug: a heap-debugger client of the debug stub inside the RTS
 * (docs/debug.md). The protocol and the closure decoding live in
 * lib/debug, the open/pause/walk/release sequence in session.c; this file
 * is the command table (Note [The debug command table]), the dispatch and
 * help, and list, pause and resume. */
#define _GNU_SOURCE
#include "debug.h"

#include "cli.h"
#include "rtscope/base/user_sockets.h"
#include "rtscope/debug/debug_client.h"
#include "session.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Note [The debug command table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each subcommand is one debug_command: its synopsis, its help, its
 * options (a table, opts.h) and its run function, which parses them with
 * debug_parse_args, so an option of one subcommand is an error in another
 * (`debug pause T --by type`) and its help lists exactly what it takes.
 * `rtscope help debug` is the table read in order; `rtscope help debug
 * NAME` (and `rtscope debug NAME --help`) one entry. A new subcommand is a
 * file with its run function and its entry (a debug_command beside it),
 * and a line in debug_commands[].
 */

static const char debug_intro[] =
    "Talk to the debug stub of a running program (started with\n"
    "+RTS --debug-stub, withGhcDebug or rts_debugStubStart; see\n"
    "docs/debug-stub.md), or read a snapshot file offline.\n"
    "\n"
    "TARGET is the stub's socket path, or the pid of a program whose socket\n"
    "is in $XDG_DATA_HOME/ghc-debug/debuggee/sockets (default\n"
    "~/.local/share/...), named <pid>-<program>, or the program's name when\n"
    "one live debuggee has it, or a snapshot file (census, thunks,\n"
    "retainers, blocks, dups, gml, dominators, diff and heapsnapshot read\n"
    "it as they read the live heap;\n"
    "blocks needs its block list; pause and resume refuse it).\n";

static const char debug_outro[] =
    "A program that a command paused is resumed when rtscope\n"
    "ends, however it ends; one that was paused already stays paused.\n"
    "exit status: 0 ok, 1 no debuggee or an error reply, 2 usage\n";

extern const cli_command cli_cmd_debug;

/* ---- list ------------------------------------------------------------- */

static int debug_list(void)
{
    rt_sock_ent *v;
    size_t n;
    char dir[4096];
    if (rt_sock_dir(RT_SOCK_DEBUG, dir, sizeof(dir)) != 0)
        return debug_fail("no socket directory (set XDG_DATA_HOME or HOME)");
    if (rt_sock_list(RT_SOCK_DEBUG, &v, &n) != 0)
        return debug_fail("%s: %s", dir, strerror(errno));
    printf("%-8s %-24s %-5s %s\n", "PID", "PROGRAM", "STATE", "SOCKET");
    for (size_t i = 0; i < n; i++) {
        int alive = v[i].alive;
        if (alive) {
            dbg_conn c;
            alive = dbg_connect(&c, v[i].path) == 0;
            dbg_close(&c);
        }
        printf("%-8ld %-24s %-5s %s\n", v[i].pid, v[i].prog,
               alive ? "live" : "dead", v[i].path);
    }
    free(v);
    return 0;
}

/* ---- pause / resume --------------------------------------------------- */

static int debug_pause_cmd(const char *target, int pause)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    if (ss.is_snapshot) {
        debug_session_close(&ss);
        return debug_usage_error(pause ? &debug_cmd_pause : &debug_cmd_resume,
                                 "%s: a snapshot: %s acts on a live program "
                                 "only",
                                 target, pause ? "pause" : "resume");
    }
    dbg_conn *c = &ss.conn;
    int already = 0;
    if (pause) {
        if (dbg_stay_paused(c, 1) != 0 || dbg_pause(c, 0, &already) != 0)
            r = debug_fail("%s", c->err);
        else
            printf("%s\n", already ? "already paused" : "paused");
    } else {
        if (dbg_stay_paused(c, 0) != 0 || dbg_resume(c, &already) != 0)
            r = debug_fail("%s", c->err);
        else
            printf("%s\n", already ? "was not paused" : "resumed");
    }
    debug_session_close(&ss);
    return r;
}

static int debug_list_run(int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        return debug_usage_error(&debug_cmd_list, "takes no TARGET or option");
    return debug_list();
}

static int debug_pause_run(int argc, char **argv)
{
    debug_args a;
    int r = debug_parse_args(&debug_cmd_pause, argc, argv, NULL, 1, &a);
    return r >= 0 ? r : debug_pause_cmd(a.target[0], 1);
}

static int debug_resume_run(int argc, char **argv)
{
    debug_args a;
    int r = debug_parse_args(&debug_cmd_resume, argc, argv, NULL, 1, &a);
    return r >= 0 ? r : debug_pause_cmd(a.target[0], 0);
}

/* ---- the table -------------------------------------------------------- */
/* (each command's entry is in its own file, beside its run function) */

static const char debug_list_help[] =
    "  list        the debuggees in the socket directory: pid, program,\n"
    "              live or dead (a socket left by a program that is gone)\n";

const debug_command debug_cmd_list = {
    .name = "list",
    .synopsis = "rtscope debug list\n",
    .help = debug_list_help,
    .run = debug_list_run,
};
static const char debug_pause_help[] =
    "  pause       pause the program; it stays paused after rtscope exits\n";

const debug_command debug_cmd_pause = {
    .name = "pause",
    .synopsis = "rtscope debug pause TARGET\n",
    .help = debug_pause_help,
    .run = debug_pause_run,
};
static const char debug_resume_help[] =
    "  resume      resume a paused program\n";

const debug_command debug_cmd_resume = {
    .name = "resume",
    .synopsis = "rtscope debug resume TARGET\n",
    .help = debug_resume_help,
    .run = debug_resume_run,
};

static const debug_command *const debug_commands[] = {
    &debug_cmd_list,         &debug_cmd_pause,      &debug_cmd_resume,
    &debug_cmd_census,       &debug_cmd_thunks,     &debug_cmd_retainers,
    &debug_cmd_snapshot,     &debug_cmd_blocks,     &debug_cmd_dups,
    &debug_cmd_gml,          &debug_cmd_dominators, &debug_cmd_diff,
    &debug_cmd_heapsnapshot,
};
#define DEBUG_NCOMMANDS (sizeof(debug_commands) / sizeof(debug_commands[0]))

static const debug_command *debug_find(const char *name)
{
    for (size_t i = 0; i < DEBUG_NCOMMANDS; i++)
        if (strcmp(debug_commands[i]->name, name) == 0)
            return debug_commands[i];
    return NULL;
}

/* ---- help and dispatch ------------------------------------------------ */

/* The pause options, printed once after the subcommands that take them. */
static void debug_print_pause_help(FILE *f)
{
    static const opts_layout layout = {2, 12, ' '};
    opts_help(f, debug_pause_table, &layout);
}

/* What a subcommand does and its own options. */
static void debug_print_command(FILE *f, const debug_command *dc)
{
    static const opts_layout layout = {4, 19, ' '};
    fputs(dc->help, f);
    opts_help(f, dc->opts, &layout);
    if (dc->example)
        fputs(dc->example, f);
}

static void debug_print_overview(FILE *f)
{
    for (size_t i = 0; i < DEBUG_NCOMMANDS; i++) {
        fputs(i ? "       " : "usage: ", f);
        fputs(debug_commands[i]->synopsis, f);
    }
    fprintf(f, "\n%s\n", debug_intro);
    for (size_t i = 0; i < DEBUG_NCOMMANDS; i++)
        debug_print_command(f, debug_commands[i]);
    debug_print_pause_help(f);
    fprintf(f, "\n%s", debug_outro);
    fputs("\n'rtscope help debug COMMAND' describes one command.\n", f);
}

int debug_help(const char *name)
{
    if (!name) {
        debug_print_overview(stdout);
        return CLI_EXIT_OK;
    }
    const debug_command *dc = debug_find(name);
    if (!dc) {
        fprintf(stderr, "rtscope: no such debug command: %s\n", name);
        return CLI_EXIT_USAGE;
    }
    printf("usage: %s\n", dc->synopsis);
    debug_print_command(stdout, dc);
    if (dc->no_gc)
        debug_print_pause_help(stdout);
    printf("\nTARGET: a stub's socket path, a pid, a program name%s (see "
           "'rtscope help debug').\n%s",
           dc == &debug_cmd_pause || dc == &debug_cmd_resume ||
                   dc == &debug_cmd_list || dc == &debug_cmd_snapshot
               ? ""
               : " or a snapshot file",
           debug_outro);
    return CLI_EXIT_OK;
}

static int debug_run(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(&cli_cmd_debug, "missing a debug command");
    const debug_command *dc = debug_find(argv[1]);
    if (!dc)
        return cli_usage_error(&cli_cmd_debug, "'%s' is not a debug command",
                               argv[1]);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return debug_help(dc->name);
        if (strcmp(argv[i], "--") == 0)
            break;
    }
    return dc->run(argc - 1, argv + 1);
}

static void debug_usage_print(FILE *f)
{
    debug_print_overview(f);
}

const cli_command cli_cmd_debug = {
    .name = "debug",
    .summary = "inspect a running program's heap through its debug stub",
    .run = debug_run,
    .print_usage = debug_usage_print,
    .help_sub = debug_help,
};
