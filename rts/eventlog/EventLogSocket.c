/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog streaming socket: serve the program's eventlog, live, to
 * several clients on a Unix domain or TCP socket.
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "RtsFlags.h"
#include "Stats.h"
#include "Rtscope.h"
#include "eventlog/EventLogSocket.h"
#include "eventlog/EventLogStream.h"
#include "eventlog/EventLogSocketControl.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#if defined(TRACING)

/* Note [Eventlog socket: design]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The socket is a tee in front of whatever EventLogWriter the RTS uses
 * (eventLogSocketWrapWriter is applied in startEventLogging): every byte the
 * RTS writes goes to the wrapped writer (the file, unless the socket was
 * asked for without +RTS -l) and, when the socket serves, is cut into whole
 * units by EventLogStream and queued for each client. A dedicated OS thread
 * (holding no capability, with every signal blocked) accepts clients, sends
 * their queues with non-blocking I/O and reads their control messages.
 *
 * The writer side never blocks on a client: it takes one short lock to copy
 * a unit into a reference-counted chunk and append a reference to each
 * client's queue, and wakes the thread with an eventfd. The lock is never
 * held across a system call on a client socket.
 *
 * Note [Eventlog socket: units and replay]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A client must receive a complete eventlog whenever it joins, without
 * restarting the program's eventlog (which would disturb the file and the
 * other clients). The tee therefore always follows the stream, whether or
 * not a client is connected: it keeps a copy of the header and, from the
 * blocks of the global buffer (capability 0xffff, where the RTS posts them),
 * a copy of every event that describes state rather than activity: capsets,
 * capabilities, RTS identifier, program arguments and environment, process
 * ids, wall clock, heap info, HEAP_PROF_BEGIN, cost centres and IPE
 * (see is_init_event). A joining client gets the header, then one block
 * holding those events in their original order and with their original
 * timestamps, then live blocks. IPE events for every info table seen so
 * far are therefore delivered before any sample that mentions them.
 *
 * The replay is bounded (REPLAY_MAX); if it overflows, a joining client is
 * told so in an rtscope user message.
 *
 * Note [Eventlog socket: loss]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each client has a bound on the bytes queued for it (default 4 MiB,
 * --eventlog-socket-buffer). A unit that does not fit is dropped for that
 * client only, whole: the client never sees a partial block. Drops are
 * counted (bytes, events, blocks) and, before the next unit the client does
 * receive, reported in its own stream as a block holding one user message:
 *   "rtscope: eventlog-socket dropped B bytes (E events in K blocks)"
 * (the prefix of Note [rtscope user messages]). Chunks are shared between
 * clients, so the memory the socket holds is bounded by the largest queue,
 * not their sum.
 */

#define DEFAULT_CLIENT_BOUND   ((size_t)4 << 20)
#define MIN_CLIENT_BOUND       ((size_t)64 << 10)
#define MAX_CLIENTS            64
#define REPLAY_MAX             ((size_t)16 << 20)
#define MAX_UNIT               ((size_t)64 << 20)
#define SHUTDOWN_DRAIN_NS      (500 * 1000 * 1000L)

typedef struct Chunk_ {
    uint32_t refs;          /* under sock.lock */
    int32_t nevents;        /* -1 until counted */
    size_t len;
    bool mapped;            /* see Note [Eventlog socket: chunk memory] */
    uint8_t data[];
} Chunk;

/* Note [Eventlog socket: chunk memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Most chunks are whole capability buffers (up to 2 MB), allocated by the
 * thread that writes the eventlog and freed by the socket thread. Through
 * malloc, glibc's adaptive mmap and trim thresholds keep several megabytes
 * of such freed blocks resident, which would break the promise that a
 * client costs at most its buffer bound. Large chunks are therefore mapped
 * and unmapped directly: what a queue no longer holds goes back to the OS.
 *
 * In the RTS's sanitizer ways (docs/toolchain.md) AddressSanitizer knows
 * nothing of these mappings: a write past a mapped chunk's end lands in the
 * rest of its last page unnoticed. chunk_map therefore maps at least
 * CHUNK_REDZONE bytes more than asked and poisons everything past the
 * chunk's end, so an overflow is reported as one into a malloc'd block
 * would be; chunk_unmap unpoisons before unmapping, or a later mapping at
 * the same address would inherit the poison. A use after unmap faults
 * (ASan reports the SEGV).
 */
#define CHUNK_MMAP_MIN ((size_t)64 << 10)
#if defined(__SANITIZE_ADDRESS__)
#define CHUNK_REDZONE 64
#else
#define CHUNK_REDZONE 0
#endif

/* The exact size of a chunk of len data bytes: data[] starts before the
 * structure's trailing padding, so sizeof(Chunk) + len would leave up to 7
 * bytes of slack past the data where an overflow goes unnoticed. */
static size_t
chunk_size(size_t len)
{
    return offsetof(Chunk, data) + len;
}

static size_t
chunk_map_len(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size + CHUNK_REDZONE + page - 1) / page * page;
}

