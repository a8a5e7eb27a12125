/* A followed program's eventlog socket; see target.h.
 *
 * Note [Following a program across restarts]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every connection gets a complete eventlog from the RTS (header, replay of
 * the state events, then live blocks), so each connection is decoded from
 * scratch into a fresh model: a restarted program is a new run with a new
 * pid, never a continuation of the old one, and nothing of the old run is
 * sent twice. When the stream ends (exit, kill, bad data) the target waits
 * and connects again; the delay starts at backoff_min (after a clean end or
 * a run that delivered data) and doubles on each failed attempt up to
 * backoff_max, so a restarted program is picked up within backoff_max of
 * its socket appearing. The last run's model stays readable, marked ended,
 * until a new run delivers its first event.
 *
 * Note [Identity before the init events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A series is labelled by program and pid, and InfluxDB points need Unix
 * times, but the events that say so (OSPROCESS_PID, PROGRAM_ARGS,
 * WALL_CLOCK_TIME) sit in the RTS's global buffer: with
 * --eventlog-flush-interval the socket's replay delivers them at once, but
 * without it they reach the socket only when that buffer fills or at exit.
 * For a Unix socket the kernel names the peer (SO_PEERCRED), and /proc gives
 * its argv[0] and start time (10 ms resolution), so a run is labelled from
 * its first event either way; the events, when they come, take over (same
 * pid and name; a clock a few ms more exact). TCP targets wait for the
 * events.
 *
 * Descriptors are non-blocking and a step reads a bounded number of bytes,
 * so one chatty program cannot starve the others or the HTTP server.
 */
#define _GNU_SOURCE /* struct ucred, SO_PEERCRED */
#include "target.h"

#include "cli.h"

#include "rtscope/base/filekind.h"
#include "rtscope/base/user_sockets.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define TARGET_DEFAULT_MERGE ((size_t)2 << 20)

int64_t target_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void target_status(target *t, int is_error, const char *fmt, ...)
{
    char msg[sizeof(t->status)];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (strcmp(msg, t->status) == 0 && is_error == t->status_is_error)
        return;
    memcpy(t->status, msg, sizeof(msg));
    t->status_is_error = is_error;
    t->status_seq++;
}

target *target_new(const char *spec, const target_opts *opts, char *why,
                   size_t why_len)
{
    target *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    t->opts = *opts;
    if (!t->opts.merge_budget)
        t->opts.merge_budget = TARGET_DEFAULT_MERGE;
    if (t->opts.backoff_min_ms <= 0)
        t->opts.backoff_min_ms = 100;
    if (t->opts.backoff_max_ms <= 0)
        t->opts.backoff_max_ms = 2000;
    if (t->opts.backoff_max_ms < t->opts.backoff_min_ms)
        t->opts.backoff_max_ms = t->opts.backoff_min_ms;
    if (t->opts.header_timeout_ms <= 0)
        t->opts.header_timeout_ms = 10000;
    t->backoff_ms = t->opts.backoff_min_ms;
    metrics_wanted(t->wanted);
    if (t->opts.want)
        t->opts.want(t->wanted);
    t->spec = strdup(spec);
    if (!t->spec) {
        snprintf(why, why_len, "out of memory");
        target_free(t);
        return NULL;
    }
    char resolved[4400];
    if (cli_resolve_input(spec, resolved, sizeof(resolved), why, why_len) !=
        0) {
        target_free(t);
        return NULL;
    }
    spec = resolved; /* t->spec keeps what the user named */
    el_addr addr;
    el_error aerr;
    if (el_addr_parse(spec, &addr, &aerr) != EL_OK ||
        addr.kind == EL_ADDR_STDIN) {
        snprintf(why, why_len, "%s",
                 addr.kind == EL_ADDR_STDIN && aerr.msg[0] == 0
                     ? "standard input cannot be followed: give a program's "
                       "eventlog socket (unix:PATH or tcp:[HOST:]PORT)"
                     : aerr.msg);
        target_free(t);
        return NULL;
    }
    if (addr.kind == EL_ADDR_TCP) {
        t->graph_spec = strdup(spec);
        if (!t->graph_spec) {
            snprintf(why, why_len, "out of memory");
            target_free(t);
            return NULL;
        }
    } else {
        /* A PATH that is not a socket yet is one to wait for: a target
         * follows a program's socket, which appears when it starts. */
        struct sockaddr_un sa;
        if (strlen(addr.path) >= sizeof(sa.sun_path)) {
            snprintf(why, why_len,
                     "'%s' is not a socket path (longer than %zu bytes)", spec,
                     sizeof(sa.sun_path) - 1);
            target_free(t);
            return NULL;
        }
        t->is_unix = 1;
        t->path = strdup(addr.path);
        size_t n = strlen(addr.path) + 6;
        t->graph_spec = malloc(n);
        if (t->graph_spec)
            snprintf(t->graph_spec, n, "unix:%s", addr.path);
        if (!t->path || !t->graph_spec) {
            snprintf(why, why_len, "out of memory");
            target_free(t);
            return NULL;
        }
    }
    target_status(t, 0, "connecting");
    return t;
}

