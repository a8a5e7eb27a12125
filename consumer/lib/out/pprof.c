/* One census as pprof's profile.proto: see pprof.h. The messages are
 * protobuf-c's, compiled at build time from lib/out/pprof.proto (pprof's
 * field numbers); zlib writes the gzip stream.
 *
 * Note [pprof locations of a band]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * pprof reads a sample's locations as a call stack, leaf first, and its
 * -top flat column by the leaf's function name; flame graphs (speedscope,
 * Pyroscope) draw the stack root first. So a band's leaf is named with its
 * band name, exactly as hp and html name it (bands.h), and what encloses
 * it comes above: for -hi with provenance the binding (Module.label) and
 * the module, so a flame graph groups a module's tables and a binding's
 * closures; for -hc the cost-centre stack itself. A function is interned
 * by (name, system name, file, line) and has exactly one location, with
 * the same id. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/pprof.h"
#include "rtscope/base/strtab.h"
#include "rtscope/strhash.h"

#include "pprof.pb-c.h"
#include "pprof_impl.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int64_t pprof_str(pprof_build *b, const char *s, size_t len)
{
    int64_t i = strtab_id(&b->strings, s, len);
    if (i < 0)
        b->nomem = 1;
    return i < 0 ? 0 : i;
}

uint64_t pprof_function(pprof_build *b, const char *name, size_t name_len,
                        const char *sys, const char *file, size_t file_len,
                        int64_t line)
{
    pprof_fn f = {pprof_str(b, name, name_len), pprof_str(b, sys, strlen(sys)),
                  pprof_str(b, file, file_len), line};
    if (b->nomem)
        return 0;
    /* the key: the four numbers as text, so the interning table serves */
    char key[96];
    int kl = snprintf(key, sizeof(key), "%lld %lld %lld %lld",
                      (long long)f.name, (long long)f.system_name,
                      (long long)f.filename, (long long)f.line);
    int64_t id = strtab_id(&b->fn_keys, key, (size_t)kl);
    if (id < 0)
        return b->nomem = 1, 0;
    if ((size_t)id == b->nfns) {
        if (b->nfns == b->fns_cap) {
            size_t nc = b->fns_cap ? 2 * b->fns_cap : 64;
            pprof_fn *nf = realloc(b->fns, nc * sizeof(*nf));
            if (!nf)
                return b->nomem = 1, 0;
            b->fns = nf;
            b->fns_cap = nc;
        }
        b->fns[b->nfns++] = f;
    }
    return (uint64_t)id + 1;
}

void pprof_span(const char *span, size_t *file_len, int64_t *line)
{
    *file_len = strlen(span);
    *line = 0;
    const char *last = strrchr(span, ':');
    if (!last)
        return;
    if (last[1] == '(') {
        *file_len = (size_t)(last - span);
        *line = strtoll(last + 2, NULL, 10);
        return;
    }
    const char *prev = last;
    while (prev > span && prev[-1] != ':')
        prev--;
    if (prev == span || prev[0] < '0' || prev[0] > '9')
        return;
    *file_len = (size_t)(prev - 1 - span);
    *line = strtoll(prev, NULL, 10);
}

/* The locations of a band named `name` (raw label `key`) with provenance
 * e (or NULL), leaf first: at most 3. Returns how many. */
static size_t pprof_ipe_locations(pprof_build *b, const char *name,
                                  const char *key, const ipe_entry *e,
                                  uint64_t *loc)
{
    size_t n = 0;
    if (!e || !e->module[0]) {
        loc[n++] = pprof_function(b, name, strlen(name), key, "", 0, 0);
        return n;
    }
    size_t flen;
    int64_t line;
    pprof_span(e->srcloc, &flen, &line);
    loc[n++] = pprof_function(b, name, strlen(name), e->table_name, e->srcloc,
                              flen, line);
    if (e->label[0]) {
        size_t ml = strlen(e->module), ll = strlen(e->label);
        char *bind = malloc(ml + ll + 2);
        if (!bind) {
            b->nomem = 1;
            return n;
        }
        memcpy(bind, e->module, ml);
        bind[ml] = '.';
        memcpy(bind + ml + 1, e->label, ll + 1);
        loc[n++] =
            pprof_function(b, bind, ml + ll + 1, "", e->srcloc, flen, line);
        free(bind);
    }
    loc[n++] = pprof_function(b, e->module, strlen(e->module), e->module,
                              e->srcloc, flen, 0);
    return n;
}

