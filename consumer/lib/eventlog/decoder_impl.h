/* Decoder internals used by the reader (internal). */
#ifndef RTSCOPE_DECODER_IMPL_H
#define RTSCOPE_DECODER_IMPL_H

#include "rtscope/eventlog.h"

#include <stdint.h>

/* Consume, without returning them, the whole events at the front of the
 * decoder's input that the sink does not want (wanted[type] == 0); add 1
 * to counts[type] for each (counts may be NULL) and raise *max_ts to the
 * largest timestamp among them; if any were consumed, *last_ts and
 * *last_offset are those of the last one. Stops, leaving it for el_decoder_next(),
 * at a wanted event, a block marker, the end marker, a type from 256 up,
 * or an event not wholly in the input or its block. Returns
 * the number of events consumed. `wanted` must not change while this
 * decoder uses it (the decoder keeps a table made from it). See Note
 * [Skipping unwanted events]. */
uint64_t decoder_skip(el_decoder *dec, const uint8_t *wanted,
                      uint64_t *counts, uint64_t *max_ts,
                      uint64_t *last_ts, uint64_t *last_offset);

#endif
