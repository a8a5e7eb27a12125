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
#include "pipeline.h"
#include "source.h"

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
 * A file is read twice, both times without copying an event:
 *
 * 1. The index pass reads it front to back with one decoder, exactly as a
 *    pipe is read, so it finds the same errors, at the same offsets, with
 *    the same messages, and the same end (end-of-data marker, trailing
 *    bytes, truncation). It counts every event, and it records the
 *    segments of the stream (each block, and each run of events outside
 *    any block) with their capability, plus where every event the sink
 *    wants is. The read stops at the first problem: the "stop offset".
 * 2. The merge pass gives each capability a cursor over its own segments
 *    and releases the cursor head with the smallest key (Note [Order within
 *    a capability] in merge.c; ties: file order). A cursor jumps straight
 *    to the wanted events the index pass recorded, so a sink that looks at
 *    a few event types (`stats`, `hp`) reads almost nothing twice. When
 *    the wanted events are too many to record within the index budget,
 *    cursors read their segments whole instead and pass over the unwanted
 *    events.
 *
 * The sink gets every event before the stop offset, in exact order, and
 * then the index pass's verdict: so a file, a pipe and a socket carrying the
 * same bytes give the same events, the same error and the same warnings.
 * Memory is the segment list (one entry a block), the index (bounded by
 * el_reader_opts.index_budget) and one decoder and buffer per capability.
 */

#define SEG_NONE UINT32_MAX
#define INDEX_DEFAULT_BUDGET ((size_t)16 << 20)
#define FILE_CHUNK ((size_t)1 << 20)

typedef struct seg {
    uint64_t start, end;           /* bytes [start, end) of the stream */
    uint64_t block_end;            /* of the block (UINT64_MAX: never closed) */
    uint32_t next;                 /* next segment of the same capability */
    uint32_t pos_first, pos_count; /* the wanted events in it */
    uint16_t cap;
    uint8_t in_block;
} seg;

typedef struct epos {
    uint64_t offset;
    uint64_t key; /* the stream's merge key at this event */
    uint32_t len;
} epos;

typedef struct file_index {
    seg *segs;
    uint32_t nsegs, segs_cap;
    epos *pos;
    size_t npos, pos_cap, pos_max;
    int dense; /* the wanted events did not fit: cursors read whole segments */
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
    s->pos_first = (uint32_t)ix->npos;
    return 0;
}

static void index_add_pos(file_index *ix, uint64_t offset, uint32_t len,
                          uint64_t key)
{
    if (ix->dense)
        return;
    if (ix->npos == ix->pos_cap) {
        size_t nc = ix->pos_cap ? ix->pos_cap * 2 : 4096;
        if (nc > ix->pos_max)
            nc = ix->pos_max;
        epos *np = nc > ix->pos_cap ? realloc(ix->pos, nc * sizeof(*np)) : NULL;
        if (!np) { /* over the budget (or no memory): read segments whole */
            free(ix->pos);
            ix->pos = NULL;
            ix->npos = ix->pos_cap = 0;
            ix->dense = 1;
            return;
        }
        ix->pos = np;
        ix->pos_cap = nc;
    }
    ix->pos[ix->npos].offset = offset;
    ix->pos[ix->npos].len = len;
    ix->pos[ix->npos].key = key;
    ix->npos++;
    ix->segs[ix->nsegs - 1].pos_count++;
}

/* Pass 1: see Note [Reading a file]. Returns EL_OK once the verdict is in
 * ix (ix->status), or an error of its own (no memory, a read error) with
 * *err filled. */
static el_status file_index_pass(source *src, el_decoder *dec, reader_ctx *rc,
                                 file_index *ix, el_error *err)
{
    uint8_t *buf = malloc(FILE_CHUNK);
    /* Each stream's merge key so far: Note [Order within a capability]. */
    uint64_t *keys = calloc(65536, sizeof(*keys));
    el_status ret = EL_OK;
    uint64_t pos = 0;
    el_event ev;
    int bad_payload = 0;
    if (!buf || !keys) {
        free(buf);
        free(keys);
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
            el_status st = el_decoder_finish(dec);
            ix->stop = el_decoder_offset(dec);
            if (st == EL_ERR_TRUNCATED && el_decoder_header_done(dec)) {
                ix->truncated = 1;
                ix->truncated_at = el_decoder_error(dec)->offset;
                ix->stop = ix->truncated_at;
            } else if (st != EL_OK) {
                ix->status = st;
                ix->err = *el_decoder_error(dec);
            }
            break;
        }
        pos += (uint64_t)n;
        el_decoder_input(dec, buf, (size_t)n);
        el_status st;
        for (;;) {
            uint16_t stream = decoder_stream(dec);
            reader_skip(rc, dec, rc->wanted, &keys[stream]);
            st = el_decoder_next(dec, &ev);
            if (st != EL_FRAME)
                break;
            if (reader_wants(rc, &ev) &&
                el_event_decode(&ev, &ix->err) != EL_OK) {
                /* Note [Payload errors in stream order] */
                st = EL_ERR_FORMAT;
                bad_payload = 1;
                break;
            }
            reader_count(rc, &ev);
            if (ev.ts > keys[ev.cap])
                keys[ev.cap] = ev.ts;
            uint64_t next = el_decoder_offset(dec);
            seg *cur = ix->nsegs ? &ix->segs[ix->nsegs - 1] : NULL;
            int add = 0;
            if (ev.type == EL_BLOCK_MARKER) {
                add = index_add_seg(
                    ix, ev.offset, ev.u.block.cap, 1,
                    ev.u.block.size ? ev.offset + ev.u.block.size : UINT64_MAX);
            } else if (!cur || (cur->in_block && ev.offset >= cur->block_end)) {
                add = index_add_seg(ix, ev.offset, EL_CAP_NONE, 0, 0);
            }
            if (add != 0) {
                ret = EL_ERR_NOMEM;
                break;
            }
            if (reader_wants(rc, &ev))
                index_add_pos(ix, ev.offset, (uint32_t)(next - ev.offset),
                              keys[ev.cap]);
        }
        if (ret != EL_OK)
            break;
        if (st == EL_END) {
            ix->saw_end = 1;
            ix->end_pos = ix->stop = el_decoder_offset(dec) - 2;
            break;
        }
        if (st != EL_NEED_MORE) {
            ix->status = st;
            if (!bad_payload)
                ix->err = *el_decoder_error(dec);
            ix->stop = ix->err.offset;
            break;
        }
    }
    if (ix->saw_end) {
        /* Everything after the marker is trailing data. */
        uint64_t size = src->size > pos ? src->size : pos;
        ix->bytes = size;
    } else {
        ix->bytes = pos;
    }
    if (ix->nsegs && ix->segs)
        ix->segs[ix->nsegs - 1].end = ix->stop;
    free(keys);
    free(buf);
    return ret;
}