static void *
chunk_map(size_t size)
{
    void *p = mmap(NULL, chunk_map_len(size), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#if defined(__SANITIZE_ADDRESS__)
    ASAN_POISON_MEMORY_REGION((uint8_t *)p + size, chunk_map_len(size) - size);
#endif
    return p;
}

static void
chunk_unmap(void *p, size_t size)
{
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(p, chunk_map_len(size));
#endif
    munmap(p, chunk_map_len(size));
}

typedef struct {
    Chunk **items;
    size_t cap, head, count;
    size_t bytes;           /* bytes of the chunks queued, the head (even
                               if partly sent) counted whole: what the
                               queue keeps resident */
    size_t sent;            /* bytes of items[head] already sent */
} Queue;

typedef struct {
    int fd;
    bool need_header;       /* joined between two streams */
    bool paused;            /* control command 2 */
    bool closing;           /* its stream ended: close once drained */
    bool dead;
    uint64_t lost_bytes, lost_events, lost_blocks;   /* not yet reported */
    uint64_t skipped_bytes, skipped_events;          /* while paused */
    Queue q;
    ElcParser ctl;
} Client;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t joined;

    /* configuration */
    char *addr;
    bool wait;
    bool required;
    size_t bound;
    bool from_flags;
    bool socket_only;

    /* the stream, followed whenever the tee is installed */
    const EventLogWriter *inner;
    ElsStream stream;
    bool stream_ok;
    bool in_stream;
    uint8_t *header;
    size_t header_len;
    uint8_t *replay;
    size_t replay_len, replay_cap;
    bool replay_truncated;
    Chunk *replay_chunk;    /* header + replay block, cached */

    /* serving */
    bool serving;
    bool shutting_down;
    bool forked;
    int listen_fd;
    int wake_fd;
    pthread_t thread;
    char *unix_path;        /* to unlink at exit, if ours */
    dev_t unix_dev;
    ino_t unix_ino;
    Client *clients[MAX_CLIENTS];
    int nclients;
    EventLogSocketStats stats;
} sock = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .joined = PTHREAD_COND_INITIALIZER,
    .listen_fd = -1,
    .wake_fd = -1,
};

static bool teeInit(void);
static bool teeWrite(void *eventlog, size_t size);
static void teeFlush(void);
static void teeStop(void);
static void teeInitVoid(void) { teeInit(); }

static const EventLogWriter teeWriter = {
    .initEventLogWriter = teeInitVoid,
    .writeEventLog = teeWrite,
    .flushEventLog = teeFlush,
    .stopEventLogWriter = teeStop,
};

/* -----------------------------------------------------------------------------
 * Configuration
 * ---------------------------------------------------------------------------*/

static bool
parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || v <= 0) return false;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: return false;
    }
    if (*end != '\0' || v > (double)((size_t)1 << 40)) return false;
    *out = (size_t)v;
    return true;
}

static bool
set_addr(const char *addr)
{
    if (addr == NULL || *addr == '\0') {
        errorBelch("eventlog-socket: empty address (expected PATH or tcp:[HOST:]PORT)");
        return false;
    }
    stgFree(sock.addr);
    sock.addr = stgMallocBytes(strlen(addr) + 1, "eventlog-socket");
    strcpy(sock.addr, addr);
    return true;
}

static bool
set_bound(const char *s)
{
    size_t n;
    if (!parse_size(s, &n) || n < MIN_CLIENT_BOUND) {
        errorBelch("eventlog-socket: bad buffer size '%s' (expected a size of at least 64k, e.g. 4m)", s);
        return false;
    }
    sock.bound = n;
    return true;
}

bool
eventLogSocketParseFlag(const char *arg, bool *error)
{
    const char *p = "--eventlog-socket";
    size_t n = strlen(p);
    if (strncmp(arg, p, n) != 0) return false;
    const char *rest = arg + n;
    if (*rest == '=') {
        if (!set_addr(rest + 1)) *error = true;
        sock.from_flags = true;
    } else if (strcmp(rest, "-wait") == 0) {
        sock.wait = true;
    } else if (strcmp(rest, "-required") == 0) {
        sock.required = true;
    } else if (strncmp(rest, "-buffer=", 8) == 0) {
        if (!set_bound(rest + 8)) *error = true;
    } else {
        return false;
    }
    return true;
}

bool
eventLogSocketConfigure(const char *addr, bool wait, size_t buffer_bytes)
{
    if (!set_addr(addr)) return false;
    sock.wait = wait;
    if (buffer_bytes != 0) {
        if (buffer_bytes < MIN_CLIENT_BOUND) {
            errorBelch("eventlog-socket: buffer of %zu bytes is below the minimum of 64k",
                       buffer_bytes);
            return false;
        }
        sock.bound = buffer_bytes;
    }
    return true;
}

void
eventLogSocketSetupTracing(void)
{
    const char *e;
    if (sock.addr == NULL && (e = getenv("GHC_EVENTLOG_SOCKET")) != NULL && *e) {
        set_addr(e);
    }
    if ((e = getenv("GHC_EVENTLOG_SOCKET_WAIT")) != NULL && *e && strcmp(e, "0") != 0) {
        sock.wait = true;
    }
    if (sock.bound == 0 && (e = getenv("GHC_EVENTLOG_SOCKET_BUFFER")) != NULL && *e) {
        set_bound(e);
    }
    if (sock.bound == 0) sock.bound = DEFAULT_CLIENT_BOUND;

    if (sock.addr != NULL && RtsFlags.TraceFlags.tracing != TRACE_EVENTLOG) {
        /* A socket without +RTS -l: eventlogging on, with the default
         * classes of -l, and no file. */
        RtsFlags.TraceFlags.tracing = TRACE_EVENTLOG;
        RtsFlags.TraceFlags.scheduler = true;
        RtsFlags.TraceFlags.gc = true;
        RtsFlags.TraceFlags.sparks_sampled = true;
        RtsFlags.TraceFlags.user = true;
        sock.socket_only = true;
    }
}

