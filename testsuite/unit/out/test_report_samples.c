/* Check unit tests for the sampled stacks in a report's data (the
 * "samples" member of rtscope html --json, Note [A bounded call tree] in
 * lib/out/report_samples.c): the call tree merges stacks from the root,
 * frames named by their function as pprof --stacks names them, the RTS's
 * frames left out, the same before samples_finish (rtscope serve) as
 * after; the rows are in preorder, heaviest child first, "other" last,
 * bounded by share and by count, and every node's weight is kept; the
 * sites are stats'; program strings are escaped. Events are given already
 * decoded. */
#define _POSIX_C_SOURCE 200809L
#include "report_impl.h"
#include "rtscope/model/samples.h"
#include "rtscope/out/report.h"
#include "samples_fixture.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Suite *report_samples_suite(void);

enum {
    MAIN = 0x401000,
    CALLER_A = 0x402000,
    CALLER_B = 0x403000,
    WORKER = 0x404000,
    WORKER_RET = 0x405000,
    UPD = 0x406000,
    NOWHERE = 0x777000
};

/* SampleCallers in small: main calls callerA and callerB, both call the
 * worker (two tables of one binding: its function and a return frame);
 * update frames of the RTS in between; a frame never described; a time
 * sample with no stack. Not finished. */
static samples *callers(void)
{
    samples *s = samples_new();
    ck_assert_ptr_nonnull(s);
    fx_take_ipe(s, MAIN, "Main_main_info", "14", "main:Main", "main", "Main",
                "Main.hs:20:1-30");
    fx_take_ipe(s, CALLER_A, "Main_callerA_info", "14", "main:Main", "callerA",
                "Main", "Main.hs:10:1-20");
    fx_take_ipe(s, CALLER_B, "Main_callerB_info", "14", "main:Main", "callerB",
                "Main", "Main.hs:12:1-20");
    fx_take_ipe(s, WORKER, "GHC_Show_itos_info", "14", "base:GHC.Show", "itos",
                "GHC.Show", "");
    fx_take_ipe(s, WORKER_RET, "c1_info", "30", "base:GHC.Show", "itos",
                "GHC.Show", "");
    fx_take_ipe(s, UPD, "stg_upd_frame_info", "33", "", "", "", "");
    static const uint64_t a1[] = {WORKER, UPD, CALLER_A, MAIN};
    static const uint64_t a2[] = {WORKER_RET, CALLER_A, UPD, MAIN};
    static const uint64_t b1[] = {WORKER, CALLER_B, MAIN};
    static const uint64_t lost[] = {NOWHERE, MAIN};
    for (int i = 0; i < 5; i++)
        fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 16, 0, 4, a1);
    for (int i = 0; i < 2; i++)
        fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 16, 0, 4, a2);
    for (int i = 0; i < 2; i++)
        fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 16, 0, 3, b1);
    fx_take_sample(s, EL_ALLOC_SAMPLE, 1000, 16, 0, 2, lost);
    fx_take_sample(s, EL_TIME_SAMPLE, 10000000, 16, 0, 3, b1);
    fx_take_sample(s, EL_TIME_SAMPLE, 10000000, 16, 0, 0, NULL);
    return s;
}

/* The node at a path of names from the root, or -1. */
static long node_at(const samples_tree *t, const char *const *path, int n)
{
    long at = 0;
    for (int d = 0; d < n; d++) {
        long next = -1;
        for (size_t i = 1; i < t->n && next < 0; i++)
            if ((long)t->nodes[i].parent == at &&
                strcmp(t->names.s[t->nodes[i].name], path[d]) == 0)
                next = (long)i;
        if (next < 0)
            return -1;
        at = next;
    }
    return at;
}

