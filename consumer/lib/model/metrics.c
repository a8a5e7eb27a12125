/* The metrics model of one program run; see metrics.h.
 *
 * Note [Which events make the model]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC 9.0.2 posts, at the end of every GC, GC_STATS (on the capability
 * that led the GC, before its GC_END), HEAP_ALLOCATED per capability (that
 * capability's total, into its own buffer), HEAP_SIZE, and HEAP_LIVE after
 * major GCs only. So allocation is the sum of the latest per-capability
 * totals, a collection is the GC_END of the capability that wrote GC_STATS
 * (every GC thread writes GC_START/GC_END), and its pause is that
 * capability's GC_START..GC_END. Only per-capability order matters, which
 * the decoder keeps whatever the merge does. Heap samples are written into
 * the global buffer as SAMPLE_BEGIN, one SAMPLE_STRING per band, SAMPLE_END;
 * a sample replaces `latest` only once complete, so a reader never sees half
 * a census. MEM_RETURN (after each major GC) and BLOCKS_SIZE (after each
 * GC, with HEAP_SIZE) are GHC 9.2 events that rtscope's patched 9.0.2 RTS
 * writes too: reported when a runtime writes them, absent otherwise
 * (have_* stay 0, as with a stock 9.0.2).
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double metrics_pause_bounds[METRICS_PAUSE_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,  0.05,    0.1,    0.25,  0.5,    1.0,
};

#define METRICS_LOSS_PREFIX "rtscope: eventlog-socket dropped "

metrics *metrics_new(size_t top_n)
{
    metrics *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->names = bands_new();
    if (!m->names) {
        free(m);
        return NULL;
    }
    m->top_n = top_n ? top_n : METRICS_DEFAULT_TOP;
    m->mblock_size = 1u << 20;
    return m;
}

static void metrics_clear_pending(metrics *m)
{
    for (size_t i = 0; i < m->npending; i++)
        free(m->pending[i].label);
    m->npending = 0;
}

static void metrics_clear_sample(metrics_sample *s)
{
    for (size_t i = 0; i < s->ntop; i++)
        free(s->top[i].name);
    free(s->top);
    memset(s, 0, sizeof(*s));
}

void metrics_free(metrics *m)
{
    if (!m)
        return;
    metrics_clear_pending(m);
    free(m->pending);
    metrics_clear_sample(&m->latest);
    bands_free(m->names);
    free(m->ccs_buf);
    free(m->caps);
    free(m);
}

void metrics_wanted(uint8_t wanted[65536])
{
    static const uint16_t types[] = {
        EL_GC_START,
        EL_GC_END,
        EL_GC_STATS_GHC,
        EL_HEAP_ALLOCATED,
        EL_HEAP_SIZE,
        EL_HEAP_LIVE,
        EL_HEAP_INFO_GHC,
        EL_BLOCKS_SIZE,
        EL_MEM_RETURN,
        EL_PROGRAM_ARGS,
        EL_OSPROCESS_PID,
        EL_WALL_CLOCK_TIME,
        EL_HEAP_PROF_BEGIN,
        EL_HEAP_PROF_SAMPLE_BEGIN,
        EL_HEAP_PROF_SAMPLE_STRING,
        EL_HEAP_PROF_SAMPLE_END,
        EL_HEAP_BIO_PROF_SAMPLE_BEGIN,
        EL_IPE,
        EL_HEAP_PROF_COST_CENTRE,
        EL_HEAP_PROF_SAMPLE_COST_CENTRE,
        EL_USER_MARKER,
        EL_USER_MSG,
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        wanted[types[i]] = 1;
}

int64_t metrics_unix_ns(const metrics *m, uint64_t ts)
{
    int64_t unix_ns;
    if (!m->have_wall)
        return 0;
    /* A corrupt stream's timestamp can be anything: saturate rather than
     * overflow (ts >= 0, so only the upper bound can be crossed). */
    if (__builtin_add_overflow(ts, m->wall_offset_ns, &unix_ns))
        return INT64_MAX;
    return unix_ns;
}

const char *metrics_breakdown_flag(uint32_t breakdown)
{
    switch (breakdown) {
    case EL_BREAKDOWN_COST_CENTRE:
        return "-hc";
    case EL_BREAKDOWN_MODULE:
        return "-hm";
    case EL_BREAKDOWN_CLOSURE_DESCR:
        return "-hd";
    case EL_BREAKDOWN_TYPE_DESCR:
        return "-hy";
    case EL_BREAKDOWN_RETAINER:
        return "-hr";
    case EL_BREAKDOWN_BIOGRAPHY:
        return "-hb";
    case EL_BREAKDOWN_CLOSURE_TYPE:
        return "-hT";
    case EL_BREAKDOWN_INFO_TABLE:
        return "-hi";
    default:
        return "-h?";
    }
}

