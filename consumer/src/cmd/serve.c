/* rtscope serve: the HTML report of running programs, kept current in the
 * browser.
 *
 * Note [A live report]
 * ~~~~~~~~~~~~~~~~~~~~
 * Each target (an eventlog socket, followed across restarts by target.c)
 * feeds one heap-profile model (profile.h), the model `rtscope html`
 * reads a file into, so the page is the same report with the same panes.
 * The model keeps going: profile_view() gives the statistics as of now
 * without ending it, and it was built not to grow with the run (series on
 * a grid that coarsens, Note [band series grid]; census times not kept
 * beyond opts.max_times; the latest PROFILE_MAX_TRACES markers). A program
 * that restarts continues on the same timeline: the new run's times are
 * shifted to start where the old one ended plus the time it was away, and
 * a marker says so.
 *
 * Versions, not pushes of data: whenever a target's model changed, at
 * most every --update seconds, its version number goes up and every page
 * listening to the target's server-sent events (GET /t/N/events) is told
 * the number; the page then fetches /t/N/data.json, which is built once
 * per version whatever the number of pages. So an idle page costs nothing,
 * a slow page skips versions instead of queueing them, and the server's
 * memory is the models plus one JSON per target. Everything runs in one
 * thread around one poll, as in `rtscope export` (Note [One thread, one
 * poll] in export.c): event streams wait suspended (libmicrohttpd's
 * suspend/resume) and are resumed by the loop.
 */
#define _POSIX_C_SOURCE 200809L
#include "serve.h"

#include "cli.h"
#include "html_opts.h"
#include "rtscope/base/grow.h"
#include "rtscope/model/samples.h"

#include <errno.h>
#include <float.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SERVE_READ_BUDGET ((size_t)1 << 20)
#define SERVE_MAX_TIMES 4096 /* census times kept for exact statistics */

static volatile sig_atomic_t serve_stop_flag;

static void serve_on_signal(int sig)
{
    (void)sig;
    serve_stop_flag = 1;
}

static const char serve_about[] =
    "Serve the HTML report of running programs (TARGET: an eventlog socket,\n"
    "unix:PATH, tcp:HOST:PORT or tcp:PORT, or a pid or program name for one\n"
    "on the per-user socket; none: every program there) and keep it\n"
    "current in the browser: new censuses, markers and GC figures reach an\n"
    "open page within a second of arriving, without a reload and without\n"
    "losing its zoom, hidden bands, table filters or selected band. Buttons\n"
    "ask the program for a census now and start or stop heap profiling;\n"
    "Download saves the static report of what was received. A program that\n"
    "restarts continues on the same page. With several targets, the page\n"
    "lists them all.\n";

static const char serve_more[] =
    "Pages: / (the first target), /t/N/ (target N), /t/N/report.html (the\n"
    "static report), /t/N/data.json (its data), /t/N/events (server-sent\n"
    "events), POST /t/N/control/request-heap-census, .../start-heap-\n"
    "profiling, .../stop-heap-profiling. Memory does not grow with the\n"
    "length of a run: see docs/html.md, \"Watching a service\".\n";

typedef struct serve_args {
    html_opts h; /* first: html_report_table's values are in it */
    const char *listen;
    double update, backoff;
    size_t merge_budget;
    int quiet;
} serve_args;

static const opt serve_opts[] = {
    {.name = "listen",
     .kind = OPT_STRING,
     .argname = "[HOST:]PORT",
     .value = OPT_AT(serve_args, listen),
     .help = "where to serve (default 127.0.0.1:8686; HOST\n"
             "defaults to 127.0.0.1; PORT 0: any free port)"},
    {.name = "update",
     .kind = OPT_NUMBER,
     .argname = "SECS",
     .lo = 0.05,
     .hi = 3600,
     .value = OPT_AT(serve_args, update),
     .help = "a new version of a page's data at most this\n"
             "often (default 0.5)",
     .bad = "seconds, from 0.05 to 3600"},
    {.name = "backoff",
     .kind = OPT_NUMBER,
     .argname = "SECS",
     .lo = DBL_TRUE_MIN,
     .hi = 86400,
     .value = OPT_AT(serve_args, backoff),
     .help = "longest delay between connection attempts to a\n"
             "target (default 2): a restarted program is\n"
             "followed within this",
     .bad = "seconds, above 0 and at most 86400"},
    {.name = "merge-buffer",
     .kind = OPT_SIZE,
     .argname = "SIZE",
     .value = OPT_AT(serve_args, merge_budget),
     .help = "bytes held per target to order events across\n"
             "capabilities (default 2M)",
     .bad = "not a size (K, M, G suffixes)"},
    {.name = "quiet",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(serve_args, quiet),
     .help = "no status messages on stderr"},
    OPT_INCLUDE_HERE(html_report_table),
    OPT_END,
};

