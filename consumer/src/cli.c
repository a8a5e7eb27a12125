#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --reconnect[=N]: reconnect, at most N times (N >= 1) when N is given */
static int cli_reconnect_opt(void *base, const char *arg)
{
    cli_input_opts *o = base;
    o->reader.reconnect = 1;
    if (arg) {
        char *end;
        long n = strtol(arg, &end, 10);
        if (*end || n <= 0)
            return -1;
        o->reader.reconnect_max = (int)n;
    }
    return 0;
}

const opt cli_input_table[] = {
    {.name = "reconnect",
     .kind = OPT_CALL,
     .argname = "N",
     .optional = 1,
     .call = cli_reconnect_opt,
     .help = "sockets: connect again when the stream ends (at\n"
             "most N times; retries for 10 s to connect)",
     .bad = "not a positive number"},
    {.name = "merge-buffer",
     .kind = OPT_SIZE,
     .argname = "SIZE",
     .value = OPT_AT(cli_input_opts, reader.merge_budget),
     .help = "pipes/sockets: bytes held to order events across\n"
             "capabilities (default 16M; suffixes K, M, G)",
     .bad = "not a size (K, M, G suffixes)"},
    {.name = "unordered",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(cli_input_opts, reader.unordered),
     .help = "deliver events in input order, no merge"},
    {.name = "quiet",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(cli_input_opts, quiet),
     .help = "no warnings"},
    OPT_END,
};

int cli_usage_errorv(const char *name, const char *fmt, va_list ap)
{
    char msg[256];
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): caller's va_start
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(stderr, "rtscope %s: %s", name, msg);
    fprintf(stderr, "\nusage: see 'rtscope help %s'\n", name);
    return CLI_EXIT_USAGE;
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = cli_usage_errorv(cmd->name, fmt, ap);
    va_end(ap);
    return r;
}

int cli_read(const char *spec, const cli_input_opts *o, el_sink_fn sink,
             void *ctx, el_reader_result *res)
{
    el_error err;
    el_status st = el_reader_run(spec, &o->reader, sink, ctx, res, &err);
    fflush(stdout);
    if (st == EL_OK || st == EL_STOP) {
        if (!o->quiet && res->truncated)
            fprintf(stderr,
                    "rtscope: %s: offset %llu: warning: eventlog is "
                    "truncated (the program may have been killed); "
                    "showing the %llu events before this point\n",
                    spec, (unsigned long long)res->truncated_at,
                    (unsigned long long)res->events);
        if (!o->quiet && res->trailing)
            fprintf(stderr,
                    "rtscope: %s: warning: %llu bytes after the "
                    "end-of-data marker ignored\n",
                    spec, (unsigned long long)res->trailing);
        if (!o->quiet && res->merge.late_events)
            fprintf(stderr,
                    "rtscope: %s: warning: %llu events arrived after the "
                    "merge had passed their time (up to %.6f s late); "
                    "they were delivered out of order (see "
                    "--merge-buffer)\n",
                    spec, (unsigned long long)res->merge.late_events,
                    (double)res->merge.max_late_ns / 1e9);
        return CLI_EXIT_OK;
    }
    if (st == EL_ERR_USAGE) { /* a bad address */
        fprintf(stderr, "rtscope: %s\n", err.msg);
        return CLI_EXIT_USAGE;
    }
    if (st == EL_ERR_IO && err.offset == 0)
        fprintf(stderr, "rtscope: %s: %s\n", spec, err.msg);
    else
        fprintf(stderr, "rtscope: %s: offset %llu: %s\n", spec,
                (unsigned long long)err.offset, err.msg);
    return CLI_EXIT_DATA;
}

void cli_put_str(FILE *f, el_str s)
{
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '\\')
            fputs("\\\\", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            putc(c, f);
    }
}

FILE *cli_open_output(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "rtscope: %s: cannot write: %s\n", path,
                strerror(errno));
    return f;
}

int cli_close_output(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (f == stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "rtscope: %s: write error\n", path);
        return -1;
    }
    return 0;
}

void cli_stop_on_signals(void (*on_stop)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}
