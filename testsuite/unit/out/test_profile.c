/* Check unit tests for the profile model's band series (lib/model/
 * profile.c, Note [band series grid] and Note [Bands by address]): each
 * band's values land in its own cells of the tiled grid and survive the
 * grid's doublings and a budget's halvings whole; -hi address labels and
 * other labels name bands apart. And the live model of rtscope serve
 * (Note [profile statistics]): profile_view of a run in progress gives
 * exactly what profile_finish of the same prefix gives; a model that keeps
 * few census times gives the same statistics (to rounding) without them;
 * a live model keeps its latest markers. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/profile.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Suite *profile_suite(void);

#define NBANDS 150 /* three tiles, the last one part full */

static void band_label(char *buf, size_t size, int j)
{
    if (j % 3 == 0)
        snprintf(buf, size, "0x%x", 0x4c5e10 + 16 * j); /* as %p prints */
    else if (j % 3 == 1)
        snprintf(buf, size, "0x0%x", 0x4c5e10 + 16 * j); /* not quite */
    else
        snprintf(buf, size, "BAND_%d", j);
}

/* censuses at times that take the grid through several doublings; band j
 * gets j + 1 bytes in each (two halves in the census where k == j % 7) */
static profile *grid_profile(size_t budget, int ncensus)
{
    profile_opts o;
    memset(&o, 0, sizeof(o));
    o.series_budget = budget;
    profile *p = profile_new(&o);
    ck_assert_ptr_nonnull(p);
    for (int k = 0; k < ncensus; k++) {
        ck_assert_int_eq(profile_sample_begin(p, 0.37 * k * k), 0);
        for (int j = 0; j < NBANDS; j++) {
            char label[32];
            band_label(label, sizeof(label), j);
            if (k == j % 7) {
                ck_assert_int_eq(profile_sample_value(p, label, strlen(label),
                                                      j / 2.0 + 0.5),
                                 0);
                ck_assert_int_eq(profile_sample_value(p, label, strlen(label),
                                                      j / 2.0 + 0.5),
                                 0);
            } else {
                ck_assert_int_eq(
                    profile_sample_value(p, label, strlen(label), j + 1.0), 0);
            }
        }
        profile_sample_end(p);
    }
    ck_assert_int_eq(profile_finish(p), 0);
    return p;
}

static void check_grid(const profile *p, int ncensus)
{
    ck_assert_uint_eq(p->nbands, NBANDS);
    uint64_t censuses = 0;
    for (size_t i = 0; i < p->nb; i++)
        censuses += p->bucket_count[i];
    ck_assert_uint_eq(censuses, (uint64_t)ncensus);
    for (size_t b = 0; b < p->nbands; b++) {
        int j = -1;
        for (int c = 0; c < NBANDS && j < 0; c++) {
            char label[32];
            band_label(label, sizeof(label), c);
            if (strcmp(label, p->bands[b].key) == 0)
                j = c;
        }
        ck_assert_int_ge(j, 0);
        double sum = 0;
        for (size_t i = 0; i < p->nb; i++) {
            float v = profile_band_bucket(p, b, i);
            ck_assert(v == 0 || p->bucket_count[i] > 0);
            sum += v;
        }
        ck_assert(fabs(sum - (double)(j + 1) * ncensus) < 1e-6);
        /* the last census is in the bucket of its time */
        double t = 0.37 * (ncensus - 1) * (ncensus - 1);
        size_t last = (size_t)(t / p->bw);
        ck_assert_uint_lt(last, p->nb);
        ck_assert(profile_band_bucket(p, b, last) >= (float)(j + 1));
    }
}

START_TEST(profile_grid_doublings)
{
    /* 0.37 * 29^2 = 311 s: the 1 ms buckets double nine times */
    profile *p = grid_profile(0, 30);
    ck_assert_uint_eq(p->nb, 1024);
    check_grid(p, 30);
    profile_free(p);
}
END_TEST

