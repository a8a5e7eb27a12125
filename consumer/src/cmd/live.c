/* rtscope live: a terminal view of running programs, refreshed every
 * second, from their eventlog sockets: heap size, live bytes, blocks size,
 * allocation rate, GC counts and pauses, the top bands of the latest heap
 * sample (named from IPE for -hi), markers; keys send control commands.
 * Drawn with ncurses; the data path is the same targets and metrics models
 * as `rtscope export` (target.h, metrics.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "rtscope/base/grow.h"
#include "target.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIVE_READ_BUDGET ((size_t)1 << 20)

typedef struct live_view {
    target **targets;
    size_t ntargets, cap;
    target_opts topts; /* for each target, also those added later */
    int follow_home;   /* no TARGET: every program in the per-user
                          directory, rescanned every second */
    int64_t scan_ms;
    size_t sel;
    int refresh_ms;
    /* allocation rate of the selected run, over the last refresh */
    const metrics *rate_m;
    uint64_t rate_alloc, rate_ts;
    double rate;
    char message[256];
    uint64_t msg_seq_seen;
} live_view;

static volatile sig_atomic_t live_stop_flag;

static void live_on_signal(int sig)
{
    (void)sig;
    live_stop_flag = 1;
}

static void live_bytes(char *out, size_t cap, double b)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, cap, "%.0f B", b);
    else
        snprintf(out, cap, "%.1f %s", b, units[u]);
}

static void live_update_rate(live_view *v, const metrics *m)
{
    if (!m) {
        v->rate_m = NULL;
        v->rate = 0;
        return;
    }
    if (v->rate_m != m) {
        v->rate_m = m;
        v->rate_alloc = m->allocated;
        v->rate_ts = m->last_ts;
        v->rate = 0;
        return;
    }
    if (m->last_ts > v->rate_ts + 200000000ull) {
        v->rate = (double)(m->allocated - v->rate_alloc) * 1e9 /
                  (double)(m->last_ts - v->rate_ts);
        v->rate_alloc = m->allocated;
        v->rate_ts = m->last_ts;
    }
}

/* A row's label, in bold at its start. */
static void live_label(int row, const char *label)
{
    attron(A_BOLD);
    mvprintw(row, 0, "%s", label);
    attroff(A_BOLD);
}

/* Heap, allocation, memory returned, GC and loss, from `row`; returns the
 * next row. */
static int live_draw_memory(const live_view *v, const metrics *m, int row)
{
    char a[32], b[32], c[32];
    live_bytes(a, sizeof(a), (double)m->heap_size);
    live_bytes(b, sizeof(b), (double)m->live_bytes);
    live_bytes(c, sizeof(c), (double)m->blocks_size);
    live_label(row, "heap size");
    mvprintw(row++, 14, "%-14s live bytes  %-14s blocks size  %s",
             m->have_heap_size ? a : "-", m->have_live_bytes ? b : "-",
             m->have_blocks_size ? c : "-");
    live_bytes(a, sizeof(a), (double)m->allocated);
    live_bytes(b, sizeof(b), v->rate);
    live_bytes(c, sizeof(c), (double)m->mem_returned_total);
    live_label(row, "allocated");
    mvprintw(row++, 14, "%-14s rate        %s/s%*s mem returned %s", a, b,
             (int)(10 - strlen(b) > 0 ? 10 - strlen(b) : 0), "",
             m->have_mem ? c : "-");
    if (m->have_mem) {
        /* the latest major GC's MEM_RETURN, in megablocks' bytes */
        live_bytes(a, sizeof(a), (double)m->mem_current);
        live_bytes(b, sizeof(b), (double)m->mem_needed);
        live_bytes(c, sizeof(c), (double)m->mem_returned);
        mvprintw(row++, 14, "last major GC: held %s, wanted %s, returned %s", a,
                 b, c);
    }
    uint64_t major = 0;
    for (int g = 1; g <= METRICS_MAX_GENS; g++)
        major += m->gc_by_gen[g];
    live_label(row, "GC");
    mvprintw(row++, 14,
             "%llu collections (%llu gen 0, %llu older)   pauses: total "
             "%.3f s, max %.2f ms, last %.2f ms",
             (unsigned long long)m->gc_count,
             (unsigned long long)m->gc_by_gen[0], (unsigned long long)major,
             (double)m->pause_sum_ns / 1e9, (double)m->pause_max_ns / 1e6,
             (double)m->pause_last_ns / 1e6);
    if (m->dropped_bytes) {
        live_bytes(a, sizeof(a), (double)m->dropped_bytes);
        attron(A_BOLD);
        mvprintw(row++, 0,
                 "lost          %s (%llu events) dropped by the "
                 "socket: rtscope read too slowly",
                 a, (unsigned long long)m->dropped_events);
        attroff(A_BOLD);
    }
    return row;
}

