/* Bounded k-way merge of per-capability event streams.
 *
 * Note [The merge bound]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The RTS keeps one buffer per capability plus a global one and writes a
 * buffer out as a block only when it is full (2 MiB in GHC 9.0.2), when the
 * program ends, or when the eventlog is flushed. Events inside a block are in
 * time order; blocks of different capabilities are not. A block can hold
 * events from any time since that buffer's previous flush, so on a stream
 * that cannot be re-read the disorder is bounded only by how much the RTS
 * buffers: up to one buffer per capability.
 *
 * Each stream here keeps a FIFO of copied events and a lower bound on the
 * timestamps it can still produce: the last timestamp it produced, raised to
 * a block's end time once that block is complete (its successor starts after
 * the flush that closed it). The smallest queued event is released once no
 * other stream that has been seen can still produce an earlier one. If the
 * queued bytes exceed the budget, the smallest event is released anyway
 * ("forced"). An event older than one already released is delivered at once
 * and counted as late: order is then no longer exact, but nothing is lost
 * and memory stays within the budget.
 *
 * A stream the merge has not seen has no lower bound at all: a program
 * whose buffers are written only when it ends sends one capability's whole
 * run before the next one's first event. So the merge expects the RTS's
 * global stream and every capability the stream announces (CAP_CREATE,
 * CAPSET_ASSIGN_CAP, written to the global stream at start-up) and releases
 * nothing, budget permitting, while one of them has not been seen, nor
 * while the first block of the global stream, which holds those
 * announcements, has not been read to its end. A live
 * RTS flushes every capability's buffer together, so a live stream shows
 * them all at its first flush.
 *
 * Files do not need this: el_reader reads each capability's blocks with its
 * own cursor and merges exactly (see reader.c).
 *
 * Note [Holding for a quiet stream]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A stream that writes nothing keeps its lower bound where it was, and so
 * holds back every later event of the others. In a live program that is
 * the rule, not the exception: a capability with no work writes its buffer
 * before it sleeps and then nothing (Note [Flushing the eventlog] in the
 * RTS's EventLogFlush.c), and the global buffer, which in 9.0.2 gets the
 * censuses, writes nothing between two of them. A program on -N1 with
 * censuses every 30 s showed `rtscope live` nothing for 30 s: every block
 * of capability 0 waited for the global stream. No bound in the data says
 * that a quiet stream will stay quiet, since a capability whose buffer has
 * not been written yet looks the same. So live readers (sockets) bound the
 * wait in time instead: an event that has been held el_merge_set_hold's
 * milliseconds of the monotonic clock is released (counted in `held_out`).
 * If the quiet stream then sends an earlier event, it is late (delivered
 * at once, counted): with --eventlog-flush-interval under the hold (the
 * docs use 0.5 and 1 s; the hold is 2 s), only an event written later
 * than its flush is late. Pipes do not hold by default: a pipe is often a
 * file being copied, whose order is exact whatever the reader's pace.
 *
 * Note [A stream complete up to a time]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The hold is the last resort. The RTS itself says how far each stream is
 * complete (Note [Flushing the eventlog] in the RTS's EventLogFlush.c):
 * with --eventlog-flush-interval, at every flush epoch and whenever the
 * program goes idle, every buffer that nobody is writing to is written,
 * an empty block (a marker alone) if it holds nothing, and a block's end
 * time is when it was written. Nothing of that stream written later is
 * earlier than that time: its next block opens after it, and only the
 * buffer's owner posts to it. So a whole block raises its stream's lower
 * bound to its end time (el_merge_block_end), as soon as its last byte
 * is read: the reader does not wait for the next block, which from a
 * quiet program may come seconds later. A quiet program's events are then
 * released at the flush that wrote them, and a busy one's at most one
 * flush interval (plus a context switch) later, when the busy
 * capabilities write their blocks of that epoch. The hold still bounds
 * the wait for a capability that cannot write (a long non-allocating loop
 * or unsafe foreign call) and for an RTS without these blocks.
 *
 * Note [Order within a capability]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Within one capability's stream the RTS does not always write timestamps
 * in order: at the end of a collection it posts "GC stats" and then
 * "finished GC" with a clock read taken before the stats were. The order
 * the RTS wrote is the order that means something (the stats belong to the
 * collection that finished), so the merge never reorders a stream: each
 * event is ordered by its key, max(its timestamp, the key of the stream's
 * previous event, also of one a sink did not want and that was passed over
 * without being pushed: el_merge_note), ties broken by stream offset. Keys
 * of one stream never
 * decrease, so an event is late only when another stream's event with a
 * larger key was released before it. The file reader orders its cursors by
 * the same key (reader.c), so a file, a pipe and a socket carrying the same
 * bytes give the same order.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/eventlog.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MERGE_DEFAULT_BUDGET (16u << 20)
#define MERGE_MAX_STREAMS 4096

typedef struct merge_rec {
    uint64_t key;        /* see Note [Order within a capability] */
    uint64_t arrived_ms; /* monotonic clock when pushed (with a hold) */
    uint64_t ts;
    uint64_t offset;
    uint16_t type;
    uint16_t cap;
    uint32_t len;
} merge_rec;

