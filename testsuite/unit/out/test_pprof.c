/* Check unit tests for librtscope-out (the .hp writer is in test_hp.c).
 * pprof: the census the profile model keeps (largest, Nth, nearest a time,
 * last; several values of one band in a census add up; a census cut short
 * by the end of the stream still counts), and the profile.proto
 * lib/out/pprof.c writes, read back with protobuf-c and zlib:
 * string_table[0] = "", one sample type, a -hc band's stack as its cost
 * centres innermost first, a difference with negative samples. Events are
 * given already decoded. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/profile.h"
#include "rtscope/out/pprof.h"

#include "pprof.pb-c.h"
#include "pprof_unpack.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static profile *census_profile(int pick, size_t index, double at)
{
    profile_opts o;
    memset(&o, 0, sizeof(o));
    o.pick = pick;
    o.pick_index = index;
    o.pick_at = at;
    profile *p = profile_new(&o);
    ck_assert_ptr_nonnull(p);
    /* totals 30, 70, 50, 70: the largest is census 1 (the first of two) */
    static const double a[] = {10, 30, 50, 20}, b[] = {20, 40, 0, 50};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(profile_sample_begin(p, i * 1.0), 0);
        ck_assert_int_eq(profile_sample_value(p, "a", 1, a[i] / 2), 0);
        if (b[i] > 0)
            ck_assert_int_eq(profile_sample_value(p, "b", 1, b[i]), 0);
        ck_assert_int_eq(profile_sample_value(p, "a", 1, a[i] / 2), 0);
        if (i < 3) /* the last census has no END: the stream was cut */
            profile_sample_end(p);
    }
    ck_assert_int_eq(profile_finish(p), 0);
    return p;
}

static double census_value(const profile *p, const char *name)
{
    for (size_t i = 0; i < p->census.n; i++)
        if (strcmp(p->bands[p->census.v[i].band].name, name) == 0)
            return p->census.v[i].bytes;
    return -1;
}

START_TEST(kept_census)
{
    struct {
        int pick;
        size_t index;
        double at;
        size_t want;
        double a, b;
    } cases[] = {
        {PROFILE_PICK_LARGEST, 0, 0, 1, 30, 40},
        {PROFILE_PICK_INDEX, 2, 0, 2, 50, -1},
        {PROFILE_PICK_AT, 0, 2.4, 2, 50, -1},
        {PROFILE_PICK_AT, 0, 99, 3, 20, 50},
        {PROFILE_PICK_LAST, 0, 0, 3, 20, 50},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        profile *p = census_profile(cases[c].pick, cases[c].index, cases[c].at);
        ck_assert_int_eq(p->census.found, 1);
        ck_assert_uint_eq(p->census.index, cases[c].want);
        ck_assert_double_eq(census_value(p, "a"), cases[c].a);
        ck_assert_double_eq(census_value(p, "b"), cases[c].b);
        profile_free(p);
    }
    profile *p = census_profile(PROFILE_PICK_INDEX, 4, 0);
    ck_assert_int_eq(p->census.found, 0);
    profile_free(p);
    p = census_profile(PROFILE_PICK_NONE, 0, 0);
    ck_assert_int_eq(p->census.found, 0);
    /* what is listed is the last census's bands, whose values wait for
     * the next census (Note [profile statistics]), never more */
    ck_assert_uint_le(p->ntouched, p->nbands);
    profile_free(p);
}
END_TEST

/* ---- -hc, written and read back ------------------------------------------ */

static el_event ev_of(uint16_t type, uint64_t ts)
{
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.ts = ts;
    ev.known = 1;
    return ev;
}

static void feed(profile *p, const el_event *ev)
{
    ck_assert_int_eq(profile_sink(p, ev, NULL), 0);
}

static void cost_centre(profile *p, uint32_t id, const char *label)
{
    el_event ev = ev_of(EL_HEAP_PROF_COST_CENTRE, 0);
    ev.u.cost_centre.id = id;
    ev.u.cost_centre.label = (el_str){label, strlen(label)};
    ev.u.cost_centre.module = (el_str){"Main", 4};
    feed(p, &ev);
}