START_TEST(profile_grid_budget)
{
    /* 150 bands of 1024 floats are 600 KiB: the grid halves to fit */
    profile *p = grid_profile(100 * 1024, 30);
    ck_assert_uint_lt(p->nb, 1024);
    ck_assert_uint_le(p->nbands * p->nb * sizeof(float), 100 * 1024);
    check_grid(p, 30);
    profile_free(p);
}
END_TEST

/* Census k of a small live run: band "grow" is 1000 + 50 t, band "steady"
 * 300 in even censuses only, band "late" appears from census 20. */
static void live_census(profile *p, int k)
{
    double t = 0.25 * k + 0.01 * (k % 3);
    ck_assert_int_eq(profile_sample_begin(p, t), 0);
    ck_assert_int_eq(profile_sample_value(p, "grow", 4, 1000 + 50 * t), 0);
    if (k % 2 == 0)
        ck_assert_int_eq(profile_sample_value(p, "steady", 6, 300), 0);
    if (k >= 20)
        ck_assert_int_eq(profile_sample_value(p, "late", 4, 7.0 * k), 0);
    profile_sample_end(p);
}

static profile *live_profile(const profile_opts *o, int ncensus)
{
    profile *p = profile_new(o);
    ck_assert_ptr_nonnull(p);
    for (int k = 0; k < ncensus; k++)
        live_census(p, k);
    return p;
}

static const profile_band *band_named(const profile *p, const char *name)
{
    for (size_t i = 0; i < p->nbands; i++)
        if (strcmp(p->bands[i].key, name) == 0)
            return &p->bands[i];
    return NULL;
}

START_TEST(profile_view_is_finish)
{
    profile *p = profile_new(NULL);
    ck_assert_ptr_nonnull(p);
    for (int k = 0; k < 40; k++) {
        live_census(p, k);
        ck_assert_int_eq(profile_view(p), 0);
        profile *q = live_profile(NULL, k + 1);
        ck_assert_int_eq(profile_finish(q), 0);
        ck_assert_uint_eq(p->nbands, q->nbands);
        for (size_t i = 0; i < q->nbands; i++) {
            const profile_band *a = band_named(p, q->bands[i].key),
                               *b = &q->bands[i];
            ck_assert_ptr_nonnull(a);
            ck_assert_str_eq(a->name, b->name);
            /* the same sums in the same order: the same doubles */
            ck_assert(a->mean == b->mean && a->stddev == b->stddev);
            ck_assert(a->slope == b->slope && a->intercept == b->intercept);
            ck_assert(a->r2 == b->r2 && a->size_mib_s == b->size_mib_s);
            ck_assert(a->max_v == b->max_v);
        }
        profile_free(q);
    }
    /* the view took nothing away: finishing now gives the same again */
    const profile_band *g = band_named(p, "grow");
    double slope = g->slope;
    ck_assert_int_eq(profile_finish(p), 0);
    ck_assert(g->slope == slope);
    ck_assert(fabs(slope - 50) < 1e-6);
    profile_free(p);
}
END_TEST

START_TEST(profile_bounded_times)
{
    profile_opts o;
    memset(&o, 0, sizeof(o));
    o.max_times = 16;
    profile *p = live_profile(&o, 3000), *q = live_profile(NULL, 3000);
    ck_assert_ptr_null(p->times); /* no memory a census */
    ck_assert_ptr_nonnull(q->times);
    ck_assert_int_eq(profile_view(p), 0);
    ck_assert_int_eq(profile_finish(q), 0);
    for (size_t i = 0; i < q->nbands; i++) {
        const profile_band *a = band_named(p, q->bands[i].key),
                           *b = &q->bands[i];
        ck_assert(a->mean == b->mean && a->size_mib_s == b->size_mib_s);
        ck_assert(fabs(a->slope - b->slope) <= 1e-9 * (fabs(b->slope) + 1));
        ck_assert(fabs(a->intercept - b->intercept) <=
                  1e-9 * (fabs(b->intercept) + 1));
        ck_assert(fabs(a->r2 - b->r2) <= 1e-9);
    }
    profile_free(p);
    profile_free(q);
}
END_TEST

