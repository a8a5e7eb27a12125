/* The heap-profile model: see profile.h.
 *
 * Note [profile statistics]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * A profile has N censuses at times t_0 < ... < t_{N-1}; band b has value
 * v_i in census i, 0 when absent. The report gives, per band:
 *
 *   integrated size  sum_i v_i * w_i,  w_i = (t_{i+1} - t_{i-1}) / 2
 *                    (t_{-1} = t_0, t_N = t_{N-1}): the trapezoid rule
 *                    between census times, in MiB*s
 *   mean, stddev     over all N censuses (population standard deviation)
 *   slope, intercept the least-squares line v = intercept + slope * t
 *   R^2              cov(t,v)^2 / (var(t) var(v)); 0 when either is 0
 *
 * All of these are sums over the censuses where the band is present (an
 * absent census adds 0 to sum v, sum v^2, sum t v and the integral), plus
 * sums over census times that every band shares; so one update per sample
 * value suffices and the band's series never needs to be kept. The only
 * delay: w_i needs t_{i+1}, so the values of census i (cur_v, which also
 * collects several values with the same label) are committed to their
 * bands' sums when census i+1 begins, or at the end. The model thus needs
 * the times of the last two censuses only. The time variance var(t) is
 * computed in two passes over the census times while they are all kept
 * (opts.max_times, default all); a model that must not grow with the run
 * (rtscope serve) keeps Welford's running mean and sum of squares instead,
 * and profile_view() gives the statistics of a run still in progress.
 *
 * Note [band series grid]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Bands' series are kept for the charts at screen resolution: a grid of nb
 * buckets of width bw starting at t = 0; a band's bucket holds the sum of
 * its values in the censuses that fell in it, and the grid counts those
 * censuses, so the chart shows the mean per bucket. When a census falls
 * beyond the grid, adjacent buckets are merged pairwise and bw doubles;
 * when nbands * nb floats exceed the budget, the same merge halves nb. So
 * memory is bounded by the budget whatever the length of the run, and a
 * run with fewer censuses than buckets is drawn census by census.
 *
 * The grid is kept in tiles of PROFILE_TILE bands (a band's tile is its
 * number / PROFILE_TILE), each tile bucket by bucket: the values of one
 * bucket for the tile's bands side by side. A census adds a value to one
 * bucket of nearly every band, so it writes a few runs of adjacent floats
 * instead of one float in each band's own array: with one array a band, a
 * -hi census of 3,600 bands touched 3,600 pages, more than the TLB holds,
 * and `rtscope html` spent a quarter of its time on that one addition.
 * The additions and merges are the same, in the same order, so the sums
 * are the same floats. A bucket no census fell in (its count is 0) holds
 * zeros, so a merge passes over such pairs: most of them, while the
 * buckets are still narrower than the time between censuses.
 *
 * Note [The kept census]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * rtscope pprof writes one census whole (opts.pick): the largest, the
 * Nth, the one nearest a time, or the last. Censuses are not kept, so the
 * choice is made as they stream past: the bands with a value in the
 * census in progress are listed (touched), and when the census ends (its
 * END event, the next BEGIN, or profile_finish for a truncated stream)
 * their values (cur_v, still this census's) are copied into p->census if
 * it is the one wanted so far. Memory: two censuses' worth of bands.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/profile.h"
#include "rtscope/base/hmap.h"
#include "rtscope/strhash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROFILE_NB 1024            /* band buckets at most */
#define PROFILE_NB_MIN 64          /* ...and at least */
#define PROFILE_BW0 1e-3           /* first bucket width, seconds */
#define PROFILE_HNB 2048           /* heap-pane buckets */
#define PROFILE_BUDGET (64u << 20) /* default bytes for band series */

profile *profile_new(const profile_opts *opts)
{
    profile *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    if (opts)
        p->opts = *opts;
    p->budget = p->opts.series_budget ? p->opts.series_budget : PROFILE_BUDGET;
    p->nb = PROFILE_NB;
    p->bw = PROFILE_BW0;
    p->hnb = PROFILE_HNB;
    p->hbw = PROFILE_BW0;
    p->mblock_size = 1u << 20;
    p->bucket_count = calloc(p->nb, sizeof(uint32_t));
    p->bucket_tsum = calloc(p->nb, sizeof(double));
    p->hcount = calloc(p->hnb, sizeof(uint32_t));
    p->htsum = calloc(p->hnb, sizeof(double));
    int ok = p->bucket_count && p->bucket_tsum && p->hcount && p->htsum;
    for (int s = 0; s < PROFILE_NHEAP; s++) {
        p->heap[s] = malloc(p->hnb * sizeof(double));
        ok = ok && p->heap[s];
        for (size_t i = 0; p->heap[s] && i < p->hnb; i++)
            p->heap[s][i] = NAN;
    }
    p->names = bands_new();
    if (!ok || !p->names) {
        profile_free(p);
        return NULL;
    }
    return p;
}