static void check_callers_tree(const samples *s)
{
    samples_tree t;
    ck_assert_int_eq(samples_tree_build(s, SAMPLES_ALLOC, &t), 0);
    /* root, main, callerA, callerB, 0x777000, itos under A and under B */
    ck_assert_uint_eq(t.n, 7);
    ck_assert_uint_eq(t.nodes[0].weight, 10000);
    ck_assert_uint_eq(t.nodes[0].count, 10);
    static const char *const a[] = {"main:Main.main", "main:Main.callerA",
                                    "base:GHC.Show.itos"};
    long n = node_at(&t, a, 3);
    ck_assert_int_ge(n, 0);
    /* the worker's two tables are one function: 5 + 2 samples */
    ck_assert_uint_eq(t.nodes[n].weight, 7000);
    ck_assert_uint_eq(t.nodes[n].depth, 3);
    ck_assert_uint_eq(t.nodes[node_at(&t, a, 2)].weight, 7000);
    static const char *const b[] = {"main:Main.main", "main:Main.callerB",
                                    "base:GHC.Show.itos"};
    ck_assert_uint_eq(t.nodes[node_at(&t, b, 3)].weight, 2000);
    static const char *const unknown[] = {"main:Main.main", "0x777000"};
    ck_assert_uint_eq(t.nodes[node_at(&t, unknown, 2)].weight, 1000);
    ck_assert_uint_eq(t.nodes[node_at(&t, a, 1)].weight, 10000);
    /* no update frame anywhere */
    for (size_t i = 1; i < t.n; i++) {
        ck_assert_ptr_null(strstr(t.names.s[t.nodes[i].name], "stg_"));
        ck_assert_uint_lt(t.nodes[i].parent, i);
    }
    samples_tree_free(&t);
    /* time: the empty stack is "(no stack)" */
    ck_assert_int_eq(samples_tree_build(s, SAMPLES_TIME, &t), 0);
    static const char *const none[] = {"(no stack)"};
    ck_assert_uint_eq(t.nodes[node_at(&t, none, 1)].weight, 10000000);
    ck_assert_uint_eq(t.nodes[0].weight, 20000000);
    samples_tree_free(&t);
}

START_TEST(tree_merges_from_the_root)
{
    samples *s = callers();
    check_callers_tree(s); /* unfinished, as rtscope serve reads it */
    samples_site *before;
    long nb = samples_sites(s, SAMPLES_ALLOC, &before);
    ck_assert_int_eq(samples_finish(s), 0);
    check_callers_tree(s);
    samples_site *after;
    long na = samples_sites(s, SAMPLES_ALLOC, &after);
    /* the sites, too, are the same before and after samples_finish */
    ck_assert_int_eq(nb, 3);
    ck_assert_int_eq(na, nb);
    for (long i = 0; i < na; i++) {
        ck_assert_uint_eq(before[i].info, after[i].info);
        ck_assert_uint_eq(before[i].sum.weight, after[i].sum.weight);
    }
    ck_assert_uint_eq(after[0].info, WORKER);
    ck_assert_uint_eq(after[0].sum.weight, 7000);
    free(before);
    free(after);
    samples_free(s);
}
END_TEST

/* The rows' invariants: preorder, children heaviest first with "other"
 * last, weights kept. Returns the number of "other" rows. */
static long check_rows(const samples_tree *t, const report_samples_row *r,
                       long n)
{
    ck_assert_int_ge(n, 1);
    ck_assert_int_eq(r[0].parent, -1);
    ck_assert_int_eq(r[0].name, -1);
    ck_assert_uint_eq(r[0].weight, t->nodes[0].weight);
    uint64_t *below = calloc((size_t)n, sizeof(uint64_t));
    long *last = malloc((size_t)n * sizeof(long));
    ck_assert_ptr_nonnull(below);
    ck_assert_ptr_nonnull(last);
    for (long i = 0; i < n; i++)
        last[i] = -1;
    long others = 0;
    for (long i = 1; i < n; i++) {
        long p = r[i].parent;
        ck_assert_int_ge(p, 0);
        ck_assert_int_lt(p, i);
        below[p] += r[i].weight;
        if (r[i].name < 0) {
            others++;
            ck_assert_uint_gt(r[i].other, 0);
        } else {
            ck_assert_uint_eq(r[i].other, 0);
            /* kept: at least 0.1% of the total */
            ck_assert(r[i].weight * 1000 >= r[0].weight);
        }
        if (last[p] >= 0) { /* a later sibling: no heavier, "other" last */
            ck_assert_int_ge(r[last[p]].name, 0);
            if (r[i].name >= 0)
                ck_assert_uint_ge(r[last[p]].weight, r[i].weight);
        }
        last[p] = i;
    }
    /* what a row's children add up to is what they were in the tree */
    for (long i = 0; i < n; i++) {
        if (r[i].name < 0 && i > 0)
            continue;
        ck_assert_uint_le(below[i], r[i].weight);
    }
    free(below);
    free(last);
    return others;
}

