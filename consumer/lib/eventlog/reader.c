/* The reader: source -> decoder -> merge -> sink.
 *
 * Note [Two ways to merge]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A seekable file is merged exactly: one cursor per capability (and one for
 * the global buffer) walks the chain of blocks, skipping other capabilities'
 * blocks by their declared size, and feeds its own blocks to its own
 * decoder. Each cursor yields its events in time order, and the reader
 * releases the cursor head with the smallest timestamp (ties: file order).
 * Memory is one read buffer and one decoder per capability, whatever the
 * file size, and no event is ever copied.
 *
 * A pipe or socket can only be read once, so it goes through el_merge with a
 * bounded buffer (see Note [The merge bound] in merge.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/eventlog.h"

#include "bytes.h"
#include "decoder_impl.h"
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READER_CHUNK ((size_t)256 * 1024)
#define READER_MAX_CURSORS 1024
#define RECONNECT_TRIES 50
#define RECONNECT_DELAY_MS 200

typedef struct reader_ctx {
    el_sink_fn sink;
    void *ctx;
    const uint8_t *wanted;
    uint64_t *counts;
    const el_typetab *types;
    el_error *err;
    int failed;
    uint64_t events;
    uint64_t last_ts;
} reader_ctx;

static void reader_set_error(el_error *err, el_status st, uint64_t off,
                             const char *msg)
{
    err->status = st;
    err->offset = off;
    snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

/* Merge/cursor output: decode the payload and hand it to the sink. */
static int reader_deliver(void *p, el_event *ev)
{
    reader_ctx *rc = p;
    rc->events++;
    if (ev->ts > rc->last_ts)
        rc->last_ts = ev->ts;
    if (rc->counts)
        rc->counts[ev->type]++;
    if (rc->wanted && !rc->wanted[ev->type])
        return 0;
    if (el_event_decode(ev, rc->err) != EL_OK) {
        rc->failed = 1;
        return 1;
    }
    return rc->sink(rc->ctx, ev, rc->types);
}

/* Pass over the unwanted events at the front of `dec`'s input (see Note
 * [Skipping unwanted events] in decoder.c). If any, *last_ts and *last_offset
 * tell where the last one was. */
static void reader_skip(reader_ctx *rc, el_decoder *dec, uint64_t *last_ts,
                        uint64_t *last_offset)
{
    rc->events += decoder_skip(dec, rc->wanted, rc->counts, &rc->last_ts,
                               last_ts, last_offset);
}

/* ---------------------------------------------------------------------- */
/* Streams (pipes, sockets).                                               */

