/* Check unit tests for the sampled-stacks model (samples.h) and its pprof
 * profile (pprof_write_stacks, read back with protobuf-c and zlib): stacks
 * add up, the RTS's frames go (a stack of nothing else keeps one), frames
 * are named by IPE entries or their address, objects are estimated as
 * weight / size, late and truncated samples are counted; the profile has
 * the four sample types, alloc_space by default, 0 in the other kind's
 * columns. Events are given already decoded. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/samples.h"
#include "rtscope/out/pprof.h"

#include "pprof.pb-c.h"
#include "pprof_unpack.h"
#include "samples_fixture.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

Suite *samples_model_suite(void);

enum {
    GO = 0x401000,
    WORK = 0x402000,
    THUNK = 0x403000,
    UPD = 0x404000,
    CATCH = 0x405000,
    NOWHERE = 0x777000
};

/* A run: main:Main.go calls work, whose thunk allocates; an update frame
 * and a catch frame of the RTS in between; one frame never described. */
static samples *run(void)
{
    samples *s = samples_new();
    ck_assert_ptr_nonnull(s);
    fx_take_ipe(s, GO, "Main_go_info", "14", "main:Main", "go", "Main",
                "Main.hs:3:1-20");
    fx_take_ipe(s, WORK, "Main_work_info", "14", "main:Main", "work", "Main",
                "Main.hs:10:5-30");
    fx_take_ipe(s, THUNK, "sat_s3ki_info", "15", "main:Main", "work", "Main",
                "Main.hs:(11,7)-(12,9)");
    fx_take_ipe(s, UPD, "stg_upd_frame_info", "33", "", "", "", "");
    fx_take_ipe(s, CATCH, "catch_frame_x", "34", "rts-1.0.2:GHC.Rts", "catch",
                "GHC.Rts", "");
    static const uint64_t with_rts[] = {THUNK, UPD, WORK, CATCH, GO};
    static const uint64_t without[] = {THUNK, WORK, GO};
    static const uint64_t only_rts[] = {UPD, CATCH};
    static const uint64_t unknown[] = {NOWHERE, GO};
    static const uint64_t work[] = {WORK, GO};
    for (int i = 0; i < 4; i++) /* 4 x 1000 bytes of 40-byte objects */
        fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 40,
                       i == 0 ? EL_SAMPLE_LATE : 0, 5, with_rts);
    fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 10, 0, 3, without);
    fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 0, EL_SAMPLE_TRUNCATED, 2,
                   only_rts);
    fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 1000, 0, 2, unknown);
    for (int i = 0; i < 3; i++)
        fx_take_sample(s, EL_TIME_SAMPLE, 10000000, 0, 0, 2, work);
    fx_take_sample(s, EL_TIME_SAMPLE, 10000000, 0, 0, 0, NULL);
    /* another tool's binary message: not a sample */
    fx_take_sample(s, EL_SAMPLE_NONE, 5000, 0, 0, 2, work);
    ck_assert_int_eq(samples_finish(s), 0);
    return s;
}

static const samples_stack *stack_of(const samples *s, samples_kind k,
                                     size_t depth, const uint64_t *frames)
{
    for (size_t i = 0; i < s->nstacks; i++) {
        const samples_stack *st = &s->stacks[i];
        if (st->kind == k && st->depth == depth &&
            (depth == 0 ||
             memcmp(samples_frames(s, st), frames, depth * 8) == 0))
            return st;
    }
    return NULL;
}

START_TEST(stacks_add_up)
{
    samples *s = run();
    const samples_sum *a = &s->total[SAMPLES_ALLOC],
                      *t = &s->total[SAMPLES_TIME];
    ck_assert_uint_eq(a->count, 7);
    ck_assert_uint_eq(a->weight, 7000);
    ck_assert_uint_eq(a->late, 1);
    ck_assert_uint_eq(a->truncated, 1);
    ck_assert_uint_eq(a->unsized, 1);
    /* 4 x 1000/40 + 1000/10 + 1000/1000 (the unsized one adds none) */
    ck_assert_double_eq_tol(a->objects, 201.0, 1e-9);
    ck_assert_uint_eq(t->count, 4);
    ck_assert_uint_eq(t->weight, 40000000);
    /* the RTS's frames dropped: five samples on one stack */
    static const uint64_t main_stack[] = {THUNK, WORK, GO};
    const samples_stack *st = stack_of(s, SAMPLES_ALLOC, 3, main_stack);
    ck_assert_ptr_nonnull(st);
    ck_assert_uint_eq(st->sum.count, 5);
    ck_assert_uint_eq(st->sum.weight, 5000);
    ck_assert_uint_eq(st->sum.late, 1);
    /* heaviest first */
    ck_assert_ptr_eq(st, &s->stacks[0]);
    /* only the RTS: its innermost frame is kept */
    static const uint64_t upd[] = {UPD};
    ck_assert_ptr_nonnull(stack_of(s, SAMPLES_ALLOC, 1, upd));
    /* the empty stack stays one */
    ck_assert_ptr_nonnull(stack_of(s, SAMPLES_TIME, 0, NULL));
    ck_assert_uint_eq(s->nstacks, 5);
    samples_free(s);
}
END_TEST

