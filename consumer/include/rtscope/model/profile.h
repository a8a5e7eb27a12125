/* The heap-profile model behind rtscope html and rtscope diff: what a
 * report needs from a whole run, gathered while the events stream past in
 * memory that does not grow with the length of the run.
 *
 * - Per band (one per distinct sample label): the exact statistics of its
 *   series over all censuses, a band absent from a census counting as 0:
 *   integrated size (trapezoids between census times), mean, standard
 *   deviation, and the least-squares line bytes = intercept + slope * t with
 *   its R^2. Running sums make these O(1) per sample value.
 * - Per band, its series downsampled onto a shared grid of time buckets
 *   (the mean over the censuses in a bucket); the grid doubles its bucket
 *   width when the run outgrows it and halves its bucket count when the
 *   bands outgrow the memory budget, so it always fits both.
 * - The heap pane's series (heap size, blocks size, live bytes, memory
 *   returned) on a grid of their own (the maximum in a bucket).
 * - Markers and, if asked, traceEvent messages; program, RTS and profile
 *   facts for the meta pane; IPE entries to name -hi bands.
 *
 * Input: profile_sink() is an el_sink_fn; a .hp file goes through
 * profile_read_hp(). Then profile_finish() once, and the report reads the
 * fields below. See Note [profile statistics] in profile.c.
 */
#ifndef RTSCOPE_PROFILE_H
#define RTSCOPE_PROFILE_H

#include "rtscope/base/hmap.h"
#include "rtscope/eventlog.h"
#include "rtscope/model/bands.h"
#include "rtscope/model/ipe.h"
#include "rtscope/model/strmap.h"

#include <stdint.h>
#include <stdio.h>

typedef struct profile_opts {
    int no_traces;        /* drop markers and messages altogether */
    int trace_events;     /* also keep traceEvent (EL_USER_MSG) messages */
    const char **include; /* keep traces containing one of these */
    size_t ninclude;
    const char **exclude; /* drop traces containing one of these */
    size_t nexclude;
    size_t series_budget; /* bytes for band series; 0: 64 MiB */
    /* keep one census's values (rtscope pprof): which one */
    int pick;          /* PROFILE_PICK_* */
    size_t pick_index; /* PROFILE_PICK_INDEX: census number, from 0 */
    double pick_at;    /* PROFILE_PICK_AT: the census nearest this time */
    /* census times kept for the exact (two-pass) time variance of the
     * statistics; beyond this many the variance is Welford's running one
     * and the model's memory no longer grows with censuses (rtscope serve).
     * 0: all */
    size_t max_times;
    /* markers and messages beyond PROFILE_MAX_TRACES: 0 drops the new
     * ones (a report of a whole run keeps its first), 1 drops the oldest
     * half (a live report keeps the latest) */
    int keep_last_traces;
} profile_opts;

/* Which census a profile keeps whole (Note [The kept census], profile.c). */
enum {
    PROFILE_PICK_NONE,    /* none: statistics and series only */
    PROFILE_PICK_LARGEST, /* the largest by total bytes (the first of equals) */
    PROFILE_PICK_INDEX,   /* census number pick_index */
    PROFILE_PICK_AT,      /* the census nearest pick_at seconds */
    PROFILE_PICK_LAST     /* the last */
};

/* One band's bytes in the kept census. */
typedef struct profile_value {
    uint32_t band; /* index into profile.bands */
    double bytes;
} profile_value;

typedef struct profile_band {
    char *key; /* raw sample label, NUL-terminated (owned) */
    uint32_t key_len;
    uint64_t hash;
    /* the value of the census in progress (several values with one label
     * in a census add up) */
    int64_t cur_idx; /* -1: none */
    double cur_v;
    /* running sums over the censuses where the band is present */
    double sum_v, sum_v2, sum_tv, integral, max_v;
    uint64_t present; /* censuses with a value */
    /* set by profile_finish() */
    char *name;           /* display name (owned), never NULL */
    const ipe_entry *ipe; /* -hi provenance, or NULL */
    /* a cost-centre stack band: its cost-centre ids, innermost first
     * (bands_cc_label names them); NULL for other bands and MAIN */
    uint32_t *ccs;
    uint32_t nccs;
    double mean, stddev, intercept, slope, r2; /* bytes, bytes/s */
    double size_mib_s;                         /* integral in MiB*s */
} profile_band;

typedef struct profile_trace {
    double t;
    char *text;   /* owned */
    int is_event; /* 1: traceEvent message, 0: traceMarker */
} profile_trace;

enum {
    PROFILE_HEAP_SIZE,
    PROFILE_BLOCKS_SIZE,
    PROFILE_LIVE,
    PROFILE_RETURNED,
    PROFILE_NHEAP
};