typedef struct merge_stream {
    uint8_t *buf;
    size_t head, tail, cap_bytes;
    uint64_t lower; /* no future event of this stream is earlier */
    uint64_t key;   /* key of the last event pushed */
    uint16_t cap;
} merge_stream;

struct el_merge {
    size_t budget, queued;
    el_frame_fn fn;
    void *ctx;
    merge_stream *streams;
    unsigned nstreams;
    /* cap -> stream: the last one looked up, then an open-addressing
     * index (stream number + 1, 0 = free) kept at most half full. */
    uint16_t last_cap;
    int last_slot;
    uint16_t *index;
    unsigned index_cap;
    uint64_t last_key; /* key of the last event delivered */
    /* Streams expected but not seen yet (see Note [The merge bound]):
     * the global one until it is seen, and each announced capability. */
    unsigned missing;
    uint8_t *announced; /* bitmap of capabilities announced */
    /* The global stream's first block holds the announcements: it counts
     * as missing until it is whole (global_first: 0 not seen yet, 1 being
     * read, 2 done; global_first_end: the offset where it ends). */
    int global_first;
    uint64_t global_first_end;
    int delivered_any;
    int cur_slot; /* stream of the block being read, or -1 */
    uint64_t cur_block_end;
    /* Note [Holding for a quiet stream]: 0, or how long an event may wait;
     * now_ms is the clock at the last push or tick. */
    uint64_t hold_ms, now_ms;
    el_merge_stats stats;
};

static uint64_t merge_clock_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

el_merge *el_merge_new(size_t budget, el_frame_fn fn, void *ctx)
{
    el_merge *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->budget = budget ? budget : MERGE_DEFAULT_BUDGET;
    m->fn = fn;
    m->ctx = ctx;
    m->cur_slot = -1;
    m->last_slot = -1;
    m->missing = 1; /* the global stream */
    m->announced = calloc(65536 / 8, 1);
    if (!m->announced) {
        free(m);
        return NULL;
    }
    return m;
}

void el_merge_free(el_merge *m)
{
    if (!m)
        return;
    for (unsigned i = 0; i < m->nstreams; i++)
        free(m->streams[i].buf);
    free(m->streams);
    free(m->index);
    free(m->announced);
    free(m);
}

const el_merge_stats *el_merge_get_stats(const el_merge *m)
{
    return &m->stats;
}

/* Capabilities to streams: an index of this library's own (Note
 * [Event-type table layout] in typetab_impl.h says why). */
static unsigned merge_hash(uint16_t cap, unsigned mask)
{
    return ((unsigned)cap * 40503u) & mask;
}

