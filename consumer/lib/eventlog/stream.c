/* The push pipeline: bytes in, events out (decoder -> merge -> sink).
 *
 * Every reader of a stream uses it: el_reader_run for pipes and sockets it
 * reads itself, and `rtscope live` and `export`, whose poll loops read
 * their sockets and push what arrives. So a stream gives the same events,
 * the same errors and the same warnings whoever reads it; and the file
 * path's index pass uses the same decoder and the same payload checks (see
 * Note [Reading a file] in reader.c).
 */
#include "rtscope/eventlog.h"

#include "decoder_impl.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

struct el_stream {
    reader_ctx rc;
    el_decoder *dec;
    el_merge *merge; /* NULL: deliver in stream order */
    el_reader_result res;
    el_error err;
    el_status status; /* EL_OK until an error or a stop, then sticky */
    int finished;
};

el_stream *el_stream_new(const el_reader_opts *opts, el_sink_fn sink, void *ctx)
{
    el_reader_opts none;
    memset(&none, 0, sizeof(none));
    if (!opts)
        opts = &none;
    el_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->rc.sink = sink;
    s->rc.ctx = ctx;
    s->rc.wanted = opts->wanted;
    s->rc.counts = opts->counts;
    s->rc.err = &s->err;
    s->dec = el_decoder_new(NULL);
    if (s->dec)
        s->rc.types = el_decoder_types(s->dec);
    if (!opts->unordered)
        s->merge = el_merge_new(opts->merge_budget, reader_deliver, &s->rc);
    if (!s->dec || (!opts->unordered && !s->merge)) {
        el_stream_free(s);
        return NULL;
    }
    if (s->merge && opts->merge_hold_ms != EL_MERGE_HOLD_NONE)
        el_merge_set_hold(s->merge, opts->merge_hold_ms);
    return s;
}

void el_stream_free(el_stream *s)
{
    if (!s)
        return;
    el_merge_free(s->merge);
    el_decoder_free(s->dec);
    free(s);
}

/* Deliver what the merge holds (at the end, or before an error). */
static void stream_flush(el_stream *s)
{
    if (s->merge && !s->rc.failed)
        el_merge_flush(s->merge);
    if (s->rc.failed && s->status == EL_OK)
        s->status = EL_ERR_FORMAT;
}

static el_status stream_fail(el_stream *s, el_status st)
{
    if (st != EL_STOP && st != EL_ERR_NOMEM)
        stream_flush(s); /* everything before the error */
    if (s->status == EL_OK)
        s->status = st;
    return s->status;
}

/* All the input is decoded: if it ended with a whole block, the block's
 * stream is complete up to the block's end time (Note [A stream complete
 * up to a time] in merge.c), which may release what the merge holds. */
static el_status stream_block_done(el_stream *s)
{
    uint16_t cap;
    uint64_t end_ts;
    if (!s->merge || !decoder_block_done(s->dec, &cap, &end_ts))
        return EL_OK;
    el_status ms = el_merge_block_end(s->merge, cap, end_ts);
    if (ms == EL_ERR_NOMEM)
        reader_set_error(&s->err, EL_ERR_NOMEM, el_decoder_offset(s->dec),
                         "out of memory in the merge");
    if (ms != EL_OK)
        return stream_fail(s, s->rc.failed ? EL_ERR_FORMAT : ms);
    return EL_OK;
}

el_status el_stream_feed(el_stream *s, const uint8_t *buf, size_t len)
{
    if (s->status != EL_OK || s->finished)
        return s->status;
    s->res.bytes += len;
    el_decoder_input(s->dec, buf, len);
    el_event ev;
    for (;;) {
        /* Unwanted events are only counted: they need no place in the
         * merge, only their timestamps in its keys. */
        uint64_t mx = 0;
        if (reader_skip(&s->rc, s->dec, s->rc.wanted, &mx) && s->merge) {
            el_status ms = el_merge_note(s->merge, decoder_stream(s->dec), mx);
            if (ms == EL_ERR_NOMEM)
                reader_set_error(&s->err, EL_ERR_NOMEM,
                                 el_decoder_offset(s->dec),
                                 "out of memory in the merge");
            if (ms != EL_OK)
                return stream_fail(s, s->rc.failed ? EL_ERR_FORMAT : ms);
        }
        el_status st = el_decoder_next(s->dec, &ev);
        if (st == EL_END)
            continue;
        if (st == EL_NEED_MORE)
            return stream_block_done(s);
        if (st != EL_FRAME) {
            s->err = *el_decoder_error(s->dec);
            return stream_fail(s, st);
        }
        /* Note [Payload errors in stream order] (pipeline.c) */
        if (reader_check(&s->rc, &ev, &s->err) != EL_OK)
            return stream_fail(s, EL_ERR_FORMAT);
        if (s->merge) {
            el_status ms = el_merge_push(s->merge, &ev);
            if (ms == EL_ERR_NOMEM)
                reader_set_error(&s->err, EL_ERR_NOMEM, ev.offset,
                                 "out of memory in the merge");
            if (ms != EL_OK)
                return stream_fail(s, s->rc.failed ? EL_ERR_FORMAT : ms);
        } else if (reader_deliver(&s->rc, &ev)) {
            return stream_fail(s, s->rc.failed ? EL_ERR_FORMAT : EL_STOP);
        }
    }
}

el_status el_stream_tick(el_stream *s)
{
    if (s->status != EL_OK || s->finished || !s->merge)
        return s->status;
    el_status ms = el_merge_tick(s->merge);
    if (ms != EL_OK)
        return stream_fail(s, s->rc.failed ? EL_ERR_FORMAT : ms);
    return EL_OK;
}

el_status el_stream_finish(el_stream *s)
{
    if (s->finished || s->status != EL_OK)
        return s->status;
    s->finished = 1;
    el_status st = el_decoder_finish(s->dec);
    if (st == EL_ERR_TRUNCATED && el_decoder_header_done(s->dec)) {
        s->res.truncated = 1;
        s->res.truncated_at = el_decoder_error(s->dec)->offset;
    } else if (st != EL_OK) {
        s->err = *el_decoder_error(s->dec);
        s->status = st;
        return st;
    }
    s->res.trailing = el_decoder_trailing(s->dec);
    stream_flush(s);
    return s->status;
}

const el_reader_result *el_stream_result(el_stream *s)
{
    s->res.events = s->rc.events;
    s->res.last_ts = s->rc.last_ts;
    if (s->merge)
        s->res.merge = *el_merge_get_stats(s->merge);
    return &s->res;
}

const el_error *el_stream_error(const el_stream *s)
{
    return &s->err;
}

const el_typetab *el_stream_types(const el_stream *s)
{
    return el_decoder_types(s->dec);
}

int el_stream_header_done(const el_stream *s)
{
    return el_decoder_header_done(s->dec);
}

uint64_t el_stream_offset(const el_stream *s)
{
    return el_decoder_offset(s->dec);
}
