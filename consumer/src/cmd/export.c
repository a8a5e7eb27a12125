/* rtscope export: follow running programs' eventlog sockets and serve their
 * metrics to Prometheus (/metrics, libmicrohttpd) and/or push them to
 * InfluxDB 1.x (line protocol, libcurl).
 *
 * Note [One thread, one poll]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Everything runs in one thread around one poll: the targets' sockets,
 * libmicrohttpd's epoll descriptor (the daemon runs in external-select mode,
 * MHD_run after each poll) and libcurl's sockets (curl_multi_poll takes the
 * other descriptors as extra fds). So the metrics models need no locks, a
 * scrape always sees whole samples, and the process costs one wake-up per
 * event batch. Each target reads at most EXPORT_READ_BUDGET bytes per turn
 * so a flooding program cannot starve scrapes or the others.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include "cli.h"
#include "httpd.h"

#include <curl/curl.h>
#include <errno.h>
#include <float.h>
#include <microhttpd.h>
#include <netdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define EXPORT_READ_BUDGET ((size_t)1 << 20)

static volatile sig_atomic_t export_stop_flag;

static void export_on_signal(int sig)
{
    (void)sig;
    export_stop_flag = 1;
}

/* ---------------------------------------------------------------------- */

static const char export_about[] =
    "Follow running programs' eventlog sockets (TARGET: unix:PATH,\n"
    "tcp:HOST:PORT or tcp:PORT) and export their metrics, labelled by\n"
    "program and pid: heap size, live bytes, blocks size, memory returned,\n"
    "allocation, GC counts and a pause-time histogram, the top N heap-profile\n"
    "bands of the latest sample plus 'other', and the bytes the socket\n"
    "dropped. Programs that exit are picked up again when they restart (a\n"
    "new run: new pid). A target that fails is retried; it never stops the\n"
    "others. Runs until interrupted.\n";

static const char export_more[] =
    "Status changes (connected, program ended, cannot connect, malformed\n"
    "stream, InfluxDB unreachable) go to stderr, one line each.\n"
    "See docs/live-and-export.md.\n";

/* What `rtscope export` is given. */
typedef struct export_args {
    const char *prom;
    influx_opts ix;
    target_opts to;
    double influx_flush, influx_backoff, interval, backoff, forget;
    long bands;
    int quiet;
} export_args;

#define EXPORT_SECS(n, member, h)                                              \
    {                                                                          \
        .name = (n), .kind = OPT_NUMBER, .argname = "SECS",                    \
        .lo = DBL_TRUE_MIN, .hi = 86400, .value = OPT_AT(export_args, member), \
        .help = (h), .bad = "seconds, above 0 and at most 86400"               \
    }

static const opt export_opts[] = {
    {.name = "prometheus",
     .kind = OPT_STRING,
     .argname = "ADDR",
     .value = OPT_AT(export_args, prom),
     .help = "serve GET /metrics (Prometheus text format) and\n"
             "POST /control/request-heap-census,\n"
             "/control/start-heap-profiling,\n"
             "/control/stop-heap-profiling (all programs, or\n"
             "?pid=N, ?program=NAME, ?target=SPEC) on ADDR\n"
             "(HOST:PORT; HOST defaults to 127.0.0.1)"},
    {.name = "influx",
     .kind = OPT_STRING,
     .argname = "URL",
     .value = OPT_AT(export_args, ix.url),
     .help = "push InfluxDB 1.x line protocol to URL/write\n"
             "(measurements ghc_rts, ghc_heap_census,\n"
             "ghc_heap_band, ghc_marker)"},
    {.name = "db",
     .kind = OPT_STRING,
     .argname = "NAME",
     .value = OPT_AT(export_args, ix.db),
     .help = "InfluxDB database (default rtscope; created\n"
             "unless --no-create-db)"},
    {.name = "no-create-db",
     .kind = OPT_FLAG,
     .set = 0,
     .value = OPT_AT(export_args, ix.create_db),
     .help = "do not send CREATE DATABASE"},
    {.name = "influx-queue",
     .kind = OPT_SIZE,
     .argname = "SIZE",
     .min = 4096,
     .value = OPT_AT(export_args, ix.queue_max),
     .help = "points held while InfluxDB is unreachable, in\n"
             "bytes (default 8M; the oldest are dropped and\n"
             "counted beyond it)",
     .bad = "a size of at least 4K"},
    EXPORT_SECS("influx-flush", influx_flush,
                "send a batch at least this often (default 1)"),
    EXPORT_SECS("influx-backoff", influx_backoff,
                "longest delay between retries (default 8)"),
    EXPORT_SECS("interval", interval,
                "ghc_rts points at most this often in program\n"
                "time (default 1)"),
    {.name = "bands",
     .kind = OPT_COUNT,
     .argname = "N",
     .min = 1,
     .max = 1000,
     .value = OPT_AT(export_args, bands),
     .help = "bands per sample exported (default 10)",
     .bad = "a number from 1 to 1000"},
    EXPORT_SECS("backoff", backoff,
                "longest delay between connection attempts to a\n"
                "target (default 2): a restarted program is\n"
                "followed within this"),
    EXPORT_SECS("forget", forget,
                "drop an ended run's series after SECS unless the\n"
                "program comes back earlier (default 60)"),
    {.name = "merge-buffer",
     .kind = OPT_SIZE,
     .argname = "SIZE",
     .value = OPT_AT(export_args, to.merge_budget),
     .help = "bytes held per target to order events across\n"
             "capabilities (default 2M)",
     .bad = "not a size (K, M, G suffixes)"},
    {.name = "quiet",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(export_args, quiet),
     .help = "no status messages on stderr"},
    OPT_END,
};

