/* rtscope pprof: one census of a heap profile (profile.h, the census it
 * kept with opts.pick) as pprof's profile.proto, gzipped, for go tool
 * pprof, speedscope and Grafana Pyroscope. See docs/html.md, "Opening a
 * profile in pprof, speedscope or Pyroscope".
 *
 * An eventlog's census has one sample type, inuse_space (bytes): eventlog
 * heap samples carry bytes only, and a column of zero object counts would
 * be a claim the data does not make; a census of the heap itself
 * (pprof_write_census) has inuse_objects too. Each band is a sample; its
 * locations, leaf first: for a -hi band with IPE provenance the info table (the
 * band name, the table's symbol as system name, the source span's file and
 * line), its binding (Module.binding) and its module; for a cost-centre
 * stack its cost centres, innermost first; any other band one location
 * named by its band name. */
#ifndef RTSCOPE_PPROF_H
#define RTSCOPE_PPROF_H

#include "rtscope/model/profile.h"
#include "rtscope/model/samples.h"

#include <stdio.h>

/* Write p's kept census (p->census.found must be set; p finished) to f;
 * with `base` (also finished, with a kept census) the difference p - base,
 * bands matched by name, negative where a band shrank. Returns 0, or -1
 * when out of memory or on a write error (errno tells which). */
int pprof_write(FILE *f, const profile *p, const profile *base);

/* One info table's closures in a census of the heap itself (rtscope debug's
 * walk of a live program or a snapshot), which counts objects too. */
typedef struct pprof_census_row {
    const char *name;     /* the band name, as -hi names the table */
    const char *key;      /* the leaf's system name: symbol or address */
    const ipe_entry *ipe; /* provenance (module, binding, span), or NULL */
    uint64_t objects, bytes;
} pprof_census_row;

/* Write such a census with two sample types, inuse_objects (count) and
 * inuse_space (bytes, the default), the locations as for a -hi band;
 * program names the mapping, time_nanos the census's wall-clock time (0:
 * unknown). Returns as pprof_write. */
int pprof_write_census(FILE *f, const pprof_census_row *rows, size_t n,
                       const char *program, int64_t time_nanos);

/* Sampled call stacks (samples.h, finished) as one profile with four
 * sample types, as Go's heap and CPU profiles name them: alloc_objects
 * (count, estimated), alloc_space (bytes), samples (count), cpu
 * (nanoseconds); an allocation stack has 0 in cpu, a time stack 0 in
 * alloc_objects and alloc_space. The default type is alloc_space when there
 * are allocation samples, else cpu. Each stack is a sample whose locations
 * are its frames, innermost first (Note [pprof functions of a sampled
 * stack] in pprof_stacks.c). program names the mapping (its first
 * program_len bytes); time_nanos is the wall-clock time of the program's
 * start (0: unknown), duration_nanos how long the samples cover. Returns
 * as pprof_write. */
int pprof_write_stacks(FILE *f, const samples *s, const char *program,
                       size_t program_len, int64_t time_nanos,
                       int64_t duration_nanos);

#endif