/* -----------------------------------------------------------------------------
 * Chunks and queues (all under sock.lock)
 * ---------------------------------------------------------------------------*/

static Chunk *
chunk_new(size_t len)
{
    Chunk *c;
    bool mapped = chunk_size(len) >= CHUNK_MMAP_MIN;
    if (mapped) {
        c = chunk_map(chunk_size(len));
    } else {
        c = malloc(chunk_size(len));
    }
    if (c == NULL) return NULL;
    c->mapped = mapped;
    c->refs = 1;
    c->nevents = -1;
    c->len = len;
    return c;
}

static void
chunk_unref(Chunk *c)
{
    if (c != NULL && --c->refs == 0) {
        if (c->mapped) chunk_unmap(c, chunk_size(c->len));
        else free(c);
    }
}

static bool
queue_push(Queue *q, Chunk *c)
{
    if (q->count == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        Chunk **items = malloc(cap * sizeof(Chunk *));
        if (items == NULL) return false;
        for (size_t i = 0; i < q->count; i++) {
            items[i] = q->items[(q->head + i) % q->cap];
        }
        free(q->items);
        q->items = items;
        q->cap = cap;
        q->head = 0;
    }
    q->items[(q->head + q->count) % q->cap] = c;
    q->count++;
    q->bytes += c->len;
    c->refs++;
    return true;
}

static void
queue_clear(Queue *q)
{
    for (size_t i = 0; i < q->count; i++) {
        chunk_unref(q->items[(q->head + i) % q->cap]);
    }
    free(q->items);
    memset(q, 0, sizeof(*q));
}

/* A block holding one user message, capability 0xffff, stamped now. */
static Chunk *
message_chunk(const char *text)
{
    size_t tlen = strlen(text);
    if (tlen > 0xffff) tlen = 0xffff;
    size_t ev = 2 + 8 + 2 + tlen;
    Chunk *c = chunk_new(ELS_BLOCK_MARKER_LEN + ev);
    if (c == NULL) return NULL;
    uint64_t now = TimeToNS(stat_getElapsedTime());
    uint8_t *p = c->data;
    els_put16(p, ELS_BLOCK_MARKER_TYPE);
    els_put64(p + 2, now);
    els_put32(p + 10, (uint32_t)c->len);
    els_put64(p + 14, now);
    els_put16(p + 22, ELS_CAP_GLOBAL);
    p += ELS_BLOCK_MARKER_LEN;
    els_put16(p, ELS_USER_MSG_TYPE);
    els_put64(p + 2, now);
    els_put16(p + 10, (uint16_t)tlen);
    memcpy(p + 12, text, tlen);
    c->nevents = 1;
    return c;
}

static long
chunk_events(Chunk *c)
{
    if (c->nevents < 0) {
        long n = 0;
        if (c->len >= ELS_BLOCK_MARKER_LEN && els_get16(c->data) == ELS_BLOCK_MARKER_TYPE) {
            n = els_block_events(&sock.stream, c->data, c->len, NULL, NULL);
            if (n < 0) n = 0;
        } else {
            n = 1;
        }
        c->nevents = (int32_t)n;
    }
    return c->nevents;
}

/* The user message that reports a client's losses, or NULL if none. */
static Chunk *
loss_report(Client *cl)
{
    char msg[256];
    if (cl->lost_blocks > 0) {
        snprintf(msg, sizeof(msg),
                 RTSCOPE_MSG_PREFIX "eventlog-socket dropped %llu bytes "
                 "(%llu events in %llu blocks): the client read too slowly",
                 (unsigned long long)cl->lost_bytes,
                 (unsigned long long)cl->lost_events,
                 (unsigned long long)cl->lost_blocks);
    } else if (cl->skipped_bytes > 0) {
        snprintf(msg, sizeof(msg),
                 RTSCOPE_MSG_PREFIX "eventlog-socket did not send %llu bytes "
                 "(%llu events) while the client had stopped eventlogging",
                 (unsigned long long)cl->skipped_bytes,
                 (unsigned long long)cl->skipped_events);
    } else {
        return NULL;
    }
    return message_chunk(msg);
}

static void
loss_reported(Client *cl)
{
    cl->lost_bytes = cl->lost_events = cl->lost_blocks = 0;
    cl->skipped_bytes = cl->skipped_events = 0;
}

/* Offer a chunk to a client: queue it if it fits, else count the loss.
 * A pending loss report goes first. See Note [Eventlog socket: loss]. */
