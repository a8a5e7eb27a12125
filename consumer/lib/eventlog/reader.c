/* The reader's file path: source -> index pass -> exact merge -> sink.
 *
 * Note [Two ways to merge]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A seekable file is merged exactly, with one cursor per capability over
 * an index of the file made by a first pass that reads it as a stream (see
 * Note [Reading a file]).
 *
 * A pipe or socket can only be read once, so it goes through el_merge with a
 * bounded buffer (see Note [The merge bound] in merge.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/eventlog.h"

#include "bytes.h"
#include "decoder_impl.h"
#include "event_impl.h"
#include "pipeline.h"
#include "source.h"
#include "typetab_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READER_CHUNK ((size_t)256 * 1024)
#define READER_MAX_CURSORS 1024

/* Files: an index pass, then an exact merge.                              */

/* Note [Reading a file]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A file is read twice, both times without copying an event, and each
 * event the sink wants is decoded once:
 *
 * 1. The index pass reads it front to back with one decoder, exactly as a
 *    pipe is read, so it finds the same errors, at the same offsets, with
 *    the same messages, and the same end (end-of-data marker, trailing
 *    bytes, truncation). It counts every event, checks the payloads of
 *    the events the sink wants without decoding them (Note [Payload errors
 *    in stream order] in pipeline.c), and records the segments of the
 *    stream (each block, and each run of events outside any block) with
 *    their capability, plus where every event the sink wants is and its
 *    key. The read stops at the first problem: the "stop offset".
 * 2. The merge pass gives each capability a cursor over its own segments
 *    and releases the cursor head with the smallest key (Note [Order within
 *    a capability] in merge.c; ties: file order). A cursor jumps straight
 *    to the wanted events the index pass recorded and frames them from the
 *    index, without a decoder, so a sink that looks at a few event types
 *    (`stats`, `hp`) reads almost nothing twice, and the events it gets
 *    are decoded on delivery, once. When the wanted events are too many to
 *    record within the index budget, cursors read their segments whole
 *    instead, with a decoder each, and pass over the unwanted events.
 *
 * The sink gets every event before the stop offset, in exact order, and
 * then the index pass's verdict: so a file, a pipe and a socket carrying the
 * same bytes give the same events, the same error and the same warnings.
 * Memory is the segment list (one entry a block), the index (bounded by
 * el_reader_opts.index_budget) and one buffer per capability (and a
 * decoder when the index is dense).
 */

#define SEG_NONE UINT32_MAX
#define INDEX_DEFAULT_BUDGET ((size_t)16 << 20)
#define FILE_CHUNK ((size_t)1 << 20)

typedef struct seg {
    uint64_t start, end;           /* bytes [start, end) of the stream */
    uint64_t block_end;            /* of the block (UINT64_MAX: never closed) */
    uint32_t next;                 /* next segment of the same capability */
    uint32_t run_first, run_count; /* its runs of wanted events */
    uint16_t cap;
    uint8_t in_block;
} seg;

/* Note [Runs of wanted events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The index records the events a sink wants as runs: wanted events one
 * right after the other in a segment, with no other event between them.
 * A run needs only where it is and its stream's key before it: the merge
 * pass frames its events one after another (the index pass checked them)
 * and takes each one's key as the larger of its timestamp and the key of
 * the one before (Note [Order within a capability] in merge.c), which is
 * what the index pass computed, since no other event of the stream came
 * between. The heap samples of a -hi census (thousands in a row), or
 * every event of a segment when a sink wants everything, are one run: so
 * the index stays small and the wanted events are read back in a few large
 * reads. A sink that wants events scattered among others gets a run
 * each.
 */
typedef struct erun {
    uint64_t offset;
    uint64_t key_before; /* the stream's merge key before its first event */
    uint32_t bytes;
} erun;

