/* rtscope stats: a run summary (GC counts and pauses, live data, allocation,
 * heap samples, markers, then the sampled call stacks' top sites), or with
 * --canonical the canonical summary that the testsuite diffs against
 * ghc-events. */
#define _POSIX_C_SOURCE 200809L
#include "canonical.h"
#include "cli.h"
#include "rtscope/base/hmap.h"
#include "rtscope/model/samples.h"
#include "rtscope/strhash.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STATS_MAX_GENS 16
#define STATS_MARKERS_SHOWN 10
#define STATS_SITES_SHOWN 10

typedef struct stats_cap {
    uint64_t gc_start; /* 0: not in a GC */
    int in_gc;
    int gen; /* generation of the GC in progress, from GC_STATS */
    uint64_t allocated;
} stats_cap;

typedef struct stats_state {
    uint64_t events, last_ts;
    stats_cap *caps;
    unsigned ncaps;
    uint64_t gcs, gcs_by_gen[STATS_MAX_GENS + 1];
    int gc_stats_seen;
    uint64_t pause_total, pause_max;
    uint64_t copied, max_live, max_heap_size, max_blocks_size;
    uint64_t threads;
    uint64_t samples, sample_total, max_sample_total, max_sample_ts;
    uint64_t sample_values;
    uint32_t breakdown;
    uint64_t interval_ns;
    hmap bands; /* name hash -> 0 */
    uint64_t markers;
    uint64_t marker_ts[STATS_MARKERS_SHOWN];
    char *marker_text[STATS_MARKERS_SHOWN];
    uint64_t ipes, user_msgs;
    char *rts, *args;
    samples *sm; /* sampled call stacks (and the IPE entries naming them) */
    uint8_t *wanted;
    uint64_t *counts;
    int nomem;
} stats_state;

static char *stats_dup(el_str s, int vec)
{
    char *p = malloc(s.len + 1);
    if (!p)
        return NULL;
    memcpy(p, s.ptr, s.len);
    p[s.len] = 0;
    for (size_t i = 0; vec && i < s.len; i++)
        if (p[i] == 0)
            p[i] = ' ';
    return p;
}

static stats_cap *stats_cap_of(stats_state *s, uint16_t cap)
{
    if (cap == EL_CAP_NONE)
        cap = 0;
    if (cap >= s->ncaps) {
        unsigned n = (unsigned)cap + 1;
        stats_cap *nc = realloc(s->caps, n * sizeof(*nc));
        if (!nc) {
            s->nomem = 1;
            return NULL;
        }
        memset(nc + s->ncaps, 0, (n - s->ncaps) * sizeof(*nc));
        s->caps = nc;
        s->ncaps = n;
    }
    return &s->caps[cap];
}

/* Distinct bands, counted by their names' 64-bit hashes. */
static void stats_add_band(stats_state *s, el_str label)
{
    if (!hmap_at(&s->bands, rtscope_strhash(label.ptr, label.len), NULL))
        s->nomem = 1;
}

static void stats_end_sample(stats_state *s)
{
    if (s->sample_total > s->max_sample_total) {
        s->max_sample_total = s->sample_total;
        s->max_sample_ts = s->last_ts;
    }
    s->sample_total = 0;
}

/* GC_START, GC_STATS_GHC, GC_END: collections, their generations and
 * pauses. */
static void stats_gc(stats_state *s, const el_event *ev)
{
    stats_cap *c = stats_cap_of(s, ev->cap);
    switch (ev->type) {
    case EL_GC_START:
        if (c) {
            c->gc_start = ev->ts;
            c->in_gc = 1;
            c->gen = -1;
        }
        break;
    case EL_GC_STATS_GHC:
        s->copied += ev->u.gc_stats.copied;
        s->gc_stats_seen = 1;
        if (c)
            c->gen = ev->u.gc_stats.gen;
        break;
    case EL_GC_END:
        /* In the threaded RTS every GC thread's capability writes GC_START
         * and GC_END; the collection itself is the one whose capability
         * wrote GC_STATS (it initiated the GC). */
        if (c && c->in_gc && (c->gen >= 0 || !s->gc_stats_seen)) {
            uint64_t p = ev->ts >= c->gc_start ? ev->ts - c->gc_start : 0;
            s->gcs++;
            s->pause_total += p;
            if (p > s->pause_max)
                s->pause_max = p;
            int g = c->gen < 0                ? STATS_MAX_GENS
                    : c->gen < STATS_MAX_GENS ? c->gen
                                              : STATS_MAX_GENS;
            s->gcs_by_gen[g]++;
        }
        if (c)
            c->in_gc = 0;
        break;
    default:
        break;
    }
}