static void reader_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static el_status reader_run_stream(source *src, const el_reader_opts *opts,
                                   reader_ctx *rc, el_reader_result *res,
                                   el_error *err)
{
    uint8_t *buf = malloc(READER_CHUNK);
    el_merge *merge = NULL;
    el_decoder *dec = NULL;
    el_status ret = EL_OK;
    int reconnects = 0;
    if (!buf)
        return EL_ERR_NOMEM;
    if (!opts->unordered) {
        merge = el_merge_new(opts->merge_budget, reader_deliver, rc);
        if (!merge) {
            free(buf);
            return EL_ERR_NOMEM;
        }
    }
    for (;;) {
        el_event ev;
        int stopped = 0;
        dec = el_decoder_new(NULL);
        if (!dec) {
            ret = EL_ERR_NOMEM;
            break;
        }
        rc->types = el_decoder_types(dec);
        for (;;) {
            ssize_t n = source_read(src, buf, READER_CHUNK);
            if (n < 0) {
                char msg[160];
                snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
                reader_set_error(err, EL_ERR_IO, el_decoder_offset(dec), msg);
                ret = EL_ERR_IO;
                break;
            }
            if (n == 0)
                break;
            res->bytes += (uint64_t)n;
            el_decoder_input(dec, buf, (size_t)n);
            el_status st;
            for (;;) {
                /* Unwanted events are only counted: they need no place
                 * in the merge. */
                uint64_t lt, lo;
                reader_skip(rc, dec, &lt, &lo);
                st = el_decoder_next(dec, &ev);
                if (st == EL_END)
                    continue;
                if (st != EL_FRAME)
                    break;
                int stop;
                if (merge) {
                    el_status ms = el_merge_push(merge, &ev);
                    if (ms == EL_ERR_NOMEM) {
                        reader_set_error(err, EL_ERR_NOMEM, ev.offset,
                                         "out of memory in the merge");
                        ret = EL_ERR_NOMEM;
                    }
                    stop = ms != EL_OK;
                } else {
                    stop = reader_deliver(rc, &ev);
                }
                if (stop) {
                    stopped = 1;
                    break;
                }
            }
            if (stopped || ret != EL_OK)
                break;
            if (st != EL_NEED_MORE) {
                *err = *el_decoder_error(dec);
                ret = st;
                break;
            }
        }
        if (rc->failed)
            ret = EL_ERR_FORMAT;
        if (ret == EL_OK && !stopped) {
            el_status st = el_decoder_finish(dec);
            if (st == EL_ERR_TRUNCATED && el_decoder_header_done(dec)) {
                res->truncated = 1;
                res->truncated_at = el_decoder_error(dec)->offset;
            } else if (st != EL_OK) {
                *err = *el_decoder_error(dec);
                ret = st;
            }
            res->trailing += el_decoder_trailing(dec);
        }
        /* Deliver what the merge holds while the type table is alive. */
        if (merge && !rc->failed && !stopped) {
            if (el_merge_flush(merge) != EL_OK && rc->failed)
                ret = EL_ERR_FORMAT;
        }
        el_decoder_free(dec);
        dec = NULL;
        if (ret != EL_OK || stopped || !opts->reconnect ||
            (src->kind != SOURCE_UNIX && src->kind != SOURCE_TCP))
            break;
        if (opts->reconnect_max && reconnects >= opts->reconnect_max)
            break;
        int ok = 0;
        for (int i = 0; i < RECONNECT_TRIES && !ok; i++) {
            el_error cerr;
            reader_sleep_ms(RECONNECT_DELAY_MS);
            ok = source_reconnect(src, &cerr) == 0;
        }
        if (!ok)
            break;
        reconnects++;
        res->truncated = 0;
    }
    if (merge)
        res->merge = *el_merge_get_stats(merge);
    el_merge_free(merge);
    free(buf);
    return ret;
}

/* ---------------------------------------------------------------------- */
/* Files: exact merge with one cursor per capability.                      */

enum walk_kind { WALK_EOF, WALK_END, WALK_BLOCK, WALK_EVENT, WALK_BAD };

typedef struct walk_item {
    enum walk_kind kind;
    uint16_t cap;
    uint64_t len;
} walk_item;

typedef struct cursor {
    uint16_t cap;
    el_decoder *dec;
    uint8_t *buf;
    uint64_t walk;
    uint64_t seg_pos, seg_end;
    el_event head;
    int has_head, done;
    /* Where the last event this cursor consumed was (delivered or
     * skipped), and an error found after it, reported in its place. */
    uint64_t last_ts, last_offset;
    el_status pending;
    el_error pending_err;
    int seg_clipped; /* the segment runs past the end of the file */
} cursor;

typedef struct file_run {
    source *src;
    const el_typetab *types;
    uint64_t size;
    int truncated;
    uint64_t truncated_at;
    int saw_end;
    uint64_t end_pos;
} file_run;

