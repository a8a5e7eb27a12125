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

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define TARGET_BUF ((size_t)64 * 1024)
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
    vsnprintf(msg, sizeof(msg), fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized) */
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
    t->fd = -1;
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
    t->spec = strdup(spec);
    t->buf = malloc(TARGET_BUF);
    if (!t->spec || !t->buf) {
        snprintf(why, why_len, "out of memory");
        target_free(t);
        return NULL;
    }
    if (strncmp(spec, "tcp:", 4) == 0) {
        const char *hp = spec + 4;
        const char *colon = strrchr(hp, ':');
        if (colon && hp[0] == '[' && colon < strchr(hp, ']'))
            colon = NULL; /* tcp:[::1] without a port */
        size_t hl = colon ? (size_t)(colon - hp) : 0;
        const char *port = colon ? colon + 1 : hp;
        if (hl >= 2 && hp[0] == '[' && hp[hl - 1] == ']') {
            hp++;
            hl -= 2;
        }
        char *end;
        long pn = strtol(port, &end, 10);
        if (!*port || *end || pn <= 0 || pn > 65535 || (colon && hl == 0)) {
            snprintf(why, why_len,
                     "expected tcp:HOST:PORT or tcp:PORT, got '%s'", spec);
            target_free(t);
            return NULL;
        }
        t->host = colon ? strndup(hp, hl) : strdup("127.0.0.1");
        t->port = strdup(port);
        if (!t->host || !t->port) {
            snprintf(why, why_len, "out of memory");
            target_free(t);
            return NULL;
        }
    } else {
        const char *path = strncmp(spec, "unix:", 5) == 0 ? spec + 5 : spec;
        struct sockaddr_un sa;
        if (!*path || strlen(path) >= sizeof(sa.sun_path)) {
            snprintf(why, why_len,
                     "'%s' is not a socket path (empty, or longer than "
                     "%zu bytes)",
                     spec, sizeof(sa.sun_path) - 1);
            target_free(t);
            return NULL;
        }
        t->is_unix = 1;
        t->path = strdup(path);
        if (!t->path) {
            snprintf(why, why_len, "out of memory");
            target_free(t);
            return NULL;
        }
    }
    target_status(t, 0, "connecting");
    return t;
}

static void target_close(target *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    el_decoder_free(t->dec);
    t->dec = NULL;
    el_merge_free(t->merge);
    t->merge = NULL;
}

void target_free(target *t)
{
    if (!t)
        return;
    target_close(t);
    metrics_free(t->m);
    free(t->spec);
    free(t->host);
    free(t->port);
    free(t->path);
    free(t->buf);
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
    case TARGET_CMD_START_EVENTLOG: return "start eventlog";
    case TARGET_CMD_STOP_EVENTLOG: return "stop eventlog";
    case TARGET_CMD_START_HEAP_PROF: return "start heap profiling";
    case TARGET_CMD_STOP_HEAP_PROF: return "stop heap profiling";
    case TARGET_CMD_REQUEST_CENSUS: return "request heap census";
    default: return "?";
    }
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