/* 1 if a line of the same kind as `msg` (same text but for digits) was
 * printed in the last minute; else remembers it and returns 0. */
static int export_seen_lately(export_follow *fl, const char *msg, int64_t now)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = msg; *p; p++)
        if (*p < '0' || *p > '9') {
            h ^= (unsigned char)*p;
            h *= 1099511628211ull;
        }
    int oldest = 0;
    for (int i = 0; i < 4; i++) {
        if (fl->recent_kind[i] == h && now - fl->recent_at[i] < 60000)
            return 1;
        if (fl->recent_at[i] < fl->recent_at[oldest])
            oldest = i;
    }
    fl->recent_kind[oldest] = h;
    fl->recent_at[oldest] = now;
    return 0;
}

static void export_report(exporter *ex)
{
    if (ex->quiet)
        return;
    for (size_t i = 0; i < ex->ntargets; i++) {
        export_follow *fl = &ex->follow[i];
        target *t = ex->targets[i];
        if (fl->status_seq == t->status_seq)
            continue;
        fl->status_seq = t->status_seq;
        /* One line per change that matters: not the transient states, not
         * the same error again, not a new run of a stream that keeps
         * breaking the same way. */
        if (!t->status_is_error && strncmp(t->status, "connect", 7) == 0)
            continue;
        if (t->status_is_error && fl->printed_error &&
            strcmp(t->status, fl->printed) == 0)
            continue;
        if (!t->status_is_error && fl->printed_error &&
            strncmp(t->status, "streaming", 9) == 0 &&
            strncmp(fl->printed, "malformed", 9) == 0)
            continue;
        if (export_seen_lately(fl, t->status, target_now_ms()))
            continue;
        snprintf(fl->printed, sizeof(fl->printed), "%s", t->status);
        fl->printed_error = t->status_is_error;
        if (t->m && !t->ended && t->m->have_pid)
            fprintf(stderr, "rtscope export: %s: %s: %s pid %lu\n", t->spec,
                    t->status, t->m->program, (unsigned long)t->m->pid);
        else
            fprintf(stderr, "rtscope export: %s: %s\n", t->spec, t->status);
    }
    if (ex->ix) {
        uint64_t seq;
        int err;
        const char *s = influx_status(ex->ix, &seq, &err);
        if (seq != ex->ix_status_seq) {
            ex->ix_status_seq = seq;
            fprintf(stderr, "rtscope export: %s\n", s);
        }
    }
}

static void export_forget(exporter *ex, int64_t now)
{
    for (size_t i = 0; i < ex->ntargets; i++) {
        target *t = ex->targets[i];
        if (t->m && t->ended && now - t->run_ended_ms >= ex->forget_ms) {
            metrics_free(t->m);
            t->m = NULL;
        }
    }
}

static int export_run(int argc, char **argv);

const cli_command cli_cmd_export = {
    .name = "export",
    .summary = "serve running programs' metrics to Prometheus / push to "
               "InfluxDB",
    .synopsis = "rtscope export TARGET... [--prometheus [HOST:]PORT]\n"
                "                      [--influx URL [--db NAME]] [options]",
    .about = export_about,
    .opts = export_opts,
    .sep = ' ',
    .more = export_more,
    .run = export_run,
};

