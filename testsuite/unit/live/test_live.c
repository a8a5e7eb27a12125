/* Check unit tests for what rtscope live and export share: the metrics
 * model (GC pauses, allocation, heap samples reduced to top N + other,
 * -hi naming, the socket's loss messages), the Prometheus exposition and
 * InfluxDB line-protocol escaping. Events are given already decoded. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/influx.h"
#include "rtscope/model/metrics.h"
#include "rtscope/out/prom.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static el_event ev_of(uint16_t type, uint16_t cap, uint64_t ts)
{
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.cap = cap;
    ev.ts = ts;
    ev.known = 1;
    return ev;
}

static el_str str_of(const char *s)
{
    el_str r = {s, strlen(s)};
    return r;
}

START_TEST(loss_message)
{
    uint64_t b, e, k;
    const char *m = "rtscope: eventlog-socket dropped 32698176 bytes (1527721 "
                    "events in 16 blocks): the client read too slowly";
    ck_assert_int_eq(metrics_parse_loss(m, strlen(m), &b, &e, &k), 1);
    ck_assert_uint_eq(b, 32698176);
    ck_assert_uint_eq(e, 1527721);
    ck_assert_uint_eq(k, 16);
    const char *bad[] = {
        "rtscope: eventlog-socket dropped x bytes (1 events in 1 blocks)",
        "rtscope: eventlog-socket dropped 5 bytes",
        "feed 17",
        "",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_int_eq(metrics_parse_loss(bad[i], strlen(bad[i]), &b, &e, &k),
                         0);
    /* fed as a user message, it counts */
    metrics *mm = metrics_new(0);
    el_event ev = ev_of(EL_USER_MSG, 0, 5);
    ev.u.msg.text = str_of(m);
    ck_assert_uint_eq(metrics_feed(mm, &ev), METRICS_CHANGED_LOSS);
    ck_assert_uint_eq(metrics_feed(mm, &ev), METRICS_CHANGED_LOSS);
    ck_assert_uint_eq(mm->dropped_bytes, 2 * 32698176ull);
    ck_assert_uint_eq(mm->dropped_blocks, 32);
    metrics_free(mm);
}
END_TEST

START_TEST(gc_pause_is_the_leaders)
{
    metrics *m = metrics_new(0);
    el_event ev = ev_of(EL_GC_START, 0, 100);
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_START, 1, 105);
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_STATS_GHC, 0, 290);
    ev.u.gc_stats.gen = 1;
    ev.u.gc_stats.copied = 4096;
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_END, 1, 200); /* a GC thread: not a collection */
    ck_assert_uint_eq(metrics_feed(m, &ev), 0);
    ev = ev_of(EL_GC_END, 0, 300);
    ck_assert_uint_eq(metrics_feed(m, &ev), METRICS_CHANGED_GC);
    ck_assert_uint_eq(m->gc_count, 1);
    ck_assert_uint_eq(m->gc_by_gen[1], 1);
    ck_assert_uint_eq(m->pause_sum_ns, 200);
    ck_assert_uint_eq(m->pause_hist[0], 1);
    ck_assert_uint_eq(m->gc_copied, 4096);
    /* a 3 ms pause lands in the (2.5 ms, 5 ms] bucket */
    ev = ev_of(EL_GC_START, 0, 1000);
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_STATS_GHC, 0, 1001);
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_END, 0, 1000 + 3000000);
    metrics_feed(m, &ev);
    ck_assert_uint_eq(m->pause_hist[5], 1);
    ck_assert_uint_eq(m->pause_max_ns, 3000000);
    ck_assert_uint_eq(m->gc_by_gen[0], 1);
    metrics_free(m);
}
END_TEST

START_TEST(allocation_sums_capabilities)
{
    metrics *m = metrics_new(0);
    uint64_t v[][2] = {{0, 100}, {1, 50}, {0, 300}, {1, 70}};
    for (int i = 0; i < 4; i++) {
        el_event ev = ev_of(EL_HEAP_ALLOCATED, (uint16_t)v[i][0], 10 + i);
        ev.u.heap.bytes = v[i][1];
        metrics_feed(m, &ev);
    }
    ck_assert_uint_eq(m->allocated, 370);
    metrics_free(m);
}
END_TEST