/* The locations of a sample, leaf first (Note [pprof locations of a
 * band]); at most 3 + nccs. Returns how many. */
static size_t pprof_sample_locations(pprof_build *b, const pprof_sample *x,
                                     uint64_t *loc)
{
    if (x->row)
        return pprof_ipe_locations(b, x->row->name, x->row->key, x->row->ipe,
                                   loc);
    const profile_band *band = x->band;
    size_t n = 0;
    if (band->nccs) {
        for (uint32_t i = 0; i < band->nccs; i++) {
            const char *l = bands_cc_label(x->src->names, band->ccs[i]);
            char tmp[24];
            if (!l) {
                snprintf(tmp, sizeof(tmp), "cc%u", (unsigned)band->ccs[i]);
                l = tmp;
            }
            loc[n++] = pprof_function(b, l, strlen(l), l, "", 0, 0);
        }
        return n;
    }
    return pprof_ipe_locations(b, band->name, band->key, band->ipe, loc);
}

/* The samples: p's census, minus base's (bands matched by name). */
static int pprof_samples(pprof_build *b, const profile *p, const profile *base)
{
    size_t cap = p->census.n + (base ? base->census.n : 0);
    b->samples = calloc(cap ? cap : 1, sizeof(*b->samples));
    if (!b->samples)
        return -1;
    const profile *src[2] = {p, base};
    for (int s = 0; s < 2 && src[s]; s++) {
        for (size_t i = 0; i < src[s]->census.n; i++) {
            const profile_value *v = &src[s]->census.v[i];
            const profile_band *band = &src[s]->bands[v->band];
            int64_t k =
                strtab_id(&b->sample_names, band->name, strlen(band->name));
            if (k < 0)
                return -1;
            pprof_sample *x = &b->samples[k];
            if ((size_t)k == b->nsamples) {
                b->nsamples++;
                x->src = src[s];
                x->band = band;
            }
            x->bytes += s == 0 ? v->bytes : -v->bytes;
        }
    }
    return 0;
}

/* ---- encoding ---------------------------------------------------------- */

static int pprof_gzip(FILE *f, const uint8_t *buf, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    /* 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return errno = ENOMEM, -1;
    uint8_t out[16384] = {0}; /* deflate fills it; cppcheck cannot see that */
    z.next_in = (uint8_t *)buf;
    z.avail_in = 0;
    size_t left = len;
    int rc = 0, zr;
    do {
        if (z.avail_in == 0 && left) {
            uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
            z.avail_in = chunk;
            left -= chunk;
        }
        z.next_out = out;
        z.avail_out = sizeof(out);
        zr = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
        size_t have = sizeof(out) - z.avail_out;
        if (have && fwrite(out, 1, have, f) != have) {
            rc = -1;
            break;
        }
    } while (zr != Z_STREAM_END && zr != Z_STREAM_ERROR);
    if (zr == Z_STREAM_ERROR)
        rc = -1;
    deflateEnd(&z);
    return rc;
}

/* What the encoder needs beyond the samples. */
typedef struct pprof_meta {
    int with_objects;    /* sample types inuse_objects and inuse_space */
    int diff;            /* a difference: leave out unchanged samples */
    const char *program; /* the mapping's file name */
    size_t program_len;
    int64_t time_nanos, duration_nanos;
} pprof_meta;

void pprof_msgs_free(pprof_msgs *g)
{
    free(g->samples);
    free(g->samplep);
    free(g->locids);
    free(g->values);
    free(g->fns);
    free(g->fnp);
    free(g->locs);
    free(g->locp);
    free(g->lines);
    free(g->linep);
}

/* The samples that count (a difference leaves out the unchanged ones),
 * each with its locations and nv values. -1: no memory. */