void target_scan_home(int64_t now, int64_t *scan_ms, target_home_fn fn,
                      void *ctx)
{
    if (now - *scan_ms < 1000)
        return;
    *scan_ms = now;
    rt_sock_ent *v;
    size_t n;
    if (rt_sock_list(RT_SOCK_EVENTLOG, &v, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        char spec[4400];
        if (v[i].alive && (size_t)snprintf(spec, sizeof(spec), "unix:%s",
                                           v[i].path) < sizeof(spec))
            fn(ctx, spec, v[i].pid, v[i].prog);
    }
    free(v);
}

static void target_close(target *t)
{
    el_graph_free(t->graph);
    t->graph = NULL;
    t->graph_bytes = 0;
}

const el_typetab *target_types(const target *t)
{
    return t->graph ? el_graph_types(t->graph) : NULL;
}

void target_free(target *t)
{
    if (!t)
        return;
    target_close(t);
    metrics_free(t->m);
    free(t->spec);
    free(t->graph_spec);
    free(t->path);
    free(t);
}

const char *target_state_name(const target *t)
{
    switch (t->state) {
    case TARGET_CONNECTING:
        return "connecting";
    case TARGET_STREAMING:
        return t->m && !t->ended ? "streaming" : "connected";
    case TARGET_IDLE:
    default:
        return t->m ? "ended" : "waiting";
    }
}

const char *target_command_name(enum target_command cmd)
{
    switch (cmd) {
    case TARGET_CMD_START_PROFILING:
        return "start profiling";
    case TARGET_CMD_STOP_PROFILING:
        return "stop profiling";
    case TARGET_CMD_START_HEAP_PROF:
        return "start heap profiling";
    case TARGET_CMD_STOP_HEAP_PROF:
        return "stop heap profiling";
    case TARGET_CMD_REQUEST_CENSUS:
        return "request heap census";
    case TARGET_CMD_HEAP_SNAPSHOT:
        return "heap snapshot";
    default:
        return "?";
    }
}

int target_command_parse(const char *name, enum target_command *cmd)
{
    static const struct {
        const char *name;
        enum target_command cmd;
    } names[] = {
        {"request-heap-census", TARGET_CMD_REQUEST_CENSUS},
        {"start-heap-profiling", TARGET_CMD_START_HEAP_PROF},
        {"stop-heap-profiling", TARGET_CMD_STOP_HEAP_PROF},
        {"heap-snapshot", TARGET_CMD_HEAP_SNAPSHOT},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i].name) == 0) {
            *cmd = names[i].cmd;
            return 0;
        }
    return -1;
}

/* Schedule the next attempt; `clean`: the previous connection was useful. */
static void target_retry_later(target *t, int64_t now, int clean)
{
    if (clean)
        t->backoff_ms = t->opts.backoff_min_ms;
    t->retry_at_ms = now + t->backoff_ms;
    if (!clean) {
        t->backoff_ms *= 2;
        if (t->backoff_ms > t->opts.backoff_max_ms)
            t->backoff_ms = t->opts.backoff_max_ms;
    }
    t->state = TARGET_IDLE;
}

static void target_end_run(target *t, int64_t now)
{
    if (t->m && !t->ended) {
        t->ended = 1;
        t->run_ended_ms = now;
        if (t->opts.on_event)
            t->opts.on_event(t->opts.ctx, t, NULL, ~0u);
    }
}

