/* What pprof.c (censuses) and pprof_stacks.c (sampled call stacks) share:
 * the string table, functions interned with one location each, the
 * messages and the gzipped output (internal). */
#ifndef RTSCOPE_PPROF_IMPL_H
#define RTSCOPE_PPROF_IMPL_H

#include "rtscope/base/strtab.h"
#include "rtscope/out/pprof.h"

#include "pprof.pb-c.h"

#include <stdint.h>
#include <stdio.h>

typedef struct pprof_fn {
    int64_t name, system_name, filename, line;
} pprof_fn;

/* A sample: a band of a profile's census, or a row of a debug census. */
typedef struct pprof_sample {
    const profile *src; /* whose band */
    const profile_band *band;
    const pprof_census_row *row;
    double bytes, objects;
} pprof_sample;

typedef struct pprof_build {
    strtab strings;
    strtab fn_keys; /* function id - 1 by its key */
    pprof_fn *fns;
    size_t nfns, fns_cap;
    pprof_sample *samples;
    size_t nsamples;
    strtab sample_names; /* diff: band names, index = sample */
    int nomem;
} pprof_build;

/* The messages of one Profile and the arrays they point into (protobuf-c's
 * messages do not own what they point to). */
typedef struct pprof_msgs {
    RtscopePprof__Sample *samples, **samplep;
    size_t nsamples;
    uint64_t *locids;
    int64_t *values;
    RtscopePprof__Function *fns, **fnp;
    RtscopePprof__Location *locs, **locp;
    RtscopePprof__Line *lines, **linep;
} pprof_msgs;

/* The index of a string in the string table (0 and b->nomem set when out
 * of memory). */
int64_t pprof_str(pprof_build *b, const char *s, size_t len);
/* The id of the function (and of its one location) named so, interned by
 * all four. 0 when out of memory. */
uint64_t pprof_function(pprof_build *b, const char *name, size_t name_len,
                        const char *sys, const char *file, size_t file_len,
                        int64_t line);
/* Split an IPE source span, "src/Main.hs:10:5-40" or
 * "src/Main.hs:(10,5)-(12,3)", into its file and first line (0 when it is
 * not one). */
void pprof_span(const char *span, size_t *file_len, int64_t *line);
/* The functions, one location each, with the same id. -1: no memory. */
int pprof_encode_functions(const pprof_build *b, pprof_msgs *g);
void pprof_msgs_free(pprof_msgs *g);
/* What b holds (a zeroed build's unused parts are fine). */
void pprof_build_free(pprof_build *b);
/* The arrays of g for nsamples samples (one more, zeroed), nlocids
 * location ids and nvalues values (pprof_msgs_free frees them too). -1
 * when out of memory. */
int pprof_msgs_alloc(pprof_msgs *g, size_t nsamples, size_t nlocids,
                     size_t nvalues);
/* Pack prof and write it gzipped to f; *packed says whether it got as far
 * as writing (a failure before is one of memory). */
int pprof_pack(FILE *f, const RtscopePprof__Profile *prof, int *packed);
/* pprof_pack of prof with the samples, locations, functions and strings
 * that b and g hold (the rest of prof filled by the caller). */
int pprof_pack_built(FILE *f, RtscopePprof__Profile *prof, const pprof_build *b,
                     const pprof_msgs *g, int *packed);

#endif
