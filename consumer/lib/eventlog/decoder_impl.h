/* Decoder internals used by the reader (internal). */
#ifndef RTSCOPE_DECODER_IMPL_H
#define RTSCOPE_DECODER_IMPL_H

#include "rtscope/eventlog.h"

#include <stdint.h>

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

/* Capability of the block the decoder is in (EL_CAP_NONE outside blocks):
 * that of the events decoder_skip() just passed over, which never leave
 * the block they start in. */
uint16_t decoder_stream(const el_decoder *dec);

/* el_decoder_seek() to an event inside the block of capability `cap` that
 * ends at `block_end` (UINT64_MAX: a block never closed), as if the decoder
 * had read the block's marker: the file reader's index jumps straight to
 * the events a sink wants. */
void decoder_seek_in_block(el_decoder *dec, uint64_t offset, uint16_t cap,
                           uint64_t block_end);

#endif