static int merge_index_find(const el_merge *m, uint16_t cap)
{
    if (!m->index_cap)
        return -1;
    unsigned mask = m->index_cap - 1;
    for (unsigned j = merge_hash(cap, mask);; j = (j + 1) & mask) {
        unsigned v = m->index[j];
        if (!v)
            return -1;
        if (m->streams[v - 1].cap == cap)
            return (int)v - 1;
    }
}

static int merge_index_add(el_merge *m, uint16_t cap, unsigned idx)
{
    if ((m->nstreams + 1) * 2 > m->index_cap) {
        unsigned nc = m->index_cap ? m->index_cap * 2 : 16;
        uint16_t *ni = calloc(nc, sizeof(*ni));
        if (!ni)
            return -1;
        for (unsigned i = 0; i < m->nstreams; i++) {
            unsigned j = merge_hash(m->streams[i].cap, nc - 1);
            while (ni[j])
                j = (j + 1) & (nc - 1);
            ni[j] = (uint16_t)(i + 1);
        }
        free(m->index);
        m->index = ni;
        m->index_cap = nc;
    }
    unsigned mask = m->index_cap - 1;
    unsigned j = merge_hash(cap, mask);
    while (m->index[j])
        j = (j + 1) & mask;
    m->index[j] = (uint16_t)(idx + 1);
    return 0;
}

static int merge_slot_of(el_merge *m, uint16_t cap)
{
    if (m->last_slot >= 0 && m->last_cap == cap)
        return m->last_slot;
    int idx = merge_index_find(m, cap);
    if (idx < 0) {
        if (m->nstreams >= MERGE_MAX_STREAMS)
            return -1;
        merge_stream *ns =
            realloc(m->streams, (m->nstreams + 1) * sizeof(*m->streams));
        if (!ns)
            return -1;
        m->streams = ns;
        memset(&ns[m->nstreams], 0, sizeof(*ns));
        ns[m->nstreams].cap = cap;
        if (merge_index_add(m, cap, m->nstreams) != 0)
            return -1;
        idx = (int)m->nstreams++;
        if (cap == EL_CAP_NONE || (m->announced[cap >> 3] & (1u << (cap & 7))))
            m->missing--;
    }
    m->last_cap = cap;
    m->last_slot = idx;
    return idx;
}

static int merge_deliver(el_merge *m, const el_event *ev, uint64_t key)
{
    if (m->delivered_any && key < m->last_key) {
        m->stats.late_events++;
        if (m->last_key - key > m->stats.max_late_ns)
            m->stats.max_late_ns = m->last_key - key;
    } else {
        m->last_key = key;
    }
    m->delivered_any = 1;
    return m->fn(m->ctx, (el_event *)ev);
}

static int merge_stream_empty(const merge_stream *s)
{
    return s->head == s->tail;
}

static const merge_rec *merge_stream_head(const merge_stream *s)
{
    return (const merge_rec *)(s->buf + s->head);
}

static size_t merge_rec_size(uint32_t len)
{
    return (sizeof(merge_rec) + len + 7u) & ~(size_t)7u;
}

/* Lowest timestamp an empty stream (other than `except`) could still
 * produce. */
static uint64_t merge_bound(const el_merge *m, int except)
{
    uint64_t b = UINT64_MAX;
    for (unsigned i = 0; i < m->nstreams; i++) {
        if ((int)i == except || !merge_stream_empty(&m->streams[i]))
            continue;
        if (m->streams[i].lower < b)
            b = m->streams[i].lower;
    }
    return b;
}

static int merge_min_stream(const el_merge *m)
{
    int best = -1;
    uint64_t best_ts = 0;
    for (unsigned i = 0; i < m->nstreams; i++) {
        const merge_stream *s = &m->streams[i];
        if (merge_stream_empty(s))
            continue;
        uint64_t ts = merge_stream_head(s)->key;
        if (best < 0 || ts < best_ts ||
            (ts == best_ts &&
             merge_stream_head(s)->offset <
                 merge_stream_head(&m->streams[best])->offset)) {
            best = (int)i;
            best_ts = ts;
        }
    }
    return best;
}

