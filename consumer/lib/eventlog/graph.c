/* The graph: one address read to its end, in steps.
 *
 * Note [One graph for every source]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every command reads through an el_graph: source (el_addr_parse's
 * grammar) -> decoder -> merge -> sink. A step does what can be done
 * without waiting and returns EL_AGAIN when a socket has nothing yet
 * (babeltrace2's "again"), so a poll loop can drive many graphs (`live`,
 * `export`) and el_reader_run drives one to the end. Sockets connect
 * without blocking; a file is read by its exact path (reader.c) in one
 * step, and everything else through the push pipeline (stream.c) that a
 * file's index pass mirrors, so a file, a pipe and a socket carrying the
 * same bytes give the same events, errors and warnings.
 *
 * Reconnecting is a layer over graphs, not inside one: each connection is
 * a whole eventlog and gets a graph of its own (el_reader_run's
 * `reconnect`, and `live`/`export`, which follow a program across
 * restarts with back-off).
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/eventlog.h"

#include "pipeline.h"
#include "source.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GRAPH_CHUNK ((size_t)256 * 1024)
#define RECONNECT_TRIES 50
#define RECONNECT_DELAY_MS 200

enum graph_phase { G_CONNECTING, G_READING, G_DONE };

struct el_graph {
    source src;
    el_reader_opts opts;
    el_sink_fn sink;
    void *ctx;
    enum graph_phase phase;
    int file; /* read by the file path in one step */
    el_stream *stream;
    uint8_t *buf;
    el_status status; /* the verdict once G_DONE */
    el_error err;
    el_reader_result res; /* the file path's */
};

el_graph *el_graph_new(const char *spec, const el_reader_opts *opts,
                       el_sink_fn sink, void *ctx, el_error *err)
{
    memset(err, 0, sizeof(*err));
    el_graph *g = calloc(1, sizeof(*g));
    if (!g) {
        err->status = EL_ERR_NOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory");
        return NULL;
    }
    if (opts)
        g->opts = *opts;
    g->sink = sink;
    g->ctx = ctx;
    if (source_open(&g->src, spec, err) != 0) {
        source_close(&g->src);
        free(g);
        return NULL;
    }
    g->file = g->src.seekable && !g->opts.unordered;
    g->phase = g->src.connecting ? G_CONNECTING : G_READING;
    /* Note [Holding for a quiet stream] in merge.c: sockets are live */
    if (g->opts.merge_hold_ms == 0 && el_graph_is_socket(g))
        g->opts.merge_hold_ms = EL_MERGE_HOLD_MS;
    return g;
}

void el_graph_free(el_graph *g)
{
    if (!g)
        return;
    el_stream_free(g->stream);
    free(g->buf);
    source_close(&g->src);
    free(g);
}

static el_status graph_done(el_graph *g, el_status st)
{
    g->phase = G_DONE;
    g->status = st == EL_STOP ? EL_OK : st;
    if (g->stream && st != EL_OK && st != EL_STOP && g->err.msg[0] == 0)
        g->err = *el_stream_error(g->stream);
    return st == EL_STOP ? EL_STOP : g->status;
}

/* The file path; if it declines the file, the stream path from the start. */
static el_status graph_step_file(el_graph *g)
{
    reader_ctx rc;
    memset(&rc, 0, sizeof(rc));
    rc.sink = g->sink;
    rc.ctx = g->ctx;
    rc.wanted = g->opts.wanted;
    rc.counts = g->opts.counts;
    rc.err = &g->err;
    int st = reader_run_file(&g->src, &g->opts, &rc, &g->res, &g->err);
    if (st != FILE_USE_STREAM) {
        g->res.events = rc.events;
        g->res.last_ts = rc.last_ts;
        return graph_done(g, (el_status)st);
    }
    memset(&g->res, 0, sizeof(g->res));
    memset(&g->err, 0, sizeof(g->err));
    g->file = 0;
    if (lseek(g->src.fd, g->src.base, SEEK_SET) < 0) {
        g->err.status = EL_ERR_IO;
        g->err.sys_errno = errno;
        snprintf(g->err.msg, sizeof(g->err.msg), "cannot seek: %s",
                 strerror(errno));
        return graph_done(g, EL_ERR_IO);
    }
    return EL_AGAIN;
}

el_status el_graph_step(el_graph *g, size_t max_bytes)
{
    if (g->phase == G_DONE)
        return g->status;
    if (g->phase == G_CONNECTING) {
        int c = source_connected(&g->src, &g->err);
        if (c == 0)
            return EL_AGAIN;
        if (c < 0)
            return graph_done(g, EL_ERR_IO);
        g->phase = G_READING;
    }
    if (g->file)
        return graph_step_file(g);
    if (!g->stream) {
        g->stream = el_stream_new(&g->opts, g->sink, g->ctx);
        g->buf = malloc(GRAPH_CHUNK);
        if (!g->stream || !g->buf) {
            snprintf(g->err.msg, sizeof(g->err.msg), "out of memory");
            g->err.status = EL_ERR_NOMEM;
            return graph_done(g, EL_ERR_NOMEM);
        }
    }
    el_status ts = el_stream_tick(g->stream);
    if (ts != EL_OK)
        return graph_done(g, ts);
    size_t got = 0;
    while (!max_bytes || got < max_bytes) {
        ssize_t n = source_read(&g->src, g->buf, GRAPH_CHUNK);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return EL_AGAIN;
        if (n < 0) {
            g->err.status = EL_ERR_IO;
            g->err.sys_errno = errno;
            g->err.offset = el_stream_offset(g->stream);
            snprintf(g->err.msg, sizeof(g->err.msg), "read error: %s",
                     strerror(errno));
            return graph_done(g, EL_ERR_IO);
        }
        if (n == 0)
            return graph_done(g, el_stream_finish(g->stream));
        got += (size_t)n;
        el_status st = el_stream_feed(g->stream, g->buf, (size_t)n);
        if (st != EL_OK)
            return graph_done(g, st);
    }
    return EL_AGAIN;
}