START_TEST(rows_small_tree_whole)
{
    samples *s = callers();
    ck_assert_int_eq(samples_finish(s), 0);
    samples_tree t;
    ck_assert_int_eq(samples_tree_build(s, SAMPLES_ALLOC, &t), 0);
    report_samples_row *r;
    long n = report_samples_rows(&t, &r);
    ck_assert_int_eq(n, (long)t.n); /* nothing under 0.1% */
    ck_assert_int_eq(check_rows(&t, r, n), 0);
    /* preorder: root, main, callerA, itos, callerB, itos, 0x777000 */
    static const char *const order[] = {
        "main:Main.main",    "main:Main.callerA",  "base:GHC.Show.itos",
        "main:Main.callerB", "base:GHC.Show.itos", "0x777000"};
    for (long i = 1; i < n; i++)
        ck_assert_str_eq(t.names.s[r[i].name], order[i - 1]);
    ck_assert_int_eq(r[3].parent, 2);
    ck_assert_int_eq(r[5].parent, 4);
    ck_assert_uint_eq(r[2].weight, 7000);
    free(r);
    samples_tree_free(&t);
    samples_free(s);
}
END_TEST

/* Many thin stacks: main -> fN -> gM, 4,000 of them (f0's 40 heavy),
 * and 100 heavy ones: the rows stay bounded and the thin ones are
 * "other"s that keep their weight. */
START_TEST(rows_bounded)
{
    samples *s = samples_new();
    ck_assert_ptr_nonnull(s);
    fx_take_ipe(s, MAIN, "Main_main_info", "14", "main:Main", "main", "Main",
                "");
    char label[32];
    uint64_t total = 0;
    for (uint64_t f = 0; f < 100; f++) {
        snprintf(label, sizeof(label), "f%" PRIu64, f);
        fx_take_ipe(s, 0x500000 + f * 16, "t", "14", "main:Main", label, "Main",
                    "");
        for (uint64_t g = 0; g < 40; g++) {
            snprintf(label, sizeof(label), "g%" PRIu64 "_%" PRIu64, f, g);
            fx_take_ipe(s, 0x600000 + (f * 40 + g) * 16, "t", "14", "main:Main",
                        label, "Main", "");
            uint64_t frames[] = {0x600000 + (f * 40 + g) * 16,
                                 0x500000 + f * 16, MAIN};
            uint64_t w = f == 0 ? 1000000 : 1 + g;
            fx_take_sample(s, EL_ALLOC_SAMPLE, w, 16, 0, 3, frames);
            total += w;
        }
    }
    ck_assert_int_eq(samples_finish(s), 0);
    samples_tree t;
    ck_assert_int_eq(samples_tree_build(s, SAMPLES_ALLOC, &t), 0);
    ck_assert_uint_eq(t.n, 1 + 1 + 100 + 4000);
    ck_assert_uint_eq(t.nodes[0].weight, total);
    report_samples_row *r;
    long n = report_samples_rows(&t, &r);
    /* root, main, f0 and its 40 g's, one "other" under main */
    ck_assert_int_eq(n, 1 + 1 + 1 + 40 + 1);
    ck_assert_int_eq(check_rows(&t, r, n), 1);
    ck_assert_int_lt(r[n - 1].name, 0);
    ck_assert_int_eq(r[n - 1].parent, 1);
    ck_assert_uint_eq(r[n - 1].other, 99);
    ck_assert_uint_eq(r[n - 1].weight, total - 40 * 1000000);
    ck_assert_uint_eq(r[1].weight, total);
    free(r);
    samples_tree_free(&t);
    samples_free(s);
}
END_TEST

/* More nodes above 0.1% than REPORT_SAMPLES_MAX_NODES (at most 1,000 a
 * level can be, so three levels): only the heaviest stay. */