/* The heap profile's events: its breakdown, samples and bands. */
static void stats_heap_prof(stats_state *s, const el_event *ev)
{
    switch (ev->type) {
    case EL_HEAP_PROF_BEGIN:
        s->breakdown = ev->u.heap_prof_begin.breakdown;
        s->interval_ns = ev->u.heap_prof_begin.interval_ns;
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        s->samples++;
        s->sample_total = 0;
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        s->sample_total += ev->u.sample_string.residency;
        s->sample_values++;
        stats_add_band(s, ev->u.sample_string.label);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE: {
        el_str st = {(const char *)ev->u.sample_cc.stack,
                     (size_t)4 * ev->u.sample_cc.depth};
        s->sample_total += ev->u.sample_cc.residency;
        s->sample_values++;
        stats_add_band(s, st);
        break;
    }
    case EL_HEAP_PROF_SAMPLE_END:
        stats_end_sample(s);
        break;
    default:
        break;
    }
}

static int stats_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    stats_state *s = ctx;
    stats_cap *c;
    (void)types;
    s->last_ts = ev->ts;
    switch (ev->type) {
    case EL_GC_START:
    case EL_GC_STATS_GHC:
    case EL_GC_END:
        stats_gc(s, ev);
        break;
    case EL_HEAP_PROF_BEGIN:
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
    case EL_HEAP_PROF_SAMPLE_STRING:
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
    case EL_HEAP_PROF_SAMPLE_END:
        stats_heap_prof(s, ev);
        break;
    case EL_HEAP_LIVE:
        if (ev->u.heap.bytes > s->max_live)
            s->max_live = ev->u.heap.bytes;
        break;
    case EL_HEAP_SIZE:
        if (ev->u.heap.bytes > s->max_heap_size)
            s->max_heap_size = ev->u.heap.bytes;
        break;
    case EL_BLOCKS_SIZE:
        if (ev->u.heap.bytes > s->max_blocks_size)
            s->max_blocks_size = ev->u.heap.bytes;
        break;
    case EL_HEAP_ALLOCATED:
        if ((c = stats_cap_of(s, ev->cap)) && ev->u.heap.bytes > c->allocated)
            c->allocated = ev->u.heap.bytes;
        break;
    case EL_CREATE_THREAD:
        s->threads++;
        break;
    case EL_USER_MARKER:
        if (s->markers < STATS_MARKERS_SHOWN) {
            s->marker_ts[s->markers] = ev->ts;
            s->marker_text[s->markers] = stats_dup(ev->u.msg.text, 0);
        }
        s->markers++;
        break;
    case EL_USER_MSG:
        s->user_msgs++;
        break;
    case EL_IPE:
        s->ipes++;
        if (samples_take(s->sm, ev) != 0)
            s->nomem = 1;
        break;
    case EL_USER_BINARY_MSG: /* rtscope's samples; others are ignored */
        if (samples_take(s->sm, ev) != 0)
            s->nomem = 1;
        break;
    case EL_RTS_IDENTIFIER:
        if (!s->rts)
            s->rts = stats_dup(ev->u.capset_str.text, 0);
        break;
    case EL_PROGRAM_ARGS:
        if (!s->args)
            s->args = stats_dup(ev->u.capset_vec.vec, 1);
        break;
    default:
        break;
    }
    return s->nomem;
}

