/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog socket's clients: fan-out, bounded queues, loss reports and
 * replay. See EventLogSocketClients.h; the socket itself is
 * EventLogSocket.c.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "Stats.h"
#include "Rtscope.h"
#include "eventlog/EventLogSocketClients.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#if defined(TRACING)

/* Note [Eventlog socket: units and replay]
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
 * client only, whole: the client never sees a partial block. An empty
 * queue takes any one unit: a capability's block can be 2 MiB, and with a
 * smaller bound a client that kept up would otherwise lose every full
 * block (and be told it read too slowly). So a queue holds at most the
 * bound or one unit, whichever is larger. Drops are
 * counted (bytes, events, blocks) and, before the next unit the client does
 * receive, reported in its own stream as a block holding one user message:
 *   "rtscope: eventlog-socket dropped B bytes (E events in K blocks)"
 * (the prefix of Note [rtscope user messages]). What a client was not sent
 * because it paused its own stream (command 2 of the "rtscope" namespace)
 * is reported the same way when it resumes:
 *   "rtscope: eventlog-socket did not send B bytes (E events) while the
 *    client had paused its stream" Chunks are shared between
 * clients, so the memory the socket holds is bounded by the largest queue,
 * not their sum.
 */

#define REPLAY_MAX             ((size_t)16 << 20)

