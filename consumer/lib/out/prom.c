/* Prometheus text exposition of metrics models; see prom.h.
 *
 * Note [Series and cardinality]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every program series is labelled {program, pid}: a restarted program is
 * a new pid and so a new series, never a continuation with a counter reset
 * in the middle. Heap-profile bands are the top N of the latest sample plus
 * a band named "other" that sums the rest, so one program has at most N+1
 * band series at a time whatever its heap holds. Values the runtime never
 * reported (blocks size and memory returned are GHC 9.2 events, which a
 * stock 9.0.2 runtime does not write) are left out rather than shown as 0.
 * Two sources reaching the same program (the same socket given twice) would
 * produce duplicate series, which Prometheus rejects; the second one is
 * skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/prom.h"

#include <stdlib.h>
#include <string.h>

void prom_write_family(FILE *f, const char *name, const char *type,
                       const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void prom_write_label_value(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '"')
            fputs("\\\"", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            putc(*s, f);
    }
}

static void prom_labels(FILE *f, const metrics *m)
{
    fputs("{program=\"", f);
    prom_write_label_value(f, m->program[0] ? m->program : "unknown");
    fprintf(f, "\",pid=\"%lu\"", (unsigned long)m->pid);
}

static void prom_u64(FILE *f, const char *name, const metrics *m,
                     unsigned long long v)
{
    fputs(name, f);
    prom_labels(f, m);
    fprintf(f, "} %llu\n", v);
}

static void prom_dbl(FILE *f, const char *name, const metrics *m, double v)
{
    fputs(name, f);
    prom_labels(f, m);
    fprintf(f, "} %.9g\n", v);
}

/* The models to show: each source's run, once per {program, pid}. */
static size_t prom_models(const prom_source *sources, size_t n,
                          const metrics **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const metrics *m = sources[i].m;
        if (!m || !m->have_pid)
            continue;
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = out[j]->pid == m->pid &&
                  strcmp(out[j]->program, m->program) == 0;
        if (!dup)
            out[k++] = m;
    }
    return k;
}

enum prom_field {
    PF_HEAP_SIZE,
    PF_LIVE,
    PF_BLOCKS,
    PF_MEM_CURRENT,
    PF_MEM_NEEDED,
    PF_MEM_RETURNED,
    PF_MEM_RETURNED_TOTAL,
    PF_ALLOC,
    PF_COPIED,
    PF_SAMPLES,
    PF_SAMPLE_TOTAL,
    PF_SAMPLE_BANDS,
    PF_SAMPLE_TIME,
    PF_IPE,
    PF_EVENTS,
    PF_DROP_BYTES,
    PF_DROP_EVENTS,
    PF_DROP_BLOCKS,
    PF_UPTIME,
    PF_START,
};

typedef struct prom_scalar {
    enum prom_field field;
    const char *name, *type, *help;
} prom_scalar;