typedef struct file_index {
    seg *segs;
    uint32_t nsegs, segs_cap;
    erun *runs;
    size_t nruns, runs_cap, runs_max;
    int dense;     /* the runs did not fit: cursors read whole segments */
    uint64_t stop; /* stop offset: nothing at or after it is delivered */
    /* The verdict: el_decoder_finish's or the first error. */
    el_status status;
    el_error err;
    int truncated, saw_end;
    uint64_t truncated_at, end_pos, bytes;
} file_index;

static int index_add_seg(file_index *ix, uint64_t start, uint16_t cap,
                         int in_block, uint64_t block_end)
{
    if (ix->nsegs && ix->segs) {
        seg *prev = &ix->segs[ix->nsegs - 1];
        prev->end = start;
        if (!in_block && !prev->in_block)
            return 0; /* one run of events outside blocks */
    }
    if (!ix->segs || ix->nsegs == ix->segs_cap) {
        uint32_t nc = ix->segs_cap ? ix->segs_cap * 2 : 256;
        if (nc <= ix->segs_cap || nc >= SEG_NONE)
            return -1;
        seg *ns = realloc(ix->segs, nc * sizeof(*ns));
        if (!ns)
            return -1;
        ix->segs = ns;
        ix->segs_cap = nc;
    }
    seg *s = &ix->segs[ix->nsegs++];
    memset(s, 0, sizeof(*s));
    s->start = s->end = start;
    s->cap = cap;
    s->in_block = (uint8_t)in_block;
    s->block_end = block_end;
    s->next = SEG_NONE;
    s->run_first = (uint32_t)ix->nruns;
    return 0;
}

/* A wanted event of `len` bytes at `offset` in the last segment, whose
 * stream's key was `key_before`: it extends the segment's last run if it
 * follows it directly (Note [Runs of wanted events]). */
static void index_add_wanted(file_index *ix, uint64_t offset, uint32_t len,
                             uint64_t key_before)
{
    if (ix->dense)
        return;
    seg *s = &ix->segs[ix->nsegs - 1];
    if (s->run_count) {
        erun *last = &ix->runs[ix->nruns - 1];
        if (last->offset + last->bytes == offset &&
            last->bytes <= UINT32_MAX - len) {
            last->bytes += len;
            return;
        }
    }
    if (ix->nruns == ix->runs_cap) {
        size_t nc = ix->runs_cap ? ix->runs_cap * 2 : 1024;
        if (nc > ix->runs_max)
            nc = ix->runs_max;
        erun *nr =
            nc > ix->runs_cap ? realloc(ix->runs, nc * sizeof(*nr)) : NULL;
        if (!nr) { /* over the budget (or no memory): read segments whole */
            free(ix->runs);
            ix->runs = NULL;
            ix->nruns = ix->runs_cap = 0;
            ix->dense = 1;
            return;
        }
        ix->runs = nr;
        ix->runs_cap = nc;
    }
    erun *r = &ix->runs[ix->nruns++];
    r->offset = offset;
    r->bytes = len;
    r->key_before = key_before;
    s->run_count++;
}

/* The index pass's state. */
typedef struct indexer {
    el_decoder *dec;
    reader_ctx *rc;
    file_index *ix;
    /* Each stream's merge key so far: Note [Order within a capability]. */
    uint64_t *keys;
    int bad_payload; /* the verdict is a payload error (in ix->err) */
    int nomem;       /* the index could not grow */
} indexer;

/* Count an event the decoder framed and raise its stream's key; open the
 * segment it starts, if any; record where it is if the sink wants it. */
static el_status index_event(indexer *in, const el_event *ev)
{
    file_index *ix = in->ix;
    uint64_t key_before = in->keys[ev->cap];
    reader_count(in->rc, ev);
    if (ev->ts > key_before)
        in->keys[ev->cap] = ev->ts;
    seg *cur = ix->nsegs ? &ix->segs[ix->nsegs - 1] : NULL;
    int add = 0;
    if (ev->type == EL_BLOCK_MARKER) {
        add = index_add_seg(ix, ev->offset, ev->u.block.cap, 1,
                            ev->u.block.size ? ev->offset + ev->u.block.size
                                             : UINT64_MAX);
    } else if (!cur || (cur->in_block && ev->offset >= cur->block_end)) {
        add = index_add_seg(ix, ev->offset, EL_CAP_NONE, 0, 0);
    }
    if (add != 0) {
        in->nomem = 1;
        return EL_ERR_NOMEM;
    }
    if (reader_wants(in->rc, ev))
        index_add_wanted(ix, ev->offset,
                         (uint32_t)(decoder_framed_end(in->dec) - ev->offset),
                         key_before);
    return EL_OK;
}