static int metrics_parse_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (s >= end || *s < '0' || *s > '9')
        return 0;
    while (s < end && *s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
    }
    *p = s;
    *out = v;
    return 1;
}

static int metrics_expect(const char **p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return 0;
    *p += n;
    return 1;
}

int metrics_parse_loss(const char *text, size_t len, uint64_t *bytes,
                       uint64_t *events, uint64_t *blocks)
{
    const char *p = text, *end = text + len;
    return metrics_expect(&p, end, METRICS_LOSS_PREFIX) &&
           metrics_parse_u64(&p, end, bytes) &&
           metrics_expect(&p, end, " bytes (") &&
           metrics_parse_u64(&p, end, events) &&
           metrics_expect(&p, end, " events in ") &&
           metrics_parse_u64(&p, end, blocks) &&
           metrics_expect(&p, end, " blocks)");
}

static metrics_cap *metrics_cap_of(metrics *m, uint16_t cap)
{
    if (cap == EL_CAP_NONE)
        cap = 0;
    if (cap >= m->ncaps) {
        unsigned n = (unsigned)cap + 1;
        metrics_cap *nc = realloc(m->caps, n * sizeof(*nc));
        if (!nc) {
            m->nomem = 1;
            return NULL;
        }
        memset(nc + m->ncaps, 0, (n - m->ncaps) * sizeof(*nc));
        m->caps = nc;
        m->ncaps = n;
    }
    return &m->caps[cap];
}

static char *metrics_strdup(const char *p, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    memcpy(s, p, len);
    s[len] = 0;
    return s;
}

/* The band name of a sample label: for -hi the IPE name of the address,
 * else the label itself (bands.h: as hp and html name it). */
static char *metrics_band_name(const metrics *m, const char *label)
{
    el_str l = {label, strlen(label)};
    return bands_label_name(m->names, l);
}

static int metrics_band_cmp(const void *a, const void *b)
{
    const metrics_pending *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->label, y->label);
}

static void metrics_end_sample(metrics *m)
{
    metrics_sample s;
    memset(&s, 0, sizeof(s));
    s.ts = m->sample_ts;
    s.nbands = m->npending;
    if (m->npending > 1) /* an empty census has no array to sort */
        qsort(m->pending, m->npending, sizeof(*m->pending), metrics_band_cmp);
    size_t keep = m->npending < m->top_n ? m->npending : m->top_n;
    s.top = keep ? calloc(keep, sizeof(*s.top)) : NULL;
    if (keep && !s.top) {
        m->nomem = 1;
        keep = 0;
    }
    for (size_t i = 0; i < m->npending; i++) {
        uint64_t b = m->pending[i].bytes;
        s.total += b;
        if (i < keep) {
            s.top[i].name = metrics_band_name(m, m->pending[i].label);
            s.top[i].bytes = b;
            if (!s.top[i].name) {
                m->nomem = 1;
                s.other += b;
                continue;
            }
            s.ntop++;
        } else {
            s.other += b;
        }
    }
    metrics_clear_pending(m);
    metrics_clear_sample(&m->latest);
    m->latest = s;
    m->samples++;
    m->in_sample = 0;
}

static void metrics_add_band(metrics *m, el_str label, uint64_t bytes)
{
    if (m->npending == m->pending_cap) {
        size_t nc = m->pending_cap ? m->pending_cap * 2 : 64;
        metrics_pending *np = realloc(m->pending, nc * sizeof(*np));
        if (!np) {
            m->nomem = 1;
            return;
        }
        m->pending = np;
        m->pending_cap = nc;
    }
    char *l = metrics_strdup(label.ptr, label.len);
    if (!l) {
        m->nomem = 1;
        return;
    }
    m->pending[m->npending].label = l;
    m->pending[m->npending].bytes = bytes;
    m->npending++;
}

static void metrics_set_ipe(metrics *m, const el_event *ev)
{
    if (bands_take(m->names, ev) != 0)
        m->nomem = 1;
    else
        m->ipe_count = ipe_table_count(bands_ipe_table(m->names));
}

