/* Check unit tests for the profile model's band series (lib/model/
 * profile.c, Note [band series grid] and Note [Bands by address]): each
 * band's values land in its own cells of the tiled grid and survive the
 * grid's doublings and a budget's halvings whole; -hi address labels and
 * other labels name bands apart. */
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
                ck_assert_int_eq(
                    profile_sample_value(p, label, strlen(label), j / 2.0 + 0.5),
                    0);
                ck_assert_int_eq(
                    profile_sample_value(p, label, strlen(label), j / 2.0 + 0.5),
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

Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("grid");
    tcase_add_test(tc, profile_grid_doublings);
    tcase_add_test(tc, profile_grid_budget);
    suite_add_tcase(s, tc);
    return s;
}
