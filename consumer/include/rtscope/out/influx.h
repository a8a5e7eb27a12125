/* InfluxDB 1.x writer: line protocol points queued in memory and POSTed to
 * URL/write?db=NAME&precision=ns in batches with libcurl's multi interface,
 * driven by the caller's poll loop. Batched, retried with exponential
 * backoff, bounded: when the queue is full the oldest batch is dropped and
 * counted. Never blocks, never exits. */
#ifndef RTSCOPE_INFLUX_H
#define RTSCOPE_INFLUX_H

#include <stddef.h>
#include <stdint.h>

typedef struct influx influx;

typedef struct influx_opts {
    const char *url;    /* http://HOST:PORT (no path) */
    const char *db;     /* database name */
    size_t queue_max;   /* bytes queued at most (0: 8 MiB) */
    size_t batch_max;   /* bytes per POST at most (0: 256 KiB) */
    int flush_ms;       /* send a partial batch after this (0: 1000) */
    int backoff_min_ms; /* first retry delay (0: 500) */
    int backoff_max_ms; /* retry delay bound (0: 8000) */
    int create_db;      /* CREATE DATABASE before the first write */
} influx_opts;

typedef struct influx_stats {
    uint64_t queued_bytes, queued_points;
    uint64_t sent_points, sent_batches;
    uint64_t dropped_points;  /* queue full, or rejected by the server */
    uint64_t failed_requests; /* each failed POST (then retried) */
    uint64_t queue_max;
} influx_stats;

/* Returns NULL with a message in `why` on a bad URL or when libcurl cannot
 * be set up. */
influx *influx_new(const influx_opts *opts, char *why, size_t why_len);
void influx_free(influx *ix);

/* Append one point (a line without its newline). Lines longer than the
 * batch size are dropped (counted). */
void influx_add(influx *ix, const char *line, size_t len);

/* Start what is due (a batch, a retry) and handle finished requests; call
 * after every poll. `now` is target_now_ms(). */
void influx_step(influx *ix, int64_t now);
/* Milliseconds until influx_step has something due, or -1. */
int influx_timeout_ms(const influx *ix, int64_t now);
/* The CURLM handle, for curl_multi_poll() in the caller's loop. */
void *influx_multi(influx *ix);
/* 1 while a request is in flight. */
int influx_busy(const influx *ix);

void influx_get_stats(const influx *ix, influx_stats *st);
/* The latest status message and a counter that changes with it. */
const char *influx_status(const influx *ix, uint64_t *seq, int *is_error);

/* Line-protocol escaping: measurement names escape ',' and ' '; tag keys
 * and values also '='; string field values are quoted with '"' and '\'
 * escaped. They write into a buffer and return the length written (or what
 * it would be, as snprintf does). */
size_t influx_escape_tag(char *out, size_t cap, const char *s);
size_t influx_escape_string(char *out, size_t cap, const char *s);

#endif