static void sample_cc(profile *p, uint64_t bytes, size_t depth,
                      const uint32_t *ids)
{
    uint8_t stack[64];
    for (size_t i = 0; i < depth; i++) {
        stack[4 * i] = (uint8_t)(ids[i] >> 24);
        stack[4 * i + 1] = (uint8_t)(ids[i] >> 16);
        stack[4 * i + 2] = (uint8_t)(ids[i] >> 8);
        stack[4 * i + 3] = (uint8_t)ids[i];
    }
    el_event ev = ev_of(EL_HEAP_PROF_SAMPLE_COST_CENTRE, 0);
    ev.u.sample_cc.residency = bytes;
    ev.u.sample_cc.depth = (uint8_t)depth;
    ev.u.sample_cc.stack = stack;
    feed(p, &ev);
}

/* A -hc profile with one census: (2 1) 1000 bytes, (3 2 1) 500, MAIN 8,
 * plus `extra` bytes of (3 2 1). Cost centre 3 is never described. */
static profile *hc_profile(uint64_t extra)
{
    profile_opts o;
    memset(&o, 0, sizeof(o));
    o.pick = PROFILE_PICK_LARGEST;
    profile *p = profile_new(&o);
    ck_assert_ptr_nonnull(p);
    el_event begin = ev_of(EL_HEAP_PROF_BEGIN, 0);
    begin.u.heap_prof_begin.breakdown = EL_BREAKDOWN_COST_CENTRE;
    feed(p, &begin);
    cost_centre(p, 1, "main");
    cost_centre(p, 2, "go/loop"); /* a '/' in a label: frames are ids */
    el_event s = ev_of(EL_HEAP_PROF_SAMPLE_BEGIN, 1000000000);
    feed(p, &s);
    static const uint32_t st1[] = {2, 1}, st2[] = {3, 2, 1};
    sample_cc(p, 1000, 2, st1);
    sample_cc(p, 500 + extra, 3, st2);
    sample_cc(p, 8, 0, NULL);
    el_event e = ev_of(EL_HEAP_PROF_SAMPLE_END, 1000000000);
    feed(p, &e);
    ck_assert_int_eq(profile_finish(p), 0);
    return p;
}

/* Write, gunzip, unpack. */
static RtscopePprof__Profile *round_trip(const profile *p, const profile *base)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(pprof_write(f, p, base), 0);
    fclose(f);
    ck_assert_uint_ge(len, 2);
    ck_assert_int_eq((unsigned char)buf[0], 0x1f); /* gzip */
    ck_assert_int_eq((unsigned char)buf[1], 0x8b);
    return pprof_unpack_gzipped(buf, len);
}

RtscopePprof__Profile *pprof_unpack_gzipped(char *buf, size_t len)
{
    size_t cap = 1 << 20;
    uint8_t *raw = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof(z));
    ck_assert_int_eq(inflateInit2(&z, 15 + 32), Z_OK);
    z.next_in = (uint8_t *)buf;
    z.avail_in = (uInt)len;
    z.next_out = raw;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    size_t rawlen = cap - z.avail_out;
    inflateEnd(&z);
    RtscopePprof__Profile *pr =
        rtscope_pprof__profile__unpack(NULL, rawlen, raw);
    ck_assert_ptr_nonnull(pr);
    free(raw);
    free(buf);
    return pr;
}

static const char *fn_name(const RtscopePprof__Profile *pr, uint64_t loc)
{
    ck_assert_uint_ge(loc, 1);
    ck_assert_uint_le(loc, pr->n_location);
    const RtscopePprof__Location *l = pr->location[loc - 1];
    ck_assert_uint_eq(l->id, loc);
    ck_assert_uint_eq(l->n_line, 1);
    const RtscopePprof__Function *f = pr->function[l->line[0]->function_id - 1];
    ck_assert_uint_eq(f->id, l->line[0]->function_id);
    return pr->string_table[f->name];
}