/* A wanted event decoder_scan passed over (a decoder_wanted_fn): its
 * payload checked and its place recorded, as index_input does for the
 * others. Nonzero: leave it to index_input. */
static int index_scanned(void *ctx, const el_event *ev, uint32_t len,
                         uint64_t key_before)
{
    indexer *in = ctx;
    if (!in->ix->nsegs || !event_payload_ok(ev))
        return 1;
    index_add_wanted(in->ix, ev->offset, len, key_before);
    return 0;
}

/* Index the events of the decoder's input. Returns what ended it:
 * EL_NEED_MORE (the input is used up), EL_END, the decoder's error,
 * EL_ERR_FORMAT for a payload error, EL_ERR_NOMEM. */
static el_status index_input(indexer *in)
{
    el_event ev;
    for (;;) {
        uint16_t stream = decoder_stream(in->dec);
        /* Most events, wanted or not: Note [Scanning wanted events] */
        reader_scan(in->rc, in->dec, &in->keys[stream], index_scanned, in);
        el_status st = el_decoder_next(in->dec, &ev);
        if (st != EL_FRAME)
            return st;
        if (reader_check(in->rc, &ev, &in->ix->err) != EL_OK) {
            in->bad_payload = 1;
            return EL_ERR_FORMAT;
        }
        st = index_event(in, &ev);
        if (st != EL_OK)
            return st;
    }
}

/* The input ended without an end-of-data marker or an error: the
 * decoder's verdict (a truncation, or a bad or incomplete header). */
static void index_finish(indexer *in)
{
    file_index *ix = in->ix;
    el_status st = el_decoder_finish(in->dec);
    ix->stop = el_decoder_offset(in->dec);
    if (st == EL_ERR_TRUNCATED && el_decoder_header_done(in->dec)) {
        ix->truncated = 1;
        ix->truncated_at = el_decoder_error(in->dec)->offset;
        ix->stop = ix->truncated_at;
    } else if (st != EL_OK) {
        ix->status = st;
        ix->err = *el_decoder_error(in->dec);
    }
}

/* Record how the stream ended (st: what index_input returned). */
static void index_stop(indexer *in, el_status st)
{
    file_index *ix = in->ix;
    if (st == EL_END) {
        ix->saw_end = 1;
        ix->end_pos = ix->stop = el_decoder_offset(in->dec) - 2;
        return;
    }
    ix->status = st;
    if (!in->bad_payload)
        ix->err = *el_decoder_error(in->dec);
    ix->stop = ix->err.offset;
}

/* Pass 1: see Note [Reading a file]. Returns EL_OK once the verdict is in
 * ix (ix->status), or an error of its own (no memory, a read error) with
 * *err filled. */
static el_status file_index_pass(source *src, el_decoder *dec, reader_ctx *rc,
                                 file_index *ix, el_error *err)
{
    indexer in = {dec, rc, ix, calloc(65536, sizeof(uint64_t)), 0, 0};
    uint8_t *buf = malloc(FILE_CHUNK);
    el_status ret = EL_OK;
    uint64_t pos = 0;
    if (!buf || !in.keys) {
        free(buf);
        free(in.keys);
        return EL_ERR_NOMEM;
    }
    ix->status = EL_OK;
    for (;;) {
        ssize_t n = source_pread(src, buf, FILE_CHUNK, pos);
        if (n < 0) {
            char msg[160];
            snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
            reader_set_error(err, EL_ERR_IO, pos, msg);
            ret = EL_ERR_IO;
            break;
        }
        if (n == 0) {
            index_finish(&in);
            break;
        }
        pos += (uint64_t)n;
        el_decoder_input(dec, buf, (size_t)n);
        el_status st = index_input(&in);
        if (in.nomem) {
            reader_set_error(err, EL_ERR_NOMEM, el_decoder_offset(dec),
                             "out of memory");
            ret = EL_ERR_NOMEM;
            break;
        }
        if (st != EL_NEED_MORE) {
            index_stop(&in, st);
            break;
        }
    }
    /* After an end-of-data marker, the rest of the file is trailing data. */
    ix->bytes = ix->saw_end && src->size > pos ? src->size : pos;
    if (ix->nsegs && ix->segs)
        ix->segs[ix->nsegs - 1].end = ix->stop;
    free(in.keys);
    free(buf);
    return ret;
}

