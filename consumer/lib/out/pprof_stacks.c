/* Sampled call stacks as pprof's profile.proto: see pprof.h.
 *
 * Note [pprof functions of a sampled stack]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A frame is an info table (a return frame's, a thunk's under evaluation,
 * a closure a heap check retries). pprof's functions are what its -top
 * and flame graphs add up, and a profiler's user thinks in bindings, so a
 * frame's function is its binding as -hi names it, package:Module.binding
 * (ipe_binding_name), with the source span's file and first line: two
 * frames of one binding are one function in -top (pprof's default
 * granularity) and two lines of it in -lines or the source view. A frame
 * whose table has no binding (a constructor, an RTS table kept as the only
 * frame of a stack) is named by its -hi band name, and one the stream never
 * described by its address. The system name is the table's symbol, or its
 * address. An empty stack (the RTS walked no frame) is one location,
 * "(no stack)", so that its weight still shows. Functions are interned as
 * for censuses (pprof.c), one location each.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/pprof.h"

#include "pprof_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sample types, in the order of every sample's values. */
enum {
    STACKS_ALLOC_OBJECTS,
    STACKS_ALLOC_SPACE,
    STACKS_SAMPLES,
    STACKS_CPU,
    STACKS_NVALUES
};

/* The function (and location) of a frame. */
static uint64_t stacks_function(pprof_build *b, const samples *s, uint64_t info)
{
    char addr[24], name[1024];
    snprintf(addr, sizeof(addr), "0x%" PRIx64, info);
    const ipe_entry *e = samples_ipe(s, info);
    if (!e)
        return pprof_function(b, addr, strlen(addr), addr, "", 0, 0);
    samples_function_name(s, info, name, sizeof(name));
    size_t flen;
    int64_t line;
    pprof_span(e->srcloc, &flen, &line);
    return pprof_function(b, name, strlen(name),
                          e->table_name[0] ? e->table_name : addr, e->srcloc,
                          flen, line);
}

/* Every stack as a sample. -1: no memory. */
static int stacks_encode_samples(pprof_build *b, const samples *s,
                                 pprof_msgs *g)
{
    size_t nlocs = 0;
    for (size_t i = 0; i < s->nstacks; i++)
        nlocs += s->stacks[i].depth ? s->stacks[i].depth : 1;
    if (pprof_msgs_alloc(g, s->nstacks, nlocs + 1,
                         (s->nstacks + 1) * STACKS_NVALUES) != 0)
        return -1;
    size_t at = 0;
    for (size_t i = 0; i < s->nstacks; i++) {
        const samples_stack *st = &s->stacks[i];
        const uint64_t *frames = samples_frames(s, st);
        RtscopePprof__Sample init = RTSCOPE_PPROF__SAMPLE__INIT;
        RtscopePprof__Sample *x = &g->samples[i];
        *x = init;
        x->location_id = g->locids + at;
        if (st->depth == 0)
            x->location_id[x->n_location_id++] =
                pprof_function(b, "(no stack)", 10, "(no stack)", "", 0, 0);
        for (uint32_t j = 0; j < st->depth; j++)
            x->location_id[x->n_location_id++] =
                stacks_function(b, s, frames[j]);
        at += x->n_location_id;
        x->value = &g->values[i * STACKS_NVALUES];
        x->n_value = STACKS_NVALUES;
        x->value[STACKS_SAMPLES] = (int64_t)st->sum.count;
        if (st->kind == SAMPLES_ALLOC) {
            x->value[STACKS_ALLOC_OBJECTS] = (int64_t)llround(st->sum.objects);
            x->value[STACKS_ALLOC_SPACE] = (int64_t)st->sum.weight;
        } else {
            x->value[STACKS_CPU] = (int64_t)st->sum.weight;
        }
        g->samplep[i] = x;
    }
    g->nsamples = s->nstacks;
    return b->nomem ? -1 : 0;
}

int pprof_write_stacks(FILE *f, const samples *s, const char *program,
                       size_t program_len, int64_t time_nanos,
                       int64_t duration_nanos)
{
    pprof_build b;
    memset(&b, 0, sizeof(b));
    pprof_str(&b, "", 0); /* string_table[0] */
    static const char *const types[STACKS_NVALUES][2] = {
        {"alloc_objects", "count"},
        {"alloc_space", "bytes"},
        {"samples", "count"},
        {"cpu", "nanoseconds"},
    };
    RtscopePprof__ValueType vt[STACKS_NVALUES], *vtp[STACKS_NVALUES];
    for (int i = 0; i < STACKS_NVALUES; i++) {
        RtscopePprof__ValueType init = RTSCOPE_PPROF__VALUE_TYPE__INIT;
        vt[i] = init;
        vt[i].type = pprof_str(&b, types[i][0], strlen(types[i][0]));
        vt[i].unit = pprof_str(&b, types[i][1], strlen(types[i][1]));
        vtp[i] = &vt[i];
    }
    /* the period: what one sample stands for, of the default type */
    int alloc = samples_any(s, SAMPLES_ALLOC);
    RtscopePprof__ValueType pt = RTSCOPE_PPROF__VALUE_TYPE__INIT;
    pt.type = alloc ? pprof_str(&b, "space", 5) : vt[STACKS_CPU].type;
    pt.unit = alloc ? vt[STACKS_ALLOC_SPACE].unit : vt[STACKS_CPU].unit;
    RtscopePprof__Profile prof = RTSCOPE_PPROF__PROFILE__INIT;
    RtscopePprof__Mapping map = RTSCOPE_PPROF__MAPPING__INIT;
    RtscopePprof__Mapping *mapp = &map;
    pprof_msgs g;
    memset(&g, 0, sizeof(g));
    int rc = -1, packed = 0;
    /* the program, so that pprof names it and never tries to symbolize */
    map.id = 1;
    map.filename = pprof_str(&b, program, program_len);
    map.has_functions = 1;
    map.has_filenames = 1;
    map.has_line_numbers = 1;
    if (b.nomem || stacks_encode_samples(&b, s, &g) != 0 ||
        pprof_encode_functions(&b, &g) != 0)
        goto out;
    prof.n_sample_type = STACKS_NVALUES;
    prof.sample_type = vtp;
    prof.default_sample_type =
        alloc ? vt[STACKS_ALLOC_SPACE].type : vt[STACKS_CPU].type;
    prof.period_type = &pt;
    prof.period =
        (int64_t)s->first_weight[alloc ? SAMPLES_ALLOC : SAMPLES_TIME];
    prof.time_nanos = time_nanos;
    prof.duration_nanos = duration_nanos;
    prof.n_mapping = 1;
    prof.mapping = &mapp;
    rc = pprof_pack_built(f, &prof, &b, &g, &packed);
out:
    if (rc != 0 && !packed)
        errno = ENOMEM;
    pprof_msgs_free(&g);
    pprof_build_free(&b);
    return rc;
}