static void feed_sample(metrics *m, uint64_t ts, const char **labels,
                        const uint64_t *bytes, int n, int end)
{
    el_event ev = ev_of(EL_HEAP_PROF_SAMPLE_BEGIN, EL_CAP_NONE, ts);
    metrics_feed(m, &ev);
    for (int i = 0; i < n; i++) {
        ev = ev_of(EL_HEAP_PROF_SAMPLE_STRING, EL_CAP_NONE, ts);
        ev.u.sample_string.label = str_of(labels[i]);
        ev.u.sample_string.residency = bytes[i];
        metrics_feed(m, &ev);
    }
    if (end) {
        ev = ev_of(EL_HEAP_PROF_SAMPLE_END, EL_CAP_NONE, ts);
        ck_assert_uint_eq(metrics_feed(m, &ev), METRICS_CHANGED_SAMPLE);
    }
}

/* an EL_IPE event with the six fields */
static el_event ipe_ev(uint64_t info, const char *table, const char *ct,
                       const char *ty, const char *label, const char *module,
                       const char *src)
{
    el_event ev = ev_of(EL_IPE, EL_CAP_NONE, 1);
    ev.u.ipe.info = info;
    ev.u.ipe.table_name = str_of(table);
    ev.u.ipe.closure_desc = str_of(ct);
    ev.u.ipe.ty_desc = str_of(ty);
    ev.u.ipe.label = str_of(label);
    ev.u.ipe.module = str_of(module);
    ev.u.ipe.srcloc = str_of(src);
    return ev;
}

static const char *name_of(ipe_table *t, el_event ev)
{
    ck_assert_int_eq(ipe_table_put(t, &ev), 0);
    const ipe_entry *e = ipe_table_get(t, ev.u.ipe.info);
    ck_assert_ptr_nonnull(e);
    return e->name;
}

/* The band names of docs/hi.md: Haskell names, packages without version
 * or ABI hash, the binding that holds a local closure, the address when
 * nothing is known, never one name for two tables. */
START_TEST(ipe_band_names)
{
    ipe_table *t = ipe_table_new();
    ck_assert_str_eq(name_of(t, ipe_ev(0x10, "containerszm0zi6zi4zi1_DataziMapziInternal_Bin_con_info",
                                       "1", "containers-0.6.4.1:Data.Map.Internal", "Bin",
                                       "Data.Map.Internal", "")),
                     "containers:Data.Map.Internal.Bin");
    ck_assert_str_eq(name_of(t, ipe_ev(0x20, "", "16", "base:GHC.Show", "showList__",
                                       "GHC.Show", "")),
                     "THUNK in base:GHC.Show.showList__");
    ck_assert_str_eq(name_of(t, ipe_ev(0x30, "", "11",
                                       "pandoc-2.17.1.1-bBC0rtgHvLLxePeF98Kfh:Text.Pandoc.Sources",
                                       "$wsatisfy", "Text.Pandoc.Sources", "")),
                     "FUN in pandoc:Text.Pandoc.Sources.$wsatisfy");
    ck_assert_str_eq(name_of(t, ipe_ev(0x40, "ghczmprim_GHCziTypes_ZC_con_info", "4",
                                       "ghc-prim:GHC.Types", ":", "GHC.Types", "")),
                     "ghc-prim:GHC.Types.:");
    ck_assert_str_eq(name_of(t, ipe_ev(0x50, "Main_go_info", "8", "main:Main", "go", "Main",
                                       "Main.hs:3:1-20")),
                     "FUN main:Main.go at Main.hs:3:1-20");
    ck_assert_str_eq(name_of(t, ipe_ev(0x60, "s3ki_info", "15", "main:Main", "go", "Main",
                                       "Main.hs:4:9-14")),
                     "THUNK in main:Main.go at Main.hs:4:9-14");
    ck_assert_str_eq(name_of(t, ipe_ev(0x70, "stg_ARR_WORDS_info", "42", "", "stg_ARR_WORDS", "", "")),
                     "stg_ARR_WORDS");
    ck_assert_str_eq(name_of(t, ipe_ev(0x4c5e10, "", "15", "", "", "", "")), "THUNK 0x4c5e10");
    /* a type field that is a Haskell type (GHC 9.2's) gives no package */
    ck_assert_str_eq(name_of(t, ipe_ev(0x80, "Main_Leak_con_info", "1", "Leak", "Leak", "Main", "")),
                     "Main.Leak");
    /* a second thunk of showList__: its address tells it apart */
    ck_assert_str_eq(name_of(t, ipe_ev(0x28, "", "15", "base:GHC.Show", "showList__",
                                       "GHC.Show", "")),
                     "THUNK in base:GHC.Show.showList__ [0x28]");
    /* the same table posted again in a new stream keeps its name */
    ck_assert_str_eq(name_of(t, ipe_ev(0x20, "", "16", "base:GHC.Show", "showList__",
                                       "GHC.Show", "")),
                     "THUNK in base:GHC.Show.showList__");
    ck_assert_uint_eq(ipe_table_count(t), 10);
    ipe_table_free(t);
}
END_TEST

