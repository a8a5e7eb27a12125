/* libFuzzer target: the decoder, typed decoding and the bounded merge on
 * arbitrary bytes, fed in chunks whose size the input's first byte picks;
 * then the same input again through decoder_skip (the reader's fast path
 * for unwanted events), which must find the same events per type and end
 * in the same state, and through decoder_scan (the file reader's index
 * pass), which must also hand over the wanted events with the frames
 * el_decoder_next gives them. Built by `make -C consumer fuzz`.
 *
 * Per-input setup is a decoder and a merge: both are small to create (no
 * table indexed by all 65536 type or capability numbers to clear). */
#include "rtscope/eventlog.h"

#include "decoder_impl.h"

#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static int fuzz_sink(void *ctx, el_event *ev)
{
    uint64_t *sum = ctx;
    el_error err;
    if (el_event_decode(ev, &err) == EL_OK && ev->known) {
        /* touch every byte the decoder claims to have understood */
        for (uint32_t i = 0; i < ev->decoded_len; i++)
            *sum += ev->payload[i];
        /* and every frame of an rtscope sample, all of them */
        if (el_sample_kind_of(ev) != EL_SAMPLE_NONE) {
            static uint64_t frames[EL_SAMPLE_MAX_DEPTH];
            size_t n = el_sample_frames(ev, frames, EL_SAMPLE_MAX_DEPTH);
            if (n != ev->u.binary.stack.depth ||
                ev->decoded_len != ev->payload_len)
                abort();
            for (size_t i = 0; i < n; i++)
                *sum += frames[i];
        }
    }
    return 0;
}

static int fuzz_frame(void *ctx, el_event *ev)
{
    el_merge *m = ctx;
    return el_merge_push(m, ev) == EL_ERR_NOMEM;
}

/* Per-type event counts of one pass, and a sum over the frames of the
 * wanted events. */
typedef struct pass_counts {
    uint64_t n[256];
    uint64_t high; /* types from 256 up */
    uint64_t frames;
    const uint8_t *wanted;
} pass_counts;

static void sum_frame(pass_counts *c, const el_event *ev)
{
    if (ev->type >= 256 || !c->wanted || !c->wanted[ev->type])
        return;
    uint64_t h = ev->type * 31u + ev->cap;
    h = h * 1000003u + ev->ts;
    h = h * 1000003u + ev->offset;
    h = h * 1000003u + ev->payload_len;
    if (ev->payload_len)
        h = h * 131u + ev->payload[ev->payload_len - 1];
    c->frames += h;
}

/* decoder_scan's callback: take the event unless its last payload byte
 * says no (so that refusals happen too). */
static int scan_take(void *ctx, const el_event *ev, uint32_t len,
                     uint64_t key_before)
{
    pass_counts *c = ctx;
    (void)len;
    (void)key_before;
    if (ev->payload_len && ev->payload[ev->payload_len - 1] == 0x5a)
        return 1;
    sum_frame(c, ev);
    return 0;
}

static void count_type(pass_counts *c, uint16_t type)
{
    if (type < 256)
        c->n[type]++;
    else
        c->high++;
}

/* Decode `data` in chunks with el_decoder_next only, or with decoder_skip
 * (decoder_scan if `scan`) first when `wanted` is given. Returns the final
 * status. */
static el_status count_pass(const uint8_t *data, size_t size, size_t chunk,
                            const uint8_t *wanted, int scan, pass_counts *c,
                            uint64_t *skip_counts)
{
    el_decoder *dec = el_decoder_new(NULL);
    el_event ev;
    el_status st = EL_OK;
    uint64_t max_ts = 0;
    if (!dec)
        abort();
    for (size_t at = 0; at < size && st >= 0; at += chunk) {
        size_t n = size - at < chunk ? size - at : chunk;
        el_decoder_input(dec, data + at, n);
        for (;;) {
            if (wanted && scan)
                decoder_scan(dec, wanted, skip_counts, &max_ts, scan_take, c);
            else if (wanted)
                decoder_skip(dec, wanted, skip_counts, &max_ts);
            st = el_decoder_next(dec, &ev);
            if (st == EL_FRAME) {
                count_type(c, ev.type);
                sum_frame(c, &ev);
            }
            else if (st != EL_END)
                break;
        }
        if (st == EL_NEED_MORE)
            st = EL_OK;
    }
    if (st >= 0)
        st = el_decoder_finish(dec);
    el_decoder_free(dec);
    return st;
}

static void check_skip(const uint8_t *data, size_t size, size_t chunk,
                       uint8_t pick)
{
    static uint8_t wanted[65536];
    static uint64_t skip_counts[65536];
    pass_counts plain, fast, scanned;
    memset(&plain, 0, sizeof(plain));
    memset(&fast, 0, sizeof(fast));
    memset(&scanned, 0, sizeof(scanned));
    /* Want every type whose low bits match the pick: a different subset
     * for different inputs. */
    for (unsigned t = 0; t < 256; t++)
        wanted[t] = (uint8_t)((t * 7u + pick) % 5u == 0);
    plain.wanted = fast.wanted = scanned.wanted = wanted;
    el_status a = count_pass(data, size, chunk, NULL, 0, &plain, NULL);
    memset(skip_counts, 0, 256 * sizeof(*skip_counts));
    el_status b = count_pass(data, size, chunk, wanted, 0, &fast, skip_counts);
    for (unsigned t = 0; t < 256; t++)
        fast.n[t] += skip_counts[t];
    if (a != b || memcmp(&plain, &fast, sizeof(plain)) != 0)
        __builtin_trap();
    memset(skip_counts, 0, 256 * sizeof(*skip_counts));
    el_status c =
        count_pass(data, size, chunk, wanted, 1, &scanned, skip_counts);
    for (unsigned t = 0; t < 256; t++)
        scanned.n[t] += skip_counts[t];
    if (a != c || memcmp(&plain, &scanned, sizeof(plain)) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = 1 + data[0] % 97;
    data++;
    size--;
    uint64_t sum = 0;
    el_decoder *dec = el_decoder_new(NULL);
    el_merge *m = el_merge_new(4096, fuzz_sink, &sum);
    if (!dec || !m)
        return 0;
    for (size_t at = 0; at < size; at += chunk) {
        size_t n = size - at < chunk ? size - at : chunk;
        el_status st = el_decoder_feed(dec, data + at, n, fuzz_frame, m);
        if (st < 0)
            break;
    }
    el_decoder_finish(dec);
    el_merge_flush(m);
    el_merge_free(m);
    el_decoder_free(dec);
    check_skip(data, size, chunk, data[-1]);
    return 0;
}
