/* Shared plumbing of the rtscope subcommands: option handling, running the
 * reader with a sink, and reporting errors the git way:
 *   rtscope: FILE: offset N: what went wrong
 * Exit codes: 0 ok, 1 bad data (or I/O), 2 usage. */
#ifndef RTSCOPE_CLI_H
#define RTSCOPE_CLI_H

#include "rtscope/eventlog.h"

#include <stdarg.h>
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_DATA 1
#define CLI_EXIT_USAGE 2

typedef struct cli_command {
    const char *name;
    const char *summary;
    const char *usage; /* full help text, or NULL: print_usage */
    int (*run)(int argc, char **argv);
    void (*print_usage)(FILE *f); /* when the help text is made */
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
extern const cli_command cli_cmd_debug;
extern const cli_command cli_cmd_explore;

/* Options every reading subcommand accepts. */
typedef struct cli_input_opts {
    el_reader_opts reader;
    int quiet; /* no warnings */
} cli_input_opts;

/* Long options shared by the reading subcommands; codes >= 1000. */
#define CLI_COMMON_LONGOPTS                                                    \
    {"reconnect", optional_argument, NULL, 1000},                              \
        {"merge-buffer", required_argument, NULL, 1001},                       \
        {"unordered", no_argument, NULL, 1002},                                \
    {                                                                          \
        "quiet", no_argument, NULL, 1003                                       \
    }

#define CLI_COMMON_HELP                                                        \
    "  --reconnect[=N]     sockets: connect again when the stream ends (at\n"  \
    "                      most N times; retries for 10 s to connect)\n"       \
    "  --merge-buffer=SIZE pipes/sockets: bytes held to order events across\n" \
    "                      capabilities (default 16M; suffixes K, M, G)\n"     \
    "  --unordered         deliver events in input order, no merge\n"          \
    "  --quiet             no warnings\n"

/* Handle a common option; returns 0 if handled, -1 on a bad value, 1 if
 * `code` is not a common option. */
int cli_common_option(cli_input_opts *o, int code, const char *arg);

/* Report a usage error and return CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...);
/* The same for a command named `name` ("debug census"). */
int cli_usage_errorv(const char *name, const char *fmt, va_list ap);

/* Run the reader on `spec` with `sink`; prints warnings (truncation,
 * trailing bytes, late events) and errors; returns an exit code. */
int cli_read(const char *spec, const cli_input_opts *o, el_sink_fn sink,
             void *ctx, el_reader_result *res);

/* Print bytes for humans: control characters escaped. */
void cli_put_str(FILE *f, el_str s);
/* Open an output: "-" is standard output. Returns NULL after reporting. */
FILE *cli_open_output(const char *path);
/* Close an output, reporting a write error; returns 0 or -1. */
int cli_close_output(FILE *f, const char *path);
/* Parse a size with an optional K/M/G suffix. */
int cli_parse_size(const char *s, size_t *out);

#endif