/* Merge output: decode and feed the model. */
static int target_deliver(void *ctx, el_event *ev)
{
    target *t = ctx;
    if (!t->wanted[ev->type]) {
        if (t->m) {
            t->m->events++;
            if (ev->ts > t->m->last_ts)
                t->m->last_ts = ev->ts;
        }
        return 0;
    }
    if (el_event_decode(ev, &t->err) != EL_OK) {
        t->failed = 1;
        return 1;
    }
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
        getsockopt(t->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
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
    t->peer_start_unix_ns =
        (int64_t)real.tv_sec * 1000000000 + real.tv_nsec - (since_boot - started);
#endif
}

static void target_connected(target *t, int64_t now)
{
    target_identify_peer(t);
    t->dec = el_decoder_new(NULL);
    t->merge = el_merge_new(t->opts.merge_budget, target_deliver, t);
    if (!t->dec || !t->merge) {
        target_status(t, 1, "out of memory");
        target_drop(t, now, 0);
        return;
    }
    t->failed = 0;
    t->state = TARGET_STREAMING;
    t->connect_deadline_ms = now + t->opts.header_timeout_ms;
    target_status(t, 0, "connected, waiting for the eventlog header");
}

static void target_connect_failed(target *t, int64_t now, int e)
{
    struct stat st;
    t->failures++;
    if (t->is_unix && e == ECONNREFUSED && stat(t->path, &st) == 0 &&
        !S_ISSOCK(st.st_mode))
        target_status(t, 1, "cannot connect: %s is not a socket (give the "
                      "program's --eventlog-socket path)", t->path);
    else if (t->is_unix && (e == ENOENT || e == ECONNREFUSED))
        target_status(t, 1,
                      "cannot connect: %s (waiting for the program; is it "
                      "running with +RTS --eventlog-socket=%s?)",
                      strerror(e), t->path);
    else if (t->is_unix && e == ENOTSOCK)
        target_status(t, 1, "cannot connect: %s is not a socket", t->path);
    else
        target_status(t, 1, "cannot connect: %s", strerror(e));
    target_close(t);
    target_retry_later(t, now, 0);
}

static void target_connect(target *t, int64_t now)
{
    int fd = -1, rc, e;
    t->connects++;
    if (t->is_unix) {
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof(sa));
        sa.sun_family = AF_UNIX;
        memcpy(sa.sun_path, t->path, strlen(t->path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            target_connect_failed(t, now, errno);
            return;
        }
        rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    } else {
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof(hints));
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        int g = getaddrinfo(t->host, t->port, &hints, &res);
        if (g != 0) {
            t->failures++;
            target_status(t, 1, "cannot resolve %s: %s", t->host,
                          gai_strerror(g));
            target_retry_later(t, now, 0);
            return;
        }
        fd = socket(res->ai_family,
                    res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    res->ai_protocol);
        if (fd < 0) {
            e = errno;
            freeaddrinfo(res);
            target_connect_failed(t, now, e);
            return;
        }
        rc = connect(fd, res->ai_addr, res->ai_addrlen);
        freeaddrinfo(res);
    }
    e = errno;
    t->fd = fd;
    if (rc == 0) {
        target_connected(t, now);
    } else if (e == EINPROGRESS || e == EAGAIN) {
        t->state = TARGET_CONNECTING;
        t->connect_deadline_ms = now + t->opts.header_timeout_ms;
    } else {
        target_connect_failed(t, now, e);
    }
}

int target_pollfd(const target *t, struct pollfd *pfd)
{
    pfd->fd = -1;
    pfd->events = 0;
    pfd->revents = 0;
    if (t->fd < 0)
        return 0;
    pfd->fd = t->fd;
    pfd->events = t->state == TARGET_CONNECTING ? POLLOUT : POLLIN;
    return 1;
}

int target_timeout_ms(const target *t, int64_t now)
{
    int64_t at;
    if (t->state == TARGET_IDLE)
        at = t->retry_at_ms;
    else if (t->state == TARGET_CONNECTING ||
             (t->dec && !el_decoder_header_done(t->dec)))
        at = t->connect_deadline_ms;
    else
        return -1;
    return at <= now ? 0 : (int)(at - now);
}

/* The stream ended (read returned 0). */
static void target_eof(target *t, int64_t now)
{
    if (!el_decoder_header_done(t->dec)) {
        if (el_decoder_offset(t->dec) == 0)
            target_status(t, 1,
                          "the connection closed before any data: not an "
                          "eventlog socket, or the program is exiting");
        else
            target_status(t, 1,
                          "the connection closed inside the eventlog header "
                          "(offset %llu)",
                          (unsigned long long)el_decoder_offset(t->dec));
        t->failures++;
        target_drop(t, now, 0);
        return;
    }
    el_status st = el_decoder_finish(t->dec);
    if (!t->failed)
        el_merge_flush(t->merge);
    if (t->failed) {
        target_status(t, 1, "malformed eventlog: offset %llu: %s",
                      (unsigned long long)t->err.offset, t->err.msg);
        t->failures++;
    } else if (st == EL_OK) {
        target_status(t, 0, "program ended (run %llu complete)",
                      (unsigned long long)t->runs);
    } else if (st == EL_ERR_TRUNCATED) {
        target_status(t, 0,
                      "stream ended before the end of the eventlog (run "
                      "%llu; the program may have been killed)",
                      (unsigned long long)t->runs);
    } else {
        target_status(t, 1, "malformed eventlog: offset %llu: %s",
                      (unsigned long long)el_decoder_error(t->dec)->offset,
                      el_decoder_error(t->dec)->msg);
        t->failures++;
    }
    /* a run that ends within a second is no reason to hurry back: a
     * program in a crash loop is retried with backoff like a refusal */
    target_drop(t, now, !t->failed && st != EL_ERR_FORMAT &&
                            now - t->run_started_ms >= 1000);
}