void profile_free(profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nbands; i++) {
        free(p->bands[i].key);
        free(p->bands[i].name);
        free(p->bands[i].ccs);
    }
    for (size_t i = 0; i < p->ntiles; i++)
        free(p->tiles[i]);
    free(p->tiles);
    free(p->census.v);
    free(p->touched);
    free(p->bands);
    hmap_free(&p->index);
    hmap_free(&p->index_addr);
    free(p->times);
    free(p->bucket_count);
    free(p->bucket_tsum);
    free(p->hcount);
    free(p->htsum);
    for (int s = 0; s < PROFILE_NHEAP; s++)
        free(p->heap[s]);
    for (size_t i = 0; i < p->ntraces; i++)
        free(p->traces[i].text);
    free(p->traces);
    free(p->args);
    free(p->rts_id);
    free(p->hp_job);
    free(p->hp_date);
    free(p->scratch);
    bands_free(p->names);
    free(p);
}

void profile_wanted(uint8_t *wanted)
{
    static const uint16_t types[] = {
        EL_PROGRAM_ARGS,
        EL_RTS_IDENTIFIER,
        EL_WALL_CLOCK_TIME,
        EL_HEAP_INFO_GHC,
        EL_HEAP_SIZE,
        EL_HEAP_LIVE,
        EL_BLOCKS_SIZE,
        EL_MEM_RETURN,
        EL_HEAP_PROF_BEGIN,
        EL_HEAP_PROF_COST_CENTRE,
        EL_HEAP_PROF_SAMPLE_BEGIN,
        EL_HEAP_BIO_PROF_SAMPLE_BEGIN,
        EL_HEAP_PROF_SAMPLE_STRING,
        EL_HEAP_PROF_SAMPLE_COST_CENTRE,
        EL_HEAP_PROF_SAMPLE_END,
        EL_IPE,
        EL_USER_MARKER,
        EL_USER_MSG,
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        wanted[types[i]] = 1;
}

/* ---- band series grid (Note [band series grid]) ---------------------- */

/* Merge tile v's buckets pairwise into the lower half (half of them), the
 * upper half zero unless `shrink`. cnt: the buckets' census counts before
 * the merge; a bucket no census fell in holds zeros, which need no adding
 * (Note [band series grid]). */
static void profile_tile_merge(float *v, const uint32_t *cnt, size_t half,
                               int shrink)
{
    for (size_t i = 0; i < half; i++) {
        float *to = v + i * PROFILE_TILE, *a = v + 2 * i * PROFILE_TILE,
              *b = a + PROFILE_TILE;
        if (cnt[2 * i] || cnt[2 * i + 1]) {
            for (size_t j = 0; j < PROFILE_TILE; j++)
                to[j] = a[j] + b[j];
        } else if (cnt[i]) {
            memset(to, 0, PROFILE_TILE * sizeof(float));
        }
    }
    for (size_t i = half; !shrink && i < 2 * half; i++)
        if (cnt[i])
            memset(v + i * PROFILE_TILE, 0, PROFILE_TILE * sizeof(float));
}

/* Merge buckets pairwise into the lower half; bw doubles. With `shrink`
 * the grid keeps only that half. */
static int profile_grid_merge(profile *p, int shrink)
{
    size_t half = p->nb / 2;
    if (half == 0)
        return -1;
    for (size_t t = 0; t < p->ntiles; t++) {
        profile_tile_merge(p->tiles[t], p->bucket_count, half, shrink);
        if (shrink) {
            float *nv =
                realloc(p->tiles[t], half * PROFILE_TILE * sizeof(float));
            if (nv)
                p->tiles[t] = nv;
        }
    }
    for (size_t i = 0; i < half; i++) {
        p->bucket_count[i] =
            p->bucket_count[2 * i] + p->bucket_count[2 * i + 1];
        p->bucket_tsum[i] = p->bucket_tsum[2 * i] + p->bucket_tsum[2 * i + 1];
    }
    memset(p->bucket_count + half, 0, half * sizeof(uint32_t));
    memset(p->bucket_tsum + half, 0, half * sizeof(double));
    p->bw *= 2;
    if (shrink)
        p->nb = half; /* the count arrays keep their size; only nb is used */
    return 0;
}

/* A tile for the next PROFILE_TILE bands, zero. */
static int profile_grid_tile(profile *p)
{
    float **nt = realloc(p->tiles, (p->ntiles + 1) * sizeof(*nt));
    if (!nt)
        return -1;
    p->tiles = nt;
    nt[p->ntiles] = calloc(p->nb * PROFILE_TILE, sizeof(float));
    if (!nt[p->ntiles])
        return -1;
    p->ntiles++;
    return 0;
}

static size_t profile_grid_slot(profile *p, double t)
{
    while (t >= p->bw * (double)p->nb)
        profile_grid_merge(p, 0);
    size_t i = (size_t)(t / p->bw);
    return i < p->nb ? i : p->nb - 1;
}

/* Heap pane: the same doubling, maximum per bucket. */
static void profile_heap_merge(profile *p)
{
    size_t half = p->hnb / 2;
    for (size_t i = 0; i < half; i++) {
        p->hcount[i] = p->hcount[2 * i] + p->hcount[2 * i + 1];
        p->htsum[i] = p->htsum[2 * i] + p->htsum[2 * i + 1];
        for (int s = 0; s < PROFILE_NHEAP; s++) {
            double a = p->heap[s][2 * i], b = p->heap[s][2 * i + 1];
            p->heap[s][i] = isnan(a) ? b : (isnan(b) || a >= b ? a : b);
        }
    }
    memset(p->hcount + half, 0, half * sizeof(uint32_t));
    memset(p->htsum + half, 0, half * sizeof(double));
    for (int s = 0; s < PROFILE_NHEAP; s++)
        for (size_t i = half; i < p->hnb; i++)
            p->heap[s][i] = NAN;
    p->hbw *= 2;
}

static void profile_heap_point(profile *p, double t, int series, double v)
{
    while (t >= p->hbw * (double)p->hnb)
        profile_heap_merge(p);
    size_t i = (size_t)(t / p->hbw);
    if (i >= p->hnb)
        i = p->hnb - 1;
    p->hcount[i]++;
    p->htsum[i] += t;
    double *cell = &p->heap[series][i];
    if (isnan(*cell) || v > *cell)
        *cell = v;
    p->heap_events++;
}

/* ---- bands ------------------------------------------------------------ */

static uint64_t profile_hash(const char *s, size_t len)
{
    return rtscope_strhash(s, len);
}

typedef struct band_key {
    const profile *p;
    const char *label;
    size_t len;
} band_key;

static int band_eq(const void *ctx, uint64_t i)
{
    const band_key *k = ctx;
    const profile_band *b = &k->p->bands[i];
    return b->key_len == k->len && memcmp(b->key, k->label, k->len) == 0;
}

/* Note [Bands by address]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * -hi labels every sample with its info table's address as %p prints it
 * ("0x4c5e10"): a million labels for a 31 MB eventlog of a real program.
 * Found by hash, each costs the hash, and reading the band's key to compare
 * it (one cache miss more than the band itself). A label of exactly that
 * form (0x, then lowercase hex digits without a leading zero) is one
 * number, and a number is one such label, so those bands are found by the
 * number in index_addr instead; any other label by its hash in index. A
 * label is always looked up the same way, so no label gets two bands.
 */
/* A lowercase hex digit's value plus one, 0 for any other byte (a table:
 * the digits and letters of addresses mix, which branches mispredict). */
static const uint8_t profile_hex1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

static int profile_label_address(const char *s, size_t len, uint64_t *addr)
{
    if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x' ||
        (s[2] == '0' && len > 3))
        return 0;
    uint64_t v = 0;
    unsigned bad = 0;
    for (size_t i = 2; i < len; i++) {
        unsigned d = profile_hex1[(unsigned char)s[i]];
        bad |= d == 0;
        v = v << 4 | ((d - 1) & 15);
    }
    *addr = v;
    return !bad;
}