START_TEST(sample_top_n_other_and_ipe_names)
{
    metrics *m = metrics_new(2);
    el_event ev = ev_of(EL_HEAP_PROF_BEGIN, EL_CAP_NONE, 1);
    ev.u.heap_prof_begin.breakdown = EL_BREAKDOWN_INFO_TABLE;
    metrics_feed(m, &ev);
    ev = ev_of(EL_IPE, EL_CAP_NONE, 2);
    ev.u.ipe.info = 0x4c5e10;
    ev.u.ipe.table_name = str_of("Main_Leak_con_info");
    ev.u.ipe.closure_desc = str_of("7");
    ev.u.ipe.ty_desc = str_of("main:Main");
    ev.u.ipe.label = str_of("Leak");
    ev.u.ipe.module = str_of("Main");
    ev.u.ipe.srcloc = str_of("Main.hs:12:1-30");
    metrics_feed(m, &ev);
    const char *labels[] = {"0x30", "0x4c5e10", "0x20", "0x40"};
    const uint64_t bytes[] = {25, 100, 50, 5};
    feed_sample(m, 1000, labels, bytes, 4, 1);
    ck_assert_uint_eq(m->samples, 1);
    ck_assert_uint_eq(m->latest.ntop, 2);
    ck_assert_str_eq(m->latest.top[0].name, "main:Main.Leak at Main.hs:12:1-30");
    ck_assert_uint_eq(m->latest.top[0].bytes, 100);
    ck_assert_str_eq(m->latest.top[1].name, "0x20");
    ck_assert_uint_eq(m->latest.other, 30);
    ck_assert_uint_eq(m->latest.total, 180);
    ck_assert_uint_eq(m->latest.nbands, 4);
    /* half a sample never replaces the latest complete one */
    feed_sample(m, 2000, labels, bytes, 2, 0);
    ck_assert_uint_eq(m->samples, 1);
    ck_assert_uint_eq(m->latest.ts, 1000);
    metrics_free(m);
    /* an empty census (no bands) as a program's first is a sample of 0
     * bytes (the fuzzer found qsort called on the model's still NULL band
     * array: undefined, and caught by make asan) */
    m = metrics_new(2);
    feed_sample(m, 3000, labels, bytes, 0, 1);
    ck_assert_uint_eq(m->samples, 1);
    ck_assert_uint_eq(m->latest.ts, 3000);
    ck_assert_uint_eq(m->latest.total, 0);
    ck_assert_uint_eq(m->latest.nbands, 0);
    ck_assert_uint_eq(m->latest.ntop, 0);
    metrics_free(m);
}
END_TEST

/* Cost-centre profiles (-hc, -hy in a profiled program) get bands in live
 * and export too, named as hp and html name them (bands.h): labels joined
 * by '/', innermost first, MAIN for the empty stack, ccN when never
 * described. */