static void
client_offer(Client *cl, Chunk *c)
{
    if (cl->dead || cl->closing) return;
    if (cl->paused) {
        cl->skipped_bytes += c->len;
        cl->skipped_events += (uint64_t)chunk_events(c);
        return;
    }
    bool owed = cl->lost_blocks > 0 || cl->skipped_bytes > 0;
    Chunk *report = owed ? loss_report(cl) : NULL;
    size_t need = c->len + (report ? report->len : 0);
    if (cl->q.bytes + need > sock.bound || (owed && report == NULL)) {
        cl->lost_bytes += c->len;
        cl->lost_events += (uint64_t)chunk_events(c);
        cl->lost_blocks++;
        sock.stats.bytes_dropped += c->len;
        sock.stats.events_dropped += (uint64_t)chunk_events(c);
        chunk_unref(report);
        return;
    }
    if (report != NULL) {
        queue_push(&cl->q, report);
        chunk_unref(report);
        loss_reported(cl);
    }
    queue_push(&cl->q, c);
}

/* The end of the stream: the loss report, if one is owed, and the end
 * marker are never dropped, so that every client's eventlog ends properly
 * and says what it lacks. */
static void
client_end(Client *cl, Chunk *end)
{
    if (cl->dead || cl->closing) return;
    Chunk *report = loss_report(cl);
    if (report != NULL) {
        queue_push(&cl->q, report);
        chunk_unref(report);
        loss_reported(cl);
    }
    queue_push(&cl->q, end);
    cl->closing = true;
}

/* -----------------------------------------------------------------------------
 * Following the stream (the tee's side, under sock.lock)
 * ---------------------------------------------------------------------------*/

static bool
is_init_event(uint16_t type)
{
    switch (type) {
    case 25: case 26: case 27: case 28:     /* capsets */
    case 29: case 30: case 31:              /* RTS id, program args, env */
    case 32: case 33:                       /* OS process pid, ppid */
    case 43:                                /* wall clock time */
    case 45: case 46: case 47: case 48:     /* capabilities */
    case 51:                                /* heap info */
    case 160: case 161:                     /* heap prof begin, cost centre */
    case 169:                               /* IPE */
        return true;
    default:
        return false;
    }
}

static void
replay_event(void *ctx STG_UNUSED, uint16_t type, const uint8_t *ev, size_t len)
{
    if (!is_init_event(type)) return;
    if (sock.replay_len + len > REPLAY_MAX) {
        sock.replay_truncated = true;
        return;
    }
    if (sock.replay_len + len > sock.replay_cap) {
        size_t cap = sock.replay_cap ? sock.replay_cap : 16384;
        while (cap < sock.replay_len + len) cap *= 2;
        uint8_t *r = realloc(sock.replay, cap);
        if (r == NULL) { sock.replay_truncated = true; return; }
        sock.replay = r;
        sock.replay_cap = cap;
    }
    memcpy(sock.replay + sock.replay_len, ev, len);
    sock.replay_len += len;
    if (sock.replay_chunk != NULL) {
        chunk_unref(sock.replay_chunk);
        sock.replay_chunk = NULL;
    }
}

/* The header, then one block of the replayed init events. */
static Chunk *
join_chunk(void)
{
    if (sock.replay_chunk != NULL) return sock.replay_chunk;
    size_t blen = sock.replay_len ? ELS_BLOCK_MARKER_LEN + sock.replay_len : 0;
    Chunk *c = chunk_new(sock.header_len + blen);
    if (c == NULL) return NULL;
    memcpy(c->data, sock.header, sock.header_len);
    if (blen) {
        uint8_t *p = c->data + sock.header_len;
        uint64_t first = els_get64(sock.replay + 2);
        uint64_t last = first;
        for (size_t o = 0; o < sock.replay_len; ) {
            uint64_t t = els_get64(sock.replay + o + 2);
            if (t > last) last = t;
            uint16_t ty = els_get16(sock.replay + o);
            int32_t sz = els_type_size(&sock.stream, ty);
            o += (sz == ELS_SIZE_VARIABLE) ? (size_t)12 + els_get16(sock.replay + o + 10)
                                           : 10 + (size_t)sz;
        }
        els_put16(p, ELS_BLOCK_MARKER_TYPE);
        els_put64(p + 2, first);
        els_put32(p + 10, (uint32_t)blen);
        els_put64(p + 14, last);
        els_put16(p + 22, ELS_CAP_GLOBAL);
        memcpy(p + ELS_BLOCK_MARKER_LEN, sock.replay, sock.replay_len);
    }
    c->nevents = 0;
    sock.replay_chunk = c;
    return c;
}

static void
start_client_stream(Client *cl)
{
    Chunk *j = join_chunk();
    if (j == NULL) { cl->dead = true; return; }
    queue_push(&cl->q, j);        /* not bounded: a client needs it */
    cl->need_header = false;
    if (sock.replay_truncated) {
        Chunk *m = message_chunk(RTSCOPE_MSG_PREFIX "eventlog-socket replay of init "
                                 "events was truncated: some IPE or init events are missing");
        if (m != NULL) { queue_push(&cl->q, m); chunk_unref(m); }
    }
}

/* Would some client queue a unit of len bytes? (Conservatively ignores
 * the small loss report that may have to go first.) */
static bool
any_client_takes(size_t len)
{
    for (int i = 0; i < sock.nclients; i++) {
        Client *cl = sock.clients[i];
        if (cl->need_header || cl->dead || cl->closing || cl->paused) continue;
        if (cl->q.bytes + len <= sock.bound) return true;
    }
    return false;
}