static void metrics_set_program(metrics *m, el_str vec)
{
    /* argv[0] is the first NUL-separated string; keep its basename */
    size_t n = 0;
    while (n < vec.len && vec.ptr[n])
        n++;
    const char *s = vec.ptr;
    for (size_t i = 0; i < n; i++)
        if (vec.ptr[i] == '/')
            s = vec.ptr + i + 1;
    size_t len = (size_t)(vec.ptr + n - s);
    if (len >= sizeof(m->program))
        len = sizeof(m->program) - 1;
    memcpy(m->program, s, len);
    m->program[len] = 0;
}

static void metrics_gc_end(metrics *m, metrics_cap *c, uint64_t ts)
{
    uint64_t p = ts >= c->gc_start ? ts - c->gc_start : 0;
    m->gc_count++;
    m->pause_sum_ns += p;
    m->pause_last_ns = p;
    if (p > m->pause_max_ns)
        m->pause_max_ns = p;
    unsigned b = 0;
    while (b < METRICS_PAUSE_BUCKETS &&
           (double)p > metrics_pause_bounds[b] * 1e9)
        b++;
    m->pause_hist[b]++;
    int g =
        c->gen < 0 || c->gen >= METRICS_MAX_GENS ? METRICS_MAX_GENS : c->gen;
    m->gc_by_gen[g]++;
}

/* GC_START, GC_STATS, GC_END: Note [Which events make the model] */
static unsigned metrics_feed_gc(metrics *m, const el_event *ev)
{
    if (ev->type == EL_GC_STATS_GHC)
        m->gc_copied += ev->u.gc_stats.copied;
    metrics_cap *c = metrics_cap_of(m, ev->cap);
    if (!c)
        return 0;
    switch (ev->type) {
    case EL_GC_START:
        c->gc_start = ev->ts;
        c->in_gc = 1;
        c->gen = -1;
        return 0;
    case EL_GC_STATS_GHC:
        c->gen = ev->u.gc_stats.gen;
        return 0;
    default: { /* EL_GC_END */
        unsigned changed = 0;
        if (c->in_gc && c->gen >= 0) {
            metrics_gc_end(m, c, ev->ts);
            changed = METRICS_CHANGED_GC;
        }
        c->in_gc = 0;
        c->gen = -1;
        return changed;
    }
    }
}

/* Allocation, heap size, live bytes, blocks, memory returned. */
static unsigned metrics_feed_heap(metrics *m, const el_event *ev)
{
    metrics_cap *c;
    switch (ev->type) {
    case EL_HEAP_ALLOCATED:
        if ((c = metrics_cap_of(m, ev->cap)) &&
            ev->u.heap.bytes >= c->allocated) {
            m->allocated += ev->u.heap.bytes - c->allocated;
            c->allocated = ev->u.heap.bytes;
        }
        return METRICS_CHANGED_HEAP;
    case EL_HEAP_SIZE:
        m->heap_size = ev->u.heap.bytes;
        m->have_heap_size = 1;
        if (m->heap_size > m->max_heap_size)
            m->max_heap_size = m->heap_size;
        return METRICS_CHANGED_HEAP;
    case EL_HEAP_LIVE:
        m->live_bytes = ev->u.heap.bytes;
        m->have_live_bytes = 1;
        return METRICS_CHANGED_HEAP;
    case EL_BLOCKS_SIZE:
        m->blocks_size = ev->u.heap.bytes;
        m->have_blocks_size = 1;
        return METRICS_CHANGED_HEAP;
    case EL_MEM_RETURN:
        /* megablocks, as GHC 9.2 writes them */
        m->mem_current = (uint64_t)ev->u.mem_return.current * m->mblock_size;
        m->mem_needed = (uint64_t)ev->u.mem_return.needed * m->mblock_size;
        m->mem_returned = (uint64_t)ev->u.mem_return.returned * m->mblock_size;
        m->mem_returned_total += m->mem_returned;
        m->have_mem = 1;
        return METRICS_CHANGED_HEAP;
    default: /* EL_HEAP_INFO_GHC */
        if (ev->u.heap_info.mblock_size)
            m->mblock_size = ev->u.heap_info.mblock_size;
        return 0;
    }
}

/* The wall clock's offset from the eventlog's clock. */
static unsigned metrics_set_wall(metrics *m, const el_event *ev)
{
    /* A wall clock whose offset does not fit in 64 bits comes from a
     * corrupt stream: ignore it rather than overflow. */
    uint64_t wall_ns;
    int64_t offset;
    if (__builtin_mul_overflow(ev->u.wall_clock.sec, 1000000000ull, &wall_ns) ||
        __builtin_add_overflow(wall_ns, ev->u.wall_clock.nsec, &wall_ns) ||
        __builtin_sub_overflow(wall_ns, ev->ts, &offset))
        return 0;
    m->wall_offset_ns = offset;
    m->have_wall = 1;
    return METRICS_CHANGED_IDENTITY;
}