START_TEST(cost_centre_bands)
{
    metrics *m = metrics_new(3);
    el_event ev = ev_of(EL_HEAP_PROF_BEGIN, EL_CAP_NONE, 1);
    ev.u.heap_prof_begin.breakdown = EL_BREAKDOWN_COST_CENTRE;
    metrics_feed(m, &ev);
    const char *names[] = {"go", "main"};
    for (uint32_t id = 1; id <= 2; id++) {
        ev = ev_of(EL_HEAP_PROF_COST_CENTRE, EL_CAP_NONE, 2);
        ev.u.cost_centre.id = id;
        ev.u.cost_centre.label = str_of(names[id - 1]);
        metrics_feed(m, &ev);
    }
    ev = ev_of(EL_HEAP_PROF_SAMPLE_BEGIN, EL_CAP_NONE, 10);
    metrics_feed(m, &ev);
    static const uint8_t stack[] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9};
    const uint8_t depths[] = {2, 0, 3};
    const uint64_t bytes[] = {300, 200, 100};
    for (int i = 0; i < 3; i++) {
        ev = ev_of(EL_HEAP_PROF_SAMPLE_COST_CENTRE, EL_CAP_NONE, 10);
        ev.u.sample_cc.depth = depths[i];
        ev.u.sample_cc.stack = stack;
        ev.u.sample_cc.residency = bytes[i];
        metrics_feed(m, &ev);
    }
    ev = ev_of(EL_HEAP_PROF_SAMPLE_END, EL_CAP_NONE, 10);
    ck_assert_uint_eq(metrics_feed(m, &ev), METRICS_CHANGED_SAMPLE);
    ck_assert_uint_eq(m->latest.ntop, 3);
    ck_assert_str_eq(m->latest.top[0].name, "go/main");
    ck_assert_str_eq(m->latest.top[1].name, "MAIN");
    ck_assert_str_eq(m->latest.top[2].name, "go/main/cc9");
    ck_assert_uint_eq(m->latest.total, 600);
    metrics_free(m);
}
END_TEST

START_TEST(prometheus_exposition)
{
    metrics *m = metrics_new(1);
    snprintf(m->program, sizeof(m->program), "we\"ird\\name");
    m->pid = 7;
    m->have_pid = 1;
    el_event ev = ev_of(EL_HEAP_SIZE, 0, 10);
    ev.u.heap.bytes = 4194304;
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_START, 0, 100);
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_STATS_GHC, 0, 150);
    metrics_feed(m, &ev);
    ev = ev_of(EL_GC_END, 0, 2000100); /* 2 ms */
    metrics_feed(m, &ev);
    const char *labels[] = {"THUNK", "a\nb"};
    const uint64_t bytes[] = {10, 20};
    feed_sample(m, 3000, labels, bytes, 2, 1);

    prom_source src = {
        .spec = "unix:/tmp/x.sock",
        .m = m,
        .receiving = 1,
        .connects = 3,
        .failures = 2,
        .runs = 1,
        .read_bytes = 4096,
    };
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    prom_write_sources(f, &src, 1);
    fclose(f);
    const char *want[] = {
        "ghc_up{program=\"we\\\"ird\\\\name\",pid=\"7\"} 1\n",
        "ghc_heap_size_bytes{program=\"we\\\"ird\\\\name\",pid=\"7\"} 4194304\n",
        "# TYPE ghc_gc_pause_seconds histogram\n",
        "ghc_gc_pause_seconds_bucket{program=\"we\\\"ird\\\\name\",pid=\"7\",le=\"0.001\"} 0\n",
        "ghc_gc_pause_seconds_bucket{program=\"we\\\"ird\\\\name\",pid=\"7\",le=\"0.0025\"} 1\n",
        "ghc_gc_pause_seconds_bucket{program=\"we\\\"ird\\\\name\",pid=\"7\",le=\"+Inf\"} 1\n",
        "ghc_gc_pause_seconds_count{program=\"we\\\"ird\\\\name\",pid=\"7\"} 1\n",
        "band=\"a\\nb\"} 20\n",
        "band=\"other\"} 10\n",
        "rtscope_target_up{target=\"unix:/tmp/x.sock\"} 1\n",
        "rtscope_target_connects_total{target=\"unix:/tmp/x.sock\"} 3\n",
        "rtscope_target_failures_total{target=\"unix:/tmp/x.sock\"} 2\n",
        "rtscope_target_runs_total{target=\"unix:/tmp/x.sock\"} 1\n",
        "rtscope_target_read_bytes_total{target=\"unix:/tmp/x.sock\"} 4096\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        ck_assert_msg(strstr(out, want[i]) != NULL, "missing: %s", want[i]);
    /* values the runtime never reported are absent, not 0 */
    ck_assert_ptr_null(strstr(out, "ghc_live_bytes{"));
    ck_assert_ptr_null(strstr(out, "ghc_blocks_size_bytes{"));
    /* every line is a comment or NAME{...} VALUE */
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
        ck_assert_msg(line[0] == '#' || strchr(line, ' ') != NULL, "%s", line);
    free(out);
    metrics_free(m);
}
END_TEST