static void
on_unit(void *ctx, const ElsUnit *u)
{
    bool *wake = ctx;
    Chunk *c = NULL;

    switch (u->kind) {
    case ELS_UNIT_HEADER:
        free(sock.header);
        sock.header = malloc(u->len);
        if (sock.header == NULL) { sock.header_len = 0; sock.stream_ok = false; return; }
        memcpy(sock.header, u->bytes, u->len);
        sock.header_len = u->len;
        sock.replay_len = 0;
        sock.replay_truncated = false;
        chunk_unref(sock.replay_chunk);
        sock.replay_chunk = NULL;
        sock.in_stream = true;
        for (int i = 0; i < sock.nclients; i++) {
            Client *cl = sock.clients[i];
            if (cl->need_header) { start_client_stream(cl); *wake = true; }
        }
        return;
    case ELS_UNIT_BLOCK:
        if (u->cap == ELS_CAP_GLOBAL) {
            els_block_events(&sock.stream, u->bytes, u->len, replay_event, NULL);
        }
        break;
    case ELS_UNIT_EVENT:
        replay_event(NULL, els_get16(u->bytes), u->bytes, u->len);
        break;
    case ELS_UNIT_DATA_END:
        break;
    }

    if (sock.nclients > 0 && (u->kind == ELS_UNIT_DATA_END || any_client_takes(u->len))) {
        c = chunk_new(u->len);
        if (c == NULL) return;
        memcpy(c->data, u->bytes, u->len);
        for (int i = 0; i < sock.nclients; i++) {
            Client *cl = sock.clients[i];
            if (cl->need_header) continue;
            if (u->kind == ELS_UNIT_DATA_END) {
                client_end(cl, c);
            } else {
                client_offer(cl, c);
            }
        }
        chunk_unref(c);
        *wake = true;
    } else if (sock.nclients > 0) {
        /* nobody has room: count the loss without copying the unit */
        long nev = (u->kind == ELS_UNIT_BLOCK)
                 ? els_block_events(&sock.stream, u->bytes, u->len, NULL, NULL) : 1;
        if (nev < 0) nev = 0;
        for (int i = 0; i < sock.nclients; i++) {
            Client *cl = sock.clients[i];
            if (cl->need_header || cl->dead || cl->closing) continue;
            if (cl->paused) {
                cl->skipped_bytes += u->len;
                cl->skipped_events += (uint64_t)nev;
            } else {
                cl->lost_bytes += u->len;
                cl->lost_events += (uint64_t)nev;
                cl->lost_blocks++;
                sock.stats.bytes_dropped += u->len;
                sock.stats.events_dropped += (uint64_t)nev;
            }
        }
    }

    if (u->kind == ELS_UNIT_DATA_END) {
        sock.in_stream = false;
        chunk_unref(sock.replay_chunk);
        sock.replay_chunk = NULL;
        sock.replay_len = 0;
    }
}

static void
wake_thread(void)
{
    if (sock.wake_fd >= 0) {
        uint64_t one = 1;
        ssize_t r = write(sock.wake_fd, &one, sizeof(one));
        (void)r;   /* a full eventfd is already awake */
    }
}

/* -----------------------------------------------------------------------------
 * The tee writer
 * ---------------------------------------------------------------------------*/

const EventLogWriter *
eventLogSocketWrapWriter(const EventLogWriter *writer)
{
    if (writer == &teeWriter) return writer;
    if (sock.socket_only && writer == &FileEventLogWriter) {
        sock.inner = NULL;
    } else {
        sock.inner = writer;
    }
    return &teeWriter;
}

static bool listen_start(const char *addr);

static bool
teeInit(void)
{
    if (sock.inner != NULL && sock.inner->initEventLogWriter != NULL) {
        sock.inner->initEventLogWriter();
    }
    pthread_mutex_lock(&sock.lock);
    if (!sock.stream_ok && !sock.forked) {
        if (sock.stream.sizes == NULL) {
            sock.stream_ok = els_init(&sock.stream, MAX_UNIT);
        } else {
            els_reset(&sock.stream);
            sock.stream_ok = true;
        }
    }
    bool start = sock.addr != NULL && !sock.serving && !sock.forked;
    pthread_mutex_unlock(&sock.lock);

    if (start) {
        if (!listen_start(sock.addr)) {
            if (sock.required) {
                errorBelch("eventlog-socket: required (--eventlog-socket-required), exiting");
                stg_exit(EXIT_FAILURE);
            }
            /* the program runs on without the socket */
            stgFree(sock.addr);
            sock.addr = NULL;
        } else if (sock.wait) {
            debugBelch("eventlog-socket: waiting for a client on %s\n", sock.addr);
            pthread_mutex_lock(&sock.lock);
            while (sock.stats.clients_connected == 0 && sock.serving) {
                pthread_cond_wait(&sock.joined, &sock.lock);
            }
            pthread_mutex_unlock(&sock.lock);
        }
    }
    return true;
}