int el_graph_pollfd(const el_graph *g, short *events)
{
    *events = g->phase == G_CONNECTING ? POLLOUT : POLLIN;
    return g->phase == G_DONE ? -1 : g->src.fd;
}

int el_graph_timeout_ms(const el_graph *g)
{
    unsigned hold = g->opts.merge_hold_ms;
    if (g->phase != G_READING || g->file || hold == 0 ||
        hold == EL_MERGE_HOLD_NONE)
        return -1;
    return hold / 4 ? (int)(hold / 4) : 1;
}

int el_graph_fd(const el_graph *g)
{
    return g->src.fd;
}

int el_graph_connected(const el_graph *g)
{
    return g->phase != G_CONNECTING && g->src.fd >= 0;
}

int el_graph_is_socket(const el_graph *g)
{
    return g->src.kind == SOURCE_UNIX || g->src.kind == SOURCE_TCP;
}

const el_reader_result *el_graph_result(el_graph *g)
{
    return g->stream ? el_stream_result(g->stream) : &g->res;
}

const el_error *el_graph_error(const el_graph *g)
{
    return &g->err;
}

int el_graph_header_done(const el_graph *g)
{
    return g->stream && el_stream_header_done(g->stream);
}

const el_typetab *el_graph_types(const el_graph *g)
{
    return el_graph_header_done(g) ? el_stream_types(g->stream) : NULL;
}

uint64_t el_graph_offset(const el_graph *g)
{
    return g->stream ? el_stream_offset(g->stream) : 0;
}

/* ---------------------------------------------------------------------- */
/* el_reader_run: one graph to its end, and the reconnect layer.           */

static void graph_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Step `g` to its end, waiting in poll(2) when it says "again". */
static el_status graph_run(el_graph *g)
{
    for (;;) {
        el_status st = el_graph_step(g, 0);
        if (st != EL_AGAIN)
            return st;
        short ev;
        int fd = el_graph_pollfd(g, &ev);
        if (fd < 0)
            continue;
        if (g->opts.on_wait)
            g->opts.on_wait(g->opts.wait_ctx);
        struct pollfd p = {fd, ev, 0};
        while (poll(&p, 1, el_graph_timeout_ms(g)) < 0 && errno == EINTR)
            ;
    }
}

static void result_add(el_reader_result *to, const el_reader_result *r)
{
    to->bytes += r->bytes;
    to->events += r->events;
    if (r->last_ts > to->last_ts)
        to->last_ts = r->last_ts;
    to->trailing += r->trailing;
    to->truncated = r->truncated;
    to->truncated_at = r->truncated_at;
    to->merge.late_events += r->merge.late_events;
    to->merge.forced += r->merge.forced;
    to->merge.held_out += r->merge.held_out;
    if (r->merge.max_late_ns > to->merge.max_late_ns)
        to->merge.max_late_ns = r->merge.max_late_ns;
    if (r->merge.peak_bytes > to->merge.peak_bytes)
        to->merge.peak_bytes = r->merge.peak_bytes;
}

el_status el_reader_run(const char *spec, const el_reader_opts *opts,
                        el_sink_fn sink, void *ctx, el_reader_result *res,
                        el_error *err)
{
    el_reader_opts none;
    memset(&none, 0, sizeof(none));
    if (!opts)
        opts = &none;
    memset(res, 0, sizeof(*res));
    memset(err, 0, sizeof(*err));
    int reconnects = 0, tries = 0;
    for (;;) {
        el_error gerr;
        el_graph *g = el_graph_new(spec, opts, sink, ctx, &gerr);
        el_status st = gerr.status;
        int connected = 0, socket = 0;
        if (g) {
            st = graph_run(g);
            connected = el_graph_connected(g) || el_graph_offset(g) > 0;
            socket = el_graph_is_socket(g);
            if (connected || reconnects == 0)
                result_add(res, el_graph_result(g));
            if (st != EL_OK && st != EL_STOP)
                gerr = *el_graph_error(g);
            el_graph_free(g);
        }
        if (!connected && reconnects > 0 && st != EL_STOP) {
            /* a refused reconnection: try again for a while */
            if (++tries < RECONNECT_TRIES) {
                graph_sleep_ms(RECONNECT_DELAY_MS);
                continue;
            }
            return EL_OK; /* the program is gone: what was read stands */
        }
        if (st != EL_OK && st != EL_STOP)
            *err = gerr;
        if (st != EL_OK || !opts->reconnect || !socket ||
            (opts->reconnect_max && reconnects >= opts->reconnect_max))
            return st == EL_STOP ? EL_OK : st;
        tries = 0;
        reconnects++;
        graph_sleep_ms(RECONNECT_DELAY_MS);
    }
}
