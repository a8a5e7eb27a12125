/* The metrics model of one running program: what `rtscope live` shows and
 * `rtscope export` serves, fed one decoded event at a time.
 *
 * One `metrics` is one run of one program (one connection to its eventlog
 * socket): identity (program, pid), heap size, live bytes, blocks size,
 * memory returned, allocation, GC counts and a pause-time histogram, the
 * latest complete heap sample reduced to its top N bands plus "other"
 * (bands named from IPE for -hi), recent markers, and the loss the
 * eventlog socket reported. The model holds no event; its memory is bounded
 * by the number of bands of one sample and the IPE table.
 */
#ifndef RTSCOPE_METRICS_H
#define RTSCOPE_METRICS_H

#include "rtscope/eventlog.h"
#include "rtscope/model/bands.h"

#include <stddef.h>
#include <stdint.h>

#define METRICS_MAX_GENS 8
#define METRICS_MARKERS 8
#define METRICS_DEFAULT_TOP 10

/* Upper bounds (seconds) of the GC pause histogram; +Inf is implicit. */
#define METRICS_PAUSE_BUCKETS 13
extern const double metrics_pause_bounds[METRICS_PAUSE_BUCKETS];

/* What an event changed (metrics_feed's result), for sinks that act on
 * changes (the InfluxDB writer). */
enum metrics_change {
    METRICS_CHANGED_IDENTITY = 1 << 0, /* program name, pid, clock */
    METRICS_CHANGED_HEAP = 1 << 1,     /* heap size/live/blocks/mem/alloc */
    METRICS_CHANGED_GC = 1 << 2,       /* a collection ended */
    METRICS_CHANGED_SAMPLE = 1 << 3,   /* a heap sample completed */
    METRICS_CHANGED_MARKER = 1 << 4,   /* a user marker arrived */
    METRICS_CHANGED_LOSS = 1 << 5,     /* the socket reported dropped data */
    METRICS_CHANGED_PROFILE = 1 << 6,  /* heap profiling began */
};

typedef struct metrics_band {
    char *name; /* owned */
    uint64_t bytes;
} metrics_band;

/* A complete heap sample, reduced: the `ntop` largest bands (descending,
 * ties by name) and the rest summed in `other`. */
typedef struct metrics_sample {
    uint64_t ts;    /* program time (ns) of the sample */
    uint64_t total; /* all bands */
    size_t nbands;  /* bands in the sample */
    metrics_band *top;
    size_t ntop;
    uint64_t other; /* bytes of the bands not in `top` */
} metrics_sample;

typedef struct metrics_marker {
    uint64_t ts;
    char text[96];
} metrics_marker;

typedef struct metrics_cap {
    uint64_t gc_start;
    int in_gc;
    int gen; /* generation of the GC in progress (from GC_STATS), or -1 */
    uint64_t allocated;
} metrics_cap;

typedef struct metrics_pending {
    char *label; /* owned, as the RTS wrote it */
    uint64_t bytes;
} metrics_pending;

typedef struct metrics {
    /* identity */
    char program[128]; /* basename of argv[0], or "" */
    uint32_t pid;
    int have_pid;
    /* clock: Unix time (ns) of program time t is t + wall_offset_ns */
    int have_wall;
    int64_t wall_offset_ns;
    /* heap; have_* say whether the RTS reported the value at all */
    uint64_t heap_size, live_bytes, blocks_size, max_heap_size;
    int have_heap_size, have_live_bytes, have_blocks_size, have_mem;
    uint64_t mem_current, mem_needed, mem_returned; /* bytes, latest GC */
    uint64_t mem_returned_total; /* bytes returned to the OS, whole run */
    uint64_t mblock_size;
    uint64_t allocated; /* sum over capabilities */
    /* GC */
    uint64_t gc_count, gc_by_gen[METRICS_MAX_GENS + 1]; /* [MAX]: other */
    uint64_t gc_copied;
    uint64_t pause_sum_ns, pause_max_ns, pause_last_ns;
    uint64_t pause_hist[METRICS_PAUSE_BUCKETS + 1]; /* not cumulative */
    metrics_cap *caps;
    unsigned ncaps;
    /* heap profile */
    int profiling; /* HEAP_PROF_BEGIN seen */
    uint32_t breakdown;
    uint64_t interval_ns;
    uint64_t samples; /* completed samples */
    metrics_sample latest;
    int in_sample;
    uint64_t sample_ts;
    metrics_pending *pending;
    size_t npending, pending_cap;
    bands *names;  /* band names (bands.h), as hp and html name them */
    char *ccs_buf; /* a cost-centre stack's name */
    size_t ccs_cap;
    uint64_t ipe_count;
    size_t top_n;
    /* markers: ring of the last METRICS_MARKERS */
    metrics_marker markers[METRICS_MARKERS];
    uint64_t nmarkers;
    /* loss reported by the eventlog socket */
    uint64_t dropped_bytes, dropped_events, dropped_blocks, loss_reports;
    /* stream */
    uint64_t events, last_ts;
    int nomem;
} metrics;

/* A model keeping the `top_n` largest bands of each sample (0: default). */
metrics *metrics_new(size_t top_n);
void metrics_free(metrics *m);

/* Event types the model reads (for el_reader_opts.wanted / decoding only
 * what is needed): wanted[type] is set to 1 for each. */
void metrics_wanted(uint8_t wanted[65536]);

/* Feed one decoded event; returns a mask of enum metrics_change. */
unsigned metrics_feed(metrics *m, const el_event *ev);

/* Unix time in ns of program time `ts` (0 if no wall-clock event yet). */
int64_t metrics_unix_ns(const metrics *m, uint64_t ts);

/* Parse an eventlog-socket loss message ("rtscope: eventlog-socket dropped
 * B bytes (E events in K blocks): ..."). Returns 1 and fills the counts if
 * `text` is one. */
int metrics_parse_loss(const char *text, size_t len, uint64_t *bytes,
                       uint64_t *events, uint64_t *blocks);

/* Name of a heap profile breakdown ("-hT", "-hi", ...). */
const char *metrics_breakdown_flag(uint32_t breakdown);

#endif