typedef struct cursor {
    uint16_t cap;
    uint32_t seg;     /* current segment, or SEG_NONE when done */
    size_t k;         /* current run (sparse) */
    uint64_t at;      /* next event of run k (sparse; 0: not started) */
    uint64_t seg_pos; /* next byte of the segment to read (dense) */
    el_decoder *dec;  /* dense: reads the segments */
    uint8_t *buf;
    uint64_t win_start, win_end; /* bytes of the stream in buf */
    el_event head;
    uint64_t key; /* see Note [Order within a capability] in merge.c */
    int has_head;
    /* Sparse: the end of the run c->at is in (0: none yet), and the
     * capability its events carry; for cursor_next_in_run. */
    uint64_t run_end;
    uint16_t run_cap;
} cursor;

static int cursor_before(const cursor *a, const cursor *b)
{
    return a->key < b->key ||
           (a->key == b->key && a->head.offset < b->head.offset);
}

static el_status cursor_read(source *src, cursor *c, uint64_t at, size_t len,
                             el_error *err)
{
    ssize_t n = source_pread(src, c->buf, len, at);
    if (n < 0 || (size_t)n < len) {
        char msg[160];
        snprintf(msg, sizeof(msg), "read error: %s",
                 n < 0 ? strerror(errno) : "the file shrank while read");
        reader_set_error(err, EL_ERR_IO, at, msg);
        return EL_ERR_IO;
    }
    c->win_start = at;
    c->win_end = at + len;
    return EL_OK;
}

/* The cursor's current run, moving on to its next segment's when a
 * segment has no more; NULL when it has none left. */
static const erun *cursor_run(const file_index *ix, cursor *c)
{
    while (c->seg != SEG_NONE) {
        const seg *s = &ix->segs[c->seg];
        if (c->k < (size_t)s->run_first + s->run_count)
            return &ix->runs[c->k];
        c->seg = s->next;
        if (c->seg != SEG_NONE)
            c->k = ix->segs[c->seg].run_first;
    }
    return NULL;
}

/* Read from `at`, in run r of the cursor's segment, to the end of the run
 * and over the following runs of the segment, as much as one buffer
 * holds. */
static el_status cursor_fill(source *src, const file_index *ix, cursor *c,
                             const erun *r, uint64_t at, el_error *err)
{
    const seg *s = &ix->segs[c->seg];
    size_t last = (size_t)s->run_first + s->run_count;
    uint64_t end = r->offset + r->bytes;
    if (end - at > READER_CHUNK) {
        end = at + READER_CHUNK;
    } else {
        for (size_t k = c->k + 1; k < last; k++) {
            uint64_t e = ix->runs[k].offset + ix->runs[k].bytes;
            if (e - at > READER_CHUNK)
                break;
            end = e;
        }
    }
    return cursor_read(src, c, at, (size_t)(end - at), err);
}

/* The frame of the event at c->at in run r: the index pass framed it and
 * checked its payload, so it needs no decoder, only the framing rules
 * (decoder.c). EL_ERR_IO if the bytes are no longer that event. */