/* The heap samples: how many, and the latest one's top bands as bars, from
 * `row`; returns the next row. */
static int live_draw_samples(const metrics *m, int row)
{
    char a[32];
    int cols = COLS;
    live_label(row, "heap samples");
    if (!m->profiling) {
        mvprintw(row++, 14,
                 "none yet (needs -hT or -hi; without "
                 "--eventlog-flush-interval they arrive at exit)");
    } else if (!m->samples) {
        mvprintw(row++, 14, "%s every %.2f s, none received yet",
                 metrics_breakdown_flag(m->breakdown),
                 (double)m->interval_ns / 1e9);
    } else {
        live_bytes(a, sizeof(a), (double)m->latest.total);
        mvprintw(row++, 14,
                 "%llu (%s, every %.2f s); latest at %.2f s: %s in %zu "
                 "bands",
                 (unsigned long long)m->samples,
                 metrics_breakdown_flag(m->breakdown),
                 (double)m->interval_ns / 1e9, (double)m->latest.ts / 1e9, a,
                 m->latest.nbands);
    }
    int band_rows = LINES - row - 4 - METRICS_MARKERS / 2;
    if (band_rows < 1)
        band_rows = 1;
    uint64_t max = m->latest.ntop ? m->latest.top[0].bytes : 1;
    for (size_t i = 0; i <= m->latest.ntop && (int)i < band_rows; i++) {
        if (!m->samples)
            break;
        const char *name = i < m->latest.ntop ? m->latest.top[i].name : "other";
        uint64_t bytes =
            i < m->latest.ntop ? m->latest.top[i].bytes : m->latest.other;
        if (i == m->latest.ntop && !bytes)
            break;
        live_bytes(a, sizeof(a), (double)bytes);
        int bar = max ? (int)(20.0 * (double)bytes / (double)max) : 0;
        if (bar > 20)
            bar = 20;
        mvprintw(row, 2, "%10s ", a);
        for (int k = 0; k < 20; k++)
            addch(k < bar ? '#' : ' ');
        printw(" %.*s", cols > 40 ? cols - 36 : 4, name);
        row++;
    }
    return row;
}

/* The latest markers, from `row` to the status line. */
static void live_draw_markers(const metrics *m, int row)
{
    if (!m->nmarkers)
        return;
    live_label(row++, "markers");
    uint64_t first = m->nmarkers > METRICS_MARKERS / 2
                         ? m->nmarkers - METRICS_MARKERS / 2
                         : 0;
    for (uint64_t i = first; i < m->nmarkers && row < LINES - 2; i++) {
        const metrics_marker *mk = &m->markers[i % METRICS_MARKERS];
        mvprintw(row++, 2, "%9.3f s  %s", (double)mk->ts / 1e9, mk->text);
    }
}

/* The selected program's pane, from `row`. */
static void live_draw_program(const live_view *v, const target *t, int row)
{
    const metrics *m = t->m;
    if (!m) {
        mvprintw(row, 0, "no program yet: %s", t->status);
        return;
    }
    row = live_draw_memory(v, m, row);
    row = live_draw_samples(m, row + 1);
    live_draw_markers(m, row + 1);
}

static void live_draw(live_view *v)
{
    erase();
    attron(A_REVERSE);
    mvprintw(0, 0, "%-*s", COLS,
             " rtscope live   c census  p start profiling  s stop "
             "profiling  tab next  q quit");
    attroff(A_REVERSE);
    int row = 1;
    for (size_t i = 0; i < v->ntargets && row < LINES / 3; i++) {
        const target *t = v->targets[i];
        const metrics *m = t->m;
        /* a long spec by its end, which tells targets apart (a socket's
         * name, <pid>-<program> in the per-user directory) */
        size_t len = strlen(t->spec);
        const char *tail = len > 28 ? t->spec + len - 25 : t->spec;
        if (i == v->sel)
            attron(A_BOLD);
        mvprintw(row++, 0, "%c %s%-*s %-10s %s pid %lu  run %llu  %.1f s",
                 i == v->sel ? '>' : ' ', len > 28 ? "..." : "",
                 len > 28 ? 25 : 28, tail, target_state_name(t),
                 m && m->program[0] ? m->program : "-",
                 m ? (unsigned long)m->pid : 0ul, (unsigned long long)t->runs,
                 m ? (double)m->last_ts / 1e9 : 0.0);
        if (i == v->sel)
            attroff(A_BOLD);
    }
    row++;
    const target *t = v->targets[v->sel];
    live_update_rate(v, t->m);
    live_draw_program(v, t, row);
    /* the status line: the latest message of the selected target */
    if (t->status_seq != v->msg_seq_seen || !v->message[0]) {
        v->msg_seq_seen = t->status_seq;
        snprintf(v->message, sizeof(v->message), "%s", t->status);
    }
    if (t->status_is_error)
        attron(A_BOLD);
    mvprintw(LINES - 1, 0, "%.*s", COLS - 1, v->message);
    if (t->status_is_error)
        attroff(A_BOLD);
    refresh();
}

