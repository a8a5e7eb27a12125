/* An EventLogWriter that keeps each eventlog stream in memory, installed
 * through RtsConfig.eventlog_writer (main() below runs the Haskell program
 * with it), and a reader of the binary format, so that a test can ask what
 * reached the writer (countedBytes) and what a stream holds, without an
 * eventlog parser library.
 *
 * Stream 0 is the one started with +RTS -l; restartEventLogCapture() ends
 * the current stream and starts the next. Every query reads a whole
 * stream: the header's event-type table (each type's declared size), the
 * events up to EVENT_DATA_END. A malformed stream makes a query return -1
 * and prints why. */
#include "Rts.h"
#include "RtsAPI.h"
#include "rts/EventLogFormat.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 4

typedef struct { unsigned char *buf; size_t len, cap; } Stream;

static Stream streams[MAX_STREAMS];
static int current;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool captureWrite (void *eventlog, size_t size)
{
    pthread_mutex_lock(&lock);
    Stream *s = &streams[current];
    if (s->len + size > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + size) cap *= 2;
        unsigned char *p = realloc(s->buf, cap);
        if (p == NULL) { pthread_mutex_unlock(&lock); return false; }
        s->buf = p;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, eventlog, size);
    s->len += size;
    pthread_mutex_unlock(&lock);
    return true;
}

static const EventLogWriter captureWriter = {
    .initEventLogWriter = NULL,
    .writeEventLog      = captureWrite,
    .flushEventLog      = NULL,
    .stopEventLogWriter = NULL,
};

/* Bytes handed to the writer so far, in all streams. */
size_t countedBytes (void)
{
    size_t n = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i <= current; i++) n += streams[i].len;
    pthread_mutex_unlock(&lock);
    return n;
}

/* End the current stream and start the next one; 1 on success. */
int restartEventLogCapture (void)
{
    endEventLogging();
    if (current + 1 >= MAX_STREAMS) return 0;
    pthread_mutex_lock(&lock);
    current++;
    pthread_mutex_unlock(&lock);
    return startEventLogging(&captureWriter) ? 1 : 0;
}

/* End the current stream, so that it is complete. */
void endEventLogCapture (void)
{
    endEventLogging();
}

/* ------------------------------------------------------------ reading */

typedef struct {
    const unsigned char *p, *end;
    int32_t size_of[65536];     /* declared payload size; -1 variable, -2 unknown */
} Reader;

static int need (Reader *r, size_t n)
{
    return (size_t)(r->end - r->p) >= n;
}

static uint64_t be (Reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | *r->p++;
    return v;
}

#define WANT(r, n, what) \
    do { if (!need(r, n)) { printf("malformed stream: truncated %s\n", what); return -1; } } while (0)

/* Read the header of a stream into r; 0 on success. */
static int readHeader (Reader *r, int stream)
{
    r->p = streams[stream].buf;
    r->end = r->p + streams[stream].len;
    for (int i = 0; i < 65536; i++) r->size_of[i] = -2;
    WANT(r, 8, "header");
    if (be(r, 4) != EVENT_HEADER_BEGIN || be(r, 4) != EVENT_HET_BEGIN) {
        printf("malformed stream: no header\n");
        return -1;
    }
    for (;;) {
        WANT(r, 4, "event-type table");
        uint32_t tag = (uint32_t)be(r, 4);
        if (tag == EVENT_HET_END) break;
        if (tag != EVENT_ET_BEGIN) { printf("malformed stream: bad event type\n"); return -1; }
        WANT(r, 8, "event type");
        uint16_t type = (uint16_t)be(r, 2);
        int16_t size = (int16_t)be(r, 2);
        uint32_t desc = (uint32_t)be(r, 4);
        WANT(r, (size_t)desc + 4, "event type description");
        r->p += desc;
        uint32_t extra = (uint32_t)be(r, 4);
        WANT(r, (size_t)extra + 4, "event type end");
        r->p += extra;
        if (be(r, 4) != EVENT_ET_END) { printf("malformed stream: bad event type end\n"); return -1; }
        r->size_of[type] = size == -1 ? -1 : (int32_t)(uint16_t)size;
    }
    WANT(r, 8, "data begin");
    if (be(r, 4) != EVENT_HEADER_END || be(r, 4) != EVENT_DATA_BEGIN) {
        printf("malformed stream: no data section\n");
        return -1;
    }
    return 0;
}

/* Call visit for every event of a stream, in order; 0 when the stream
 * ends with EVENT_DATA_END, -1 when it is malformed. */
static int scan (int stream, void (*visit)(uint16_t, const unsigned char *, size_t, void *),
                 void *ctx)
{
    static Reader r;
    if (stream < 0 || stream >= MAX_STREAMS) return -1;
    if (readHeader(&r, stream) != 0) return -1;
    for (;;) {
        WANT(&r, 2, "event");
        uint16_t type = (uint16_t)be(&r, 2);
        if (type == EVENT_DATA_END) return 0;
        WANT(&r, 8, "timestamp");
        r.p += 8;
        int32_t size = r.size_of[type];
        if (size == -2) { printf("malformed stream: event %u not in the header\n", type); return -1; }
        if (size == -1) { WANT(&r, 2, "event size"); size = (int32_t)be(&r, 2); }
        WANT(&r, (size_t)size, "event payload");
        if (visit) visit(type, r.p, (size_t)size, ctx);
        r.p += size;
    }
}

typedef struct { uint16_t type; long n; } Count;

static void countOne (uint16_t type, const unsigned char *payload, size_t size, void *ctx)
{
    (void) payload; (void) size;
    Count *c = ctx;
    if (type == c->type) c->n++;
}

/* How many events of this type the stream holds; -1 if it is malformed
 * or does not end with EVENT_DATA_END. */
long countEvents (int stream, int type)
{
    Count c = { (uint16_t) type, 0 };
    return scan(stream, countOne, &c) == 0 ? c.n : -1;
}

/* The payload size the stream's header declares for a type: -1 for
 * variable size, -2 when the header does not list the type. */
long declaredSize (int stream, int type)
{
    static Reader r;
    if (stream < 0 || stream >= MAX_STREAMS || readHeader(&r, stream) != 0) return -2;
    return r.size_of[(uint16_t) type];
}

typedef struct { uint16_t type; long index, seen; unsigned char payload[64]; size_t size; } Nth;

static void findNth (uint16_t type, const unsigned char *payload, size_t size, void *ctx)
{
    Nth *n = ctx;
    if (type != n->type || n->seen++ != n->index) return;
    n->size = size < sizeof n->payload ? size : sizeof n->payload;
    memcpy(n->payload, payload, n->size);
}

/* The big-endian field of `width` bytes at byte `offset` of the payload
 * of the index-th event of a type (all 0-based); -1 if there is none. */
long long eventField (int stream, int type, long index, int offset, int width)
{
    Nth n = { (uint16_t) type, index, 0, {0}, 0 };
    if (scan(stream, findNth, &n) != 0 || n.seen <= index) return -1;
    size_t off = (size_t) offset;
    if (offset < 0 || off + (size_t) width > n.size) return -1;
    long long v = 0;
    for (int i = 0; i < width; i++) v = (v << 8) | n.payload[off + (size_t) i];
    return v;
}

extern StgClosure ZCMain_main_closure;

int main (int argc, char *argv[])
{
    RtsConfig conf = defaultRtsConfig;
    conf.rts_opts_enabled = RtsOptsAll;
    conf.eventlog_writer = &captureWriter;
    return hs_main(argc, argv, &ZCMain_main_closure, conf);
}