static el_status cursor_frame(source *src, const reader_ctx *rc,
                              const file_index *ix, cursor *c, const erun *r,
                              el_error *err)
{
    uint64_t at = c->at, end = r->offset + r->bytes;
    uint64_t need = end - at < 12 ? end - at : 12;
    if (at < c->win_start || at + need > c->win_end) {
        el_status st = cursor_fill(src, ix, c, r, at, err);
        if (st != EL_OK)
            return st;
    }
    const uint8_t *b = c->buf + (at - c->win_start);
    uint16_t size;
    if (need < 10 || typetab_lookup_inline(rc->types, bytes_get_u16(b), &size))
        goto changed;
    uint32_t head = size == EL_SIZE_VARIABLE ? 12 : 10;
    if (need < head)
        goto changed;
    uint32_t plen = size == EL_SIZE_VARIABLE ? bytes_get_u16(b + 10) : size;
    if (bytes_get_u16(b) == EL_IPE && size == EL_SIZE_VARIABLE) {
        /* see ipe_framed_len: 9.6's last IPE event of a run declares one
         * byte past the run's end */
        if (plen && at + head + plen - 1 > c->win_end) {
            el_status st = cursor_fill(src, ix, c, r, at, err);
            if (st != EL_OK)
                return st;
            b = c->buf;
        }
        uint64_t have = c->win_end - at - head;
        plen =
            ipe_framed_len(b + head, plen, have < plen ? (uint32_t)have : plen);
    }
    if (head + plen > end - at)
        goto changed;
    if (at + head + plen > c->win_end) { /* the event goes on past buf */
        el_status st = cursor_fill(src, ix, c, r, at, err);
        if (st != EL_OK)
            return st;
        b = c->buf;
    }
    el_event *ev = &c->head;
    event_frame(ev, b, head, plen, at);
    ev->cap = ix->segs[c->seg].in_block ? ix->segs[c->seg].cap : EL_CAP_NONE;
    c->at = at + head + plen;
    c->run_end = end;
    c->run_cap = ev->cap;
    return EL_OK;
changed:
    reader_set_error(err, EL_ERR_IO, at, "the file changed while it was read");
    return EL_ERR_IO;
}

/* Sparse, the common case: the next event of the run the cursor is in,
 * whole in its buffer. 0: take the general path (the run is done, or the
 * event is not whole in the buffer, or it is not what the index pass
 * framed: cursor_frame says so). */
static int cursor_next_in_run(const reader_ctx *rc, cursor *c)
{
    uint64_t at = c->at;
    if (!at || at >= c->run_end || at < c->win_start || at >= c->win_end ||
        c->win_end - at < 12)
        return 0;
    const uint8_t *b = c->buf + (at - c->win_start);
    uint16_t size;
    if (bytes_get_u16(b) == EL_IPE ||
        typetab_lookup_inline(rc->types, bytes_get_u16(b), &size))
        return 0;
    uint32_t head = size == EL_SIZE_VARIABLE ? 12 : 10;
    uint32_t plen = size == EL_SIZE_VARIABLE ? bytes_get_u16(b + 10) : size;
    uint64_t next = at + head + plen;
    if (next > c->run_end || next > c->win_end)
        return 0;
    event_frame(&c->head, b, head, plen, at);
    c->head.cap = c->run_cap;
    c->at = next;
    c->has_head = 1;
    if (c->head.ts > c->key)
        c->key = c->head.ts;
    return 1;
}

/* Sparse: the next event of the cursor's runs. */
static el_status cursor_next_sparse(source *src, const reader_ctx *rc,
                                    const file_index *ix, cursor *c,
                                    el_error *err)
{
    if (cursor_next_in_run(rc, c))
        return EL_OK;
    const erun *r;
    while ((r = cursor_run(ix, c)) != NULL) {
        if (c->at == 0) { /* a new run */
            c->at = r->offset;
            if (r->key_before > c->key)
                c->key = r->key_before;
        }
        if (c->at < r->offset + r->bytes)
            break;
        c->k++;
        c->at = 0;
    }
    if (!r)
        return EL_OK;
    el_status st = cursor_frame(src, rc, ix, c, r, err);
    if (st != EL_OK)
        return st;
    c->has_head = 1;
    if (c->head.ts > c->key)
        c->key = c->head.ts;
    return EL_OK;
}

