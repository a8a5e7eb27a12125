/* What the samples tests feed the model: an EVENT_IPE entry, and a sample
 * as the decoder gives it, a user binary message of that kind
 * (EL_TIME_SAMPLE, EL_ALLOC_SAMPLE; EL_SAMPLE_NONE: another tool's) with its
 * frames (innermost first) as their text (Note [rtscope's samples] in
 * event.c). At most 16 frames. */
#ifndef RTSCOPE_TEST_SAMPLES_FIXTURE_H
#define RTSCOPE_TEST_SAMPLES_FIXTURE_H

#include "rtscope/model/samples.h"

#include <stdint.h>

void fx_take_ipe(samples *s, uint64_t info, const char *table, const char *ct,
                 const char *ty, const char *label, const char *module,
                 const char *srcloc);
void fx_take_sample(samples *s, el_sample_kind kind, uint64_t weight,
                    uint32_t size, uint16_t flags, uint16_t depth,
                    const uint64_t *frames);

#endif