static int merge_pop(el_merge *m, int idx)
{
    merge_stream *s = &m->streams[idx];
    const merge_rec *r = merge_stream_head(s);
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.ts = r->ts;
    ev.offset = r->offset;
    ev.type = r->type;
    ev.cap = r->cap;
    ev.payload = (const uint8_t *)(r + 1);
    ev.payload_len = r->len;
    size_t sz = merge_rec_size(r->len);
    int stop = merge_deliver(m, &ev, r->key);
    s->head += sz;
    m->queued -= sz;
    if (s->head == s->tail)
        s->head = s->tail = 0;
    return stop;
}

/* A capability announced: expect its stream. */
static void merge_announce(el_merge *m, const el_event *ev)
{
    el_event copy = *ev;
    el_error err;
    if (el_event_decode(&copy, &err) != EL_OK)
        return;
    uint16_t cap =
        ev->type == EL_CAP_CREATE ? copy.u.cap.cap : copy.u.capset_cap.cap;
    if (cap == EL_CAP_NONE || (m->announced[cap >> 3] & (1u << (cap & 7))))
        return;
    m->announced[cap >> 3] |= (uint8_t)(1u << (cap & 7));
    if (merge_index_find(m, cap) < 0)
        m->missing++;
}

/* Release every event that can no longer be preceded by another. */
static el_status merge_drain(el_merge *m, int force_all)
{
    for (;;) {
        int idx = merge_min_stream(m);
        if (idx < 0)
            return EL_OK;
        uint64_t ts = merge_stream_head(&m->streams[idx])->key;
        int ok = force_all || (!m->missing && ts <= merge_bound(m, idx));
        if (!ok && m->queued > m->budget) {
            m->stats.forced++;
            ok = 1;
        }
        if (!ok && m->hold_ms &&
            m->now_ms - merge_stream_head(&m->streams[idx])->arrived_ms >=
                m->hold_ms) {
            m->stats.held_out++;
            ok = 1;
        }
        if (!ok)
            return EL_OK;
        if (merge_pop(m, idx))
            return EL_STOP;
    }
}

static el_status merge_enqueue(el_merge *m, merge_stream *s, const el_event *ev,
                               uint64_t key)
{
    size_t sz = merge_rec_size(ev->payload_len);
    if (s->tail + sz > s->cap_bytes) {
        if (s->head > 0) { /* compact */
            memmove(s->buf, s->buf + s->head, s->tail - s->head);
            s->tail -= s->head;
            s->head = 0;
        }
        if (s->tail + sz > s->cap_bytes) {
            size_t nc = s->cap_bytes ? s->cap_bytes * 2 : 65536;
            while (nc < s->tail + sz)
                nc *= 2;
            uint8_t *nb = realloc(s->buf, nc);
            if (!nb)
                return EL_ERR_NOMEM;
            s->buf = nb;
            s->cap_bytes = nc;
        }
    }
    merge_rec *r = (merge_rec *)(s->buf + s->tail);
    r->key = key;
    r->arrived_ms = m->now_ms;
    r->ts = ev->ts;
    r->offset = ev->offset;
    r->type = ev->type;
    r->cap = ev->cap;
    r->len = ev->payload_len;
    if (ev->payload_len)
        memcpy(r + 1, ev->payload, ev->payload_len);
    s->tail += sz;
    m->queued += sz;
    if (m->queued > m->stats.peak_bytes)
        m->stats.peak_bytes = m->queued;
    return EL_OK;
}