/* Look at the item that starts at `pos` without decoding it. */
static int file_walk_item(file_run *fr, uint64_t pos, walk_item *it)
{
    uint8_t b[24];
    uint16_t size;
    it->cap = EL_CAP_NONE;
    it->len = 0;
    ssize_t n = source_pread(fr->src, b, 2, pos);
    if (n < 0)
        return -1;
    if (n < 2) {
        it->kind = WALK_EOF;
        return 0;
    }
    uint16_t type = bytes_get_u16(b);
    if (type == 0xffff) {
        it->kind = WALK_END;
        return 0;
    }
    if (el_typetab_lookup(fr->types, type, &size) != 0) {
        it->kind = WALK_BAD;
        return 0;
    }
    if (type == EL_BLOCK_MARKER) {
        if (size == EL_SIZE_VARIABLE || size < 14) {
            it->kind = WALK_BAD;
            return 0;
        }
        n = source_pread(fr->src, b, 24, pos);
        if (n < 0)
            return -1;
        if (n < 24) {
            it->kind = WALK_EOF;
            return 0;
        }
        uint32_t bsize = bytes_get_u32(b + 10);
        if (bsize == 0 || bsize < 10u + size) {
            it->kind = WALK_BAD;
            return 0;
        }
        it->kind = WALK_BLOCK;
        it->cap = bytes_get_u16(b + 22);
        it->len = bsize;
        return 0;
    }
    size_t head = size == EL_SIZE_VARIABLE ? 12 : 10;
    n = source_pread(fr->src, b, head, pos);
    if (n < 0)
        return -1;
    if ((size_t)n < head) {
        it->kind = WALK_EOF;
        return 0;
    }
    it->kind = WALK_EVENT;
    it->len = head + (size == EL_SIZE_VARIABLE ? bytes_get_u16(b + 10) : size);
    return 0;
}

static int cursor_before(const cursor *a, const cursor *b)
{
    return a->head.ts < b->head.ts ||
           (a->head.ts == b->head.ts && a->head.offset < b->head.offset);
}

static void file_note_truncated(file_run *fr, uint64_t at)
{
    if (!fr->truncated || at < fr->truncated_at)
        fr->truncated_at = at;
    fr->truncated = 1;
}

static el_status cursor_advance(file_run *fr, reader_ctx *rc, cursor *c,
                                el_error *err)
{
    c->has_head = 0;
    for (;;) {
        if (c->done)
            return EL_OK;
        if (rc->wanted)
            reader_skip(rc, c->dec, &c->last_ts, &c->last_offset);
        el_status st = el_decoder_next(c->dec, &c->head);
        if (st == EL_FRAME) {
            c->has_head = 1;
            return EL_OK;
        }
        if (st == EL_END) {
            c->done = 1;
            return EL_OK;
        }
        if (st != EL_NEED_MORE) {
            *err = *el_decoder_error(c->dec);
            return st;
        }
        if (c->seg_pos < c->seg_end) {
            uint64_t want = c->seg_end - c->seg_pos;
            if (want > READER_CHUNK)
                want = READER_CHUNK;
            ssize_t n = source_pread(fr->src, c->buf, (size_t)want, c->seg_pos);
            if (n < 0) {
                char msg[160];
                snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
                reader_set_error(err, EL_ERR_IO, c->seg_pos, msg);
                return EL_ERR_IO;
            }
            if (n == 0) { /* the file ends inside this block */
                el_decoder_finish(c->dec);
                file_note_truncated(fr, el_decoder_error(c->dec)->offset);
                c->done = 1;
                return EL_OK;
            }
            el_decoder_input(c->dec, c->buf, (size_t)n);
            c->seg_pos += (uint64_t)n;
            continue;
        }
        if (c->seg_clipped) { /* the file ends inside this block */
            el_decoder_finish(c->dec);
            file_note_truncated(fr, el_decoder_error(c->dec)->offset);
            c->done = 1;
            return EL_OK;
        }
        if (el_decoder_pending(c->dec)) {
            char msg[160];
            uint64_t at = el_decoder_offset(c->dec) -
                          el_decoder_pending(c->dec);
            snprintf(msg, sizeof(msg),
                     "corrupt data: event runs past the end of its block "
                     "at offset %llu",
                     (unsigned long long)c->seg_end);
            reader_set_error(err, EL_ERR_FORMAT, at, msg);
            return EL_ERR_FORMAT;
        }
        /* Find this cursor's next segment. */
        for (;;) {
            walk_item it;
            if (file_walk_item(fr, c->walk, &it) != 0) {
                char msg[160];
                snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
                reader_set_error(err, EL_ERR_IO, c->walk, msg);
                return EL_ERR_IO;
            }
            if (it.kind == WALK_EOF) {
                file_note_truncated(fr, c->walk);
                c->done = 1;
                return EL_OK;
            }
            if (it.kind == WALK_END) {
                fr->saw_end = 1;
                fr->end_pos = c->walk;
                c->done = 1;
                return EL_OK;
            }
            if (it.kind == WALK_BAD) {
                reader_set_error(err, EL_ERR_FORMAT, c->walk,
                                 "corrupt data: bad event or block marker");
                return EL_ERR_FORMAT;
            }
            uint64_t at = c->walk;
            c->walk += it.len;
            if (it.cap == c->cap) {
                c->seg_pos = at;
                c->seg_end = c->walk < fr->size ? c->walk : fr->size;
                c->seg_clipped = c->walk > fr->size;
                el_decoder_seek(c->dec, at);
                break;
            }
        }
    }
}

