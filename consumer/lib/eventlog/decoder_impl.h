/* Decoder internals used by the reader (internal). */
#ifndef RTSCOPE_DECODER_IMPL_H
#define RTSCOPE_DECODER_IMPL_H

#include "bytes.h"
#include "rtscope/eventlog.h"
#include <string.h>

#include <stdint.h>

/* *ev as the frame of the event whose header starts at p (type, time,
 * then, for a variable-size type, its length: head bytes) with plen bytes
 * of payload after it, at `offset` in its stream; not yet decoded. The
 * capability is the caller's to set. Every place that frames an event
 * (the decoder's two paths, the reader's merge) does it here. */
static inline void event_frame(el_event *ev, const uint8_t *p, uint32_t head,
                               uint32_t plen, uint64_t offset)
{
    ev->type = bytes_get_u16(p);
    ev->ts = bytes_get_u64(p + 2);
    ev->offset = offset;
    ev->payload = p + head;
    ev->payload_len = plen;
    ev->decoded_len = 0;
    ev->known = 0;
}

/* The length of an IPE event's payload as the RTS wrote it, given the
 * length it declared and the bytes of it at hand (`avail`, at most
 * `declared`): one less than declared when its six strings end one byte
 * early. See Note [GHC 9.6's IPE events are one byte short] in decoder.c. */
static inline uint32_t ipe_framed_len(const uint8_t *payload, uint32_t declared,
                                      uint32_t avail)
{
    uint32_t at = 8;
    if (avail > declared)
        avail = declared;
    for (int field = 0; field < 6; field++) {
        const uint8_t *nul =
            at < avail ? memchr(payload + at, 0, avail - at) : NULL;
        if (!nul)
            return declared;
        at = (uint32_t)(nul - payload) + 1;
    }
    return at + 1 == declared ? at : declared;
}

/* Where the event el_decoder_next() framed last ends, the next one begins:
 * el_decoder_offset() less the bytes of that next event the decoder holds
 * already (after a GHC 9.6 IPE event, the byte it declared and did not
 * write: Note [GHC 9.6's IPE events are one byte short]). */
uint64_t decoder_framed_end(const el_decoder *dec);

/* Consume, without returning them, the whole events at the front of the
 * decoder's input that the sink does not want (wanted[type] == 0); add 1
 * to counts[type] for each (counts may be NULL) and raise *max_ts to the
 * largest timestamp among them. Stops, leaving it for el_decoder_next(),
 * at a wanted event, a block marker, a capability announcement (CAP_CREATE,
 * CAPSET_ASSIGN_CAP), the end marker, a type from 256 up,
 * or an event not wholly in the input or its block; so the events it
 * passes over all belong to decoder_stream(). Returns the number of events
 * consumed. `wanted` must not change while this decoder uses it (the
 * decoder keeps a table made from it). See Note [Skipping unwanted
 * events]. */
uint64_t decoder_skip(el_decoder *dec, const uint8_t *wanted, uint64_t *counts,
                      uint64_t *max_ts);

/* decoder_skip that also passes over the wanted events (every event when
 * `wanted` is NULL), handing each to fn with its frame (as
 * el_decoder_next() gives it), its whole length and the largest timestamp
 * among the events before it that this call passed (*max_ts on entry,
 * raised); if fn returns nonzero it stops before that event, which
 * el_decoder_next() then returns. See Note [Scanning wanted events]. */
typedef int (*decoder_wanted_fn)(void *ctx, const el_event *ev, uint32_t len,
                                 uint64_t key_before);
uint64_t decoder_scan(el_decoder *dec, const uint8_t *wanted, uint64_t *counts,
                      uint64_t *max_ts, decoder_wanted_fn fn, void *ctx);

/* Capability of the block the decoder is in (EL_CAP_NONE outside blocks):
 * that of the events decoder_skip() just passed over, which never leave
 * the block they start in. */
uint16_t decoder_stream(const el_decoder *dec);

/* 1, once per block, when the decoder has consumed the whole block it is
 * in (a block written with its size): *cap is its capability and *end_ts
 * the time the RTS closed it. A live reader learns here, without waiting
 * for the next block, that the block's stream is complete up to then
 * (Note [A stream complete up to a time] in merge.c). */
int decoder_block_done(el_decoder *dec, uint16_t *cap, uint64_t *end_ts);

#endif