static const prom_scalar prom_scalars[] = {
    {PF_HEAP_SIZE, "ghc_heap_size_bytes", "gauge",
     "Memory the RTS holds for the heap (HEAP_SIZE, after each GC)."},
    {PF_LIVE, "ghc_live_bytes", "gauge",
     "Live data after the latest major GC (HEAP_LIVE)."},
    {PF_BLOCKS, "ghc_blocks_size_bytes", "gauge",
     "Bytes in blocks the RTS allocated, after each GC (BLOCKS_SIZE; GHC "
     "9.2 and rtscope runtimes)."},
    {PF_MEM_CURRENT, "ghc_mem_current_bytes", "gauge",
     "Megablocks the RTS held at the latest major GC, in bytes (MEM_RETURN; "
     "GHC 9.2 and rtscope runtimes)."},
    {PF_MEM_NEEDED, "ghc_mem_needed_bytes", "gauge",
     "Megablocks the RTS wanted to keep at the latest major GC, in bytes "
     "(MEM_RETURN)."},
    {PF_MEM_RETURNED, "ghc_mem_returned_bytes", "gauge",
     "Memory the RTS returned to the OS at the latest major GC (MEM_RETURN)."},
    {PF_MEM_RETURNED_TOTAL, "ghc_mem_returned_bytes_total", "counter",
     "Memory the RTS returned to the OS since the program started "
     "(MEM_RETURN)."},
    {PF_ALLOC, "ghc_allocated_bytes_total", "counter",
     "Bytes allocated since the program started (HEAP_ALLOCATED, all "
     "capabilities)."},
    {PF_COPIED, "ghc_gc_copied_bytes_total", "counter",
     "Bytes copied by the GC since the program started."},
    {PF_SAMPLES, "ghc_heap_samples_total", "counter",
     "Heap profile samples (censuses) received."},
    {PF_SAMPLE_TOTAL, "ghc_heap_sample_bytes", "gauge",
     "Residency of the latest heap sample, all bands."},
    {PF_SAMPLE_BANDS, "ghc_heap_sample_bands", "gauge",
     "Bands in the latest heap sample (before the top-N cut)."},
    {PF_SAMPLE_TIME, "ghc_heap_sample_time_seconds", "gauge",
     "Program time of the latest heap sample."},
    {PF_IPE, "ghc_ipe_entries", "gauge",
     "Info-table provenance entries received."},
    {PF_EVENTS, "ghc_eventlog_events_total", "counter",
     "Events received from the program's eventlog socket."},
    {PF_DROP_BYTES, "ghc_eventlog_dropped_bytes_total", "counter",
     "Eventlog bytes the socket dropped for this client (it read too "
     "slowly)."},
    {PF_DROP_EVENTS, "ghc_eventlog_dropped_events_total", "counter",
     "Events the eventlog socket dropped for this client."},
    {PF_DROP_BLOCKS, "ghc_eventlog_dropped_blocks_total", "counter",
     "Eventlog blocks the socket dropped for this client."},
    {PF_UPTIME, "ghc_uptime_seconds", "gauge",
     "Program time of the latest event received."},
    {PF_START, "ghc_start_time_seconds", "gauge",
     "Unix time the program started (from its wall-clock event)."},
};

/* Whether field `f` is known for `m`, and its value. */
static int prom_value(const metrics *m, enum prom_field f, double *v)
{
    switch (f) {
    case PF_HEAP_SIZE:
        *v = (double)m->heap_size;
        return m->have_heap_size;
    case PF_LIVE:
        *v = (double)m->live_bytes;
        return m->have_live_bytes;
    case PF_BLOCKS:
        *v = (double)m->blocks_size;
        return m->have_blocks_size;
    case PF_MEM_CURRENT:
        *v = (double)m->mem_current;
        return m->have_mem;
    case PF_MEM_NEEDED:
        *v = (double)m->mem_needed;
        return m->have_mem;
    case PF_MEM_RETURNED:
        *v = (double)m->mem_returned;
        return m->have_mem;
    case PF_MEM_RETURNED_TOTAL:
        *v = (double)m->mem_returned_total;
        return m->have_mem;
    case PF_ALLOC:
        *v = (double)m->allocated;
        return 1;
    case PF_COPIED:
        *v = (double)m->gc_copied;
        return 1;
    case PF_SAMPLES:
        *v = (double)m->samples;
        return 1;
    case PF_SAMPLE_TOTAL:
        *v = (double)m->latest.total;
        return m->samples > 0;
    case PF_SAMPLE_BANDS:
        *v = (double)m->latest.nbands;
        return m->samples > 0;
    case PF_SAMPLE_TIME:
        *v = (double)m->latest.ts / 1e9;
        return m->samples > 0;
    case PF_IPE:
        *v = (double)m->ipe_count;
        return 1;
    case PF_EVENTS:
        *v = (double)m->events;
        return 1;
    case PF_DROP_BYTES:
        *v = (double)m->dropped_bytes;
        return 1;
    case PF_DROP_EVENTS:
        *v = (double)m->dropped_events;
        return 1;
    case PF_DROP_BLOCKS:
        *v = (double)m->dropped_blocks;
        return 1;
    case PF_UPTIME:
        *v = (double)m->last_ts / 1e9;
        return 1;
    case PF_START:
        *v = (double)m->wall_offset_ns / 1e9;
        return m->have_wall;
    }
    return 0;
}

