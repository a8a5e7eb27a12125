/* The reader's delivery end: counting, filtering, decoding, the sink. */
#include "pipeline.h"

#include "decoder_impl.h"
#include "event_impl.h"

#include <stdio.h>

void reader_set_error(el_error *err, el_status st, uint64_t off,
                      const char *msg)
{
    err->status = st;
    err->offset = off;
    snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

void reader_count(reader_ctx *rc, const el_event *ev)
{
    rc->events++;
    if (ev->ts > rc->last_ts)
        rc->last_ts = ev->ts;
    if (rc->counts)
        rc->counts[ev->type]++;
}

/* Note [Payload errors in stream order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An event whose payload is too short for its type is found when it is
 * decoded. If that happened only on delivery, a pipe (whose merge releases
 * events late) and a file (read ahead by the index pass) would stop at
 * different places and count different events. So the payloads of the
 * events a sink wants are checked as soon as they are read, in stream
 * order (reader_check), and a bad payload stops the read there exactly
 * like a framing error: the sink gets every event before it, then the
 * error. The check does not decode (Note [Checking a payload without
 * decoding it] in event.c): an event is decoded once, when it is
 * delivered. Events the sink does not want are never decoded, so their
 * payloads are never judged.
 */
int reader_wants(const reader_ctx *rc, const el_event *ev)
{
    return !rc->wanted || rc->wanted[ev->type];
}

el_status reader_check(const reader_ctx *rc, el_event *ev, el_error *err)
{
    if (!reader_wants(rc, ev) || event_payload_ok(ev))
        return EL_OK;
    /* The decoder says what is missing. */
    el_status st = el_event_decode(ev, err);
    return st != EL_OK ? st : EL_ERR_FORMAT;
}

int reader_deliver(void *p, el_event *ev)
{
    reader_ctx *rc = p;
    if (!rc->counted)
        reader_count(rc, ev);
    if (rc->wanted && !rc->wanted[ev->type])
        return 0;
    if (el_event_decode(ev, rc->err) != EL_OK) {
        rc->failed = 1;
        return 1;
    }
    return rc->sink(rc->ctx, ev, rc->types);
}

uint64_t reader_skip(reader_ctx *rc, el_decoder *dec, const uint8_t *skip,
                     uint64_t *max_ts)
{
    uint64_t n = decoder_skip(dec, skip, rc->counts, max_ts);
    rc->events += n;
    if (*max_ts > rc->last_ts)
        rc->last_ts = *max_ts;
    return n;
}

uint64_t reader_scan(reader_ctx *rc, el_decoder *dec, uint64_t *max_ts,
                     decoder_wanted_fn fn, void *ctx)
{
    uint64_t n = decoder_scan(dec, rc->wanted, rc->counts, max_ts, fn, ctx);
    rc->events += n;
    if (*max_ts > rc->last_ts)
        rc->last_ts = *max_ts;
    return n;
}