/* The band for a label, created if new; NULL when out of memory. */
static profile_band *profile_band_get(profile *p, const char *label, size_t len)
{
    uint64_t addr, h = 0, found;
    int by_addr = profile_label_address(label, len, &addr);
    if (by_addr) {
        if (hmap_get(&p->index_addr, addr, &found))
            return &p->bands[found];
        if (hmap_reserve(&p->index_addr, p->index_addr.n + 1) != 0)
            return NULL;
    } else {
        band_key k = {p, label, len};
        h = profile_hash(label, len);
        if (hmap_find(&p->index, h, band_eq, &k, &found))
            return &p->bands[found];
        if (hmap_reserve(&p->index, p->nbands + 1) != 0)
            return NULL;
    }
    if (p->nbands == p->bands_cap) {
        size_t nc = p->bands_cap ? p->bands_cap * 2 : 64;
        profile_band *nb = realloc(p->bands, nc * sizeof(*nb));
        if (!nb)
            return NULL;
        p->bands = nb;
        p->bands_cap = nc;
    }
    /* Keep the series within the budget (Note [band series grid]). */
    while (p->nb > PROFILE_NB_MIN &&
           (p->nbands + 1) * p->nb * sizeof(float) > p->budget)
        profile_grid_merge(p, 1);
    if (p->nbands / PROFILE_TILE == p->ntiles && profile_grid_tile(p) != 0)
        return NULL;
    profile_band *b = &p->bands[p->nbands];
    memset(b, 0, sizeof(*b));
    b->key = malloc(len + 1);
    if (!b->key)
        return NULL;
    memcpy(b->key, label, len);
    b->key[len] = 0;
    b->key_len = (uint32_t)len;
    b->hash = by_addr ? profile_hash(label, len) : h;
    b->cur_idx = -1;
    if (by_addr) /* reserved above: neither can fail */
        hmap_put(&p->index_addr, addr, p->nbands);
    else
        hmap_add(&p->index, h, p->nbands);
    p->nbands++;
    return b;
}