el_status el_merge_push(el_merge *m, const el_event *ev)
{
    if (m->hold_ms)
        m->now_ms = merge_clock_ms();
    int idx = merge_slot_of(m, ev->cap);
    if (idx < 0)
        return EL_ERR_NOMEM;
    if (ev->type == EL_BLOCK_MARKER) {
        if (m->global_first == 1 && ev->offset >= m->global_first_end) {
            m->global_first = 2; /* its announcements are all known */
            m->missing--;
        }
        if (m->global_first == 0 && ev->cap == EL_CAP_NONE) {
            m->global_first = 1;
            /* size 0: never closed, it lasts until the next marker */
            m->global_first_end = ev->u.block.size
                                      ? ev->offset + ev->u.block.size
                                      : ev->offset + 1;
            m->missing++;
        }
        /* The block being read is complete: its stream resumes no earlier
         * than the time the block was closed. */
        if (m->cur_slot >= 0) {
            merge_stream *prev = &m->streams[m->cur_slot];
            if (m->cur_block_end > prev->lower)
                prev->lower = m->cur_block_end;
        }
        m->cur_slot = idx;
        m->cur_block_end = ev->u.block.end_ts;
    }
    if (ev->type == EL_CAP_CREATE || ev->type == EL_CAPSET_ASSIGN_CAP)
        merge_announce(m, ev);
    merge_stream *s = &m->streams[idx];
    if (ev->ts > s->key)
        s->key = ev->ts;
    uint64_t key = s->key;
    if (key > s->lower)
        s->lower = key;

    if (m->delivered_any && key < m->last_key) {
        /* Too late to be put in order: deliver now (counted). */
        if (merge_deliver(m, ev, key))
            return EL_STOP;
        return merge_drain(m, 0);
    }
    if (merge_stream_empty(s) && !m->missing) {
        int other = merge_min_stream(m);
        uint64_t other_key =
            other < 0 ? UINT64_MAX : merge_stream_head(&m->streams[other])->key;
        /* Ties go to the earlier offset, as in merge_min_stream. */
        if ((other < 0 || key < other_key ||
             (key == other_key &&
              ev->offset < merge_stream_head(&m->streams[other])->offset)) &&
            key <= merge_bound(m, idx)) {
            if (merge_deliver(m, ev, key))
                return EL_STOP;
            return merge_drain(m, 0);
        }
    }
    el_status st = merge_enqueue(m, s, ev, key);
    if (st != EL_OK)
        return st;
    return merge_drain(m, 0);
}

el_status el_merge_note(el_merge *m, uint16_t cap, uint64_t ts)
{
    int idx = merge_slot_of(m, cap);
    if (idx < 0)
        return EL_ERR_NOMEM;
    merge_stream *s = &m->streams[idx];
    if (ts <= s->key)
        return EL_OK;
    s->key = ts;
    if (ts > s->lower)
        s->lower = ts;
    return merge_drain(m, 0);
}

el_status el_merge_block_end(el_merge *m, uint16_t cap, uint64_t end_ts)
{
    int idx = merge_slot_of(m, cap);
    if (idx < 0)
        return EL_ERR_NOMEM;
    merge_stream *s = &m->streams[idx];
    if (end_ts > s->lower)
        s->lower = end_ts;
    if (cap == EL_CAP_NONE && m->global_first == 1) {
        m->global_first = 2; /* its announcements are all known */
        m->missing--;
    }
    if (m->cur_slot == idx)
        m->cur_slot = -1; /* nothing left for the next marker to close */
    return merge_drain(m, 0);
}

el_status el_merge_flush(el_merge *m)
{
    return merge_drain(m, 1);
}

void el_merge_set_hold(el_merge *m, unsigned hold_ms)
{
    m->hold_ms = hold_ms;
    m->now_ms = hold_ms ? merge_clock_ms() : 0;
}

el_status el_merge_tick(el_merge *m)
{
    if (!m->hold_ms || !m->queued)
        return EL_OK;
    m->now_ms = merge_clock_ms();
    return merge_drain(m, 0);
}