START_TEST(rows_capped_by_count)
{
    samples *s = samples_new();
    ck_assert_ptr_nonnull(s);
    /* main -> fN -> gN -> hN, 900 of them, each 0.106% to 0.116% */
    for (uint64_t f = 0; f < 900; f++) {
        uint64_t frames[] = {0xb00000 + f * 16, 0xa00000 + f * 16,
                             0x900000 + f * 16, MAIN};
        fx_take_sample(s, EL_ALLOC_SAMPLE, 10000 + f, 16, 0, 4, frames);
    }
    ck_assert_int_eq(samples_finish(s), 0);
    samples_tree t;
    ck_assert_int_eq(samples_tree_build(s, SAMPLES_ALLOC, &t), 0);
    ck_assert_uint_eq(t.n, 1 + 1 + 3 * 900);
    report_samples_row *r;
    long n = report_samples_rows(&t, &r);
    long others = check_rows(&t, r, n);
    /* the 666 heaviest chains (3 x 666 < 2,000 <= 3 x 667), root and
     * main, and one "other" under main for the 234 lightest */
    ck_assert_int_eq(others, 1);
    ck_assert_int_eq(n, 2 + 3 * 666 + 1);
    ck_assert_int_le(n - others, REPORT_SAMPLES_MAX_NODES);
    ck_assert_uint_eq(r[n - 1].other, 234);
    ck_assert_uint_eq(r[2].weight, 10899); /* the heaviest first */
    free(r);
    samples_tree_free(&t);
    samples_free(s);
}
END_TEST

START_TEST(json_member)
{
    samples *s = callers();
    /* a hostile name: the binary's strings are untrusted */
    fx_take_ipe(s, NOWHERE, "x", "14", "main:Main", "</script><b>\"x\"", "Main",
                "");
    ck_assert_int_eq(samples_finish(s), 0);
    profile_opts po;
    memset(&po, 0, sizeof(po));
    profile *p = profile_new(&po);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(profile_finish(p), 0);
    report_opts ro;
    memset(&ro, 0, sizeof(ro));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_write_json(f, p, &ro), 0); /* no samples given */
    fclose(f);
    ck_assert_ptr_null(strstr(buf, "\"samples\":{"));
    free(buf);
    ro.samples = s;
    f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(report_write_json(f, p, &ro), 0);
    fclose(f);
    ck_assert_ptr_nonnull(
        strstr(buf, "\"samples\":{\"alloc\":{\"unit\":\"bytes\",\"samples\":10,"
                    "\"weight\":10000,\"late\":0,\"truncated\":0,"
                    "\"objects\":625,\"nodes\":6,\"min_share\":0.001,"
                    "\"max_nodes\":2000,\"tree\":{\"name\":[-1,"));
    ck_assert_ptr_nonnull(strstr(buf, "\"parent\":[-1,0,1,2,1,4,1],"
                                      "\"weight\":[10000,10000,7000,7000,"
                                      "2000,2000,1000],\"samples\":[10,10,7,"
                                      "7,2,2,1],\"other\":[0,0,0,0,0,0,0]}"));
    /* stats' sites: the worker's function table, 7 of 10 */
    ck_assert_ptr_nonnull(strstr(buf, "\"sites\":{\"n\":3,\"name\":["));
    ck_assert_ptr_nonnull(strstr(buf, "\"weight\":[7000,2000,1000],"
                                      "\"samples\":[7,2,1]}"));
    ck_assert_ptr_nonnull(strstr(buf, "\"FUN base:GHC.Show.itos\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"time\":{\"unit\":\"ns\""));
    ck_assert_ptr_nonnull(strstr(
        buf, "\"main:Main.\\u003c/script\\u003e\\u003cb\\u003e\\\"x\\\"\""));
    ck_assert_ptr_null(strstr(buf, "</script>"));
    free(buf);
    profile_free(p);
    samples_free(s);
}
END_TEST

Suite *report_samples_suite(void)
{
    Suite *s = suite_create("report samples");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, tree_merges_from_the_root);
    tcase_add_test(tc, rows_small_tree_whole);
    tcase_add_test(tc, rows_bounded);
    tcase_add_test(tc, rows_capped_by_count);
    tcase_add_test(tc, json_member);
    suite_add_tcase(s, tc);
    return s;
}
