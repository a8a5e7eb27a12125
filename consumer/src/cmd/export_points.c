/* rtscope export: the InfluxDB points of a followed run (ghc_rts,
 * ghc_heap_census, ghc_heap_band, ghc_marker). */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include "cli.h"

#include <curl/curl.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* InfluxDB points.                                                        */

/* "measurement,program=P,pid=N" into ex->line; returns its length. */
static size_t export_series(exporter *ex, const char *measurement,
                            const metrics *m)
{
    char prog[300];
    influx_escape_tag(prog, sizeof(prog),
                      m->program[0] ? m->program : "unknown");
    int n = snprintf(ex->line, sizeof(ex->line), "%s,program=%s,pid=%lu",
                     measurement, prog, (unsigned long)m->pid);
    return n < 0 ? 0 : (size_t)n;
}

static void export_add(exporter *ex, size_t n)
{
    if (n < sizeof(ex->line))
        influx_add(ex->ix, ex->line, n);
}

#define EXPORT_APPEND(ex, n, ...)                                              \
    do {                                                                       \
        if ((n) < sizeof((ex)->line)) {                                        \
            int w_ = snprintf((ex)->line + (n), sizeof((ex)->line) - (n),      \
                              __VA_ARGS__);                                    \
            (n) += w_ < 0 ? 0 : (size_t)w_;                                    \
        }                                                                      \
    } while (0)

void export_rts_point(export_follow *fl, uint64_t ts)
{
    exporter *ex = fl->ex;
    const metrics *m = fl->t->m;
    if (fl->rts_written && ts <= fl->last_rts_ts)
        return; /* never send a point older than one already sent */
    uint64_t major = 0;
    for (int g = 1; g <= METRICS_MAX_GENS; g++)
        major += m->gc_by_gen[g];
    size_t n = export_series(ex, "ghc_rts", m);
    EXPORT_APPEND(
        ex, n,
        " allocated=%llui,gc_count=%llui,gc_major=%llui,"
        "gc_pause_total=%.9g,gc_pause_max=%.9g,gc_copied=%llui,"
        "dropped_bytes=%llui,events=%llui",
        (unsigned long long)m->allocated, (unsigned long long)m->gc_count,
        (unsigned long long)major, (double)m->pause_sum_ns / 1e9,
        (double)m->pause_max_ns / 1e9, (unsigned long long)m->gc_copied,
        (unsigned long long)m->dropped_bytes, (unsigned long long)m->events);
    if (m->have_heap_size)
        EXPORT_APPEND(ex, n, ",heap_size=%llui",
                      (unsigned long long)m->heap_size);
    if (m->have_live_bytes)
        EXPORT_APPEND(ex, n, ",live_bytes=%llui",
                      (unsigned long long)m->live_bytes);
    if (m->have_blocks_size)
        EXPORT_APPEND(ex, n, ",blocks_size=%llui",
                      (unsigned long long)m->blocks_size);
    if (m->have_mem)
        EXPORT_APPEND(ex, n,
                      ",mem_current=%llui,mem_needed=%llui,mem_returned=%llui,"
                      "mem_returned_total=%llui",
                      (unsigned long long)m->mem_current,
                      (unsigned long long)m->mem_needed,
                      (unsigned long long)m->mem_returned,
                      (unsigned long long)m->mem_returned_total);
    EXPORT_APPEND(ex, n, " %lld", (long long)metrics_unix_ns(m, ts));
    export_add(ex, n);
    fl->last_rts_ts = ts;
    fl->rts_written = 1;
    fl->rts_dirty = 0;
}

static void export_sample_points(export_follow *fl)
{
    exporter *ex = fl->ex;
    const metrics *m = fl->t->m;
    const metrics_sample *s = &m->latest;
    int64_t when = metrics_unix_ns(m, s->ts);
    if (fl->sample_written && s->ts <= fl->last_sample_ts)
        return; /* never a census older than one already sent */
    fl->last_sample_ts = s->ts;
    fl->sample_written = 1;
    size_t n = export_series(ex, "ghc_heap_census", m);
    EXPORT_APPEND(ex, n,
                  " total=%llui,bands=%llui,other=%llui,sample=%llui %lld",
                  (unsigned long long)s->total, (unsigned long long)s->nbands,
                  (unsigned long long)s->other, (unsigned long long)m->samples,
                  (long long)when);
    export_add(ex, n);
    char band[1024];
    for (size_t i = 0; i <= s->ntop; i++) {
        const char *name = i < s->ntop ? s->top[i].name : "other";
        uint64_t bytes = i < s->ntop ? s->top[i].bytes : s->other;
        if (influx_escape_tag(band, sizeof(band), name) >= sizeof(band))
            continue;
        n = export_series(ex, "ghc_heap_band", m);
        EXPORT_APPEND(ex, n, ",band=%s bytes=%llui %lld", band,
                      (unsigned long long)bytes, (long long)when);
        export_add(ex, n);
    }
}

static void export_marker_point(export_follow *fl)
{
    exporter *ex = fl->ex;
    const metrics *m = fl->t->m;
    const metrics_marker *mk = &m->markers[(m->nmarkers - 1) % METRICS_MARKERS];
    char text[256];
    influx_escape_string(text, sizeof(text), mk->text);
    size_t n = export_series(ex, "ghc_marker", m);
    EXPORT_APPEND(ex, n, " text=%s %lld", text,
                  (long long)metrics_unix_ns(m, mk->ts));
    export_add(ex, n);
}

/* The last event the RTS writes at the end of a GC, after which a ghc_rts
 * point holds that GC's values: BLOCKS_SIZE (right after HEAP_SIZE) when the
 * stream's header declares it (GHC 9.2, rtscope's runtime), else HEAP_SIZE
 * (a stock 9.0.2). */
static uint16_t export_gc_last_event(const target *t)
{
    uint16_t size;
    const el_typetab *types = target_types(t);
    if (types && el_typetab_lookup(types, EL_BLOCKS_SIZE, &size) == 0)
        return EL_BLOCKS_SIZE;
    return EL_HEAP_SIZE;
}

void export_on_event(void *ctx, target *t, const el_event *ev, unsigned changed)
{
    export_follow *fl = ctx;
    exporter *ex = fl->ex;
    if (!ev) {
        if (changed == 0) { /* a run begins */
            fl->rts_written = 0;
            fl->rts_dirty = 0;
            fl->last_rts_ts = 0;
            fl->last_sample_ts = 0;
            fl->sample_written = 0;
        } else if (ex->ix && t->m && t->m->have_wall && t->m->have_pid &&
                   fl->rts_dirty) {
            export_rts_point(fl, t->m->last_ts); /* the run's final state */
        }
        return;
    }
    if (!ex->ix || !changed || !t->m->have_wall || !t->m->have_pid)
        return;
    if (changed &
        (METRICS_CHANGED_HEAP | METRICS_CHANGED_GC | METRICS_CHANGED_LOSS))
        fl->rts_dirty = 1;
    if (changed & METRICS_CHANGED_SAMPLE)
        export_sample_points(fl);
    if (changed & METRICS_CHANGED_MARKER)
        export_marker_point(fl);
    if (fl->rts_dirty &&
        (ev->type == export_gc_last_event(t) || ev->type == EL_USER_MSG) &&
        (!fl->rts_written || ev->ts >= fl->last_rts_ts + ex->interval_ns))
        export_rts_point(fl, ev->ts);
}