/* Feed `n` bytes; returns -1 if the connection was dropped. */
static int target_feed(target *t, size_t n, int64_t now)
{
    el_event ev;
    el_status st;
    el_decoder_input(t->dec, t->buf, n);
    while ((st = el_decoder_next(t->dec, &ev)) == EL_FRAME || st == EL_END) {
        if (st == EL_END)
            continue;
        if (!t->m || t->ended) {
            if (target_begin_run(t, now) != 0) {
                target_status(t, 1, "out of memory");
                target_drop(t, now, 0);
                return -1;
            }
        }
        el_status ms = el_merge_push(t->merge, &ev);
        if (ms != EL_OK || t->failed) {
            if (t->failed)
                target_status(t, 1,
                              "malformed eventlog: offset %llu: %s; "
                              "dropping the connection",
                              (unsigned long long)t->err.offset, t->err.msg);
            else
                target_status(t, 1, "out of memory in the merge");
            t->failures++;
            target_drop(t, now, 0);
            return -1;
        }
    }
    if (st == EL_NEED_MORE)
        return 0;
    const el_error *err = el_decoder_error(t->dec);
    if (!el_decoder_header_done(t->dec))
        target_status(t, 1,
                      "not an eventlog socket: offset %llu: %s",
                      (unsigned long long)err->offset, err->msg);
    else
        target_status(t, 1,
                      "malformed eventlog: offset %llu: %s; dropping the "
                      "connection",
                      (unsigned long long)err->offset, err->msg);
    t->failures++;
    target_drop(t, now, 0);
    return -1;
}

void target_step(target *t, short revents, int64_t now, size_t max_bytes)
{
    switch (t->state) {
    case TARGET_IDLE:
        if (now >= t->retry_at_ms)
            target_connect(t, now);
        return;
    case TARGET_CONNECTING: {
        if (revents & (POLLOUT | POLLERR | POLLHUP)) {
            int e = 0;
            socklen_t len = sizeof(e);
            if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
                e = errno;
            if (e)
                target_connect_failed(t, now, e);
            else
                target_connected(t, now);
        } else if (now >= t->connect_deadline_ms) {
            target_connect_failed(t, now, ETIMEDOUT);
        }
        return;
    }
    case TARGET_STREAMING:
        break;
    }
    if (revents & (POLLIN | POLLHUP | POLLERR)) {
        size_t got = 0;
        while (got < max_bytes) {
            ssize_t n = read(t->fd, t->buf, TARGET_BUF);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                break;
            if (n < 0) {
                target_status(t, 1, "read error: %s", strerror(errno));
                t->failures++;
                target_drop(t, now, t->m && !t->ended);
                return;
            }
            if (n == 0) {
                target_eof(t, now);
                return;
            }
            t->bytes += (uint64_t)n;
            got += (size_t)n;
            if (target_feed(t, (size_t)n, now) != 0)
                return;
        }
    }
    if (!el_decoder_header_done(t->dec) && now >= t->connect_deadline_ms) {
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
    size_t n = 0;
    memcpy(msg, EVENTLOG_SOCKET_MAGIC, EVENTLOG_SOCKET_MAGIC_LEN);
    n += EVENTLOG_SOCKET_MAGIC_LEN;
    msg[n++] = EVENTLOG_SOCKET_PROTOCOL_VERSION;
    msg[n++] = EVENTLOG_SOCKET_NAMESPACE_LEN;
    memcpy(msg + n, EVENTLOG_SOCKET_NAMESPACE, EVENTLOG_SOCKET_NAMESPACE_LEN);
    n += EVENTLOG_SOCKET_NAMESPACE_LEN;
    msg[n++] = (uint8_t)cmd;
    if (t->state != TARGET_STREAMING || t->fd < 0) {
        target_status(t, 1, "%s: not connected", target_command_name(cmd));
        return -1;
    }
    ssize_t w;
    do
        w = send(t->fd, msg, n, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n) {
        target_status(t, 1, "%s: cannot send: %s", target_command_name(cmd),
                      w < 0 ? strerror(errno) : "short write");
        return -1;
    }
    target_status(t, 0, "%s: sent", target_command_name(cmd));
    return 0;
}
