/* libFuzzer target: the live metrics model of `rtscope live` and `rtscope
 * export` on arbitrary bytes. The input is decoded and merged as the
 * export's pipeline does, every decoded event is fed to metrics_feed, and
 * every event's time is turned into Unix time (metrics_unix_ns), so that
 * what a corrupt stream says (any timestamp, wall clock, heap sample,
 * string) is exercised under ASan and UBSan. Built by
 * `make -C consumer fuzz-metrics`; run by the consumer-metrics-fuzz case.
 *
 * The first byte picks the feeding chunk and the model's top-N, so one
 * corpus covers both. */
#include "rtscope/eventlog.h"

#include "rtscope/model/metrics.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static int fuzz_sink(void *ctx, el_event *ev)
{
    metrics *m = ctx;
    el_error err;
    if (el_event_decode(ev, &err) == EL_OK && ev->known) {
        metrics_feed(m, ev);
        /* a volatile sink: the result must be computed, not optimised out */
        volatile int64_t unix_ns = metrics_unix_ns(m, ev->ts);
        (void)unix_ns;
    }
    return 0;
}

static int fuzz_frame(void *ctx, el_event *ev)
{
    el_merge *mg = ctx;
    return el_merge_push(mg, ev) == EL_ERR_NOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = 1 + data[0] % 97;
    size_t top_n = data[0] % 4 == 0 ? 0 : 1 + data[0] % 7;
    data++;
    size--;
    metrics *m = metrics_new(top_n);
    el_decoder *dec = el_decoder_new(NULL);
    el_merge *mg = m ? el_merge_new(4096, fuzz_sink, m) : NULL;
    if (!m || !dec || !mg)
        abort();
    for (size_t at = 0; at < size; at += chunk) {
        size_t n = size - at < chunk ? size - at : chunk;
        if (el_decoder_feed(dec, data + at, n, fuzz_frame, mg) < 0)
            break;
    }
    el_decoder_finish(dec);
    el_merge_flush(mg);
    el_merge_free(mg);
    el_decoder_free(dec);
    metrics_free(m);
    return 0;
}