static bool
teeWrite(void *eventlog, size_t size)
{
    bool ok = true;
    if (sock.inner != NULL) {
        ok = sock.inner->writeEventLog(eventlog, size);
    }
    bool wake = false;
    pthread_mutex_lock(&sock.lock);
    if (sock.stream_ok && !sock.forked) {
        ElsError e = els_feed(&sock.stream, eventlog, size, on_unit, &wake);
        if (e != ELS_OK) {
            /* cannot happen with the RTS's own output; never hurt it */
            errorBelch("eventlog-socket: stopped following the eventlog: %s",
                       els_strerror(e));
            sock.stream_ok = false;
        }
    }
    pthread_mutex_unlock(&sock.lock);
    if (wake) wake_thread();
    return ok;
}

static void
teeFlush(void)
{
    if (sock.inner != NULL && sock.inner->flushEventLog != NULL) {
        sock.inner->flushEventLog();
    }
    wake_thread();
}

static void
teeStop(void)
{
    if (sock.inner != NULL && sock.inner->stopEventLogWriter != NULL) {
        sock.inner->stopEventLogWriter();
    }
    wake_thread();
}

/* -----------------------------------------------------------------------------
 * Opening the socket
 * ---------------------------------------------------------------------------*/

static int
set_nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int
listen_unix(const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errorBelch("eventlog-socket: path %s is too long (%zu bytes, at most %zu)",
                   path, strlen(path), sizeof(sa.sun_path) - 1);
        return -1;
    }
    strcpy(sa.sun_path, path);

    /* the directory must be the user's own (or sticky, like /tmp) */
    char *dir = stgMallocBytes(strlen(path) + 2, "eventlog-socket");
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) strcpy(dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        errorBelch("eventlog-socket: directory %s of %s does not exist", dir, path);
        stgFree(dir);
        return -1;
    }
    if (st.st_uid != geteuid() && !(st.st_mode & S_ISVTX)) {
        errorBelch("eventlog-socket: directory %s is not owned by you; "
                   "refusing to create %s there", dir, path);
        stgFree(dir);
        return -1;
    }
    stgFree(dir);

    /* an existing socket: live (never stolen) or stale (replaced) */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            errorBelch("eventlog-socket: %s exists and is not a socket", path);
            return -1;
        }
        int probe = socket(AF_UNIX, SOCK_STREAM, 0);
        if (probe >= 0) {
            int r = connect(probe, (struct sockaddr *)&sa, sizeof(sa));
            int err = errno;
            close(probe);
            if (r == 0) {
                errorBelch("eventlog-socket: %s is in use by a live program", path);
                return -1;
            }
            if (err != ECONNREFUSED) {
                errorBelch("eventlog-socket: cannot probe %s: %s", path, strerror(err));
                return -1;
            }
        }
        if (unlink(path) != 0) {
            errorBelch("eventlog-socket: cannot remove stale socket %s: %s",
                       path, strerror(errno));
            return -1;
        }
    }

    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        errorBelch("eventlog-socket: socket: %s", strerror(errno));
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        errorBelch("eventlog-socket: cannot bind %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (chmod(path, 0600) != 0 || listen(fd, 16) != 0 || set_nonblock_cloexec(fd) != 0) {
        errorBelch("eventlog-socket: cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    if (stat(path, &st) == 0) {
        sock.unix_dev = st.st_dev;
        sock.unix_ino = st.st_ino;
    }
    sock.unix_path = stgMallocBytes(strlen(path) + 1, "eventlog-socket");
    strcpy(sock.unix_path, path);
    return fd;
}

/* tcp:PORT, tcp::PORT, tcp:HOST:PORT, tcp:[V6]:PORT; loopback by default */
static int
listen_tcp(const char *spec)
{
    char host[256] = "127.0.0.1";
    const char *port;
    const char *colon = strrchr(spec, ':');
    if (colon == NULL) {
        port = spec;
    } else {
        size_t hl = (size_t)(colon - spec);
        port = colon + 1;
        if (hl > 0) {
            const char *h = spec;
            if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') { h++; hl -= 2; }
            if (hl >= sizeof(host)) {
                errorBelch("eventlog-socket: host name too long in tcp:%s", spec);
                return -1;
            }
            memcpy(host, h, hl);
            host[hl] = '\0';
        }
    }
    char *end;
    long pn = strtol(port, &end, 10);
    if (*port == '\0' || *end != '\0' || pn < 0 || pn > 65535) {
        errorBelch("eventlog-socket: bad port in tcp:%s", spec);
        return -1;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        errorBelch("eventlog-socket: cannot resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) { err = errno; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0
            && set_nonblock_cloexec(fd) == 0) {
            break;
        }
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        errorBelch("eventlog-socket: cannot listen on tcp:%s: %s", spec, strerror(err));
    }
    return fd;
}

static void *socket_thread(void *arg);
static void at_exit(void);
static void at_fork_child(void);

static bool
listen_start(const char *addr)
{
    int fd = strncmp(addr, "tcp:", 4) == 0 ? listen_tcp(addr + 4) : listen_unix(addr);
    if (fd < 0) return false;
    int wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wfd < 0) {
        errorBelch("eventlog-socket: eventfd: %s", strerror(errno));
        close(fd);
        return false;
    }
    pthread_mutex_lock(&sock.lock);
    sock.listen_fd = fd;
    sock.wake_fd = wfd;
    sock.serving = true;
    pthread_mutex_unlock(&sock.lock);

    /* the thread takes no signal: they belong to the RTS */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int r = pthread_create(&sock.thread, NULL, socket_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        errorBelch("eventlog-socket: cannot start its thread: %s", strerror(r));
        pthread_mutex_lock(&sock.lock);
        sock.serving = false;
        pthread_mutex_unlock(&sock.lock);
        close(fd); close(wfd);
        if (sock.unix_path) unlink(sock.unix_path);
        return false;
    }
    static bool registered = false;
    if (!registered) {
        atexit(at_exit);
        pthread_atfork(NULL, NULL, at_fork_child);
        registered = true;
    }
    return true;
}