static int serve_run(int argc, char **argv);

const cli_command cli_cmd_serve = {
    .name = "serve",
    .summary = "serve running programs' heap reports, live, to a browser",
    .synopsis = "rtscope serve [TARGET...] [--listen [HOST:]PORT] [options]",
    .about = serve_about,
    .opts = serve_opts,
    .sep = ' ',
    .more = serve_more,
    .run = serve_run,
};

/* ---- the model of each target ----------------------------------------- */

static void serve_want(uint8_t *wanted)
{
    profile_wanted(wanted);
    samples_wanted(wanted);
}

/* A run begins: continue the timeline where the last run left it. */
static void serve_run_begins(serve_target *st, target *t)
{
    st->runs++;
    if (st->runs == 1)
        return;
    profile_new_run(st->p);
    int64_t away_ms = st->run_ended_ms ? target_now_ms() - st->run_ended_ms : 0;
    double at = st->p->last_time + (double)away_ms / 1000.0;
    st->offset_ns = (int64_t)(at * 1e9);
    char text[200];
    int n;
    if (t->m && t->m->have_pid)
        n = snprintf(text, sizeof(text), "restarted: %s pid %lu (run %llu)",
                     t->m->program, (unsigned long)t->m->pid,
                     (unsigned long long)st->runs);
    else
        n = snprintf(text, sizeof(text), "restarted (run %llu)",
                     (unsigned long long)st->runs);
    profile_trace_add(st->p, at, text, (size_t)n, 0);
    if (at > st->p->last_time)
        st->p->last_time = at;
}

static void serve_on_event(void *ctx, target *t, const el_event *ev,
                           unsigned changed)
{
    serve_target *st = ctx;
    st->dirty = 1;
    if (!ev && changed == 0) {
        serve_run_begins(st, t);
        return;
    }
    if (!ev) { /* the run ended: a census cut short ends here */
        if (st->p->in_sample)
            profile_sample_end(st->p);
        st->run_ended_ms = target_now_ms();
        return;
    }
    const el_typetab *types = target_types(t);
    /* the sampled stacks: no timeline, only what adds up (out of memory:
     * the model says so, and stops taking samples) */
    if (st->sm && (ev->type == EL_IPE || ev->type == EL_USER_BINARY_MSG))
        (void)samples_take(st->sm, ev);
    if (st->offset_ns == 0) {
        profile_sink(st->p, ev, types);
        return;
    }
    el_event shifted = *ev;
    shifted.ts = ev->ts + (uint64_t)st->offset_ns;
    profile_sink(st->p, &shifted, types);
}

/* One line on stderr per status change that matters. */
static void serve_status_lines(serve *sv)
{
    for (size_t i = 0; !sv->quiet && i < sv->n; i++) {
        serve_target *st = sv->tg[i];
        target *t = st->t;
        if (st->status_seq == t->status_seq)
            continue;
        st->status_seq = t->status_seq;
        if (!t->status_is_error && strncmp(t->status, "connect", 7) == 0)
            continue;
        if (t->m && !t->ended && t->m->have_pid)
            fprintf(stderr, "rtscope serve: %s: %s: %s pid %lu\n", t->spec,
                    t->status, t->m->program, (unsigned long)t->m->pid);
        else
            fprintf(stderr, "rtscope serve: %s: %s\n", t->spec, t->status);
    }
}

/* Publish a new version of the targets that changed, at most every
 * update_ms; returns the milliseconds until one is due (or 1000). */