/* Add the band's value of the census it has one in (cur_idx) to its sums
 * (Note [profile statistics]); prev and next are the times of the censuses
 * before and after that one (its own time where there is none). */
static void profile_band_commit(profile *p, profile_band *b, double prev,
                                double next)
{
    if (b->cur_idx < 0)
        return;
    double v = b->cur_v, t = p->t_last;
    b->sum_v += v;
    b->sum_v2 += v * v;
    b->sum_tv += t * v;
    b->integral += v * (next - prev) / 2;
    if (v > b->max_v)
        b->max_v = v;
    b->present++;
    b->cur_idx = -1;
    b->cur_v = 0;
}

/* The times before the last census (its own time for the first). */
static double profile_t_before_last(const profile *p)
{
    return p->nsamples > 1 ? p->t_prev : p->t_last;
}

/* A census at time t begins: the bands of the last one, whose values are
 * now complete, go into their sums. Only bands of the last census have a
 * value pending, so the model needs the last two census times, not all. */
static void profile_commit_last(profile *p, double t)
{
    double prev = profile_t_before_last(p);
    for (size_t i = 0; i < p->ntouched; i++)
        profile_band_commit(p, &p->bands[p->touched[i]], prev, t);
    p->ntouched = 0;
}

/* The census in progress has ended: keep it if it is the one wanted so
 * far (Note [The kept census]). */
static void profile_census_end(profile *p)
{
    if (!p->census_open)
        return;
    p->census_open = 0;
    size_t k = p->nsamples - 1;
    double t = p->t_last, total = 0;
    for (size_t i = 0; i < p->ntouched; i++)
        total += p->bands[p->touched[i]].cur_v;
    int keep = 0;
    switch (p->opts.pick) {
    case PROFILE_PICK_LARGEST:
        keep = !p->census.found || total > p->census.total;
        break;
    case PROFILE_PICK_INDEX:
        keep = k == p->opts.pick_index;
        break;
    case PROFILE_PICK_AT:
        keep = !p->census.found ||
               fabs(t - p->opts.pick_at) < fabs(p->census.t - p->opts.pick_at);
        break;
    case PROFILE_PICK_LAST:
        keep = 1;
        break;
    default:
        break;
    }
    if (keep) {
        if (p->ntouched > p->census.cap) {
            profile_value *nv = realloc(p->census.v, p->ntouched * sizeof(*nv));
            if (!nv) {
                p->nomem = 1;
                return;
            }
            p->census.v = nv;
            p->census.cap = p->ntouched;
        }
        for (size_t i = 0; i < p->ntouched; i++) {
            p->census.v[i].band = p->touched[i];
            p->census.v[i].bytes = p->bands[p->touched[i]].cur_v;
        }
        p->census.n = p->ntouched;
        p->census.found = 1;
        p->census.index = k;
        p->census.t = t;
        p->census.total = total;
    }
}

/* Remember census time t: the last two, the running sums, and the list of
 * times while opts.max_times allows (Note [profile statistics]). */