static int live_key(live_view *v, int ch)
{
    target *t = v->targets[v->sel];
    switch (ch) {
    case 'q':
    case 'Q':
        return 1;
    case '\t':
    case KEY_DOWN:
    case 'j':
        v->sel = (v->sel + 1) % v->ntargets;
        break;
    case KEY_BTAB:
    case KEY_UP:
    case 'k':
        v->sel = (v->sel + v->ntargets - 1) % v->ntargets;
        break;
    case 'c':
        target_send(t, TARGET_CMD_REQUEST_CENSUS);
        break;
    case 'p':
        target_send(t, TARGET_CMD_START_HEAP_PROF);
        break;
    case 's':
        target_send(t, TARGET_CMD_STOP_HEAP_PROF);
        break;
    case 'S':
        target_send(t, TARGET_CMD_HEAP_SNAPSHOT);
        break;
    default:
        break;
    }
    return 0;
}

static const char live_about[] =
    "A terminal view of running programs (TARGET: unix:PATH, tcp:HOST:PORT\n"
    "or tcp:PORT: the program's +RTS --eventlog-socket; a pid or program\n"
    "name for one on the per-user socket; none: every program there),\n"
    "refreshed every second: heap size, live bytes, blocks size, allocation\n"
    "and its rate, GC counts and pause times, the top bands of the latest\n"
    "heap sample (named from IPE with -hi), markers as they arrive. Follows\n"
    "a program across restarts.\n"
    "\n"
    "keys:\n"
    "  c      request a heap census (the program needs -hT or -hi)\n"
    "  p / s  start / stop heap profiling\n"
    "  S      heap snapshot (written by the program: +RTS "
    "--heap-snapshot-dir)\n"
    "  tab    next target (also j/k, arrows)\n"
    "  q      quit\n";

/* What `rtscope live` is given. */
typedef struct live_args {
    double refresh, backoff; /* seconds; backoff 0: the default */
    long bands;              /* 0: the default */
} live_args;

static const opt live_opts[] = {
    {.name = "refresh",
     .kind = OPT_NUMBER,
     .argname = "SECS",
     .lo = 0.05,
     .hi = 3600,
     .value = OPT_AT(live_args, refresh),
     .help = "redraw interval (default 1)",
     .bad = "seconds from 0.05 to 3600"},
    {.name = "bands",
     .kind = OPT_COUNT,
     .argname = "N",
     .min = 1,
     .max = 1000,
     .value = OPT_AT(live_args, bands),
     .help = "bands shown per sample (default 10)",
     .bad = "a number from 1 to 1000"},
    {.name = "backoff",
     .kind = OPT_NUMBER,
     .argname = "SECS",
     .lo = 0.05,
     .hi = 3600,
     .value = OPT_AT(live_args, backoff),
     .help = "longest delay between connection attempts\n(default 2)",
     .bad = "seconds from 0.05 to 3600"},
    OPT_END,
};

static int live_run(int argc, char **argv);

const cli_command cli_cmd_live = {
    .name = "live",
    .summary = "terminal view of running programs (eventlog sockets)",
    .synopsis = "rtscope live [TARGET...] [--refresh SECS] [--bands N]",
    .about = live_about,
    .opts = live_opts,
    .sep = ' ',
    .more = "See docs/live-and-export.md.\n",
    .run = live_run,
};

/* With no TARGET (target_scan_home): a program that started in the
 * per-user directory becomes a target too. */
