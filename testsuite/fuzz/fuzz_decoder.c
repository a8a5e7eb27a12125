/* libFuzzer target: the decoder, typed decoding and the bounded merge on
 * arbitrary bytes, fed in chunks whose size the input's first byte picks.
 * Built by `make -C consumer fuzz`. */
#include "rtscope/eventlog.h"

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
    }
    return 0;
}

static int fuzz_frame(void *ctx, el_event *ev)
{
    el_merge *m = ctx;
    return el_merge_push(m, ev) == EL_ERR_NOMEM;
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
    return 0;
}