typedef struct Chunk_ {
    uint32_t refs;          /* under the socket's lock */
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
chunk_events(SocketFanout *f, Chunk *c)
{
    if (c->nevents < 0) {
        long n = 0;
        if (c->len >= ELS_BLOCK_MARKER_LEN && els_get16(c->data) == ELS_BLOCK_MARKER_TYPE) {
            n = els_block_events(&f->stream, c->data, c->len, NULL, NULL);
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
                 "(%llu events) while the client had paused its stream",
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

/* Room for `need` more bytes in a client's queue: within the bound, or
 * any one unit in an empty queue (see Note [Eventlog socket: loss]). */
static bool
client_has_room(SocketFanout *f, Client *cl, size_t need)
{
    return cl->q.bytes == 0 || cl->q.bytes + need <= f->bound;
}

/* Offer a chunk to a client: queue it if it fits, else count the loss.
 * A pending loss report goes first. See Note [Eventlog socket: loss]. */
static void
client_offer(SocketFanout *f, Client *cl, Chunk *c)
{
    if (cl->dead || cl->closing) return;
    if (cl->paused) {
        cl->skipped_bytes += c->len;
        cl->skipped_events += (uint64_t)chunk_events(f, c);
        return;
    }
    bool owed = cl->lost_blocks > 0 || cl->skipped_bytes > 0;
    Chunk *report = owed ? loss_report(cl) : NULL;
    size_t need = c->len + (report ? report->len : 0);
    if (!client_has_room(f, cl, need) || (owed && report == NULL)) {
        cl->lost_bytes += c->len;
        cl->lost_events += (uint64_t)chunk_events(f, c);
        cl->lost_blocks++;
        f->stats.bytes_dropped += c->len;
        f->stats.events_dropped += (uint64_t)chunk_events(f, c);
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
replay_event(void *ctx, uint16_t type, const uint8_t *ev, size_t len)
{
    SocketFanout *f = ctx;
    if (!is_init_event(type)) return;
    if (f->replay_len + len > REPLAY_MAX) {
        f->replay_truncated = true;
        return;
    }
    if (f->replay_len + len > f->replay_cap) {
        size_t cap = f->replay_cap ? f->replay_cap : 16384;
        while (cap < f->replay_len + len) cap *= 2;
        uint8_t *r = realloc(f->replay, cap);
        if (r == NULL) { f->replay_truncated = true; return; }
        f->replay = r;
        f->replay_cap = cap;
    }
    memcpy(f->replay + f->replay_len, ev, len);
    f->replay_len += len;
    if (f->replay_chunk != NULL) {
        chunk_unref(f->replay_chunk);
        f->replay_chunk = NULL;
    }
}

/* The header, then one block of the replayed init events. */
static Chunk *
join_chunk(SocketFanout *f)
{
    if (f->replay_chunk != NULL) return f->replay_chunk;
    size_t blen = f->replay_len ? ELS_BLOCK_MARKER_LEN + f->replay_len : 0;
    Chunk *c = chunk_new(f->header_len + blen);
    if (c == NULL) return NULL;
    memcpy(c->data, f->header, f->header_len);
    if (blen) {
        uint8_t *p = c->data + f->header_len;
        uint64_t first = els_get64(f->replay + 2);
        uint64_t last = first;
        for (size_t o = 0; o < f->replay_len; ) {
            uint64_t t = els_get64(f->replay + o + 2);
            if (t > last) last = t;
            uint16_t ty = els_get16(f->replay + o);
            int32_t sz = els_type_size(&f->stream, ty);
            o += (sz == ELS_SIZE_VARIABLE) ? (size_t)12 + els_get16(f->replay + o + 10)
                                           : 10 + (size_t)sz;
        }
        els_put16(p, ELS_BLOCK_MARKER_TYPE);
        els_put64(p + 2, first);
        els_put32(p + 10, (uint32_t)blen);
        els_put64(p + 14, last);
        els_put16(p + 22, ELS_CAP_GLOBAL);
        memcpy(p + ELS_BLOCK_MARKER_LEN, f->replay, f->replay_len);
    }
    c->nevents = 0;
    f->replay_chunk = c;
    return c;
}

static void
start_client_stream(SocketFanout *f, Client *cl)
{
    Chunk *j = join_chunk(f);
    if (j == NULL) { cl->dead = true; return; }
    queue_push(&cl->q, j);        /* not bounded: a client needs it */
    cl->need_header = false;
    if (f->replay_truncated) {
        Chunk *m = message_chunk(RTSCOPE_MSG_PREFIX "eventlog-socket replay of init "
                                 "events was truncated: some IPE or init events are missing");
        if (m != NULL) { queue_push(&cl->q, m); chunk_unref(m); }
    }
}

/* Would some client queue a unit of len bytes? (Conservatively ignores
 * the small loss report that may have to go first.) */
static bool
any_client_takes(SocketFanout *f, size_t len)
{
    for (int i = 0; i < f->nclients; i++) {
        Client *cl = f->clients[i];
        if (cl->need_header || cl->dead || cl->closing || cl->paused) continue;
        if (client_has_room(f, cl, len)) return true;
    }
    return false;
}

void
fanoutUnit(void *fanout, const ElsUnit *u)
{
    SocketFanout *f = fanout;
    Chunk *c = NULL;

    switch (u->kind) {
    case ELS_UNIT_HEADER:
        free(f->header);
        f->header = malloc(u->len);
        if (f->header == NULL) { f->header_len = 0; f->stream_ok = false; return; }
        memcpy(f->header, u->bytes, u->len);
        f->header_len = u->len;
        f->replay_len = 0;
        f->replay_truncated = false;
        chunk_unref(f->replay_chunk);
        f->replay_chunk = NULL;
        f->in_stream = true;
        for (int i = 0; i < f->nclients; i++) {
            Client *cl = f->clients[i];
            if (cl->need_header) { start_client_stream(f, cl); f->wake = true; }
        }
        return;
    case ELS_UNIT_BLOCK:
        if (u->cap == ELS_CAP_GLOBAL) {
            els_block_events(&f->stream, u->bytes, u->len, replay_event, f);
        }
        break;
    case ELS_UNIT_EVENT:
        replay_event(f, els_get16(u->bytes), u->bytes, u->len);
        break;
    case ELS_UNIT_DATA_END:
        break;
    }

    if (f->nclients > 0 && (u->kind == ELS_UNIT_DATA_END || any_client_takes(f, u->len))) {
        c = chunk_new(u->len);
        if (c == NULL) return;
        memcpy(c->data, u->bytes, u->len);
        for (int i = 0; i < f->nclients; i++) {
            Client *cl = f->clients[i];
            if (cl->need_header) continue;
            if (u->kind == ELS_UNIT_DATA_END) {
                client_end(cl, c);
            } else {
                client_offer(f, cl, c);
            }
        }
        chunk_unref(c);
        f->wake = true;
    } else if (f->nclients > 0) {
        /* nobody has room: count the loss without copying the unit */
        long nev = (u->kind == ELS_UNIT_BLOCK)
                 ? els_block_events(&f->stream, u->bytes, u->len, NULL, NULL) : 1;
        if (nev < 0) nev = 0;
        for (int i = 0; i < f->nclients; i++) {
            Client *cl = f->clients[i];
            if (cl->need_header || cl->dead || cl->closing) continue;
            if (cl->paused) {
                cl->skipped_bytes += u->len;
                cl->skipped_events += (uint64_t)nev;
            } else {
                cl->lost_bytes += u->len;
                cl->lost_events += (uint64_t)nev;
                cl->lost_blocks++;
                f->stats.bytes_dropped += u->len;
                f->stats.events_dropped += (uint64_t)nev;
            }
        }
    }

    if (u->kind == ELS_UNIT_DATA_END) {
        f->in_stream = false;
        chunk_unref(f->replay_chunk);
        f->replay_chunk = NULL;
        f->replay_len = 0;
    }
}

int
fanoutLiveClients(const SocketFanout *f)
{
    int n = 0;
    for (int i = 0; i < f->nclients; i++) {
        if (!f->clients[i]->dead && !f->clients[i]->closing) n++;
    }
    return n;
}

Client *
fanoutAddClient(SocketFanout *f, int fd)
{
    if (f->nclients == MAX_CLIENTS) return NULL;
    Client *cl = calloc(1, sizeof(Client));
    if (cl == NULL) return NULL;
    cl->fd = fd;
    elc_init(&cl->ctl);
    if (f->in_stream) start_client_stream(f, cl);
    else cl->need_header = true;
    f->clients[f->nclients++] = cl;
    f->stats.clients_connected++;
    return cl;
}

void
fanoutDropClient(SocketFanout *f, int i)
{
    Client *cl = f->clients[i];
    queue_clear(&cl->q);
    close(cl->fd);
    free(cl);
    f->clients[i] = f->clients[--f->nclients];
}

int
clientPending(Client *cl, struct iovec *iov, int max)
{
    int n = 0;
    Queue *q = &cl->q;
    for (size_t i = 0; i < q->count && n < max; i++) {
        Chunk *c = q->items[(q->head + i) % q->cap];
        size_t off = (i == 0) ? q->sent : 0;
        iov[n].iov_base = c->data + off;
        iov[n].iov_len = c->len - off;
        n++;
    }
    return n;
}

void
clientSent(Client *cl, size_t n)
{
    Queue *q = &cl->q;
    size_t left = n;
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
}

#endif /* TRACING */