static const char *stats_breakdown_name(uint32_t b)
{
    switch (b) {
    case EL_BREAKDOWN_COST_CENTRE:
        return "cost centre stack (-hc)";
    case EL_BREAKDOWN_MODULE:
        return "module (-hm)";
    case EL_BREAKDOWN_CLOSURE_DESCR:
        return "closure description (-hd)";
    case EL_BREAKDOWN_TYPE_DESCR:
        return "type description (-hy)";
    case EL_BREAKDOWN_RETAINER:
        return "retainer set (-hr)";
    case EL_BREAKDOWN_BIOGRAPHY:
        return "biography (-hb)";
    case EL_BREAKDOWN_CLOSURE_TYPE:
        return "closure type (-hT)";
    case EL_BREAKDOWN_INFO_TABLE:
        return "info table (-hi)";
    default:
        return "unknown";
    }
}

static double stats_sec(uint64_t ns)
{
    return (double)ns / 1e9;
}

/* One kind of sampled stacks: its totals, then its heaviest sites (the
 * stacks added up by their innermost frame). */
static void stats_print_sites(const samples *sm, samples_kind k, FILE *f)
{
    const samples_sum *t = &sm->total[k];
    int alloc = k == SAMPLES_ALLOC;
    const char *kind = alloc ? "alloc" : "time";
    if (alloc)
        fprintf(f,
                "alloc samples: %" PRIu64 ", %" PRIu64 " bytes, %.0f objects "
                "(estimated), %" PRIu64 " late, %" PRIu64 " truncated\n",
                t->count, t->weight, t->objects, t->late, t->truncated);
    else
        fprintf(f,
                "time samples: %" PRIu64 ", %.6f s, %" PRIu64 " late, %" PRIu64
                " truncated\n",
                t->count, stats_sec(t->weight), t->late, t->truncated);
    samples_site *sites;
    long n = samples_sites(sm, k, &sites);
    if (n < 0) {
        fprintf(f, "%s site: (out of memory)\n", kind);
        return;
    }
    char name[1024];
    for (long i = 0; i < n && i < STATS_SITES_SHOWN; i++) {
        const samples_sum *x = &sites[i].sum;
        double pct =
            t->weight ? 100.0 * (double)x->weight / (double)t->weight : 0.0;
        samples_frame_name(sm, sites[i].info, name, sizeof(name));
        if (alloc)
            fprintf(f,
                    "alloc site: %6.2f%% %" PRIu64 " bytes %" PRIu64
                    " samples %s\n",
                    pct, x->weight, x->count, name);
        else
            fprintf(f, "time site: %6.2f%% %.6f s %" PRIu64 " samples %s\n",
                    pct, stats_sec(x->weight), x->count, name);
    }
    if (n > STATS_SITES_SHOWN)
        fprintf(f, "%s site: ... (%ld more)\n", kind, n - STATS_SITES_SHOWN);
    free(sites);
}

