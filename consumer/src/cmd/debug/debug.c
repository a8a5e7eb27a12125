/* rtscope debug: a heap-debugger client of the debug stub inside the RTS
 * (docs/debug.md). The protocol and the closure decoding live in
 * lib/debug, the open/pause/walk/release sequence in session.c; this file
 * is the command table (Note [The debug command table]), the dispatch and
 * help, and list, pause and resume. */
#define _GNU_SOURCE
#include "debug.h"

#include "cli.h"
#include "rtscope/debug/debug_client.h"
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Note [The debug command table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each subcommand is one debug_command: its synopsis, its help and its run
 * function, which parses its own options, so an option of one subcommand
 * is an error in another (`debug pause T --by type`). `rtscope help debug`
 * is the table read in order; `rtscope help debug NAME` (and `rtscope debug
 * NAME --help`) one entry. A new subcommand is a file with its run
 * function and a line in debug_commands[].
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
    "retainers, blocks, dups and gml read it as they read the live heap;\n"
    "blocks needs its block list; pause and resume refuse it).\n";

static const char debug_no_gc_help[] =
    "  --no-gc     pause at once, without a major GC first (no effect on a\n"
    "              snapshot file)\n"
    "  --fork      ghc-debug's fork mode: the stub pauses the program, forks\n"
    "              it and resumes it at once; rtscope reads the paused copy\n"
    "              while the program runs on (no major GC first)\n";

static const char debug_outro[] =
    "A program that a command paused is resumed when rtscope\n"
    "ends, however it ends; one that was paused already stays paused.\n"
    "exit status: 0 ok, 1 no debuggee or an error reply, 2 usage\n";

extern const cli_command cli_cmd_debug;

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

/* ---- list ------------------------------------------------------------- */

static int debug_list(void)
{
    char dir[4096];
    if (dbg_socket_dir(dir, sizeof(dir)) != 0)
        return debug_fail("no socket directory (set XDG_DATA_HOME or HOME)");
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0; /* no debuggee ever ran */
        return debug_fail("%s: %s", dir, strerror(errno));
    }
    struct dirent *e;
    printf("%-8s %-24s %-5s %s\n", "PID", "PROGRAM", "STATE", "SOCKET");
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '-' || pid <= 0)
            continue;
        char path[4096 + 256];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        int alive = kill((pid_t)pid, 0) == 0 || errno == EPERM;
        if (alive) {
            dbg_conn c;
            alive = dbg_connect(&c, path) == 0;
            dbg_close(&c);
        }
        printf("%-8ld %-24s %-5s %s\n", pid, end + 1, alive ? "live" : "dead",
               path);
    }
    closedir(d);
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

const debug_command debug_cmd_list = {
    "list", "rtscope debug list\n",
    "  list        the debuggees in the socket directory: pid, program,\n"
    "              live or dead (a socket left by a program that is gone)\n",
    0, debug_list_run};
const debug_command debug_cmd_pause = {
    "pause", "rtscope debug pause TARGET\n",
    "  pause       pause the program; it stays paused after rtscope exits\n", 0,
    debug_pause_run};
const debug_command debug_cmd_resume = {
    "resume", "rtscope debug resume TARGET\n",
    "  resume      resume a paused program\n", 0, debug_resume_run};
const debug_command debug_cmd_census = {
    "census",
    "rtscope debug census TARGET [--by type|constructor|info|module] "
    "[--no-gc|--fork]\n"
    "       rtscope debug census TARGET --heap-census\n",
    "  census      pause (right after a major GC), walk the heap from the GC\n"
    "              roots and the saved objects, resume; print closures and\n"
    "              bytes per key, largest first:\n"
    "    --by type          closure type (CONSTR_2_0, THUNK, ...)\n"
    "    --by constructor   constructor (main:Main:Leak), other closures by\n"
    "                       type (the default)\n"
    "    --by info          info table, with its name\n"
    "    --by module        the module of the info table's source (-g) or of\n"
    "                       the constructor\n"
    "    --heap-census      count as the RTS's -hT census does, at a pause\n"
    "                       right after a census the program takes (it needs\n"
    "                       +RTS -hT, or another heap profile): -hT's bands,\n"
    "                       heap objects only (static closures are counted\n"
    "                       apart), each pinned block group whole as\n"
    "                       ARR_WORDS; gives the time of the pause: the\n"
    "                       census is the last eventlog heap sample before "
    "it\n",
    1, debug_census_run};
const debug_command debug_cmd_thunks = {
    "thunks", "rtscope debug thunks TARGET [--no-gc|--fork]\n",
    "  thunks      a census of the thunks only, by source location\n"
    "              (module and span, when the program was built with -g)\n",
    1, debug_thunks_run};
const debug_command debug_cmd_retainers = {
    "retainers",
    "rtscope debug retainers TARGET (--constructor NAME | --info ADDR |\n"
    "                                       --address ADDR) [--limit K] "
    "[--no-gc|--fork]\n",
    "  retainers   pause, search the heap breadth-first from the roots and\n"
    "              print, for each closure of constructor NAME found (Leak,\n"
    "              Main.Leak or main:Main:Leak), a shortest path from a root\n"
    "              to it: address, closure type, constructor and source\n"
    "              location (when the program was built with -g)\n"
    "    --constructor NAME the constructor to look for, or\n"
    "    --info ADDR        closures with this info table (hex), or\n"
    "    --address ADDR     the closure at this address (hex)\n"
    "    --limit K          at most K paths (default 1)\n",
    1, debug_retainers_run};
