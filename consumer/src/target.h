/* A followed program: one eventlog socket (unix:PATH or tcp:HOST:PORT) that
 * `rtscope live` and `rtscope export` keep connected to, across program
 * restarts, without ever blocking.
 *
 * A target is a small state machine driven by the caller's poll loop:
 *
 *     IDLE --connect--> CONNECTING --> STREAMING --end/error--> IDLE (backoff)
 *
 * Each connection is a run: a graph of the eventlog library (el_graph: the
 * non-blocking connect, decoder and bounded merge every reader of a stream
 * uses) whose sink is a fresh metrics model (metrics.h). What is left here
 * is following: back-off, restarts, the peer's identity, control commands. A
 * run that ends (program exit, kill, bad data) leaves its model readable as
 * `ended` until the next run replaces it. Errors are kept as one message per
 * state change, never fatal: one misbehaving target does not disturb the
 * others.
 */
#ifndef RTSCOPE_TARGET_H
#define RTSCOPE_TARGET_H

#include "rts/EventLogSocketProtocol.h"
#include "rtscope/model/metrics.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

enum target_state {
    TARGET_IDLE,       /* not connected; next attempt at `retry_at_ms` */
    TARGET_CONNECTING, /* TCP connect in progress */
    TARGET_STREAMING,  /* connected, reading */
};

/* Control commands of the eventlog-socket protocol (docs/eventlog-socket.md;
 * the codes are the RTS's, includes/rts/EventLogSocketProtocol.h). */
#define TARGET_CMD_RTSCOPE 0x100
enum target_command {
    TARGET_CMD_START_PROFILING = EVENTLOG_SOCKET_CMD_START_PROFILING,
    TARGET_CMD_STOP_PROFILING = EVENTLOG_SOCKET_CMD_STOP_PROFILING,
    TARGET_CMD_START_HEAP_PROF = EVENTLOG_SOCKET_CMD_START_HEAP_PROF,
    TARGET_CMD_STOP_HEAP_PROF = EVENTLOG_SOCKET_CMD_STOP_HEAP_PROF,
    TARGET_CMD_REQUEST_CENSUS = EVENTLOG_SOCKET_CMD_REQUEST_CENSUS,
    /* rtscope's namespace (TARGET_CMD_RTSCOPE set): a heap snapshot the
     * program writes itself (+RTS --heap-snapshot-dir) */
    TARGET_CMD_HEAP_SNAPSHOT =
        TARGET_CMD_RTSCOPE | RTSCOPE_SOCKET_CMD_HEAP_SNAPSHOT,
};

typedef struct target target;

/* Called for every event of a run after the model has taken it (`changed`
 * from metrics_feed), and when a run starts (ev == NULL, changed == 0) or
 * ends (ev == NULL, changed == ~0u). */
typedef void (*target_event_fn)(void *ctx, target *t, const el_event *ev,
                                unsigned changed);

typedef struct target_opts {
    size_t top_n;          /* bands per sample kept (0: default) */
    size_t merge_budget;   /* bytes (0: 2 MiB) */
    int backoff_min_ms;    /* first retry delay (0: 100) */
    int backoff_max_ms;    /* retry delay bound (0: 2000) */
    int header_timeout_ms; /* no header after connecting (0: 10000) */
    target_event_fn on_event;
    void *ctx;
    /* marks in wanted[65536] more event types on_event reads than the
     * metrics model does, or NULL */
    void (*want)(uint8_t *wanted);
} target_opts;

struct target {
    char *spec; /* as the user wrote it */
    enum target_state state;
    /* runs */
    metrics *m;    /* the current or last run's model, or NULL */
    int ended;     /* m is of a run that has ended */
    uint64_t runs; /* connections that delivered a header */
    uint64_t connects, failures;
    uint64_t bytes; /* bytes read, all runs */
    int64_t run_started_ms, run_ended_ms;
    /* status for humans: what happened last, and whether it was printed */
    char status[256];
    int status_is_error;
    uint64_t status_seq; /* incremented when status changes */
    /* internals */
    int is_unix;
    char *path;
    int64_t retry_at_ms, connect_deadline_ms;
    int backoff_ms;
    el_graph *graph;      /* the connection's graph (NULL when idle) */
    char *graph_spec;     /* the address the graph connects to */
    uint64_t graph_bytes; /* of the current graph, counted in `bytes` */
    target_opts opts;
    uint8_t wanted[65536];
    /* the peer of a Unix socket, from SO_PEERCRED and /proc (see Note
     * [Identity before the init events] in target.c) */
    uint32_t peer_pid;
    char peer_program[128];
    int64_t peer_start_unix_ns; /* 0: unknown */
};

/* Parse a target spec (an address, el_addr_parse: unix:PATH, tcp:HOST:PORT,
 * tcp:PORT for 127.0.0.1, or a PATH, which is followed as a socket even
 * while it is not one). Returns NULL and writes a message to `why` on a bad
 * spec. */
target *target_new(const char *spec, const target_opts *opts, char *why,
                   size_t why_len);
void target_free(target *t);

/* Monotonic clock in milliseconds. */
int64_t target_now_ms(void);

/* For a command given no TARGET (live, serve): at most once a second
 * (*scan_ms: when last), each live program of the per-user socket
 * directory (Note [What a target names]) to fn, as a unix:PATH spec with
 * its pid and name; fn adds those it does not follow yet. */
typedef void (*target_home_fn)(void *ctx, const char *spec, long pid,
                               const char *program);
void target_scan_home(int64_t now, int64_t *scan_ms, target_home_fn fn,
                      void *ctx);

/* Fill *pfd for the caller's poll(); returns 0 if there is nothing to wait
 * for on a descriptor (then pfd->fd is -1). */
int target_pollfd(const target *t, struct pollfd *pfd);
/* Milliseconds until the target needs attention without I/O (retry or
 * timeout), or -1. */
int target_timeout_ms(const target *t, int64_t now);
/* Do what is due: connect, read what `revents` says is there (at most
 * `max_bytes`), handle timeouts. */
void target_step(target *t, short revents, int64_t now, size_t max_bytes);

/* Send a control command; returns 0, or -1 with the reason in the status. */
int target_send(target *t, enum target_command cmd);
const char *target_command_name(enum target_command cmd);
/* The command of a control path's name (request-heap-census,
 * start-heap-profiling, stop-heap-profiling, heap-snapshot): 0, or -1. */
int target_command_parse(const char *name, enum target_command *cmd);

/* The event types the current connection's header declares, or NULL. */
const el_typetab *target_types(const target *t);

/* "streaming", "connecting", "waiting", "ended" */
const char *target_state_name(const target *t);

#endif