/* The sample whose leaf is `leaf`, or NULL. */
static const RtscopePprof__Sample *sample_of(const RtscopePprof__Profile *pr,
                                             const char *leaf)
{
    for (size_t i = 0; i < pr->n_sample; i++)
        if (strcmp(fn_name(pr, pr->sample[i]->location_id[0]), leaf) == 0)
            return pr->sample[i];
    return NULL;
}

START_TEST(hc_frames)
{
    profile *p = hc_profile(0);
    RtscopePprof__Profile *pr = round_trip(p, NULL);
    ck_assert_uint_ge(pr->n_string_table, 1);
    ck_assert_str_eq(pr->string_table[0], "");
    ck_assert_uint_eq(pr->n_sample_type, 1);
    ck_assert_str_eq(pr->string_table[pr->sample_type[0]->type], "inuse_space");
    ck_assert_str_eq(pr->string_table[pr->sample_type[0]->unit], "bytes");
    ck_assert_str_eq(pr->string_table[pr->default_sample_type], "inuse_space");
    ck_assert_int_eq(pr->duration_nanos, 1000000000);
    /* one mapping, already symbolized: pprof never looks for a binary */
    ck_assert_uint_eq(pr->n_mapping, 1);
    ck_assert_int_eq(pr->mapping[0]->has_functions, 1);
    ck_assert_uint_eq(pr->location[0]->mapping_id, 1);
    ck_assert_uint_eq(pr->n_sample, 3);
    /* (3 2 1): innermost first, the undescribed one as cc3 */
    const RtscopePprof__Sample *s = sample_of(pr, "cc3");
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->n_location_id, 3);
    ck_assert_str_eq(fn_name(pr, s->location_id[1]), "go/loop");
    ck_assert_str_eq(fn_name(pr, s->location_id[2]), "main");
    ck_assert_uint_eq(s->n_value, 1);
    ck_assert_int_eq(s->value[0], 500);
    s = sample_of(pr, "go/loop");
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->n_location_id, 2);
    ck_assert_int_eq(s->value[0], 1000);
    /* the two "main" frames are one function, one location */
    ck_assert_uint_eq(s->location_id[1], sample_of(pr, "cc3")->location_id[2]);
    s = sample_of(pr, "MAIN");
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->value[0], 8);
    rtscope_pprof__profile__free_unpacked(pr, NULL);
    profile_free(p);
}
END_TEST

START_TEST(diff_base)
{
    profile *a = hc_profile(4096), *b = hc_profile(0);
    RtscopePprof__Profile *pr = round_trip(a, b);
    /* only what changed: (3 2 1) grew by 4096 */
    ck_assert_uint_eq(pr->n_sample, 1);
    ck_assert_str_eq(fn_name(pr, pr->sample[0]->location_id[0]), "cc3");
    ck_assert_int_eq(pr->sample[0]->value[0], 4096);
    rtscope_pprof__profile__free_unpacked(pr, NULL);
    /* the other way round: a negative sample */
    pr = round_trip(b, a);
    ck_assert_uint_eq(pr->n_sample, 1);
    ck_assert_int_eq(pr->sample[0]->value[0], -4096);
    rtscope_pprof__profile__free_unpacked(pr, NULL);
    profile_free(a);
    profile_free(b);
}
END_TEST

Suite *hp_suite(void);            /* test_hp.c */
Suite *strmap_suite(void);        /* test_strmap.c */
Suite *profile_suite(void);       /* test_profile.c */
Suite *samples_model_suite(void); /* test_samples.c */
Suite *report_samples_suite(void); /* test_report_samples.c */

int main(void)
{
    Suite *s = suite_create("pprof");
    TCase *tc = tcase_create("census");
    tcase_add_test(tc, kept_census);
    tcase_add_test(tc, hc_frames);
    tcase_add_test(tc, diff_base);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_add_suite(sr, hp_suite());
    srunner_add_suite(sr, strmap_suite());
    srunner_add_suite(sr, profile_suite());
    srunner_add_suite(sr, samples_model_suite());
    srunner_add_suite(sr, report_samples_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