/* Note [Errors after skipped events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A cursor passes over unwanted events as far as it can, so it may reach a
 * corrupt event (or a read error) long before the merge has released the
 * other cursors' earlier events. Reporting it at once would give the sink
 * fewer events than reading every event in order does. So the error
 * becomes the cursor's head, placed in the order where the last event
 * before it was, and is reported when the merge gets there: the sink sees
 * exactly the events it would have seen without skipping.
 */
static el_status cursor_next(file_run *fr, reader_ctx *rc, cursor *c)
{
    el_status st = cursor_advance(fr, rc, c, &c->pending_err);
    if (st != EL_OK) {
        c->pending = st;
        c->has_head = 1;
        c->head.ts = c->last_ts;
        c->head.offset = c->last_offset;
        c->done = 1;
    } else if (c->has_head) {
        c->last_ts = c->head.ts;
        c->last_offset = c->head.offset;
    }
    return EL_OK;
}

/* Read the header with a decoder of its own; it keeps the type table. */
static el_status file_read_header(source *src, el_decoder *hdr, uint8_t *buf,
                                  el_error *err)
{
    uint64_t pos = 0;
    el_event ev;
    while (!el_decoder_header_done(hdr)) {
        ssize_t n = source_pread(src, buf, 65536, pos);
        if (n < 0) {
            reader_set_error(err, EL_ERR_IO, pos, "read error");
            return EL_ERR_IO;
        }
        if (n == 0) {
            el_status st = el_decoder_finish(hdr);
            *err = *el_decoder_error(hdr);
            return st == EL_OK ? EL_ERR_FORMAT : st;
        }
        pos += (uint64_t)n;
        el_decoder_input(hdr, buf, (size_t)n);
        el_status st = el_decoder_next(hdr, &ev);
        if (st < 0) {
            *err = *el_decoder_error(hdr);
            return st;
        }
    }
    return EL_OK;
}

/* Returns EL_OK, an error, or EL_ERR_USAGE to ask for the stream path (the
 * block chain is not walkable; the stream decoder reports why). */
