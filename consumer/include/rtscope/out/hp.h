/* The .hp writer: a heap profile in the format hp2ps reads (JOB, DATE,
 * SAMPLE_UNIT, VALUE_UNIT, BEGIN_SAMPLE/END_SAMPLE blocks, MARK lines),
 * written as an eventlog's events stream past, in constant memory.
 *
 * Sample times are the eventlog's: elapsed seconds since the program
 * started. (The RTS's own .hp uses mutator CPU seconds, so times differ;
 * bands and values do not.) Bands are named as every rtscope output names
 * them (bands.h): -hi bands from IPE events (TABLE_NAME@SRCLOC, unless
 * by_address), cost-centre stacks as the RTS writes them. */
#ifndef RTSCOPE_OUT_HP_H
#define RTSCOPE_OUT_HP_H

#include "rtscope/eventlog.h"

#include <stdint.h>
#include <stdio.h>

typedef struct hp_writer hp_writer;

/* A writer to `out` (not owned); NULL when out of memory. by_address:
 * name -hi bands by info-table address, as the RTS labels them. */
hp_writer *hp_writer_new(FILE *out, int by_address);
void hp_writer_free(hp_writer *w);

/* Mark in wanted[] the event types hp_writer_event uses. */
void hp_writer_want(uint8_t wanted[65536]);

/* Take one event, in stream order (an el_sink_fn's body). Returns 0, or
 * non-zero when out of memory or on a write error: stop feeding then. */
int hp_writer_event(hp_writer *w, const el_event *ev);

/* Close the profile as the RTS does, with an empty sample at the end:
 * at last_ts (the stream's last timestamp, any event type) or the last
 * sample's time, whichever is later. Returns 0, or -1 if the writer ran
 * out of memory at any point (the file is then incomplete). */
int hp_writer_finish(hp_writer *w, uint64_t last_ts);

#endif