START_TEST(profile_latest_traces)
{
    profile_opts o;
    memset(&o, 0, sizeof(o));
    o.keep_last_traces = 1;
    profile *p = profile_new(&o), *q = profile_new(NULL);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(q);
    char text[32];
    for (int i = 0; i < 25000; i++) {
        int n = snprintf(text, sizeof(text), "mark %d", i);
        ck_assert_int_eq(profile_trace_add(p, i, text, (size_t)n, 0), 0);
        ck_assert_int_eq(profile_trace_add(q, i, text, (size_t)n, 0), 0);
    }
    ck_assert_uint_le(p->ntraces, PROFILE_MAX_TRACES);
    ck_assert_uint_eq(p->ntraces + p->traces_dropped, 25000);
    ck_assert_str_eq(p->traces[p->ntraces - 1].text, "mark 24999");
    ck_assert(p->traces[0].t < p->traces[p->ntraces - 1].t);
    /* a whole-run report keeps the first ones */
    ck_assert_uint_eq(q->ntraces, PROFILE_MAX_TRACES);
    ck_assert_str_eq(q->traces[q->ntraces - 1].text, "mark 9999");
    profile_free(p);
    profile_free(q);
}
END_TEST

/* A restarted program's report describes the run going on (rtscope serve). */
START_TEST(profile_new_run_args)
{
    profile *p = profile_new(NULL);
    ck_assert_ptr_nonnull(p);
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = EL_PROGRAM_ARGS;
    static const char a1[] = "./old\0--port\0001";
    static const char a2[] = "./new\0-v";
    ev.u.capset_vec.vec = (el_str){a1, sizeof(a1) - 1};
    ck_assert_int_eq(profile_sink(p, &ev, NULL), 0);
    ev.u.capset_vec.vec = (el_str){a2, sizeof(a2) - 1};
    ck_assert_int_eq(profile_sink(p, &ev, NULL), 0);
    /* within a run, the first arguments stay */
    ck_assert_uint_eq(p->args_len, sizeof(a1) - 1);
    ck_assert_mem_eq(p->args, a1, sizeof(a1) - 1);
    el_event wc;
    memset(&wc, 0, sizeof(wc));
    wc.type = EL_WALL_CLOCK_TIME;
    wc.u.wall_clock.sec = 1800000000; /* 2027-01-15 08:00:00 UTC */
    ck_assert_int_eq(profile_sink(p, &wc, NULL), 0);
    ck_assert_str_eq(p->date, "2027-01-15 08:00:00 UTC");
    profile_new_run(p);
    ck_assert_ptr_null(p->args);
    ck_assert_int_eq(profile_sink(p, &ev, NULL), 0);
    ck_assert_uint_eq(p->args_len, sizeof(a2) - 1);
    ck_assert_mem_eq(p->args, a2, sizeof(a2) - 1);
    /* the date is the new run's; the first run's is kept */
    wc.u.wall_clock.sec = 1800000060;
    ck_assert_int_eq(profile_sink(p, &wc, NULL), 0);
    ck_assert_str_eq(p->date, "2027-01-15 08:01:00 UTC");
    ck_assert_str_eq(p->first_date, "2027-01-15 08:00:00 UTC");
    ck_assert_uint_eq(p->runs, 2);
    profile_new_run(p);
    ck_assert_str_eq(p->first_date, "2027-01-15 08:00:00 UTC");
    ck_assert_uint_eq(p->runs, 3);
    profile_free(p);
}
END_TEST

Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("grid");
    tcase_add_test(tc, profile_grid_doublings);
    tcase_add_test(tc, profile_grid_budget);
    suite_add_tcase(s, tc);
    TCase *lv = tcase_create("live");
    tcase_add_test(lv, profile_view_is_finish);
    tcase_add_test(lv, profile_bounded_times);
    tcase_add_test(lv, profile_latest_traces);
    tcase_add_test(lv, profile_new_run_args);
    suite_add_tcase(s, lv);
    return s;
}