static void live_home_program(void *ctx, const char *spec, long pid,
                              const char *program)
{
    live_view *v = ctx;
    char why[300];
    (void)pid;
    (void)program;
    for (size_t k = 0; k < v->ntargets; k++)
        if (strcmp(v->targets[k]->spec, spec) == 0)
            return;
    const size_t elem = sizeof(target *); /* an array of pointers */
    target *t = target_new(spec, &v->topts, why, sizeof(why));
    if (!t ||
        rt_grow((void **)&v->targets, &v->cap, v->ntargets, elem, 8) != 0) {
        target_free(t);
        return;
    }
    v->targets[v->ntargets++] = t;
}

static int live_loop(live_view *v)
{
    size_t n = 0;
    struct pollfd *pfds = NULL;
    int64_t next_draw = 0;
    while (!live_stop_flag) {
        int64_t now = target_now_ms();
        if (v->follow_home)
            target_scan_home(now, &v->scan_ms, live_home_program, v);
        if (!pfds || n != v->ntargets) {
            struct pollfd *np = realloc(pfds, (v->ntargets + 1) * sizeof(*np));
            if (!np) {
                free(pfds);
                return CLI_EXIT_DATA;
            }
            pfds = np;
            n = v->ntargets;
            next_draw = 0;
        }
        if (now >= next_draw) {
            live_draw(v);
            next_draw = now + v->refresh_ms;
        }
        int timeout = (int)(next_draw - now);
        if (v->follow_home && timeout > 1000)
            timeout = 1000;
        for (size_t i = 0; i < n; i++) {
            target_pollfd(v->targets[i], &pfds[i]);
            int to = target_timeout_ms(v->targets[i], now);
            if (to >= 0 && to < timeout)
                timeout = to;
        }
        pfds[n].fd = STDIN_FILENO;
        pfds[n].events = POLLIN;
        pfds[n].revents = 0;
        if (poll(pfds, n + 1, timeout) < 0 && errno != EINTR)
            break;
        now = target_now_ms();
        for (size_t i = 0; i < n; i++)
            target_step(v->targets[i], pfds[i].revents, now, LIVE_READ_BUDGET);
        if (pfds[n].revents & (POLLIN | POLLHUP)) {
            int ch, redraw = 0, quit = 0;
            while ((ch = getch()) != ERR) {
                if (ch == KEY_RESIZE) {
                    redraw = 1;
                    continue;
                }
                if (live_key(v, ch)) {
                    quit = 1;
                    break;
                }
                redraw = 1;
            }
            if (quit)
                break;
            if (redraw)
                next_draw = 0;
        }
    }
    free(pfds);
    return CLI_EXIT_OK;
}

static int live_run(int argc, char **argv)
{
    live_args a = {.refresh = 1};
    int first = opts_parse("live", argc, argv, &(opts_bind){live_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    live_view v;
    target_opts to;
    memset(&v, 0, sizeof(v));
    memset(&to, 0, sizeof(to));
    v.refresh_ms = (int)(a.refresh * 1000);
    to.backoff_max_ms = (int)(a.backoff * 1000);
    to.top_n = (size_t)a.bands;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "rtscope live: needs a terminal (for scripts and "
                        "monitoring use 'rtscope export')\n");
        return CLI_EXIT_USAGE;
    }
    char **every = NULL, **specs = argv + first, why[4600];
    size_t nevery = 0;
    v.ntargets = (size_t)argc - (size_t)first;
    if (first >= argc) { /* every program in the per-user directory */
        if (cli_every_program(&every, &nevery, why, sizeof(why)) != 0)
            return cli_usage_error(&cli_cmd_live, "%s", why);
        specs = every;
        v.ntargets = nevery;
        v.follow_home = 1;
        v.scan_ms = target_now_ms();
    }
    v.topts = to;
    v.cap = v.ntargets;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
    v.targets = calloc(v.ntargets, sizeof(target *));
    int rc = CLI_EXIT_OK;
    if (!v.targets) {
        rc = CLI_EXIT_DATA;
        goto out;
    }
    for (size_t i = 0; i < v.ntargets; i++) {
        v.targets[i] = target_new(specs[i], &to, why, sizeof(why));
        if (!v.targets[i]) {
            rc = cli_usage_error(&cli_cmd_live, "%s", why);
            goto out;
        }
    }
    cli_stop_on_signals(live_on_signal);
    live_stop_flag = 0;
    setlocale(LC_ALL, "");
    if (!initscr()) {
        fprintf(stderr, "rtscope live: cannot initialise the terminal\n");
        rc = CLI_EXIT_DATA;
        goto out;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    rc = live_loop(&v);
    endwin();
out:
    for (size_t i = 0; v.targets && i < v.ntargets; i++)
        target_free(v.targets[i]);
    free(v.targets);
    cli_specs_free(every, nevery);
    return rc;
}
