/* Shared plumbing of the rtscope subcommands: option handling, running the
 * reader with a sink, and reporting errors the git way:
 *   rtscope: FILE: offset N: what went wrong
 * Exit codes: 0 ok, 1 bad data (or I/O), 2 usage. */
#ifndef RTSCOPE_CLI_H
#define RTSCOPE_CLI_H

#include "opts.h"
#include "rtscope/eventlog.h"

#include <stdarg.h>
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_DATA 1
#define CLI_EXIT_USAGE 2

typedef struct cli_command {
    const char *name;
    const char *summary;
    /* `rtscope help NAME` (and `rtscope NAME --help`): "usage: " and the
     * synopsis, the about text, "options:" and the options of the table
     * (opts_help), then `more`. */
    const char *synopsis; /* its usage line(s) */
    const char *about;    /* what it does */
    const opt *opts;      /* its options (opts.h) */
    char sep;             /* the help shows "--name ARG" (' ') or, when 0,
                             "--name=ARG" */
    const char *more;     /* after the options, or NULL */
    int (*run)(int argc, char **argv);
    /* A command that prints its help itself (debug), or NULL. */
    void (*print_usage)(FILE *f);
    /* A command with subcommands of its own (debug): `rtscope help CMD SUB`
     * and `rtscope CMD SUB --help`; NULL: none. */
    int (*help_sub)(const char *sub);
} cli_command;

extern const cli_command cli_cmd_show;
extern const cli_command cli_cmd_stats;
extern const cli_command cli_cmd_ipe;
extern const cli_command cli_cmd_hp;
extern const cli_command cli_cmd_html;
extern const cli_command cli_cmd_diff;
extern const cli_command cli_cmd_pprof;
extern const cli_command cli_cmd_live;
extern const cli_command cli_cmd_export;
extern const cli_command cli_cmd_serve;
extern const cli_command cli_cmd_debug;
extern const cli_command cli_cmd_explore;

/* Options every reading subcommand accepts. */
typedef struct cli_input_opts {
    el_reader_opts reader;
    int quiet; /* no warnings */
} cli_input_opts;

/* The options every reading subcommand accepts, into a cli_input_opts:
 * --reconnect[=N], --merge-buffer=SIZE, --unordered, --quiet. A command's
 * table has them as OPT_INCLUDE(cli_input_table, its struct, member). */
extern const opt cli_input_table[];

/* Report a usage error and return CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...);
/* The same for a command named `name` ("debug census"). */
int cli_usage_errorv(const char *name, const char *fmt, va_list ap);

/* Run the reader on `spec` with `sink`; prints warnings (truncation,
 * trailing bytes, late events) and errors; returns an exit code. */
int cli_read(const char *spec, const cli_input_opts *o, el_sink_fn sink,
             void *ctx, el_reader_result *res);

/* What the user names as an eventlog INPUT, as an address (Note [What a
 * target names] in lib/base/user_sockets.c): -, unix:PATH and tcp:...
 * as they are; a pid, the eventlog socket of that program (an error if it
 * has none); a program's name, the socket of the one live program of that
 * name, or else the word as a path (a file, or a socket a follower waits
 * for). Into out; 0, or -1 with a message in err. */
int cli_resolve_input(const char *spec, char *out, size_t outlen, char *err,
                      size_t errlen);

/* The eventlog sockets of every live program in the per-user directory,
 * as unix:PATH addresses, into *specs (n of them; cli_specs_free). 0, or
 * -1 with a message in err (none is an error too: it says where it
 * looked). */
int cli_every_program(char ***specs, size_t *n, char *err, size_t errlen);
void cli_specs_free(char **specs, size_t n);

/* Print bytes for humans: control characters escaped. */
void cli_put_str(FILE *f, el_str s);
/* Open an output: "-" is standard output. Returns NULL after reporting. */
FILE *cli_open_output(const char *path);
/* Close an output, reporting a write error; returns 0 or -1. */
int cli_close_output(FILE *f, const char *path);

/* For the commands that run until interrupted (live, export, serve):
 * SIGINT and SIGTERM call on_stop (which sets the command's stop flag);
 * SIGPIPE is ignored (a peer that vanished is an error of the write). */
void cli_stop_on_signals(void (*on_stop)(int));

#endif