static int profile_time_add(profile *p, double t)
{
    p->t_prev = p->t_last;
    p->t_last = t;
    p->t_sum += t;
    double d = t - p->t_wmean;
    p->t_wmean += d / (double)(p->nsamples + 1);
    p->t_wm2 += d * (t - p->t_wmean);
    if (p->opts.max_times && p->nsamples >= p->opts.max_times) {
        free(p->times);
        p->times = NULL;
        p->times_cap = 0;
    } else if (p->nsamples == p->times_cap) {
        size_t nc = p->times_cap ? p->times_cap * 2 : 1024;
        double *nt = realloc(p->times, nc * sizeof(double));
        if (!nt)
            return p->nomem = 1, -1;
        p->times = nt;
        p->times_cap = nc;
    }
    if (p->times)
        p->times[p->nsamples] = t;
    p->nsamples++;
    return 0;
}

int profile_sample_begin(profile *p, double t)
{
    profile_census_end(p);
    if (p->nsamples && t < p->t_last)
        t = p->t_last; /* never go back in time */
    profile_commit_last(p, t);
    if (profile_time_add(p, t) != 0)
        return -1;
    size_t slot = profile_grid_slot(p, t);
    p->bucket_count[slot]++;
    p->bucket_tsum[slot] += t;
    p->in_sample = 1;
    p->census_open = p->opts.pick != PROFILE_PICK_NONE;
    return 0;
}

void profile_sample_end(profile *p)
{
    p->in_sample = 0;
    profile_census_end(p);
}

/* profile_sample_value, returning the band (NULL: none, or out of
 * memory with p->nomem set). */
static profile_band *profile_sample_band(profile *p, const char *label,
                                         size_t len, double bytes)
{
    if (!p->in_sample || !p->nsamples)
        return NULL;
    profile_band *b = profile_band_get(p, label, len);
    if (!b)
        return p->nomem = 1, NULL;
    int64_t k = (int64_t)p->nsamples - 1;
    if (b->cur_idx != k) {
        if (p->ntouched == p->touched_cap) {
            size_t nc = p->touched_cap ? 2 * p->touched_cap : 64;
            uint32_t *nt = realloc(p->touched, nc * sizeof(*nt));
            if (!nt)
                return p->nomem = 1, NULL;
            p->touched = nt;
            p->touched_cap = nc;
        }
        p->touched[p->ntouched++] = (uint32_t)(b - p->bands);
        b->cur_idx = k;
    }
    b->cur_v += bytes;
    double t = p->t_last;
    size_t n = (size_t)(b - p->bands);
    p->tiles[n / PROFILE_TILE][profile_grid_slot(p, t) * PROFILE_TILE +
                               n % PROFILE_TILE] += (float)bytes;
    return b;
}

int profile_sample_value(profile *p, const char *label, size_t len,
                         double bytes)
{
    return profile_sample_band(p, label, len, bytes) || !p->nomem ? 0 : -1;
}

/* A cost-centre stack band remembers its ids (the frames of rtscope
 * pprof); the first sample of the band gives them. */
static void profile_band_ccs(profile *p, profile_band *b, const el_event *ev)
{
    unsigned depth = el_ccs_depth(ev);
    if (!b || b->ccs || depth == 0)
        return;
    b->ccs = malloc(depth * sizeof(uint32_t));
    if (!b->ccs) {
        p->nomem = 1;
        return;
    }
    for (unsigned i = 0; i < depth; i++)
        b->ccs[i] = el_ccs_id(ev, i);
    b->nccs = depth;
}

/* ---- traces ----------------------------------------------------------- */

static int profile_contains(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0)
            return 1;
    return 0;
}

/* -i/-x: with -i given, a trace is kept if it contains an -i string (even
 * when an -x string matches too); else it is kept unless it contains an
 * -x string. */
static int profile_trace_kept(const profile *p, const char *s, size_t len)
{
    for (size_t i = 0; i < p->opts.ninclude; i++)
        if (profile_contains(s, len, p->opts.include[i]))
            return 1;
    if (p->opts.ninclude)
        return 0;
    for (size_t i = 0; i < p->opts.nexclude; i++)
        if (profile_contains(s, len, p->opts.exclude[i]))
            return 0;
    return 1;
}