bool
eventLogSocketStart(const char *addr)
{
    if (eventLogStatus() != EVENTLOG_RUNNING) {
        errorBelch("eventlog-socket: the eventlog is not running (use +RTS -l)");
        return false;
    }
    pthread_mutex_lock(&sock.lock);
    bool busy = sock.serving;
    pthread_mutex_unlock(&sock.lock);
    if (busy) {
        errorBelch("eventlog-socket: already serving on %s", sock.addr);
        return false;
    }
    if (!set_addr(addr)) return false;
    if (sock.bound == 0) sock.bound = DEFAULT_CLIENT_BOUND;
    if (!listen_start(addr)) {
        stgFree(sock.addr);
        sock.addr = NULL;
        return false;
    }
    return true;
}

void
eventLogSocketGetStats(EventLogSocketStats *stats)
{
    pthread_mutex_lock(&sock.lock);
    *stats = sock.stats;
    stats->clients_active = (unsigned long)sock.nclients;
    pthread_mutex_unlock(&sock.lock);
}

/* -----------------------------------------------------------------------------
 * The socket thread
 * ---------------------------------------------------------------------------*/

static void
on_command(void *ctx, int cmd)
{
    Client *cl = ctx;
    sock.stats.control_ok++;
    switch (cmd) {
    case EVENTLOG_SOCKET_CMD_START_EVENTLOG: cl->paused = false; break;
    case EVENTLOG_SOCKET_CMD_STOP_EVENTLOG: cl->paused = true; break;
    case EVENTLOG_SOCKET_CMD_START_HEAP_PROF: startHeapProfTimer(); break;
    case EVENTLOG_SOCKET_CMD_STOP_HEAP_PROF: stopHeapProfTimer(); break;
    case EVENTLOG_SOCKET_CMD_REQUEST_CENSUS: requestHeapCensus(); break;
    }
}

static void
accept_clients(void)
{
    for (;;) {
        int fd = accept(sock.listen_fd, NULL, NULL);
        if (fd < 0) return;     /* EAGAIN, or a client that vanished */
        if (set_nonblock_cloexec(fd) != 0) { close(fd); continue; }
        pthread_mutex_lock(&sock.lock);
        if (sock.nclients == MAX_CLIENTS) {
            pthread_mutex_unlock(&sock.lock);
            close(fd);
            continue;
        }
        Client *cl = calloc(1, sizeof(Client));
        if (cl == NULL) { pthread_mutex_unlock(&sock.lock); close(fd); continue; }
        cl->fd = fd;
        elc_init(&cl->ctl);
        if (sock.in_stream) start_client_stream(cl);
        else cl->need_header = true;
        sock.clients[sock.nclients++] = cl;
        sock.stats.clients_connected++;
        pthread_cond_broadcast(&sock.joined);
        pthread_mutex_unlock(&sock.lock);
    }
}

/* Send what one client has queued; false when the client is gone. */
static bool
send_client(Client *cl)
{
    for (;;) {
        struct iovec iov[64];
        int n = 0;
        pthread_mutex_lock(&sock.lock);
        Queue *q = &cl->q;
        for (size_t i = 0; i < q->count && n < 64; i++) {
            Chunk *c = q->items[(q->head + i) % q->cap];
            size_t off = (i == 0) ? q->sent : 0;
            iov[n].iov_base = c->data + off;
            iov[n].iov_len = c->len - off;
            n++;
        }
        pthread_mutex_unlock(&sock.lock);
        if (n == 0) return true;

        struct msghdr mh;
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)n;
        ssize_t sent = sendmsg(cl->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        }
        pthread_mutex_lock(&sock.lock);
        size_t left = (size_t)sent;
        while (left > 0 && q->count > 0) {
            Chunk *c = q->items[q->head];
            size_t rem = c->len - q->sent;
            if (left >= rem) {
                left -= rem;
                q->bytes -= c->len;   /* a chunk counts whole until sent */
                q->sent = 0;
                q->head = (q->head + 1) % q->cap;
                q->count--;
                chunk_unref(c);
            } else {
                q->sent += left;
                left = 0;
            }
        }
        pthread_mutex_unlock(&sock.lock);
    }
}

static void
drop_client(int i)
{
    Client *cl = sock.clients[i];
    queue_clear(&cl->q);
    close(cl->fd);
    free(cl);
    sock.clients[i] = sock.clients[--sock.nclients];
}