/* Wait for the descriptors of pfds (the targets' and the HTTP daemon's)
 * and for libcurl's at once, up to timeout ms (Note [One thread, one
 * poll]); wfds has room for np. */
static void export_curl_poll(exporter *ex, struct pollfd *pfds, size_t np,
                             struct curl_waitfd *wfds, int timeout)
{
    size_t nw = 0;
    for (size_t i = 0; i < np; i++) {
        if (pfds[i].fd < 0)
            continue;
        wfds[nw].fd = pfds[i].fd;
        wfds[nw].events =
            (short)((pfds[i].events & POLLIN ? CURL_WAIT_POLLIN : 0) |
                    (pfds[i].events & POLLOUT ? CURL_WAIT_POLLOUT : 0));
        wfds[nw].revents = 0;
        nw++;
    }
    curl_multi_poll(influx_multi(ex->ix), wfds, (unsigned)nw, timeout, NULL);
    nw = 0;
    for (size_t i = 0; i < np; i++) {
        if (pfds[i].fd < 0)
            continue;
        short r = wfds[nw++].revents;
        pfds[i].revents = (short)((r & CURL_WAIT_POLLIN ? POLLIN : 0) |
                                  (r & CURL_WAIT_POLLOUT ? POLLOUT : 0));
        /* curl reports POLLHUP/POLLERR as readable or writable */
    }
}

/* Interrupted: give queued points a last chance (2 s at most). */
static void export_drain(exporter *ex)
{
    int64_t until = target_now_ms() + 2000;
    for (size_t i = 0; i < ex->ntargets; i++)
        if (ex->targets[i]->m && !ex->targets[i]->ended &&
            ex->follow[i].rts_dirty)
            export_rts_point(&ex->follow[i], ex->targets[i]->m->last_ts);
    influx_stats st;
    for (;;) {
        int64_t now = target_now_ms();
        influx_get_stats(ex->ix, &st);
        if (now >= until || (!st.queued_points && !influx_busy(ex->ix)))
            break;
        curl_multi_poll(influx_multi(ex->ix), NULL, 0, 50, NULL);
        influx_step(ex->ix, now + 1000000); /* everything is due */
    }
    export_report(ex);
}

static int export_loop(exporter *ex)
{
    size_t n = ex->ntargets;
    struct pollfd *pfds = calloc(n + 1, sizeof(*pfds));
    struct curl_waitfd *wfds = calloc(n + 1, sizeof(*wfds));
    if (!pfds || !wfds) {
        free(pfds);
        free(wfds);
        fprintf(stderr, "rtscope export: out of memory\n");
        return CLI_EXIT_DATA;
    }
    int mhd_fd = ex->httpd ? httpd_fd(ex->httpd) : -1;
    while (!export_stop_flag) {
        int64_t now = target_now_ms();
        int timeout = 1000;
        size_t np = 0;
        for (size_t i = 0; i < n; i++) {
            target_pollfd(ex->targets[i], &pfds[np++]);
            int to = target_timeout_ms(ex->targets[i], now);
            if (to >= 0 && to < timeout)
                timeout = to;
        }
        if (mhd_fd >= 0) {
            pfds[np].fd = mhd_fd;
            pfds[np].events = POLLIN;
            pfds[np].revents = 0;
            np++;
            MHD_UNSIGNED_LONG_LONG mt;
            if (MHD_get_timeout(ex->httpd, &mt) == MHD_YES &&
                mt < (MHD_UNSIGNED_LONG_LONG)timeout)
                timeout = (int)mt;
        }
        if (ex->ix) {
            int to = influx_timeout_ms(ex->ix, now);
            if (to >= 0 && to < timeout)
                timeout = to;
            export_curl_poll(ex, pfds, np, wfds, timeout);
        } else if (poll(pfds, np, timeout) < 0 && errno != EINTR) {
            fprintf(stderr, "rtscope export: poll: %s\n", strerror(errno));
            break;
        }
        now = target_now_ms();
        for (size_t i = 0; i < n; i++)
            target_step(ex->targets[i], pfds[i].revents, now,
                        EXPORT_READ_BUDGET);
        if (ex->httpd)
            MHD_run(ex->httpd);
        if (ex->ix)
            influx_step(ex->ix, now);
        export_forget(ex, now);
        export_report(ex);
    }
    if (ex->ix)
        export_drain(ex);
    free(pfds);
    free(wfds);
    return CLI_EXIT_OK;
}

