#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "rtscope/base/user_sockets.h"

#include <ctype.h>
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

int cli_resolve_input(const char *spec, char *out, size_t outlen, char *err,
                      size_t errlen)
{
    char path[4400];
    int pid = *spec != 0;
    for (const char *p = spec; *p; p++)
        pid &= isdigit((unsigned char)*p) != 0;
    if (strcmp(spec, "-") != 0 && strncmp(spec, "unix:", 5) != 0 &&
        strncmp(spec, "tcp:", 4) != 0 && rt_sock_names_program(spec)) {
        if (rt_sock_resolve(RT_SOCK_EVENTLOG, spec, path, sizeof(path), err,
                            errlen) == 0) {
            if ((size_t)snprintf(out, outlen, "unix:%s", path) < outlen)
                return 0;
            snprintf(err, errlen, "%s: socket path too long", spec);
            return -1;
        }
        if (pid)
            return -1;
    }
    if ((size_t)snprintf(out, outlen, "%s", spec) < outlen)
        return 0;
    snprintf(err, errlen, "%.200s...: too long", spec);
    return -1;
}

void cli_specs_free(char **specs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(specs[i]);
    free(specs);
}

int cli_every_program(char ***specs, size_t *n, char *err, size_t errlen)
{
    rt_sock_ent *v;
    size_t nv;
    char dir[4096];
    *specs = NULL;
    *n = 0;
    if (rt_sock_dir(RT_SOCK_EVENTLOG, dir, sizeof(dir)) != 0) {
        snprintf(err, errlen,
                 "no TARGET, and no per-user socket directory "
                 "(set XDG_DATA_HOME or HOME)");
        return -1;
    }
    if (rt_sock_list(RT_SOCK_EVENTLOG, &v, &nv) != 0) {
        snprintf(err, errlen, "no TARGET, and %s cannot be read: %s", dir,
                 strerror(errno));
        return -1;
    }
    char **s = calloc(nv ? nv : 1, sizeof(*s));
    for (size_t i = 0; s && i < nv; i++) {
        if (!v[i].alive)
            continue;
        size_t len = strlen(v[i].path) + 6;
        if (!(s[*n] = malloc(len)))
            break;
        snprintf(s[(*n)++], len, "unix:%s", v[i].path);
    }
    free(v);
    *specs = s;
    if (s && *n)
        return 0;
    cli_specs_free(s, *n);
    *specs = NULL;
    *n = 0;
    snprintf(err, errlen,
             "no TARGET, and no live program with an eventlog socket in %s "
             "(start one with +RTS --eventlog-socket)",
             dir);
    return -1;
}

int cli_read(const char *spec, const cli_input_opts *o, el_sink_fn sink,
             void *ctx, el_reader_result *res)
{
    el_error err;
    char addr[4400], why[4600];
    if (cli_resolve_input(spec, addr, sizeof(addr), why, sizeof(why)) != 0) {
        fprintf(stderr, "rtscope: %s\n", why);
        return CLI_EXIT_DATA; /* as a file that cannot be opened */
    }
    el_status st = el_reader_run(addr, &o->reader, sink, ctx, res, &err);
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
