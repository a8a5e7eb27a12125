/* rtscope pprof: one census of a heap profile (profile.h, the census it
 * kept with opts.pick) as pprof's profile.proto, gzipped, for go tool
 * pprof, speedscope and Grafana Pyroscope. See docs/html.md, "Opening a
 * profile in pprof, speedscope or Pyroscope".
 *
 * The profile has one sample type, inuse_space (bytes): eventlog heap
 * samples carry bytes only, and a column of zero object counts would be a
 * claim the data does not make. Each band is a sample; its locations,
 * leaf first: for a -hi band with IPE provenance the info table (the band
 * name, the table's symbol as system name, the source span's file and
 * line), its binding (Module.binding) and its module; for a cost-centre
 * stack its cost centres, innermost first; any other band one location
 * named by its band name. */
#ifndef RTSCOPE_PPROF_H
#define RTSCOPE_PPROF_H

#include "rtscope/model/profile.h"

#include <stdio.h>

/* Write p's kept census (p->census.found must be set; p finished) to f;
 * with `base` (also finished, with a kept census) the difference p - base,
 * bands matched by name, negative where a band shrank. Returns 0, or -1
 * when out of memory or on a write error (errno tells which). */
int pprof_write(FILE *f, const profile *p, const profile *base);

#endif