int profile_trace_add(profile *p, double t, const char *text, size_t len,
                      int is_event)
{
    if (p->opts.no_traces || (is_event && !p->opts.trace_events) ||
        !profile_trace_kept(p, text, len))
        return 0;
    if (p->ntraces >= PROFILE_MAX_TRACES && p->opts.keep_last_traces) {
        size_t half = p->ntraces / 2; /* once every half: O(1) a trace */
        for (size_t i = 0; i < half; i++)
            free(p->traces[i].text);
        memmove(p->traces, p->traces + half,
                (p->ntraces - half) * sizeof(*p->traces));
        p->ntraces -= half;
        p->traces_dropped += half;
    }
    if (p->ntraces >= PROFILE_MAX_TRACES) {
        p->traces_dropped++;
        return 0;
    }
    if (p->ntraces == p->traces_cap) {
        size_t nc = p->traces_cap ? p->traces_cap * 2 : 64;
        profile_trace *nt = realloc(p->traces, nc * sizeof(*nt));
        if (!nt)
            return p->nomem = 1, -1;
        p->traces = nt;
        p->traces_cap = nc;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return p->nomem = 1, -1;
    memcpy(copy, text, len);
    copy[len] = 0;
    p->traces[p->ntraces].t = t;
    p->traces[p->ntraces].text = copy;
    p->traces[p->ntraces].is_event = is_event;
    p->ntraces++;
    return 0;
}

/* ---- the event sink ---------------------------------------------------- */

static char *profile_dup(el_str s)
{
    char *c = malloc(s.len + 1);
    if (c) {
        memcpy(c, s.ptr, s.len);
        c[s.len] = 0;
    }
    return c;
}

void profile_new_run(profile *p)
{
    free(p->args);
    p->args = NULL;
    p->args_len = 0;
    free(p->rts_id);
    p->rts_id = NULL;
    if (!p->first_date[0])
        memcpy(p->first_date, p->date, sizeof(p->date));
    p->date[0] = 0;
    p->runs = (p->runs ? p->runs : 1) + 1;
}

int profile_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    profile *p = ctx;
    (void)types;
    double t = (double)ev->ts / 1e9;
    if (t > p->last_time)
        p->last_time = t;
    switch (ev->type) {
    case EL_PROGRAM_ARGS:
        if (!p->args) {
            el_str v = ev->u.capset_vec.vec;
            p->args = profile_dup(v);
            p->args_len = v.len;
            if (!p->args)
                p->nomem = 1;
        }
        break;
    case EL_RTS_IDENTIFIER:
        if (!p->rts_id && !(p->rts_id = profile_dup(ev->u.capset_str.text)))
            p->nomem = 1;
        break;
    case EL_WALL_CLOCK_TIME:
        if (!p->start_unix_ns)
            p->start_unix_ns = (int64_t)ev->u.wall_clock.sec * 1000000000 +
                               (int64_t)ev->u.wall_clock.nsec - (int64_t)ev->ts;
        if (!p->date[0]) {
            time_t secs = (time_t)ev->u.wall_clock.sec;
            struct tm tm;
            if (gmtime_r(&secs, &tm))
                strftime(p->date, sizeof(p->date), "%Y-%m-%d %H:%M:%S UTC",
                         &tm);
        }
        break;
    case EL_HEAP_INFO_GHC:
        if (ev->u.heap_info.mblock_size)
            p->mblock_size = ev->u.heap_info.mblock_size;
        break;
    case EL_HEAP_SIZE:
        profile_heap_point(p, t, PROFILE_HEAP_SIZE, (double)ev->u.heap.bytes);
        break;
    case EL_BLOCKS_SIZE:
        profile_heap_point(p, t, PROFILE_BLOCKS_SIZE, (double)ev->u.heap.bytes);
        break;
    case EL_HEAP_LIVE:
        profile_heap_point(p, t, PROFILE_LIVE, (double)ev->u.heap.bytes);
        break;
    case EL_MEM_RETURN:
        profile_heap_point(p, t, PROFILE_RETURNED,
                           (double)ev->u.mem_return.returned *
                               (double)p->mblock_size);
        break;
    case EL_HEAP_PROF_BEGIN:
        p->breakdown = ev->u.heap_prof_begin.breakdown;
        p->interval_ns = ev->u.heap_prof_begin.interval_ns;
        if (bands_take(p->names, ev) != 0)
            p->nomem = 1;
        break;
    case EL_HEAP_PROF_COST_CENTRE:
    case EL_IPE:
        if (bands_take(p->names, ev) != 0)
            p->nomem = 1;
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        profile_sample_begin(p, t);
        break;
    case EL_HEAP_PROF_SAMPLE_END:
        profile_sample_end(p);
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        profile_sample_value(p, ev->u.sample_string.label.ptr,
                             ev->u.sample_string.label.len,
                             (double)ev->u.sample_string.residency);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE: {
        size_t len;
        if (bands_ccs_name(p->names, ev, &p->scratch, &p->scratch_cap, &len) !=
            0)
            p->nomem = 1;
        else
            profile_band_ccs(
                p,
                profile_sample_band(p, p->scratch, len,
                                    (double)ev->u.sample_cc.residency),
                ev);
        break;
    }
    case EL_USER_MARKER:
        profile_trace_add(p, t, ev->u.msg.text.ptr, ev->u.msg.text.len, 0);
        break;
    case EL_USER_MSG:
        profile_trace_add(p, t, ev->u.msg.text.ptr, ev->u.msg.text.len, 1);
        break;
    default:
        break;
    }
    p->events++;
    if (ev->offset > p->input_bytes)
        p->input_bytes = ev->offset;
    return p->nomem;
}