/* The heap profile: its start, cost centres and IPE names, censuses. */
static unsigned metrics_feed_profile(metrics *m, const el_event *ev)
{
    switch (ev->type) {
    case EL_HEAP_PROF_BEGIN:
        if (bands_take(m->names, ev) != 0)
            m->nomem = 1;
        m->profiling = 1;
        m->breakdown = ev->u.heap_prof_begin.breakdown;
        m->interval_ns = ev->u.heap_prof_begin.interval_ns;
        return METRICS_CHANGED_PROFILE;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        metrics_clear_pending(m);
        m->in_sample = 1;
        m->sample_ts = ev->ts;
        return 0;
    case EL_HEAP_PROF_SAMPLE_STRING:
        if (m->in_sample)
            metrics_add_band(m, ev->u.sample_string.label,
                             ev->u.sample_string.residency);
        return 0;
    case EL_HEAP_PROF_COST_CENTRE:
        if (bands_take(m->names, ev) != 0)
            m->nomem = 1;
        return 0;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
        if (m->in_sample) {
            size_t len;
            if (bands_ccs_name(m->names, ev, &m->ccs_buf, &m->ccs_cap, &len) !=
                0) {
                m->nomem = 1;
                return 0;
            }
            el_str l = {m->ccs_buf, len};
            metrics_add_band(m, l, ev->u.sample_cc.residency);
        }
        return 0;
    case EL_HEAP_PROF_SAMPLE_END:
        if (!m->in_sample)
            return 0;
        metrics_end_sample(m);
        return METRICS_CHANGED_SAMPLE;
    default: /* EL_IPE */
        metrics_set_ipe(m, ev);
        return 0;
    }
}

/* A user marker into the ring of the latest ones, made printable. */
static unsigned metrics_add_marker(metrics *m, const el_event *ev)
{
    metrics_marker *mk = &m->markers[m->nmarkers % METRICS_MARKERS];
    el_str t = ev->u.msg.text;
    size_t n = t.len < sizeof(mk->text) - 1 ? t.len : sizeof(mk->text) - 1;
    mk->ts = ev->ts;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)t.ptr[i];
        mk->text[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    mk->text[n] = 0;
    m->nmarkers++;
    return METRICS_CHANGED_MARKER;
}

/* A user message: the eventlog socket's report of what it dropped, if it
 * is one. */
static unsigned metrics_note_loss(metrics *m, el_str text)
{
    uint64_t b, e, k;
    if (text.len < sizeof(METRICS_LOSS_PREFIX) - 1 ||
        !metrics_parse_loss(text.ptr, text.len, &b, &e, &k))
        return 0;
    m->dropped_bytes += b;
    m->dropped_events += e;
    m->dropped_blocks += k;
    m->loss_reports++;
    return METRICS_CHANGED_LOSS;
}

unsigned metrics_feed(metrics *m, const el_event *ev)
{
    m->events++;
    if (ev->ts > m->last_ts)
        m->last_ts = ev->ts;
    switch (ev->type) {
    case EL_GC_START:
    case EL_GC_STATS_GHC:
    case EL_GC_END:
        return metrics_feed_gc(m, ev);
    case EL_HEAP_ALLOCATED:
    case EL_HEAP_SIZE:
    case EL_HEAP_LIVE:
    case EL_BLOCKS_SIZE:
    case EL_MEM_RETURN:
    case EL_HEAP_INFO_GHC:
        return metrics_feed_heap(m, ev);
    case EL_PROGRAM_ARGS:
        metrics_set_program(m, ev->u.capset_vec.vec);
        return METRICS_CHANGED_IDENTITY;
    case EL_OSPROCESS_PID:
        m->pid = ev->u.pid.pid;
        m->have_pid = 1;
        return METRICS_CHANGED_IDENTITY;
    case EL_WALL_CLOCK_TIME:
        return metrics_set_wall(m, ev);
    case EL_HEAP_PROF_BEGIN:
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
    case EL_HEAP_PROF_SAMPLE_STRING:
    case EL_HEAP_PROF_COST_CENTRE:
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
    case EL_HEAP_PROF_SAMPLE_END:
    case EL_IPE:
        return metrics_feed_profile(m, ev);
    case EL_USER_MARKER:
        return metrics_add_marker(m, ev);
    case EL_USER_MSG:
        return metrics_note_loss(m, ev->u.msg.text);
    default:
        return 0;
    }
}