/* ghc_up: whether each program's stream is still being received. */
static void prom_write_up(FILE *f, const metrics **ms, size_t k,
                          const prom_source *sources, size_t n)
{
    prom_write_family(f, "ghc_up", "gauge",
                      "1 while rtscope receives the program's eventlog, 0 "
                      "once its stream ended.");
    for (size_t i = 0; i < k; i++) {
        int up = 0;
        for (size_t j = 0; j < n; j++)
            if (sources[j].m == ms[i])
                up = !sources[j].ended;
        prom_u64(f, "ghc_up", ms[i], (unsigned long long)up);
    }
}

/* Every family of prom_scalars[] that some program has a value for. */
static void prom_write_scalars(FILE *f, const metrics **ms, size_t k)
{
    for (size_t s = 0; s < sizeof(prom_scalars) / sizeof(prom_scalars[0]);
         s++) {
        const prom_scalar *ps = &prom_scalars[s];
        int header = 0;
        for (size_t i = 0; i < k; i++) {
            double v;
            if (!prom_value(ms[i], ps->field, &v))
                continue;
            if (!header++)
                prom_write_family(f, ps->name, ps->type, ps->help);
            if (ps->field == PF_SAMPLE_TIME || ps->field == PF_UPTIME ||
                ps->field == PF_START)
                prom_dbl(f, ps->name, ms[i], v);
            else
                prom_u64(f, ps->name, ms[i], (unsigned long long)v);
        }
    }
}

/* Collections by generation, the pause histogram and the longest pause. */
static void prom_write_gc(FILE *f, const metrics **ms, size_t k)
{
    prom_write_family(f, "ghc_gc_collections_total", "counter",
                      "Garbage collections by generation (gen=\"other\": "
                      "generation unknown or beyond 7).");
    for (size_t i = 0; i < k; i++) {
        for (int g = 0; g <= METRICS_MAX_GENS; g++) {
            if (!ms[i]->gc_by_gen[g] && g > 1)
                continue;
            fputs("ghc_gc_collections_total", f);
            prom_labels(f, ms[i]);
            if (g == METRICS_MAX_GENS)
                fputs(",gen=\"other\"", f);
            else
                fprintf(f, ",gen=\"%d\"", g);
            fprintf(f, "} %llu\n", (unsigned long long)ms[i]->gc_by_gen[g]);
        }
    }

    prom_write_family(f, "ghc_gc_pause_seconds", "histogram",
                      "Stop-the-world GC pauses (GC_START to GC_END of the "
                      "capability that led the collection).");
    for (size_t i = 0; i < k; i++) {
        const metrics *m = ms[i];
        unsigned long long cum = 0;
        for (int b = 0; b <= METRICS_PAUSE_BUCKETS; b++) {
            cum += m->pause_hist[b];
            fputs("ghc_gc_pause_seconds_bucket", f);
            prom_labels(f, m);
            if (b == METRICS_PAUSE_BUCKETS)
                fputs(",le=\"+Inf\"", f);
            else
                fprintf(f, ",le=\"%g\"", metrics_pause_bounds[b]);
            fprintf(f, "} %llu\n", cum);
        }
        prom_dbl(f, "ghc_gc_pause_seconds_sum", m,
                 (double)m->pause_sum_ns / 1e9);
        prom_u64(f, "ghc_gc_pause_seconds_count", m,
                 (unsigned long long)m->gc_count);
    }
    prom_write_family(f, "ghc_gc_pause_max_seconds", "gauge",
                      "Longest GC pause so far.");
    for (size_t i = 0; i < k; i++)
        prom_dbl(f, "ghc_gc_pause_max_seconds", ms[i],
                 (double)ms[i]->pause_max_ns / 1e9);
}

/* The latest heap sample's top bands and "other" (Note [Series and
 * cardinality]). */