/* Dense: the next event of the cursor's segments, read whole. */
static el_status cursor_next_dense(source *src, reader_ctx *rc,
                                   const file_index *ix, cursor *c,
                                   el_error *err)
{
    while (c->seg != SEG_NONE) {
        const seg *s = &ix->segs[c->seg];
        /* Skipped events count in the key, not again in the counts. */
        if (rc->wanted)
            decoder_skip(c->dec, rc->wanted, NULL, &c->key);
        el_status st = el_decoder_next(c->dec, &c->head);
        if (st == EL_FRAME) {
            c->has_head = 1;
            return EL_OK;
        }
        if (st != EL_NEED_MORE) { /* the index pass read these bytes */
            reader_set_error(err, EL_ERR_IO, el_decoder_offset(c->dec),
                             "the file changed while it was read");
            return EL_ERR_IO;
        }
        /* One byte past the segment where the file has it: a 9.6 IPE
         * event that ends the segment declares one byte more than it has
         * (ipe_framed_len), and the decoder frames it only with all it
         * declares at hand. One byte cannot begin another event. */
        uint64_t lim = s->end < ix->bytes ? s->end + 1 : s->end;
        if (c->seg_pos < lim) {
            uint64_t want = lim - c->seg_pos;
            if (want > READER_CHUNK)
                want = READER_CHUNK;
            st = cursor_read(src, c, c->seg_pos, (size_t)want, err);
            if (st != EL_OK)
                return st;
            el_decoder_input(c->dec, c->buf, (size_t)want);
            c->seg_pos += want;
            continue;
        }
        /* Segment done (a partial event at its end is one the stop offset
         * cut). */
        c->seg = s->next;
        if (c->seg != SEG_NONE) {
            c->seg_pos = ix->segs[c->seg].start;
            el_decoder_seek(c->dec, c->seg_pos);
        }
    }
    return EL_OK;
}

static el_status cursor_next(source *src, reader_ctx *rc, const file_index *ix,
                             cursor *c, el_error *err)
{
    c->has_head = 0;
    if (!ix->dense)
        return cursor_next_sparse(src, rc, ix, c, err);
    el_status st = cursor_next_dense(src, rc, ix, c, err);
    if (c->has_head && c->head.ts > c->key)
        c->key = c->head.ts;
    return st;
}

/* Pass 2: deliver every event before the stop offset in exact order. */
static el_status file_merge_pass(source *src, reader_ctx *rc,
                                 const file_index *ix, el_error *err)
{
    el_status ret = EL_OK;
    cursor *cur = NULL;
    unsigned ncur = 0;
    /* One cursor a capability: link each segment to the next of its cap. */
    uint32_t *last = malloc(65536 * sizeof(*last));
    if (!last)
        return EL_ERR_NOMEM;
    for (unsigned i = 0; i < 65536; i++)
        last[i] = SEG_NONE;
    for (uint32_t i = 0; i < ix->nsegs; i++) {
        seg *s = &ix->segs[i];
        if (s->start >= s->end)
            continue;
        if (last[s->cap] == SEG_NONE)
            ncur++;
        else
            ix->segs[last[s->cap]].next = i;
        last[s->cap] = i;
    }
    if (ncur > READER_MAX_CURSORS) {
        free(last);
        return FILE_USE_STREAM;
    }
    cur = calloc(ncur ? ncur : 1, sizeof(*cur));
    if (!cur) {
        free(last);
        return EL_ERR_NOMEM;
    }
    /* Cursors in the order their capability first appears. */
    unsigned k = 0;
    for (uint32_t i = 0; i < ix->nsegs && k < ncur; i++) {
        seg *s = &ix->segs[i];
        if (s->start >= s->end || last[s->cap] == SEG_NONE)
            continue;
        last[s->cap] = SEG_NONE; /* taken */
        cursor *c = &cur[k++];
        c->cap = s->cap;
        c->seg = i;
        c->k = s->run_first;
        c->seg_pos = s->start;
        c->buf = malloc(READER_CHUNK);
        if (ix->dense) /* cursors read whole segments */
            c->dec = el_decoder_new(rc->types);
        if (!c->buf || (ix->dense && !c->dec)) {
            ret = EL_ERR_NOMEM;
            goto out;
        }
        if (c->dec)
            el_decoder_seek(c->dec, s->start);
    }
    for (unsigned i = 0; i < ncur && ret == EL_OK; i++)
        ret = cursor_next(src, rc, ix, &cur[i], err);
    while (ret == EL_OK) {
        /* The first cursor, and the one after it: the first goes on
         * releasing events while its head stays before the second's (the
         * heap samples of a census come one after another). */
        cursor *best = NULL, *next = NULL;
        for (unsigned i = 0; i < ncur; i++) {
            cursor *c = &cur[i];
            if (!c->has_head)
                continue;
            if (!best || cursor_before(c, best)) {
                next = best;
                best = c;
            } else if (!next || cursor_before(c, next)) {
                next = c;
            }
        }
        if (!best)
            break;
        do {
            if (reader_deliver(rc, &best->head)) {
                ret = rc->failed ? EL_ERR_FORMAT : EL_STOP;
                break;
            }
            ret = cursor_next(src, rc, ix, best, err);
        } while (ret == EL_OK && best->has_head &&
                 (!next || cursor_before(best, next)));
    }
out:
    for (unsigned i = 0; i < ncur; i++) {
        el_decoder_free(cur[i].dec);
        free(cur[i].buf);
    }
    free(cur);
    free(last);
    return ret;
}