static int pprof_encode_samples(pprof_build *b, const pprof_meta *m, size_t nv,
                                pprof_msgs *g)
{
    size_t maxdepth = 3;
    for (size_t i = 0; i < b->nsamples; i++)
        if (b->samples[i].band && b->samples[i].band->nccs > maxdepth)
            maxdepth = b->samples[i].band->nccs;
    if (pprof_msgs_alloc(g, b->nsamples, (b->nsamples + 1) * maxdepth,
                         (b->nsamples + 1) * nv) != 0)
        return -1;
    size_t ns = 0;
    for (size_t i = 0; i < b->nsamples; i++) {
        const pprof_sample *x = &b->samples[i];
        int64_t v = (int64_t)llround(x->bytes);
        if ((!x->band && !x->row) || (v == 0 && m->diff))
            continue; /* unchanged in a difference */
        RtscopePprof__Sample init = RTSCOPE_PPROF__SAMPLE__INIT;
        RtscopePprof__Sample *s = &g->samples[ns];
        *s = init;
        s->location_id = g->locids + i * maxdepth;
        s->n_location_id = pprof_sample_locations(b, x, s->location_id);
        s->value = &g->values[ns * nv];
        if (m->with_objects)
            s->value[0] = (int64_t)llround(x->objects);
        s->value[nv - 1] = v;
        s->n_value = nv;
        g->samplep[ns] = s;
        ns++;
    }
    g->nsamples = ns;
    return b->nomem ? -1 : 0;
}

int pprof_encode_functions(const pprof_build *b, pprof_msgs *g)
{
    size_t nf = b->nfns;
    g->fns = calloc(nf + 1, sizeof(*g->fns));
    g->fnp = calloc(nf + 1, sizeof(RtscopePprof__Function *));
    g->locs = calloc(nf + 1, sizeof(*g->locs));
    g->locp = calloc(nf + 1, sizeof(RtscopePprof__Location *));
    g->lines = calloc(nf + 1, sizeof(*g->lines));
    g->linep = calloc(nf + 1, sizeof(RtscopePprof__Line *));
    if (!g->fns || !g->fnp || !g->locs || !g->locp || !g->lines || !g->linep)
        return -1;
    for (size_t i = 0; i < nf; i++) {
        RtscopePprof__Function fi = RTSCOPE_PPROF__FUNCTION__INIT;
        RtscopePprof__Location li = RTSCOPE_PPROF__LOCATION__INIT;
        RtscopePprof__Line ni = RTSCOPE_PPROF__LINE__INIT;
        g->fns[i] = fi;
        g->fns[i].id = i + 1;
        g->fns[i].name = b->fns[i].name;
        g->fns[i].system_name = b->fns[i].system_name;
        g->fns[i].filename = b->fns[i].filename;
        g->fns[i].start_line = b->fns[i].line;
        g->fnp[i] = &g->fns[i];
        g->lines[i] = ni;
        g->lines[i].function_id = i + 1;
        g->lines[i].line = b->fns[i].line;
        g->linep[i] = &g->lines[i];
        g->locs[i] = li;
        g->locs[i].id = i + 1;
        g->locs[i].mapping_id = 1;
        g->locs[i].line = &g->linep[i];
        g->locs[i].n_line = 1;
        g->locp[i] = &g->locs[i];
    }
    return 0;
}

int pprof_pack(FILE *f, const RtscopePprof__Profile *prof, int *packed)
{
    size_t len = rtscope_pprof__profile__get_packed_size(prof);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return -1;
    rtscope_pprof__profile__pack(prof, buf);
    *packed = 1;
    int rc = pprof_gzip(f, buf, len);
    free(buf);
    return rc;
}

void pprof_build_free(pprof_build *b)
{
    free(b->fns);
    free(b->samples);
    strtab_free(&b->strings);
    strtab_free(&b->fn_keys);
    strtab_free(&b->sample_names);
}

int pprof_msgs_alloc(pprof_msgs *g, size_t nsamples, size_t nlocids,
                     size_t nvalues)
{
    g->samples = calloc(nsamples + 1, sizeof(*g->samples));
    g->samplep = calloc(nsamples + 1, sizeof(RtscopePprof__Sample *));
    g->locids = calloc(nlocids, sizeof(*g->locids));
    g->values = calloc(nvalues, sizeof(*g->values));
    return g->samples && g->samplep && g->locids && g->values ? 0 : -1;
}

int pprof_pack_built(FILE *f, RtscopePprof__Profile *prof, const pprof_build *b,
                     const pprof_msgs *g, int *packed)
{
    prof->n_sample = g->nsamples;
    prof->sample = g->samplep;
    prof->n_location = b->nfns;
    prof->location = g->locp;
    prof->n_function = b->nfns;
    prof->function = g->fnp;
    prof->n_string_table = b->strings.n;
    prof->string_table = b->strings.s;
    return pprof_pack(f, prof, packed);
}