/* Close the connection, end the run, schedule a retry. */
static void target_drop(target *t, int64_t now, int clean)
{
    target_close(t);
    target_end_run(t, now);
    target_retry_later(t, now, clean);
}

static int target_begin_run(target *t, int64_t now);

/* The model counts every event of the run, also those the pipeline passed
 * over unread (the model does not want them): the stream's count is the
 * run's. */
static void target_sync_counts(target *t)
{
    if (!t->graph)
        return;
    const el_reader_result *r = el_graph_result(t->graph);
    t->bytes += r->bytes - t->graph_bytes;
    t->graph_bytes = r->bytes;
    if (!t->m || t->ended)
        return;
    t->m->events = r->events;
    if (r->last_ts > t->m->last_ts)
        t->m->last_ts = r->last_ts;
}

/* The pipeline's sink: feed the model. */
static int target_deliver(void *ctx, const el_event *ev,
                          const el_typetab *types)
{
    target *t = ctx;
    (void)types;
    if ((!t->m || t->ended) && target_begin_run(t, target_now_ms()) != 0)
        return 1;
    unsigned changed = metrics_feed(t->m, ev);
    if (t->opts.on_event)
        t->opts.on_event(t->opts.ctx, t, ev, changed);
    return 0;
}

static int target_begin_run(target *t, int64_t now)
{
    metrics *m = metrics_new(t->opts.top_n);
    if (!m)
        return -1;
    metrics_free(t->m);
    t->m = m;
    if (t->peer_pid) {
        m->pid = t->peer_pid;
        m->have_pid = 1;
        memcpy(m->program, t->peer_program, sizeof(m->program));
    }
    if (t->peer_start_unix_ns) {
        m->wall_offset_ns = t->peer_start_unix_ns;
        m->have_wall = 1;
    }
    t->ended = 0;
    t->runs++;
    t->run_started_ms = now;
    target_status(t, 0, "streaming (run %llu)", (unsigned long long)t->runs);
    if (t->opts.on_event)
        t->opts.on_event(t->opts.ctx, t, NULL, 0);
    return 0;
}

/* Who is at the other end of a Unix socket; fills t->peer_*. */
static void target_identify_peer(target *t)
{
    t->peer_pid = 0;
    t->peer_program[0] = 0;
    t->peer_start_unix_ns = 0;
#ifdef SO_PEERCRED
    struct ucred cr;
    socklen_t len = sizeof(cr);
    if (!t->is_unix ||
        getsockopt(el_graph_fd(t->graph), SOL_SOCKET, SO_PEERCRED, &cr, &len) !=
            0 ||
        cr.pid <= 0)
        return;
    t->peer_pid = (uint32_t)cr.pid;
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)cr.pid);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *base = strrchr(buf, '/');
        base = base ? base + 1 : buf;
        snprintf(t->peer_program, sizeof(t->peer_program), "%.127s", base);
    }
    /* start time: field 22 of /proc/PID/stat, clock ticks since boot */
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)cr.pid);
    f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name may hold spaces */
    unsigned long long ticks = 0;
    int field = 2;
    for (; p && *p && field < 22; p++)
        if (*p == ' ')
            field++;
    if (!p || sscanf(p, "%llu", &ticks) != 1)
        return;
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec boot, real;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0 ||
        clock_gettime(CLOCK_REALTIME, &real) != 0)
        return;
    int64_t since_boot = (int64_t)boot.tv_sec * 1000000000 + boot.tv_nsec;
    int64_t started = (int64_t)(ticks * (1000000000ull / (unsigned long)hz));
    t->peer_start_unix_ns = (int64_t)real.tv_sec * 1000000000 + real.tv_nsec -
                            (since_boot - started);
#endif
}

static void target_connected(target *t, int64_t now)
{
    target_identify_peer(t);
    t->state = TARGET_STREAMING;
    t->connect_deadline_ms = now + t->opts.header_timeout_ms;
    target_status(t, 0, "connected, waiting for the eventlog header");
}