/* ---- .hp input ---------------------------------------------------------- */

static char *profile_hp_quoted(const char *s)
{
    const char *q = strchr(s, '"');
    if (!q)
        return NULL;
    q++;
    const char *e = strrchr(q, '"');
    size_t n = e && e > q ? (size_t)(e - q) : strlen(q);
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, q, n);
        c[n] = 0;
    }
    return c;
}

/* One sample of a .hp, held until its END_SAMPLE: a file cut short in the
 * middle of one must not draw it short (every band it did not reach would
 * seem to drop to 0). */
typedef struct hp_pending {
    char *labels; /* the labels, each NUL-terminated */
    size_t len, cap;
    size_t *at; /* where each value's label starts */
    double *v;
    size_t n, vcap;
} hp_pending;

static int hp_pending_add(hp_pending *h, const char *label, size_t ll, double v)
{
    if (!h->labels || h->len + ll + 1 > h->cap) {
        size_t nc = h->cap ? h->cap : 4096;
        while (nc < h->len + ll + 1)
            nc *= 2;
        char *nl = realloc(h->labels, nc);
        if (!nl)
            return -1;
        h->labels = nl;
        h->cap = nc;
    }
    if (!h->at || !h->v || h->n == h->vcap) {
        size_t nc = h->vcap ? 2 * h->vcap : 256;
        size_t *na = realloc(h->at, nc * sizeof(*na));
        if (!na)
            return -1;
        h->at = na;
        double *nv = realloc(h->v, nc * sizeof(*nv));
        if (!nv)
            return -1;
        h->v = nv;
        h->vcap = nc;
    }
    memcpy(h->labels + h->len, label, ll);
    h->labels[h->len + ll] = '\0';
    h->at[h->n] = h->len;
    h->v[h->n++] = v;
    h->len += ll + 1;
    return 0;
}

/* The sample at t is whole: into the profile. Empty censuses (the RTS
 * writes one at each end) are not counted: a census starts with its
 * first value. */
static int hp_pending_commit(profile *p, hp_pending *h, double t)
{
    if (h->n && profile_sample_begin(p, t) != 0)
        return -1;
    for (size_t i = 0; i < h->n; i++) {
        const char *l = h->labels + h->at[i];
        if (profile_sample_value(p, l, strlen(l), h->v[i]) != 0)
            return -1;
    }
    if (h->n)
        profile_sample_end(p);
    h->n = h->len = 0;
    return 0;
}

int profile_read_hp(profile *p, FILE *f, char *msg, size_t msglen)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long lineno = 0;
    int in = 0, rc = 0;
    double t = 0;
    hp_pending pend = {0};
    p->from_hp = 1;
    while ((n = getline(&line, &cap, f)) != -1) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (n == 0)
            continue;
        if (strncmp(line, "JOB ", 4) == 0) {
            free(p->hp_job);
            p->hp_job = profile_hp_quoted(line);
        } else if (strncmp(line, "DATE ", 5) == 0) {
            free(p->hp_date);
            p->hp_date = profile_hp_quoted(line);
        } else if (strncmp(line, "SAMPLE_UNIT", 11) == 0 ||
                   strncmp(line, "VALUE_UNIT", 10) == 0) {
            continue;
        } else if (strncmp(line, "MARK ", 5) == 0) {
            double mt = strtod(line + 5, NULL);
            profile_trace_add(p, mt, "", 0, 0);
            if (mt > p->last_time)
                p->last_time = mt;
        } else if (strncmp(line, "BEGIN_SAMPLE", 12) == 0) {
            if (in) {
                snprintf(msg, msglen, "line %lu: BEGIN_SAMPLE inside a sample",
                         lineno);
                rc = -1;
                break;
            }
            in = 1;
            pend.n = pend.len = 0;
            t = strtod(line + 12, NULL);
        } else if (strncmp(line, "END_SAMPLE", 10) == 0) {
            in = 0;
            if (t > p->last_time)
                p->last_time = t;
            if (hp_pending_commit(p, &pend, t) != 0) {
                rc = -1;
                snprintf(msg, msglen, "out of memory");
                break;
            }
        } else if (in) {
            /* LABEL<white space>BYTES; the label has no white space. */
            char *sp = line + n;
            while (sp > line && sp[-1] != ' ' && sp[-1] != '\t')
                sp--;
            char *end;
            double v = strtod(sp, &end);
            size_t ll = (size_t)(sp - line);
            while (ll > 0 && (line[ll - 1] == ' ' || line[ll - 1] == '\t'))
                ll--;
            if (sp == line || *end || ll == 0) {
                snprintf(msg, msglen, "line %lu: expected LABEL BYTES", lineno);
                rc = -1;
                break;
            }
            if (hp_pending_add(&pend, line, ll, v) != 0) {
                rc = -1;
                snprintf(msg, msglen, "out of memory");
                break;
            }
        } else {
            snprintf(msg, msglen, "line %lu: not a .hp line", lineno);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && in) {
        p->hp_cut = 1;
        p->hp_cut_time = t;
        p->hp_cut_values = pend.n;
    }
    free(line);
    free(pend.labels);
    free(pend.at);
    free(pend.v);
    if (rc == 0 && ferror(f)) {
        snprintf(msg, msglen, "read error");
        rc = -1;
    }
    return rc;
}