START_TEST(influx_escaping)
{
    char buf[128];
    influx_escape_tag(buf, sizeof(buf), "a b,c=d\\e");
    ck_assert_str_eq(buf, "a\\ b\\,c\\=d\\\\e");
    influx_escape_string(buf, sizeof(buf), "say \"hi\" \\o/");
    ck_assert_str_eq(buf, "\"say \\\"hi\\\" \\\\o/\"");
    ck_assert_uint_eq(influx_escape_tag(buf, 4, "abcdef"), 6); /* truncated */
    ck_assert_str_eq(buf, "abc");
}
END_TEST

/* Program time to Unix time: the wall clock event's offset, and corrupt
 * streams (any timestamp, any wall clock) saturate or are ignored instead
 * of overflowing (UBSan found the overflow in export-smoke's corrupt
 * socket). */
START_TEST(wall_clock_offset_and_corrupt_times)
{
    metrics *m = metrics_new(0);
    ck_assert_int_eq(metrics_unix_ns(m, 5), 0); /* no wall clock yet */
    el_event ev = ev_of(EL_WALL_CLOCK_TIME, 0, 1000);
    ev.u.wall_clock.sec = 1795545260;
    ev.u.wall_clock.nsec = 500;
    ck_assert_uint_eq(metrics_feed(m, &ev), METRICS_CHANGED_IDENTITY);
    ck_assert_int_eq(metrics_unix_ns(m, 3000),
                     1795545260LL * 1000000000LL + 500 + 2000);
    ck_assert_int_eq(metrics_unix_ns(m, UINT64_MAX - 7), INT64_MAX);
    ck_assert_int_eq(metrics_unix_ns(m, (uint64_t)INT64_MAX), INT64_MAX);
    /* a wall clock past 64 bits of nanoseconds is ignored */
    ev.u.wall_clock.sec = UINT64_MAX / 1000;
    ck_assert_uint_eq(metrics_feed(m, &ev), 0);
    ev = ev_of(EL_WALL_CLOCK_TIME, 0, UINT64_MAX);
    ev.u.wall_clock.sec = 1;
    ck_assert_uint_eq(metrics_feed(m, &ev), 0);
    ck_assert_int_eq(metrics_unix_ns(m, 3000),
                     1795545260LL * 1000000000LL + 500 + 2000);
    metrics_free(m);
}
END_TEST

/* A full queue drops its oldest batch, and a batch is a small part of the
 * queue: however long the outage, at least three quarters of a 16 KiB queue
 * stays filled with the newest points (once a whole batch as large as the
 * queue went, leaving a few points and none of the run's last censuses). */
START_TEST(influx_full_queue_keeps_newest)
{
    influx_opts o;
    memset(&o, 0, sizeof(o));
    o.url = "http://127.0.0.1:9"; /* never contacted: no influx_step */
    o.db = "t";
    o.queue_max = 16384;
    char why[256];
    influx *ix = influx_new(&o, why, sizeof(why));
    ck_assert_msg(ix != NULL, "%s", why);
    char line[128];
    influx_stats st;
    int full = 0;
    for (int i = 0; i < 2000; i++) {
        int n = snprintf(line, sizeof(line),
                         "ghc_heap_census,program=P,pid=1 total=%di,"
                         "bands=10i,other=0i,sample=%di %d",
                         i * 1000, i, 1000000 + i);
        influx_add(ix, line, (size_t)n);
        influx_get_stats(ix, &st);
        ck_assert_uint_le(st.queued_bytes, o.queue_max);
        ck_assert_uint_eq(st.queued_points + st.dropped_points,
                          (uint64_t)i + 1);
        if (st.dropped_points > 0)
            full = 1;
        if (full)
            ck_assert_msg(st.queued_bytes >= o.queue_max * 3 / 4,
                          "after %d points only %llu bytes queued", i + 1,
                          (unsigned long long)st.queued_bytes);
    }
    ck_assert(full);
    influx_free(ix);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, loss_message);
    tcase_add_test(tc, gc_pause_is_the_leaders);
    tcase_add_test(tc, allocation_sums_capabilities);
    tcase_add_test(tc, sample_top_n_other_and_ipe_names);
    tcase_add_test(tc, ipe_band_names);
    tcase_add_test(tc, prometheus_exposition);
    tcase_add_test(tc, wall_clock_offset_and_corrupt_times);
    tcase_add_test(tc, influx_escaping);
    tcase_add_test(tc, cost_centre_bands);
    tcase_add_test(tc, influx_full_queue_keeps_newest);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