static void target_connect_failed(target *t, int64_t now, const el_error *err)
{
    struct stat st;
    int e = err->sys_errno;
    t->failures++;
    if (t->is_unix && e == ECONNREFUSED && stat(t->path, &st) == 0 &&
        !S_ISSOCK(st.st_mode))
        target_status(t, 1,
                      "cannot connect: %s is %s, not a socket (give the "
                      "program's --eventlog-socket path)",
                      t->path, rt_file_kind(st.st_mode));
    else if (t->is_unix && (e == ENOENT || e == ECONNREFUSED))
        target_status(t, 1,
                      "cannot connect: %s (waiting for the program; is it "
                      "running with +RTS --eventlog-socket=%s?)",
                      strerror(e), t->path);
    else if (t->is_unix && e == ENOTSOCK && stat(t->path, &st) == 0)
        target_status(t, 1, "cannot connect: %s is %s, not a socket", t->path,
                      rt_file_kind(st.st_mode));
    else if (t->is_unix && e == ENOTSOCK)
        target_status(t, 1, "cannot connect: %s is not a socket", t->path);
    else
        target_status(t, 1, "%s", err->msg);
    target_close(t);
    target_retry_later(t, now, 0);
}

static void target_connect(target *t, int64_t now)
{
    el_reader_opts o;
    el_error err;
    memset(&o, 0, sizeof(o));
    o.merge_budget = t->opts.merge_budget;
    o.wanted = t->wanted;
    t->connects++;
    t->graph = el_graph_new(t->graph_spec, &o, target_deliver, t, &err);
    if (!t->graph) {
        target_connect_failed(t, now, &err);
        return;
    }
    if (el_graph_connected(t->graph)) {
        target_connected(t, now);
    } else {
        t->state = TARGET_CONNECTING;
        t->connect_deadline_ms = now + t->opts.header_timeout_ms;
    }
}

int target_pollfd(const target *t, struct pollfd *pfd)
{
    pfd->fd = -1;
    pfd->events = 0;
    pfd->revents = 0;
    if (!t->graph)
        return 0;
    pfd->fd = el_graph_pollfd(t->graph, &pfd->events);
    return pfd->fd >= 0;
}

int target_timeout_ms(const target *t, int64_t now)
{
    int64_t at;
    if (t->state == TARGET_IDLE)
        at = t->retry_at_ms;
    else if (t->state == TARGET_CONNECTING ||
             (t->graph && !el_graph_header_done(t->graph)))
        at = t->connect_deadline_ms;
    else /* streaming: the merge's hold (Note [Holding for a quiet stream]) */
        return t->graph ? el_graph_timeout_ms(t->graph) : -1;
    return at <= now ? 0 : (int)(at - now);
}

/* The graph stopped with `st` (not EL_OK): say why, drop the connection. */
static void target_graph_failed(target *t, el_status st, int64_t now)
{
    const el_error *err = el_graph_error(t->graph);
    if (st == EL_ERR_IO) {
        target_status(t, 1, "%s", err->msg);
        t->failures++;
        target_drop(t, now, t->m && !t->ended);
        return;
    }
    if (st == EL_ERR_NOMEM)
        target_status(t, 1, "out of memory in the merge");
    else if (!el_graph_header_done(t->graph))
        target_status(t, 1, "not an eventlog socket: offset %llu: %s",
                      (unsigned long long)err->offset, err->msg);
    else
        target_status(t, 1,
                      "malformed eventlog: offset %llu: %s; dropping the "
                      "connection",
                      (unsigned long long)err->offset, err->msg);
    t->failures++;
    target_drop(t, now, 0);
}

/* The stream ended cleanly, truncated, or just after its header. */
static void target_eof(target *t, int64_t now)
{
    if (!el_graph_header_done(t->graph)) {
        if (el_graph_offset(t->graph) == 0)
            target_status(t, 1,
                          "the connection closed before any data: not an "
                          "eventlog socket, or the program is exiting");
        else
            target_status(t, 1,
                          "the connection closed inside the eventlog header "
                          "(offset %llu)",
                          (unsigned long long)el_graph_offset(t->graph));
        t->failures++;
        target_drop(t, now, 0);
        return;
    }
    if (el_graph_result(t->graph)->truncated)
        target_status(t, 0,
                      "stream ended before the end of the eventlog (run "
                      "%llu; the program may have been killed)",
                      (unsigned long long)t->runs);
    else
        target_status(t, 0, "program ended (run %llu complete)",
                      (unsigned long long)t->runs);
    /* a run that ends within a second is no reason to hurry back: a
     * program in a crash loop is retried with backoff like a refusal */
    target_drop(t, now, now - t->run_started_ms >= 1000);
}