/* The targets (specs[0..n-1]) and InfluxDB, as a says, into ex (zeroed):
 * CLI_EXIT_OK, or an exit status after a message. */
static int export_open(exporter *ex, export_args *a, size_t n, char **specs)
{
    ex->quiet = a->quiet;
    ex->interval_ns = (uint64_t)(a->interval * 1e9);
    ex->forget_ms = (int64_t)(a->forget * 1000);
    ex->ntargets = n;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
    ex->targets = calloc(n, sizeof(target *));
    ex->follow = calloc(n, sizeof(*ex->follow));
    if (!ex->targets || !ex->follow) {
        fprintf(stderr, "rtscope export: out of memory\n");
        return CLI_EXIT_DATA;
    }
    target_opts to = a->to;
    to.top_n = (size_t)a->bands;
    to.backoff_max_ms = (int)(a->backoff * 1000);
    to.on_event = export_on_event;
    char why[300];
    for (size_t i = 0; i < n; i++) {
        ex->follow[i].ex = ex;
        to.ctx = &ex->follow[i];
        ex->targets[i] = target_new(specs[i], &to, why, sizeof(why));
        if (!ex->targets[i])
            return cli_usage_error(&cli_cmd_export, "%s", why);
        ex->follow[i].t = ex->targets[i];
    }
    if (a->ix.url) {
        influx_opts io = a->ix;
        io.flush_ms = (int)(a->influx_flush * 1000);
        io.backoff_max_ms = (int)(a->influx_backoff * 1000);
        ex->ix = influx_new(&io, why, sizeof(why));
        if (!ex->ix)
            return cli_usage_error(&cli_cmd_export, "%s", why);
    }
    return CLI_EXIT_OK;
}

/* Serve /metrics and /control on prom ([HOST:]PORT). */
static int export_serve(exporter *ex, const char *prom)
{
    char why[300];
    int usage;
    ex->httpd =
        httpd_start(prom, 0, 64, export_http, ex, why, sizeof(why), &usage);
    if (!ex->httpd && usage)
        return cli_usage_error(&cli_cmd_export, "--prometheus: %s", why);
    if (!ex->httpd) {
        fprintf(stderr, "rtscope export: %s\n", why);
        return CLI_EXIT_DATA;
    }
    if (!ex->quiet) {
        /* [HOST:]PORT: a bare port listens on the loopback address */
        const char *colon = strrchr(prom, ':');
        int hlen = colon ? (int)(colon - prom) : 0;
        fprintf(stderr, "rtscope export: serving http://%.*s:%u/metrics\n",
                hlen ? hlen : 9, hlen ? prom : "127.0.0.1",
                httpd_port(ex->httpd));
    }
    return CLI_EXIT_OK;
}

static void export_close(exporter *ex)
{
    if (ex->httpd)
        MHD_stop_daemon(ex->httpd);
    influx_free(ex->ix);
    for (size_t i = 0; ex->targets && i < ex->ntargets; i++)
        target_free(ex->targets[i]);
    free(ex->targets);
    free(ex->follow);
}

static int export_run(int argc, char **argv)
{
    export_args a;
    memset(&a, 0, sizeof(a));
    a.ix.db = "rtscope";
    a.ix.create_db = 1;
    a.interval = 1;
    a.backoff = 2;
    a.forget = 60;
    int first =
        opts_parse("export", argc, argv, &(opts_bind){export_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (first >= argc)
        return cli_usage_error(&cli_cmd_export,
                               "no TARGET (unix:PATH or tcp:HOST:PORT)");
    if (!a.prom && !a.ix.url)
        return cli_usage_error(&cli_cmd_export,
                               "nothing to export to: give --prometheus "
                               "ADDR and/or --influx URL");
    exporter ex;
    memset(&ex, 0, sizeof(ex));
    int rc = export_open(&ex, &a, (size_t)(argc - first), argv + first);
    if (rc == CLI_EXIT_OK && a.prom)
        rc = export_serve(&ex, a.prom);
    if (rc == CLI_EXIT_OK) {
        cli_stop_on_signals(export_on_signal);
        export_stop_flag = 0;
        rc = export_loop(&ex);
    }
    export_close(&ex);
    return rc;
}