typedef struct profile {
    profile_opts opts;
    /* meta */
    char *args; /* program arguments, NUL-separated (owned) */
    size_t args_len;
    char *rts_id;        /* "GHC-9.0.2 rts_thr" */
    char date[64];       /* wall-clock time of the run's start, or "" */
    char first_date[64]; /* after a restart: the first run's date */
    unsigned runs;       /* runs on this timeline (1 + restarts) */
    uint32_t breakdown;  /* 0: no heap profile begin seen */
    uint64_t interval_ns;
    int from_hp; /* read from a .hp file */
    char *hp_job, *hp_date;
    /* A .hp that ends inside a sample (no END_SAMPLE: the program was
     * killed while writing it): that sample's time and the values read
     * of it. The sample is left out, not drawn short. */
    int hp_cut;
    double hp_cut_time;
    size_t hp_cut_values;
    uint64_t mblock_size;
    double last_time; /* seconds, latest event */
    uint64_t input_bytes, events;
    /* censuses */
    double *times; /* begin time of each census, seconds (the first
                      opts.max_times; NULL once beyond) */
    size_t nsamples, times_cap;
    double t_last, t_prev; /* times of the last two censuses */
    double t_sum;          /* sum of census times, in census order */
    double t_wmean, t_wm2; /* Welford's running mean and sum of squares */
    int in_sample;
    /* bands */
    profile_band *bands;
    size_t nbands, bands_cap;
    hmap index;      /* label hash -> band number */
    hmap index_addr; /* -hi address label's number -> band number (Note
                        [Bands by address] in profile.c) */
    /* the time grid of band series: each band's sum of values per time
     * bucket (profile_band_bucket), PROFILE_TILE bands a tile */
    float **tiles;
    size_t ntiles;
    size_t nb; /* buckets (power of two) */
    double bw; /* bucket width, seconds */
    uint32_t *bucket_count;
    double *bucket_tsum;
    size_t budget;
    /* the heap pane */
    size_t hnb;
    double hbw;
    uint32_t *hcount;
    double *htsum;
    double *heap[PROFILE_NHEAP]; /* maximum per bucket, NaN: none */
    uint64_t heap_events;
    int64_t start_unix_ns; /* wall-clock time of time 0, or 0: unknown */
    /* the kept census (opts.pick) */
    struct {
        int found;
        size_t index; /* its number, from 0 */
        double t;     /* its time, seconds */
        double total; /* its bytes */
        profile_value *v;
        size_t n, cap;
    } census;
    uint32_t *touched; /* bands with a value in the census in progress */
    size_t ntouched, touched_cap;
    int census_open;
    /* traces */
    profile_trace *traces;
    size_t ntraces, traces_cap;
    uint64_t traces_dropped; /* beyond the cap (opts.keep_last_traces) */
    /* naming */
    bands *names;  /* band names: IPE entries, cost centres (bands.h) */
    char *scratch; /* cost-centre stack labels */
    size_t scratch_cap;
    int nomem;
    int finished;
} profile;

/* At most this many markers and messages are kept (the first ones, or
 * with opts.keep_last_traces the latest). */
#define PROFILE_MAX_TRACES 10000

profile *profile_new(const profile_opts *opts);
void profile_free(profile *p);

/* Mark in wanted[65536] the event types profile_sink() reads. */
void profile_wanted(uint8_t *wanted);
/* el_sink_fn: feed one event. Returns nonzero when out of memory. */
int profile_sink(void *ctx, const el_event *ev, const el_typetab *types);

/* Lower-level input, used by the .hp reader. */
int profile_sample_begin(profile *p, double t);
int profile_sample_value(profile *p, const char *label, size_t len,
                         double bytes);
void profile_sample_end(profile *p);
int profile_trace_add(profile *p, double t, const char *text, size_t len,
                      int is_event);

/* A new run of the program begins on the same timeline (rtscope serve,
 * after a restart): its arguments, RTS identifier and start date replace
 * the last run's when they arrive, so the report describes the run going
 * on; the first run's date is kept in first_date. */
void profile_new_run(profile *p);

/* Read a .hp file (hp2ps's format) into the profile. Returns 0, or -1 with
 * a message "line N: ..." in msg. */
int profile_read_hp(profile *p, FILE *f, char *msg, size_t msglen);

/* Compute the statistics and the band names. Returns 0 or -1 (memory). */
int profile_finish(profile *p);

/* The same as of now, for a report of a run still in progress (rtscope
 * serve): every band's statistics and name as profile_finish would give
 * them if the input ended here, while the profile goes on taking events.
 * Returns 0 or -1 (memory). */
int profile_view(profile *p);

/* The mean time (seconds) of the censuses in a non-empty bucket. */
static inline double profile_bucket_time(const profile *p, size_t b)
{
    return p->bucket_tsum[b] / p->bucket_count[b];
}

/* Band `band`'s sum of values in time bucket i (i < nb): the grid is kept
 * in tiles of PROFILE_TILE bands, bucket by bucket (Note [band series
 * grid] in profile.c). */
#define PROFILE_TILE 64
static inline float profile_band_bucket(const profile *p, size_t band, size_t i)
{
    return p
        ->tiles[band / PROFILE_TILE][i * PROFILE_TILE + band % PROFILE_TILE];
}

#endif