const debug_command debug_cmd_snapshot = {
    "snapshot",
    "rtscope debug snapshot TARGET -o FILE [--no-gc|--fork] [--no-blocks]\n",
    "  snapshot    pause, copy what a walk from the roots reaches (closures,\n"
    "              info tables, bitmaps, SRTs) and the block list, resume,\n"
    "              then write FILE (zstd-compressed; docs/debug.md)\n"
    "    -o, --output FILE  where to write it\n"
    "    --no-blocks        leave out the block list (a shorter pause)\n",
    1, debug_snapshot_cmd_run};
const debug_command debug_cmd_blocks = {
    "blocks", "rtscope debug blocks TARGET [--sample N] [--no-gc|--fork]\n",
    "  blocks      pause (after a major GC), read the heap's block list and\n"
    "              walk the heap: block groups, blocks, megablocks, pinned\n"
    "              blocks, and a histogram of pinned-block utilisation (bytes\n"
    "              of reachable objects / block size, 10% buckets); then the\n"
    "              objects of the emptiest pinned blocks, each with a\n"
    "              retainer path\n"
    "    --sample N         show the objects of the N emptiest pinned blocks\n"
    "                       (default 3; 0 for none)\n"
    "              e.g.  pinned blocks  1210 in 1204 groups (4840.0 KiB),\n"
    "                    live 174.0 KiB (3.6%)\n"
    "                      0- 10%      1200 groups    4915200 bytes  ####\n",
    1, debug_blocks_run};
const debug_command debug_cmd_dups = {
    "dups", "rtscope debug dups TARGET [--limit N] [--no-gc|--fork]\n",
    "  dups        identical immutable closures (same info table, same\n"
    "              payload): constructors, frozen arrays and byte arrays\n"
    "              that could be one shared closure, by bytes wasted\n"
    "              ((count - 1) * size), with constructor and source\n"
    "    --limit N          at most N groups (default 20)\n"
    "              e.g.       count     size       wasted  closure\n"
    "                           500       24        11976  CONSTR_2_0\n"
    "                    main:Main:Dup  at Main Fragment.hs:27:12-22 ...\n",
    1, debug_dups_run};
const debug_command debug_cmd_gml = {
    "gml", "rtscope debug gml TARGET -o FILE [--no-gc|--fork]\n",
    "  gml         write the type-points-from graph in GML: a node per\n"
    "              constructor or closure type (count, bytes), an edge A -> B\n"
    "              with the number of pointers from A closures to B closures\n"
    "    -o FILE            the output file (- for standard output)\n"
    "              e.g.  node [ id 111 label \"main:Main:Kept\"\n"
    "                      kind \"constructor\" count 1200 bytes 28800 ]\n"
    "                    edge [ source 111 target 92 count 1200 ]  (-> PS)\n",
    1, debug_gml_run};

const debug_command debug_cmd_dominators = {
    "dominators",
    "rtscope debug dominators TARGET [--threshold PCT] [--limit N] [--html "
    "FILE]\n"
    "                         [--no-gc|--fork]\n",
    "  dominators  the dominator tree of the reachable heap: retained sizes\n"
    "              by info table, constructor and module (a group's closures\n"
    "              that no other of the group dominates), and the leak\n"
    "              suspects: closures retaining at least PCT% of the heap,\n"
    "              followed down to where the bytes spread out, each with\n"
    "              what it mostly holds and its retainer path\n"
    "    --threshold PCT    a suspect retains at least PCT% (default 10)\n"
    "    --limit N          at most N rows a table (default 20)\n"
    "    --html FILE        write the report as a self-contained page\n"
    "              e.g.  suspect 1: 0x004200a1b2c0 0x4d2e10 CONSTR\n"
    "                    containers:Data.Map.Internal.Bin\n"
    "                      retains 41230000 bytes (71.2% of the heap)\n",
    1, debug_dominators_run};

const debug_command debug_cmd_diff = {
    "diff", "rtscope debug diff A B [--limit N] [--paths K] [--no-gc|--fork]\n",
    "  diff        what grew from heap A to heap B of one program (A and B\n"
    "              snapshots, or B the live program): closures and bytes\n"
    "              by info table, constructor and module, largest growth\n"
    "              first, and for the K info tables that grew most a\n"
    "              closure of B and its retainer path\n"
    "    --limit N          at most N rows a table (default 20)\n"
    "    --paths K          retainer paths for K growers (default 3)\n"
    "              e.g.         +bytes      +count     bytes in B  count in B\n"
    "                        +1920000      +60000        1920032       60001\n"
    "                    CONSTR main:Main.Request\n",
    1, debug_diff_run};

static const debug_command *const debug_commands[] = {
    &debug_cmd_list,     &debug_cmd_pause,      &debug_cmd_resume,
    &debug_cmd_census,   &debug_cmd_thunks,     &debug_cmd_retainers,
    &debug_cmd_snapshot, &debug_cmd_blocks,     &debug_cmd_dups,
    &debug_cmd_gml,      &debug_cmd_dominators, &debug_cmd_diff,
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

static void debug_print_overview(FILE *f)
{
    for (size_t i = 0; i < DEBUG_NCOMMANDS; i++) {
        fputs(i ? "       " : "usage: ", f);
        fputs(debug_commands[i]->synopsis, f);
    }
    fprintf(f, "\n%s\n", debug_intro);
    for (size_t i = 0; i < DEBUG_NCOMMANDS; i++)
        fputs(debug_commands[i]->help, f);
    fprintf(f, "%s\n%s", debug_no_gc_help, debug_outro);
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
    printf("usage: %s\n%s", dc->synopsis, dc->help);
    if (dc->no_gc)
        fputs(debug_no_gc_help, stdout);
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
    "debug",
    "inspect a running program's heap through its debug stub",
    NULL,
    debug_run,
    debug_usage_print,
    debug_help,
};