/* ---- finish ------------------------------------------------------------- */

static void profile_band_stats(const profile *p, profile_band *b, double mt,
                               double var_t)
{
    double n = (double)p->nsamples;
    if (n == 0)
        return;
    b->mean = b->sum_v / n;
    double var_v = b->sum_v2 / n - b->mean * b->mean;
    if (var_v < 0)
        var_v = 0;
    b->stddev = sqrt(var_v);
    double cov = b->sum_tv / n - mt * b->mean;
    /* a constant band: what is left is rounding, not growth */
    if (fabs(cov) <= 1e-12 * fabs(b->sum_tv / n))
        cov = 0;
    b->slope = var_t > 0 ? cov / var_t : 0;
    b->intercept = b->mean - b->slope * mt;
    b->r2 = var_t > 0 && var_v > 0 ? cov * cov / (var_t * var_v) : 0;
    if (b->r2 > 1)
        b->r2 = 1;
    b->size_mib_s = b->integral / (1024.0 * 1024.0);
}

/* The mean and the variance of the census times: two passes over them
 * while all are kept, else Welford's running values. */
static void profile_time_stats(const profile *p, double *mt, double *var_t)
{
    double n = (double)p->nsamples;
    *mt = p->nsamples ? p->t_sum / n : 0;
    *var_t = 0;
    if (!p->nsamples)
        return;
    if (!p->times) {
        *var_t = p->t_wm2 / n;
        return;
    }
    for (size_t i = 0; i < p->nsamples; i++)
        *var_t += (p->times[i] - *mt) * (p->times[i] - *mt);
    *var_t /= n;
}

/* Name band b (once its IPE entry, if any, has been seen). */
static void profile_band_name(profile *p, profile_band *b)
{
    if (b->name && b->ipe)
        return;
    el_str key = {b->key, b->key_len};
    const ipe_entry *e = bands_ipe(p->names, key);
    if (b->name && e == b->ipe)
        return;
    char *name = bands_label_name(p->names, key);
    if (!name) {
        p->nomem = 1;
        return;
    }
    free(b->name);
    b->name = name;
    b->ipe = e;
}

int profile_finish(profile *p)
{
    if (p->finished)
        return p->nomem ? -1 : 0;
    p->finished = 1;
    profile_census_end(p);
    double mt, var_t, prev = profile_t_before_last(p);
    profile_time_stats(p, &mt, &var_t);
    for (size_t i = 0; i < p->nbands; i++) {
        profile_band *b = &p->bands[i];
        profile_band_commit(p, b, prev, p->t_last);
        profile_band_stats(p, b, mt, var_t);
        profile_band_name(p, b);
    }
    return p->nomem ? -1 : 0;
}

int profile_view(profile *p)
{
    if (p->finished)
        return profile_finish(p);
    double mt, var_t, prev = profile_t_before_last(p);
    profile_time_stats(p, &mt, &var_t);
    for (size_t i = 0; i < p->nbands; i++) {
        profile_band *b = &p->bands[i];
        profile_band v = *b;
        profile_band_commit(p, &v, prev, p->t_last);
        profile_band_stats(p, &v, mt, var_t);
        b->mean = v.mean;
        b->stddev = v.stddev;
        b->intercept = v.intercept;
        b->slope = v.slope;
        b->r2 = v.r2;
        b->size_mib_s = v.size_mib_s;
        b->max_v = v.max_v; /* a maximum: taking cur_v again changes nothing */
        profile_band_name(p, b);
    }
    return p->nomem ? -1 : 0;
}