static void stats_print(const stats_state *s, const char *input,
                        const el_reader_result *res, FILE *f)
{
    uint64_t allocated = 0, caps = 0;
    for (unsigned i = 0; i < s->ncaps; i++)
        allocated += s->caps[i].allocated;
    (void)caps;
    fprintf(f, "input: %s\n", input);
    if (s->args)
        fprintf(f, "program: %s\n", s->args);
    if (s->rts)
        fprintf(f, "rts: %s\n", s->rts);
    fprintf(f, "events: %" PRIu64 "\n", s->events);
    fprintf(f, "bytes: %" PRIu64 "\n", res->bytes);
    fprintf(f, "duration: %.6f s\n", stats_sec(res->last_ts));
    fprintf(f, "threads created: %" PRIu64 "\n", s->threads);
    fprintf(f, "gc collections: %" PRIu64 "\n", s->gcs);
    fprintf(f, "gc by generation:");
    for (int g = 0; g < STATS_MAX_GENS; g++)
        if (s->gcs_by_gen[g])
            fprintf(f, " gen%d=%" PRIu64, g, s->gcs_by_gen[g]);
    if (s->gcs_by_gen[STATS_MAX_GENS])
        fprintf(f, " unknown=%" PRIu64, s->gcs_by_gen[STATS_MAX_GENS]);
    fputc('\n', f);
    fprintf(f, "gc pause total: %.6f s\n", stats_sec(s->pause_total));
    fprintf(f, "gc pause max: %.6f s\n", stats_sec(s->pause_max));
    fprintf(f, "gc pause mean: %.6f s\n",
            s->gcs ? stats_sec(s->pause_total) / (double)s->gcs : 0.0);
    fprintf(f, "gc copied: %" PRIu64 " bytes\n", s->copied);
    fprintf(f, "max live: %" PRIu64 " bytes\n", s->max_live);
    fprintf(f, "max heap size: %" PRIu64 " bytes\n", s->max_heap_size);
    if (s->max_blocks_size)
        fprintf(f, "max blocks size: %" PRIu64 " bytes\n", s->max_blocks_size);
    fprintf(f, "allocated: %" PRIu64 " bytes\n", allocated);
    fprintf(f, "heap samples: %" PRIu64 "\n", s->samples);
    if (s->samples || s->breakdown) {
        fprintf(f, "heap profile: %s, interval %.6f s\n",
                stats_breakdown_name(s->breakdown), stats_sec(s->interval_ns));
        fprintf(f, "heap bands: %zu\n", s->bands.n);
        fprintf(f, "max heap sample: %" PRIu64 " bytes at %.6f s\n",
                s->max_sample_total, stats_sec(s->max_sample_ts));
    }
    fprintf(f, "markers: %" PRIu64 "\n", s->markers);
    for (uint64_t i = 0; i < s->markers && i < STATS_MARKERS_SHOWN; i++)
        fprintf(f, "marker: %.6f s %s\n", stats_sec(s->marker_ts[i]),
                s->marker_text[i] ? s->marker_text[i] : "");
    if (s->markers > STATS_MARKERS_SHOWN)
        fprintf(f, "marker: ... (%" PRIu64 " more)\n",
                s->markers - STATS_MARKERS_SHOWN);
    fprintf(f, "user messages: %" PRIu64 "\n", s->user_msgs);
    fprintf(f, "ipe entries: %" PRIu64 "\n", s->ipes);
    if (res->truncated)
        fprintf(f, "truncated at: %" PRIu64 "\n", res->truncated_at);
    if (res->merge.late_events)
        fprintf(f, "late events: %" PRIu64 "\n", res->merge.late_events);
    /* sampled call stacks: allocation, then time */
    if (samples_any(s->sm, SAMPLES_ALLOC))
        stats_print_sites(s->sm, SAMPLES_ALLOC, f);
    if (samples_any(s->sm, SAMPLES_TIME))
        stats_print_sites(s->sm, SAMPLES_TIME, f);
}

static void stats_free(stats_state *s)
{
    samples_free(s->sm);
    free(s->caps);
    hmap_free(&s->bands);
    for (int i = 0; i < STATS_MARKERS_SHOWN; i++)
        free(s->marker_text[i]);
    free(s->rts);
    free(s->args);
    free(s->wanted);
    free(s->counts);
}

static const char stats_about[] =
    "Summarise a run: events, GC collections and pause times, live data,\n"
    "heap size, allocation, heap-profile samples, markers, IPE entries.\n"
    "When the program sampled its call stacks (+RTS --sample-alloc,\n"
    "--sample-time), then the sampled allocation and time: totals (the\n"
    "objects estimated as pprof's alloc_objects), late and truncated\n"
    "samples, and the top sites by innermost frame (the RTS's own frames\n"
    "left out), each named as -hi names its info table, with its bytes or\n"
    "seconds and share of the sampled total.\n";

/* What `rtscope stats` is given. */
typedef struct stats_args {
    cli_input_opts io;
    const char *output;
    int canonical;
} stats_args;