/* Encode b's samples as a Profile and write it gzipped to f; frees b. */
static int pprof_encode(FILE *f, pprof_build *bp, const pprof_meta *m)
{
    pprof_build b = *bp;
    RtscopePprof__Profile prof = RTSCOPE_PPROF__PROFILE__INIT;
    RtscopePprof__ValueType st = RTSCOPE_PPROF__VALUE_TYPE__INIT;
    RtscopePprof__ValueType ot = RTSCOPE_PPROF__VALUE_TYPE__INIT;
    RtscopePprof__ValueType pt = RTSCOPE_PPROF__VALUE_TYPE__INIT;
    RtscopePprof__ValueType *stp[2] = {&st, NULL};
    size_t nv = m->with_objects ? 2 : 1;
    RtscopePprof__Mapping map = RTSCOPE_PPROF__MAPPING__INIT;
    RtscopePprof__Mapping *mapp = &map;
    pprof_msgs g;
    int rc = -1, packed = 0;
    memset(&g, 0, sizeof(g));

    st.type = pprof_str(&b, "inuse_space", 11);
    st.unit = pprof_str(&b, "bytes", 5);
    pt.type = pprof_str(&b, "space", 5);
    pt.unit = st.unit;
    if (m->with_objects) { /* pprof's heap profiles: objects first */
        ot.type = pprof_str(&b, "inuse_objects", 13);
        ot.unit = pprof_str(&b, "count", 5);
        stp[0] = &ot;
        stp[1] = &st;
    }
    if (b.nomem || pprof_encode_samples(&b, m, nv, &g) != 0 ||
        pprof_encode_functions(&b, &g) != 0)
        goto out;

    prof.time_nanos = m->time_nanos;
    prof.duration_nanos = m->duration_nanos;
    /* the program, so that pprof names it and never tries to symbolize:
     * the names are already there */
    map.id = 1;
    map.filename = pprof_str(&b, m->program, m->program_len);
    map.has_functions = 1;
    map.has_filenames = 1;
    map.has_line_numbers = 1;
    if (b.nomem)
        goto out;
    prof.n_mapping = 1;
    prof.mapping = &mapp;
    prof.n_sample_type = nv;
    prof.sample_type = stp;
    prof.period_type = &pt;
    prof.period = 1;
    prof.default_sample_type = st.type;
    rc = pprof_pack_built(f, &prof, &b, &g, &packed);
out:
    if (rc != 0 && !packed)
        errno = ENOMEM;
    pprof_msgs_free(&g);
    pprof_build_free(&b);
    return rc;
}

int pprof_write(FILE *f, const profile *p, const profile *base)
{
    pprof_build b;
    memset(&b, 0, sizeof(b));
    pprof_str(&b, "", 0); /* string_table[0] */
    if (b.nomem || pprof_samples(&b, p, base) != 0) {
        b.nomem = 1;
    }
    /* time: the census's, on the wall clock when the eventlog gave it */
    int64_t t_ns = (int64_t)llround(p->census.t * 1e9);
    const char *prog = p->args ? p->args : (p->hp_job ? p->hp_job : "");
    pprof_meta m = {
        .diff = base != NULL,
        .program = prog,
        .program_len = strcspn(prog, " "), /* a .hp JOB is a command line */
        .time_nanos = p->start_unix_ns ? p->start_unix_ns + t_ns : 0,
        .duration_nanos = t_ns,
    };
    if (base && p->census.t > base->census.t)
        m.duration_nanos =
            (int64_t)llround((p->census.t - base->census.t) * 1e9);
    return pprof_encode(f, &b, &m);
}

int pprof_write_census(FILE *f, const pprof_census_row *rows, size_t n,
                       const char *program, int64_t time_nanos)
{
    pprof_build b;
    memset(&b, 0, sizeof(b));
    pprof_str(&b, "", 0); /* string_table[0] */
    b.samples = calloc(n ? n : 1, sizeof(*b.samples));
    if (!b.samples)
        b.nomem = 1;
    for (size_t i = 0; b.samples && i < n; i++)
        b.samples[i] = (pprof_sample){.row = &rows[i],
                                      .bytes = (double)rows[i].bytes,
                                      .objects = (double)rows[i].objects};
    b.nsamples = b.samples ? n : 0;
    pprof_meta m = {
        .with_objects = 1,
        .program = program,
        .program_len = strlen(program),
        .time_nanos = time_nanos,
    };
    return pprof_encode(f, &b, &m);
}