/* See pipeline.h. */
int reader_run_file(source *src, const el_reader_opts *opts, reader_ctx *rc,
                    el_reader_result *res, el_error *err)
{
    file_index ix;
    memset(&ix, 0, sizeof(ix));
    size_t budget =
        opts->index_budget ? opts->index_budget : INDEX_DEFAULT_BUDGET;
    ix.runs_max = budget / sizeof(erun);
    if (ix.runs_max < 1)
        ix.runs_max = 1;
    el_decoder *dec = el_decoder_new(NULL);
    if (!dec)
        return EL_ERR_NOMEM;
    rc->types = el_decoder_types(dec);
    rc->counted = 1;
    /* The index pass counts every event; keep its counts apart until the
     * merge pass is sure to run. */
    uint64_t *counts = rc->counts;
    uint64_t *own_counts = NULL;
    if (counts) {
        own_counts = calloc(65536, sizeof(*own_counts));
        if (!own_counts) {
            el_decoder_free(dec);
            return EL_ERR_NOMEM;
        }
        rc->counts = own_counts;
    }
    int ret = file_index_pass(src, dec, rc, &ix, err);
    rc->counts = counts;
    if (ret == EL_OK && !el_decoder_header_done(dec)) {
        /* Nothing to deliver: the header is bad or incomplete. */
        *err = ix.err;
        ret = ix.status;
        goto out;
    }
    if (ret == EL_OK)
        ret = file_merge_pass(src, rc, &ix, err);
    if (ret == FILE_USE_STREAM) {
        rc->events = 0;
        rc->last_ts = 0;
        goto out;
    }
    if (counts)
        for (unsigned t = 0; t < 65536; t++)
            counts[t] += own_counts[t];
    if (ret == EL_STOP)
        ret = EL_OK; /* the sink asked to stop */
    if (ret != EL_OK)
        goto out;
    res->bytes = ix.bytes;
    if (ix.status != EL_OK) {
        *err = ix.err;
        ret = ix.status;
    } else if (ix.saw_end) {
        res->trailing = ix.bytes - (ix.end_pos + 2);
    } else if (ix.truncated) {
        res->truncated = 1;
        res->truncated_at = ix.truncated_at;
    }
out:
    free(own_counts);
    free(ix.segs);
    free(ix.runs);
    /* The sink saw rc->types: the decoder that owns them goes last. */
    el_decoder_free(dec);
    rc->types = NULL;
    return ret;
}