START_TEST(sites_and_names)
{
    samples *s = run();
    samples_site *v;
    long n = samples_sites(s, SAMPLES_ALLOC, &v);
    ck_assert_int_eq(n, 3);
    char name[256];
    ck_assert_uint_eq(v[0].info, THUNK);
    ck_assert_uint_eq(v[0].sum.weight, 5000);
    samples_frame_name(s, v[0].info, name, sizeof(name));
    ck_assert_str_eq(name, "THUNK in main:Main.work at Main.hs:(11,7)-(12,9)");
    samples_frame_name(s, NOWHERE, name, sizeof(name));
    ck_assert_str_eq(name, "0x777000");
    samples_frame_name(s, UPD, name, sizeof(name));
    ck_assert_str_eq(name, "stg_upd_frame_info");
    free(v);
    n = samples_sites(s, SAMPLES_TIME, &v);
    ck_assert_int_eq(n, 2);
    ck_assert_uint_eq(v[0].info, WORK);
    ck_assert_uint_eq(v[1].info, 0);
    samples_frame_name(s, 0, name, sizeof(name));
    ck_assert_str_eq(name, "(no stack)");
    free(v);
    /* which tables are the RTS's */
    ck_assert_int_eq(samples_frame_is_rts(samples_ipe(s, UPD)), 1);
    ck_assert_int_eq(samples_frame_is_rts(samples_ipe(s, CATCH)), 1);
    ck_assert_int_eq(samples_frame_is_rts(samples_ipe(s, GO)), 0);
    ck_assert_int_eq(samples_frame_is_rts(NULL), 0);
    samples_free(s);
}
END_TEST

/* ---- the profile, written and read back --------------------------------- */

static RtscopePprof__Profile *write_and_read(const samples *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(pprof_write_stacks(f, s, "prog", 4, 0, 2000000000), 0);
    fclose(f);
    return pprof_unpack_gzipped(buf, len);
}

static const RtscopePprof__Function *fn_of(const RtscopePprof__Profile *pr,
                                           uint64_t loc)
{
    ck_assert_uint_ge(loc, 1);
    ck_assert_uint_le(loc, pr->n_location);
    const RtscopePprof__Location *l = pr->location[loc - 1];
    ck_assert_uint_eq(l->n_line, 1);
    return pr->function[l->line[0]->function_id - 1];
}

#define STR(pr, i) ((pr)->string_table[(i)])

START_TEST(pprof_of_stacks)
{
    samples *s = run();
    RtscopePprof__Profile *pr = write_and_read(s);
    static const char *const types[][2] = {{"alloc_objects", "count"},
                                           {"alloc_space", "bytes"},
                                           {"samples", "count"},
                                           {"cpu", "nanoseconds"}};
    ck_assert_uint_eq(pr->n_sample_type, 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_str_eq(STR(pr, pr->sample_type[i]->type), types[i][0]);
        ck_assert_str_eq(STR(pr, pr->sample_type[i]->unit), types[i][1]);
    }
    ck_assert_str_eq(STR(pr, pr->default_sample_type), "alloc_space");
    ck_assert_int_eq(pr->duration_nanos, 2000000000);
    ck_assert_uint_eq(pr->n_sample, 5);
    /* the heaviest stack: thunk of work, work, go; the binding's name,
     * the span's file and first line, the table's symbol */
    const RtscopePprof__Sample *x = pr->sample[0];
    ck_assert_uint_eq(x->n_location_id, 3);
    const RtscopePprof__Function *leaf = fn_of(pr, x->location_id[0]);
    ck_assert_str_eq(STR(pr, leaf->name), "main:Main.work");
    ck_assert_str_eq(STR(pr, leaf->system_name), "sat_s3ki_info");
    ck_assert_str_eq(STR(pr, leaf->filename), "Main.hs");
    ck_assert_int_eq(leaf->start_line, 11);
    ck_assert_str_eq(STR(pr, fn_of(pr, x->location_id[2])->name),
                     "main:Main.go");
    ck_assert_uint_eq(x->n_value, 4);
    ck_assert_int_eq(x->value[0], 200); /* 4 x 1000/40 + 1 x 1000/10 */
    ck_assert_int_eq(x->value[1], 5000);
    ck_assert_int_eq(x->value[2], 5);
    ck_assert_int_eq(x->value[3], 0);
    /* a time stack: cpu only */
    int found_time = 0, found_unknown = 0;
    for (size_t i = 0; i < pr->n_sample; i++) {
        const RtscopePprof__Sample *y = pr->sample[i];
        const char *nm = STR(pr, fn_of(pr, y->location_id[0])->name);
        if (y->value[3]) {
            ck_assert_int_eq(y->value[0], 0);
            ck_assert_int_eq(y->value[1], 0);
            found_time += (int)y->value[2];
        }
        if (strcmp(nm, "0x777000") == 0)
            found_unknown = 1;
    }
    ck_assert_int_eq(found_time, 4);
    ck_assert_int_eq(found_unknown, 1);
    rtscope_pprof__profile__free_unpacked(pr, NULL);
    samples_free(s);
    /* time samples only: cpu is the default */
    s = samples_new();
    static const uint64_t one[] = {GO};
    fx_take_sample(s, EL_TIME_SAMPLE, 10000000, 0, 0, 1, one);
    ck_assert_int_eq(samples_finish(s), 0);
    pr = write_and_read(s);
    ck_assert_str_eq(STR(pr, pr->default_sample_type), "cpu");
    ck_assert_int_eq(pr->period, 10000000);
    rtscope_pprof__profile__free_unpacked(pr, NULL);
    samples_free(s);
}
END_TEST

Suite *samples_model_suite(void)
{
    Suite *s = suite_create("samples model");
    TCase *tc = tcase_create("stacks");
    tcase_add_test(tc, stacks_add_up);
    tcase_add_test(tc, sites_and_names);
    tcase_add_test(tc, pprof_of_stacks);
    suite_add_tcase(s, tc);
    return s;
}