/* What a step of the graph left: a run begun, counts, the end. */
static void target_after_step(target *t, el_status st, int64_t now)
{
    /* A run begins with its first event, wanted by the model or not. */
    if ((!t->m || t->ended) && el_graph_result(t->graph)->events > 0 &&
        (st == EL_AGAIN || st == EL_OK) && target_begin_run(t, now) != 0) {
        target_status(t, 1, "out of memory");
        t->failures++;
        target_drop(t, now, 0);
        return;
    }
    target_sync_counts(t);
    if (st == EL_AGAIN)
        return;
    if (st == EL_OK)
        target_eof(t, now);
    else
        target_graph_failed(t, st, now);
}

void target_step(target *t, short revents, int64_t now, size_t max_bytes)
{
    el_status st;
    switch (t->state) {
    case TARGET_IDLE:
        if (now >= t->retry_at_ms)
            target_connect(t, now);
        return;
    case TARGET_CONNECTING:
        if (!(revents & (POLLOUT | POLLERR | POLLHUP))) {
            if (now >= t->connect_deadline_ms) {
                el_error err;
                memset(&err, 0, sizeof(err));
                err.sys_errno = ETIMEDOUT;
                snprintf(err.msg, sizeof(err.msg), "cannot connect: %s",
                         strerror(ETIMEDOUT));
                target_connect_failed(t, now, &err);
            }
            return;
        }
        st = el_graph_step(t->graph, max_bytes);
        if (!el_graph_connected(t->graph)) {
            if (st != EL_AGAIN)
                target_connect_failed(t, now, el_graph_error(t->graph));
            return;
        }
        target_connected(t, now);
        target_after_step(t, st, now);
        return;
    case TARGET_STREAMING:
        break;
    }
    /* Step on data, and without data when the merge holds events for a
     * quiet stream: the step releases those that waited long enough. */
    if ((revents & (POLLIN | POLLHUP | POLLERR)) ||
        el_graph_timeout_ms(t->graph) >= 0) {
        st = el_graph_step(t->graph, max_bytes);
        target_after_step(t, st, now);
        if (!t->graph)
            return;
    }
    if (!el_graph_header_done(t->graph) && now >= t->connect_deadline_ms) {
        target_status(t, 1,
                      "no eventlog header within %d s: not an eventlog "
                      "socket?",
                      t->opts.header_timeout_ms / 1000);
        t->failures++;
        target_drop(t, now, 0);
    }
}

int target_send(target *t, enum target_command cmd)
{
    /* magic, version, namespace length, namespace, command */
    uint8_t msg[EVENTLOG_SOCKET_CONTROL_LEN];
    int ours = ((unsigned)cmd & TARGET_CMD_RTSCOPE) != 0;
    const char *ns =
        ours ? RTSCOPE_SOCKET_NAMESPACE : EVENTLOG_SOCKET_NAMESPACE;
    uint8_t nslen =
        ours ? RTSCOPE_SOCKET_NAMESPACE_LEN : EVENTLOG_SOCKET_NAMESPACE_LEN;
    size_t n = 0;
    memcpy(msg, EVENTLOG_SOCKET_MAGIC, EVENTLOG_SOCKET_MAGIC_LEN);
    n += EVENTLOG_SOCKET_MAGIC_LEN;
    msg[n++] = EVENTLOG_SOCKET_PROTOCOL_VERSION;
    msg[n++] = nslen;
    memcpy(msg + n, ns, nslen);
    n += nslen;
    msg[n++] = (uint8_t)((unsigned)cmd & 0xff);
    int fd = t->graph ? el_graph_fd(t->graph) : -1;
    if (t->state != TARGET_STREAMING || fd < 0) {
        target_status(t, 1, "%s: not connected", target_command_name(cmd));
        return -1;
    }
    ssize_t w;
    do
        w = send(fd, msg, n, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n) {
        target_status(t, 1, "%s: cannot send: %s", target_command_name(cmd),
                      w < 0 ? strerror(errno) : "short write");
        return -1;
    }
    target_status(t, 0, "%s: sent", target_command_name(cmd));
    return 0;
}