static void
read_control(Client *cl)
{
    uint8_t buf[4096];
    for (;;) {
        ssize_t r = recv(cl->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (r > 0) {
            pthread_mutex_lock(&sock.lock);
            unsigned long ignored = 0;
            elc_feed(&cl->ctl, buf, (size_t)r, on_command, cl, &ignored);
            sock.stats.control_ignored += ignored;
            pthread_mutex_unlock(&sock.lock);
            continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            cl->dead = true;    /* the client went away */
        }
        return;
    }
}

static int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
socket_thread(void *arg STG_UNUSED)
{
    struct pollfd pfd[MAX_CLIENTS + 2];
    Client *polled[MAX_CLIENTS];
    int64_t deadline = 0;

    for (;;) {
        pthread_mutex_lock(&sock.lock);
        bool down = sock.shutting_down;
        if (down && deadline == 0) deadline = now_ns() + SHUTDOWN_DRAIN_NS;
        /* clients whose stream ended and who got all of it */
        for (int i = 0; i < sock.nclients; ) {
            Client *cl = sock.clients[i];
            if (cl->dead || (cl->closing && cl->q.count == 0)) drop_client(i);
            else i++;
        }
        bool pending = false;
        int n = 0;
        pfd[n].fd = sock.wake_fd; pfd[n].events = POLLIN; n++;
        if (!down) { pfd[n].fd = sock.listen_fd; pfd[n].events = POLLIN; n++; }
        int first = n;
        for (int i = 0; i < sock.nclients; i++) {
            Client *cl = sock.clients[i];
            polled[i] = cl;
            pfd[n].fd = cl->fd;
            pfd[n].events = POLLIN | (cl->q.count ? POLLOUT : 0);
            if (cl->q.count) pending = true;
            n++;
        }
        int nclients = sock.nclients;
        pthread_mutex_unlock(&sock.lock);

        int timeout = -1;
        if (down) {
            int64_t left = deadline - now_ns();
            if (!pending || left <= 0) break;
            timeout = (int)(left / 1000000) + 1;
        }
        int r = poll(pfd, (nfds_t)n, timeout);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;

        if (pfd[0].revents & POLLIN) {
            uint64_t v;
            ssize_t rr = read(sock.wake_fd, &v, sizeof(v));
            (void)rr;
        }
        for (int i = 0; i < nclients; i++) {
            Client *cl = polled[i];
            short re = pfd[first + i].revents;
            if (re & (POLLERR | POLLNVAL)) { cl->dead = true; continue; }
            if (re & (POLLIN | POLLHUP)) read_control(cl);
            if (!cl->dead && (re & POLLOUT)) {
                if (!send_client(cl)) cl->dead = true;
            }
        }
        if (!down && (pfd[1].revents & POLLIN)) accept_clients();
    }

    pthread_mutex_lock(&sock.lock);
    while (sock.nclients > 0) drop_client(0);
    sock.serving = false;
    pthread_cond_broadcast(&sock.joined);
    pthread_mutex_unlock(&sock.lock);
    return NULL;
}

/* -----------------------------------------------------------------------------
 * Exit and fork
 * ---------------------------------------------------------------------------*/

static void
at_exit(void)
{
    pthread_mutex_lock(&sock.lock);
    bool serving = sock.serving && !sock.forked;
    sock.shutting_down = true;
    pthread_mutex_unlock(&sock.lock);
    if (!serving) return;
    wake_thread();
    /* the thread drains for at most SHUTDOWN_DRAIN_NS, then closes */
    pthread_join(sock.thread, NULL);
    close(sock.listen_fd);
    close(sock.wake_fd);
    sock.listen_fd = sock.wake_fd = -1;
    if (sock.unix_path != NULL) {
        struct stat st;
        if (stat(sock.unix_path, &st) == 0 && st.st_dev == sock.unix_dev
            && st.st_ino == sock.unix_ino) {
            unlink(sock.unix_path);   /* only our own socket */
        }
    }
}

/* The child of a fork does not serve: it closes its copies of the
 * descriptors (the parent keeps serving) and writes only the file. */
static void
at_fork_child(void)
{
    pthread_mutex_init(&sock.lock, NULL);
    pthread_cond_init(&sock.joined, NULL);
    sock.forked = true;
    sock.serving = false;
    sock.stream_ok = false;
    if (sock.listen_fd >= 0) close(sock.listen_fd);
    if (sock.wake_fd >= 0) close(sock.wake_fd);
    sock.listen_fd = sock.wake_fd = -1;
    for (int i = 0; i < sock.nclients; i++) close(sock.clients[i]->fd);
    sock.nclients = 0;
}

#else /* !TRACING */

/* Without TRACING there is no eventlog to serve. */

bool
eventLogSocketParseFlag(const char *arg, bool *error)
{
    if (strncmp(arg, "--eventlog-socket", 17) != 0) return false;
    errorBelch("the flag %s requires the program to be built with -eventlog or -debug", arg);
    *error = true;
    return true;
}

void eventLogSocketSetupTracing(void) {}

const EventLogWriter *
eventLogSocketWrapWriter(const EventLogWriter *writer)
{
    return writer;
}

bool
eventLogSocketConfigure(const char *addr STG_UNUSED, bool wait STG_UNUSED,
                        size_t buffer_bytes STG_UNUSED)
{
    errorBelch("eventlog-socket: this RTS was built without eventlog support");
    return false;
}

bool
eventLogSocketStart(const char *addr STG_UNUSED)
{
    errorBelch("eventlog-socket: this RTS was built without eventlog support");
    return false;
}

void
eventLogSocketGetStats(EventLogSocketStats *stats)
{
    memset(stats, 0, sizeof(*stats));
}

#endif /* TRACING */