static int serve_publish(serve *sv, int64_t now)
{
    int wait = 1000;
    for (size_t i = 0; i < sv->n; i++) {
        serve_target *st = sv->tg[i];
        if (!st->dirty)
            continue;
        int64_t due = st->published_ms + sv->update_ms;
        if (st->seq && now < due) {
            if (due - now < wait)
                wait = (int)(due - now);
            continue;
        }
        st->seq++;
        st->dirty = 0;
        st->published_ms = now;
    }
    return wait;
}

/* One more target, spec: 0; 1, a bad spec, or -1, out of memory, with
 * the reason in why. */
static int serve_add(serve *sv, const char *spec, char *why, size_t why_len)
{
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
    if (rt_grow((void **)&sv->tg, &sv->cap, sv->n, sizeof(*sv->tg), 8) != 0) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    serve_target *st = calloc(1, sizeof(*st));
    if (st) {
        st->sv = sv;
        st->id = sv->n;
        st->p = profile_new(&sv->popts);
        st->sm = samples_new();
    }
    if (!st || !st->p || !st->sm) {
        if (st) {
            profile_free(st->p);
            samples_free(st->sm);
        }
        free(st);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    target_opts to = sv->topts;
    to.ctx = st;
    st->t = target_new(spec, &to, why, why_len);
    if (!st->t) {
        profile_free(st->p);
        samples_free(st->sm);
        free(st);
        return 1;
    }
    sv->tg[sv->n++] = st;
    return 0;
}

/* With no TARGET (target_scan_home): a program that started in the
 * per-user directory becomes a target too. */
static void serve_home_program(void *ctx, const char *spec, long pid,
                               const char *program)
{
    serve *sv = ctx;
    char why[300];
    for (size_t k = 0; k < sv->n; k++)
        if (strcmp(sv->tg[k]->t->spec, spec) == 0)
            return;
    if (serve_add(sv, spec, why, sizeof(why)) != 0)
        fprintf(stderr, "rtscope serve: %s: %s\n", spec, why);
    else if (!sv->quiet)
        fprintf(stderr, "rtscope serve: %s: new program %s pid %ld: /t/%zu/\n",
                spec, program, pid, sv->n - 1);
}

/* ---- the loop ---------------------------------------------------------- */

static int serve_loop(serve *sv)
{
    struct pollfd *pfds = NULL;
    size_t npfds = 0;
    int mhd_fd = httpd_fd(sv->httpd);
    while (!serve_stop_flag) {
        int64_t now = target_now_ms();
        if (sv->follow_home)
            target_scan_home(now, &sv->scan_ms, serve_home_program, sv);
        if (!pfds || npfds != sv->n + 1) {
            struct pollfd *np = realloc(pfds, (sv->n + 1) * sizeof(*pfds));
            if (!np) {
                fprintf(stderr, "rtscope serve: out of memory\n");
                free(pfds);
                return CLI_EXIT_DATA;
            }
            pfds = np;
            npfds = sv->n + 1;
        }
        int timeout = serve_publish(sv, now); /* at most 1 s: a scan's */
        serve_wake(sv, now, 0);
        MHD_run(sv->httpd); /* what the wake-up resumed */
        for (size_t i = 0; i < sv->n; i++) {
            target_pollfd(sv->tg[i]->t, &pfds[i]);
            int to = target_timeout_ms(sv->tg[i]->t, now);
            if (to >= 0 && to < timeout)
                timeout = to;
        }
        pfds[sv->n] = (struct pollfd){.fd = mhd_fd, .events = POLLIN};
        MHD_UNSIGNED_LONG_LONG mt;
        if (MHD_get_timeout(sv->httpd, &mt) == MHD_YES &&
            mt < (MHD_UNSIGNED_LONG_LONG)timeout)
            timeout = (int)mt;
        if (poll(pfds, sv->n + 1, timeout) < 0 && errno != EINTR) {
            fprintf(stderr, "rtscope serve: poll: %s\n", strerror(errno));
            break;
        }
        now = target_now_ms();
        for (size_t i = 0; i < sv->n; i++)
            target_step(sv->tg[i]->t, pfds[i].revents, now, SERVE_READ_BUDGET);
        MHD_run(sv->httpd);
        serve_status_lines(sv);
    }
    free(pfds);
    return CLI_EXIT_OK;
}

/* The targets (specs[0..n-1]) into sv: CLI_EXIT_OK, or an exit status
 * after a message. */
static int serve_open(serve *sv, serve_args *a, size_t n, char **specs)
{
    memset(&sv->topts, 0, sizeof(sv->topts));
    sv->topts.merge_budget = a->merge_budget;
    sv->topts.backoff_max_ms = (int)(a->backoff * 1000);
    sv->topts.on_event = serve_on_event;
    sv->topts.want = serve_want;
    sv->scan_ms = target_now_ms();
    char why[300];
    for (size_t i = 0; i < n; i++) {
        int r = serve_add(sv, specs[i], why, sizeof(why));
        if (r > 0)
            return cli_usage_error(&cli_cmd_serve, "%s", why);
        if (r < 0) {
            fprintf(stderr, "rtscope serve: out of memory\n");
            return CLI_EXIT_DATA;
        }
    }
    return CLI_EXIT_OK;
}

static int serve_listen(serve *sv, const char *listen)
{
    char why[300];
    int usage;
    sv->httpd =
        httpd_start(listen, MHD_ALLOW_SUSPEND_RESUME, SERVE_MAX_CONNECTIONS,
                    serve_http, sv, why, sizeof(why), &usage);
    if (!sv->httpd && usage)
        return cli_usage_error(&cli_cmd_serve, "--listen: %s", why);
    if (!sv->httpd) {
        fprintf(stderr, "rtscope serve: %s\n", why);
        return CLI_EXIT_DATA;
    }
    /* the address a browser can open: the host as given, the real port */
    const char *colon = strrchr(listen, ':');
    int hostlen = colon ? (int)(colon - listen) : 0;
    fprintf(stderr, "rtscope serve: http://%.*s:%u/\n", hostlen ? hostlen : 9,
            hostlen ? listen : "127.0.0.1", httpd_port(sv->httpd));
    return CLI_EXIT_OK;
}

static void serve_close(serve *sv)
{
    if (sv->httpd) {
        serve_wake(sv, target_now_ms(), 1); /* none may stay suspended */
        MHD_stop_daemon(sv->httpd);
    }
    for (size_t i = 0; sv->tg && i < sv->n; i++) {
        target_free(sv->tg[i]->t);
        profile_free(sv->tg[i]->p);
        samples_free(sv->tg[i]->sm);
        free(sv->tg[i]->json);
        free(sv->tg[i]);
    }
    free(sv->tg);
}

static int serve_run(int argc, char **argv)
{
    serve_args a;
    memset(&a, 0, sizeof(a));
    a.update = 0.5;
    a.backoff = 2;
    a.listen = "127.0.0.1:8686";
    int first = html_opts_parse(&a.h, &cli_cmd_serve, argc, argv);
    if (first < 0)
        return -first;
    serve sv;
    memset(&sv, 0, sizeof(sv));
    int rc = CLI_EXIT_OK;
    char **every = NULL, **specs = argv + first, why[4600];
    size_t nspecs = (size_t)(argc - first);
    if (first >= argc) { /* every program in the per-user directory */
        if (cli_every_program(&every, &nspecs, why, sizeof(why)) != 0)
            rc = cli_usage_error(&cli_cmd_serve, "%s", why);
        specs = every;
        sv.follow_home = 1;
    }
    sv.popts = a.h.popts;
    sv.popts.max_times = SERVE_MAX_TIMES;
    sv.popts.keep_last_traces = 1;
    sv.ropts = a.h.ropts;
    sv.update_ms = (int64_t)(a.update * 1000);
    sv.quiet = a.quiet;
    if (rc == CLI_EXIT_OK)
        rc = serve_open(&sv, &a, nspecs, specs);
    if (rc == CLI_EXIT_OK)
        rc = serve_listen(&sv, a.listen);
    if (rc == CLI_EXIT_OK) {
        cli_stop_on_signals(serve_on_signal);
        serve_stop_flag = 0;
        rc = serve_loop(&sv);
    }
    serve_close(&sv);
    html_opts_free(&a.h);
    cli_specs_free(every, every ? nspecs : 0);
    return rc;
}
