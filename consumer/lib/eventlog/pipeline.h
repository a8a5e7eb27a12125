/* The reader's delivery end, shared by the file path (reader.c) and the
 * stream pipeline (stream.c) (internal). */
#ifndef RTSCOPE_PIPELINE_H
#define RTSCOPE_PIPELINE_H

#include "rtscope/eventlog.h"

#include "decoder_impl.h"

#include <stdint.h>

typedef struct reader_ctx {
    el_sink_fn sink;
    void *ctx;
    const uint8_t *wanted;
    uint64_t *counts;
    const el_typetab *types;
    el_error *err;
    int failed;
    int counted; /* the file path counts events in its index pass */
    uint64_t events;
    uint64_t last_ts;
} reader_ctx;

void reader_set_error(el_error *err, el_status st, uint64_t off,
                      const char *msg);
/* Count one event read (events, counts[type], last_ts). */
void reader_count(reader_ctx *rc, const el_event *ev);
/* Does the sink want this event's type? */
int reader_wants(const reader_ctx *rc, const el_event *ev);
/* EL_OK, or EL_ERR_FORMAT with *err filled if the sink wants `ev` and its
 * payload would not decode (Note [Payload errors in stream order] in
 * pipeline.c); `ev` is decoded only in that case. */
el_status reader_check(const reader_ctx *rc, el_event *ev, el_error *err);
/* Merge/cursor output (an el_frame_fn): count it unless counted already,
 * decode it and hand it to the sink if wanted. Nonzero: stop. */
int reader_deliver(void *rc, el_event *ev);
/* Pass over the unwanted events at the front of `dec`'s input (see Note
 * [Skipping unwanted events] in decoder.c), counting them, with the
 * `wanted` table `skip`. Returns how many; *max_ts is raised to their
 * largest timestamp. */
uint64_t reader_skip(reader_ctx *rc, el_decoder *dec, const uint8_t *skip,
                     uint64_t *max_ts);
/* reader_skip that also passes over the events the sink wants, handing
 * each to fn (decoder_scan in decoder_impl.h): the file path's index
 * pass. */
uint64_t reader_scan(reader_ctx *rc, el_decoder *dec, uint64_t *max_ts,
                     decoder_wanted_fn fn, void *ctx);

/* The file path (reader.c): read a seekable source whole, exactly merged
 * (Note [Reading a file]). Returns EL_OK, EL_STOP, an error, or
 * FILE_USE_STREAM: this file is for the stream path (too many
 * capabilities); nothing was delivered. rc->types is set while it runs. */
#define FILE_USE_STREAM 1
struct source;
int reader_run_file(struct source *src, const el_reader_opts *opts,
                    reader_ctx *rc, el_reader_result *res, el_error *err);

#endif