typedef struct cursor {
    uint16_t cap;
    uint32_t seg;     /* current segment, or SEG_NONE when done */
    size_t k;         /* next index entry of the segment (sparse) */
    uint64_t seg_pos; /* next byte of the segment to read (dense) */
    el_decoder *dec;
    uint8_t *buf;
    uint64_t win_start, win_end; /* bytes of the stream in buf */
    el_event head;
    uint64_t key; /* see Note [Order within a capability] in merge.c */
    int has_head;
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

/* Position c->dec at `at` in segment s, as if it had read the segment
 * from its start. */
static void cursor_seek(cursor *c, const seg *s, uint64_t at)
{
    if (s->in_block && at != s->start)
        decoder_seek_in_block(c->dec, at, s->cap, s->block_end);
    else
        el_decoder_seek(c->dec, at);
}

/* Sparse: the next recorded event of the cursor's segments. */
static el_status cursor_next_sparse(source *src, const file_index *ix,
                                    cursor *c, el_error *err)
{
    while (c->seg != SEG_NONE) {
        const seg *s = &ix->segs[c->seg];
        if (c->k >= (size_t)s->pos_first + s->pos_count) {
            c->seg = s->next;
            if (c->seg != SEG_NONE)
                c->k = ix->segs[c->seg].pos_first;
            continue;
        }
        const epos *p = &ix->pos[c->k++];
        if (p->offset < c->win_start || p->offset + p->len > c->win_end) {
            /* Read this event and the following ones of the segment that
             * fit in one buffer. */
            size_t last = c->k, end_k = (size_t)s->pos_first + s->pos_count;
            while (last < end_k &&
                   ix->pos[last].offset + ix->pos[last].len - p->offset <=
                       READER_CHUNK)
                last++;
            const epos *q = &ix->pos[last - 1];
            el_status st =
                cursor_read(src, c, p->offset,
                            (size_t)(q->offset + q->len - p->offset), err);
            if (st != EL_OK)
                return st;
        }
        cursor_seek(c, s, p->offset);
        el_decoder_input(c->dec, c->buf + (p->offset - c->win_start), p->len);
        if (el_decoder_next(c->dec, &c->head) != EL_FRAME) {
            reader_set_error(err, EL_ERR_IO, p->offset,
                             "the file changed while it was read");
            return EL_ERR_IO;
        }
        c->has_head = 1;
        c->key = p->key;
        return EL_OK;
    }
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
        if (c->seg_pos < s->end) {
            uint64_t want = s->end - c->seg_pos;
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
        return cursor_next_sparse(src, ix, c, err);
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
        c->k = s->pos_first;
        c->seg_pos = s->start;
        c->dec = el_decoder_new(rc->types);
        c->buf = malloc(READER_CHUNK);
        if (!c->dec || !c->buf) {
            ret = EL_ERR_NOMEM;
            goto out;
        }
        el_decoder_seek(c->dec, s->start);
    }
    for (unsigned i = 0; i < ncur && ret == EL_OK; i++)
        ret = cursor_next(src, rc, ix, &cur[i], err);
    while (ret == EL_OK) {
        cursor *best = NULL;
        for (unsigned i = 0; i < ncur; i++) {
            cursor *c = &cur[i];
            if (c->has_head && (!best || cursor_before(c, best)))
                best = c;
        }
        if (!best)
            break;
        if (reader_deliver(rc, &best->head)) {
            ret = rc->failed ? EL_ERR_FORMAT : EL_STOP;
            break;
        }
        ret = cursor_next(src, rc, ix, best, err);
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
    ix.pos_max = budget / sizeof(epos);
    if (ix.pos_max < 1)
        ix.pos_max = 1;
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
    free(ix.pos);
    /* The sink saw rc->types: the decoder that owns them goes last. */
    el_decoder_free(dec);
    rc->types = NULL;
    return ret;
}