static const opt stats_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(stats_args, output),
     .help = "write to FILE instead of standard output"},
    {.name = "canonical",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(stats_args, canonical),
     .help = "print the canonical summary instead (event counts\n"
             "per type, heap samples, markers, IPE entries), the\n"
             "form testsuite/tools/checkers/GhcEventsCheck.hs prints"},
    OPT_INCLUDE(cli_input_table, stats_args, io),
    OPT_END,
};

static int stats_run(int argc, char **argv)
{
    stats_args a;
    memset(&a, 0, sizeof(a));
    a.output = "-";
    int first =
        opts_parse("stats", argc, argv, &(opts_bind){stats_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (first != argc - 1)
        return cli_usage_error(&cli_cmd_stats, "expected one INPUT");
    cli_input_opts io = a.io;
    const char *output = a.output;
    int canon = a.canonical;
    const char *input = argv[first];
    FILE *out = cli_open_output(output);
    if (!out)
        return CLI_EXIT_USAGE;
    el_reader_result res;
    int rc;
    if (canon) {
        canonical *cs = canonical_new(out);
        if (!cs) {
            fprintf(stderr, "rtscope: out of memory\n");
            return CLI_EXIT_DATA;
        }
        rc = cli_read(input, &io, canonical_sink, cs, &res);
        if (rc == CLI_EXIT_OK && canonical_finish(cs) != 0) {
            fprintf(stderr, "rtscope: %s: out of memory\n", input);
            rc = CLI_EXIT_DATA;
        }
        canonical_free(cs);
    } else {
        /* Decode only what the summary looks at; count everything. */
        static const uint16_t interesting[] = {EL_GC_START,
                                               EL_GC_STATS_GHC,
                                               EL_GC_END,
                                               EL_HEAP_LIVE,
                                               EL_HEAP_SIZE,
                                               EL_BLOCKS_SIZE,
                                               EL_HEAP_ALLOCATED,
                                               EL_CREATE_THREAD,
                                               EL_HEAP_PROF_BEGIN,
                                               EL_HEAP_PROF_SAMPLE_BEGIN,
                                               EL_HEAP_BIO_PROF_SAMPLE_BEGIN,
                                               EL_HEAP_PROF_SAMPLE_STRING,
                                               EL_HEAP_PROF_SAMPLE_COST_CENTRE,
                                               EL_HEAP_PROF_SAMPLE_END,
                                               EL_USER_MARKER,
                                               EL_USER_MSG,
                                               EL_IPE,
                                               EL_RTS_IDENTIFIER,
                                               EL_PROGRAM_ARGS,
                                               EL_USER_BINARY_MSG};
        stats_state s;
        memset(&s, 0, sizeof(s));
        s.wanted = calloc(65536, 1);
        s.counts = calloc(65536, sizeof(uint64_t));
        s.sm = samples_new();
        if (!s.wanted || !s.counts || !s.sm) {
            fprintf(stderr, "rtscope: out of memory\n");
            stats_free(&s);
            return CLI_EXIT_DATA;
        }
        for (size_t i = 0; i < sizeof(interesting) / sizeof(*interesting); i++)
            s.wanted[interesting[i]] = 1;
        io.reader.wanted = s.wanted;
        io.reader.counts = s.counts;
        rc = cli_read(input, &io, stats_sink, &s, &res);
        for (unsigned t = 0; t < 65536; t++)
            if (t != EL_BLOCK_MARKER)
                s.events += s.counts[t];
        if (rc == CLI_EXIT_OK && samples_finish(s.sm) != 0) {
            fprintf(stderr, "rtscope: %s: out of memory\n", input);
            rc = CLI_EXIT_DATA;
        }
        if (rc == CLI_EXIT_OK)
            stats_print(&s, input, &res, out);
        stats_free(&s);
    }
    if (cli_close_output(out, output) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_DATA;
    return rc;
}

const cli_command cli_cmd_stats = {
    .name = "stats",
    .summary = "summarise a run (GC, heap, samples, markers)",
    .synopsis = "rtscope stats [options] INPUT",
    .about = stats_about,
    .opts = stats_opts,
    .run = stats_run,
};