static el_status reader_run_file(source *src, reader_ctx *rc,
                                 el_reader_result *res, el_error *err)
{
    el_status ret = EL_OK;
    file_run fr;
    memset(&fr, 0, sizeof(fr));
    fr.src = src;
    fr.size = src->size;
    cursor *cur = NULL;
    unsigned ncur = 0;
    uint8_t *seen = NULL;
    uint8_t *hbuf = malloc(65536);
    el_decoder *hdr = el_decoder_new(NULL);
    if (!hbuf || !hdr) {
        ret = EL_ERR_NOMEM;
        goto out;
    }
    ret = file_read_header(src, hdr, hbuf, err);
    if (ret != EL_OK)
        goto out;
    fr.types = rc->types = el_decoder_types(hdr);

    /* Which streams are there? Walk the chain of blocks once. */
    seen = calloc(65536, 1);
    if (!seen) {
        ret = EL_ERR_NOMEM;
        goto out;
    }
    uint64_t pos = el_decoder_data_offset(hdr);
    for (;;) {
        walk_item it;
        if (file_walk_item(&fr, pos, &it) != 0) {
            reader_set_error(err, EL_ERR_IO, pos, "read error");
            ret = EL_ERR_IO;
            goto out;
        }
        if (it.kind == WALK_BAD) {
            ret = EL_ERR_USAGE;
            goto out;
        }
        if (it.kind == WALK_EOF || it.kind == WALK_END)
            break;
        if (!seen[it.cap]) {
            if (ncur >= READER_MAX_CURSORS) {
                ret = EL_ERR_USAGE;
                goto out;
            }
            seen[it.cap] = 1;
            ncur++;
        }
        pos += it.len;
    }
    cur = calloc(ncur ? ncur : 1, sizeof(*cur));
    if (!cur) {
        ret = EL_ERR_NOMEM;
        goto out;
    }
    unsigned k = 0;
    for (unsigned cap = 0; cap < 65536 && k < ncur; cap++) {
        if (!seen[cap])
            continue;
        cursor *c = &cur[k++];
        c->cap = (uint16_t)cap;
        c->walk = el_decoder_data_offset(hdr);
        c->dec = el_decoder_new(fr.types);
        c->buf = malloc(READER_CHUNK);
        if (!c->dec || !c->buf) {
            ret = EL_ERR_NOMEM;
            goto out;
        }
    }
    for (unsigned i = 0; i < ncur; i++)
        cursor_next(&fr, rc, &cur[i]);
    for (;;) {
        cursor *best = NULL;
        for (unsigned i = 0; i < ncur; i++) {
            cursor *c = &cur[i];
            if (c->has_head && (!best || cursor_before(c, best)))
                best = c;
        }
        if (!best)
            break;
        if (best->pending != EL_OK) {
            *err = best->pending_err;
            ret = best->pending;
            goto out;
        }
        if (reader_deliver(rc, &best->head)) {
            if (rc->failed)
                ret = EL_ERR_FORMAT;
            goto out;
        }
        cursor_next(&fr, rc, best);
    }
    if (ncur == 0) {
        /* No events at all: the walk alone tells how the data ends. */
        walk_item it;
        uint64_t at = el_decoder_data_offset(hdr);
        if (file_walk_item(&fr, at, &it) == 0 && it.kind == WALK_END) {
            fr.saw_end = 1;
            fr.end_pos = at;
        } else {
            file_note_truncated(&fr, at);
        }
    }
    res->bytes = fr.size;
    if (fr.saw_end) {
        res->trailing = fr.size - (fr.end_pos + 2);
        fr.truncated = 0;
    } else if (fr.truncated) {
        res->truncated = 1;
        res->truncated_at = fr.truncated_at;
    }
out:
    for (unsigned i = 0; i < ncur && cur; i++) {
        el_decoder_free(cur[i].dec);
        free(cur[i].buf);
    }
    free(cur);
    free(seen);
    free(hbuf);
    el_decoder_free(hdr);
    return ret;
}

el_status el_reader_run(const char *spec, const el_reader_opts *opts,
                        el_sink_fn sink, void *ctx, el_reader_result *res,
                        el_error *err)
{
    source src;
    el_reader_opts defaults;
    reader_ctx rc;
    memset(res, 0, sizeof(*res));
    memset(err, 0, sizeof(*err));
    memset(&defaults, 0, sizeof(defaults));
    if (!opts)
        opts = &defaults;
    if (source_open(&src, spec, err) != 0) {
        source_close(&src);
        return err->status;
    }
    memset(&rc, 0, sizeof(rc));
    rc.sink = sink;
    rc.ctx = ctx;
    rc.wanted = opts->wanted;
    rc.counts = opts->counts;
    rc.err = err;
    el_status st = EL_OK;
    int use_stream = 1;
    if (src.seekable && !opts->unordered) {
        use_stream = 0;
        st = reader_run_file(&src, &rc, res, err);
        if (st == EL_ERR_USAGE && rc.events == 0) {
            /* The block chain is not walkable: read the file as a stream
             * from the start, so that the decoder says what is wrong. */
            memset(res, 0, sizeof(*res));
            memset(err, 0, sizeof(*err));
            if (lseek(src.fd, src.base, SEEK_SET) < 0) {
                reader_set_error(err, EL_ERR_IO, 0, "cannot seek");
                st = EL_ERR_IO;
            } else {
                use_stream = 1;
            }
        }
    }
    if (use_stream)
        st = reader_run_stream(&src, opts, &rc, res, err);
    res->events = rc.events;
    res->last_ts = rc.last_ts;
    if (st == EL_ERR_NOMEM && err->msg[0] == 0)
        reader_set_error(err, EL_ERR_NOMEM, 0, "out of memory");
    source_close(&src);
    return st;
}