static void prom_write_bands(FILE *f, const metrics **ms, size_t k)
{
    int header = 0;
    for (size_t i = 0; i < k; i++) {
        const metrics *m = ms[i];
        if (!m->samples)
            continue;
        if (!header++)
            prom_write_family(f, "ghc_heap_band_bytes", "gauge",
                              "Residency per band of the latest heap "
                              "sample: the top N bands, the rest summed in "
                              "band=\"other\" (-hi bands named "
                              "TABLE@SOURCE from IPE).");
        for (size_t b = 0; b < m->latest.ntop; b++) {
            fputs("ghc_heap_band_bytes", f);
            prom_labels(f, m);
            fputs(",band=\"", f);
            prom_write_label_value(f, m->latest.top[b].name);
            fprintf(f, "\"} %llu\n",
                    (unsigned long long)m->latest.top[b].bytes);
        }
        fputs("ghc_heap_band_bytes", f);
        prom_labels(f, m);
        fprintf(f, ",band=\"other\"} %llu\n",
                (unsigned long long)m->latest.other);
    }
}

/* The heap-profiling mode of each program that profiles. */
static void prom_write_profile_info(FILE *f, const metrics **ms, size_t k)
{
    int header = 0;
    for (size_t i = 0; i < k; i++) {
        const metrics *m = ms[i];
        if (!m->profiling)
            continue;
        if (!header++)
            prom_write_family(f, "ghc_heap_profile_info", "gauge",
                              "Heap profiling mode of the program (always "
                              "1).");
        fputs("ghc_heap_profile_info", f);
        prom_labels(f, m);
        fprintf(f, ",breakdown=\"%s\",interval_seconds=\"%g\"} 1\n",
                metrics_breakdown_flag(m->breakdown),
                (double)m->interval_ns / 1e9);
    }
}

static void prom_write_programs(FILE *f, const metrics **ms, size_t k,
                                const prom_source *sources, size_t n)
{
    prom_write_up(f, ms, k, sources, n);
    prom_write_scalars(f, ms, k);
    prom_write_gc(f, ms, k);
    prom_write_bands(f, ms, k);
    prom_write_profile_info(f, ms, k);
}

static void prom_target_family(FILE *f, const prom_source *sources, size_t n,
                               const char *name, const char *type,
                               const char *help, int which)
{
    prom_write_family(f, name, type, help);
    for (size_t i = 0; i < n; i++) {
        const prom_source *t = &sources[i];
        unsigned long long v = 0;
        switch (which) {
        case 0:
            v = t->receiving && t->m && !t->ended;
            break;
        case 1:
            v = t->connects;
            break;
        case 2:
            v = t->failures;
            break;
        case 3:
            v = t->runs;
            break;
        default:
            v = t->read_bytes;
            break;
        }
        fprintf(f, "%s{target=\"", name);
        prom_write_label_value(f, t->spec);
        fprintf(f, "\"} %llu\n", v);
    }
}

void prom_write_sources(FILE *f, const prom_source *sources, size_t n)
{
    const metrics *stack[64];
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
    const metrics **ms = n <= 64 ? stack : calloc(n, sizeof(metrics *));
    if (ms) {
        size_t k = prom_models(sources, n, ms);
        prom_write_programs(f, ms, k, sources, n);
        if (ms != stack)
            free((void *)ms);
    }
    prom_target_family(f, sources, n, "rtscope_target_up", "gauge",
                       "1 while the target's eventlog is being received.", 0);
    prom_target_family(f, sources, n, "rtscope_target_connects_total",
                       "counter", "Connection attempts to the target.", 1);
    prom_target_family(f, sources, n, "rtscope_target_failures_total",
                       "counter", "Failed connections and malformed streams.",
                       2);
    prom_target_family(f, sources, n, "rtscope_target_runs_total", "counter",
                       "Program runs seen on the target (one per "
                       "connection that delivered an eventlog).",
                       3);
    prom_target_family(f, sources, n, "rtscope_target_read_bytes_total",
                       "counter", "Bytes read from the target.", 4);
}
