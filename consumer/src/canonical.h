/* The canonical summary of an eventlog: event counts per type, every heap
 * sample's values, markers and IPE entries, in a fixed text form that
 * testsuite/tools/checkers/GhcEventsCheck.hs prints too (see
 * docs/consumer.md). */
#ifndef RTSCOPE_CANONICAL_H
#define RTSCOPE_CANONICAL_H

#include "rtscope/eventlog.h"

#include <stdio.h>

typedef struct canonical canonical;

canonical *canonical_new(FILE *out);
void canonical_free(canonical *c);
/* Sink for el_reader_run. */
int canonical_sink(void *ctx, const el_event *ev, const el_typetab *types);
/* Print the sections that need the whole log. Returns 0 or -1. */
int canonical_finish(canonical *c);

#endif
