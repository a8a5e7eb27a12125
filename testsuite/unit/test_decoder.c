/* Check unit tests for the eventlog decoder, event decoding, the merge and
 * the file reader, on hand-built byte sequences. */
#define _POSIX_C_SOURCE 200809L
#include "elbuild.h"
#include "event_impl.h"
#include "rtscope/eventlog.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------- */

typedef struct rec {
    uint16_t type, cap;
    uint64_t ts, offset;
    uint32_t plen;
    uint8_t payload[96];
} rec;

typedef struct recs {
    rec *v;
    size_t n, cap;
} recs;

static int recs_add(void *ctx, el_event *ev)
{
    recs *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->v = realloc(r->v, r->cap * sizeof(rec));
    }
    rec *x = &r->v[r->n++];
    memset(x, 0, sizeof(*x));
    x->type = ev->type;
    x->cap = ev->cap;
    x->ts = ev->ts;
    x->offset = ev->offset;
    x->plen = ev->payload_len;
    memcpy(x->payload, ev->payload,
           ev->payload_len < sizeof(x->payload) ? ev->payload_len
                                                : sizeof(x->payload));
    return 0;
}

static int recs_equal(const recs *a, const recs *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (memcmp(&a->v[i], &b->v[i], sizeof(rec)) != 0)
            return 0;
    return 1;
}

/* Feed `len` bytes in chunks of `chunk`; returns the finish status. */
static el_status feed_all(const uint8_t *buf, size_t len, size_t chunk,
                          recs *out, el_error *err)
{
    el_decoder *dec = el_decoder_new(NULL);
    el_status st = EL_OK;
    for (size_t at = 0; at < len; at += chunk) {
        size_t n = len - at < chunk ? len - at : chunk;
        st = el_decoder_feed(dec, buf + at, n, recs_add, out);
        if (st < 0)
            break;
    }
    if (st >= 0)
        st = el_decoder_finish(dec);
    if (err)
        *err = *el_decoder_error(dec);
    el_decoder_free(dec);
    return st;
}

/* A small log with two capabilities' blocks and a global block. */
static void build_small(elbuild *b)
{
    elbuild p;
    eb_init(b);
    eb_header_std(b, 0, NULL);
    eb_block_begin(b, 0, 100);
    eb_init(&p);
    eb_u32(&p, 1);
    eb_event(b, EL_CREATE_THREAD, 110, p.buf, p.len);
    eb_event(b, EL_RUN_THREAD, 120, p.buf, p.len);
    eb_var_event(b, EL_USER_MARKER, 130, "hello", 5);
    eb_event(b, EL_GC_START, 140, NULL, 0);
    eb_event(b, EL_GC_END, 150, NULL, 0);
    eb_block_end(b, 160);
    eb_block_begin(b, 1, 105);
    eb_event(b, EL_RUN_THREAD, 115, p.buf, p.len);
    eb_event(b, EL_RUN_THREAD, 145, p.buf, p.len);
    eb_block_end(b, 170);
    eb_block_begin(b, EL_CAP_NONE, 90);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 0);
    eb_event(b, EL_HEAP_PROF_SAMPLE_BEGIN, 125, p.buf, p.len);
    eb_free(&p);
    eb_init(&p);
    eb_u8(&p, 0);
    eb_u64(&p, 4096);
    eb_cstr(&p, "ARR_WORDS");
    eb_var_event(b, EL_HEAP_PROF_SAMPLE_STRING, 126, p.buf, p.len);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 0);
    eb_event(b, EL_HEAP_PROF_SAMPLE_END, 127, p.buf, p.len);
    eb_block_end(b, 180);
    eb_data_end(b);
    eb_free(&p);
}

/* Decode the one non-block event of a log made of `type` with `payload`. */
static elbuild g_log;
static el_event g_ev;
static el_error g_err;

static el_status decode_one(uint16_t type, const elbuild *payload,
                            uint16_t declared)
{
    recs r = {0};
    uint16_t types[1][2] = {{type, declared}};
    eb_free(&g_log);
    eb_init(&g_log);
    eb_header(&g_log, 1, (const uint16_t(*)[2])types);
    if (declared == EL_SIZE_VARIABLE)
        eb_var_event(&g_log, type, 42, payload->buf, payload->len);
    else
        eb_event(&g_log, type, 42, payload->buf, payload->len);
    eb_data_end(&g_log);
    el_decoder *dec = el_decoder_new(NULL);
    el_decoder_input(dec, g_log.buf, g_log.len);
    el_status st = el_decoder_next(dec, &g_ev);
    ck_assert_int_eq(st, EL_FRAME);
    ck_assert_int_eq(g_ev.type, type);
    ck_assert_uint_eq(g_ev.ts, 42);
    st = el_event_decode(&g_ev, &g_err);
    el_decoder_free(dec);
    free(r.v);
    return st;
}

static el_status decode_std(uint16_t type, const elbuild *payload)
{
    return decode_one(type, payload, eb_std_size(type));
}

#define STR_EQ(s, lit)                                                        \
    do {                                                                      \
        ck_assert_uint_eq((s).len, strlen(lit));                              \
        ck_assert(memcmp((s).ptr, lit, strlen(lit)) == 0);                    \
    } while (0)

/* ---- header --------------------------------------------------------------- */

START_TEST(test_header_types)
{
    elbuild b;
    build_small(&b);
    el_decoder *dec = el_decoder_new(NULL);
    el_event ev;
    el_decoder_input(dec, b.buf, b.len);
    ck_assert_int_eq(el_decoder_next(dec, &ev), EL_FRAME);
    ck_assert(el_decoder_header_done(dec));
    const el_typetab *t = el_decoder_types(dec);
    uint16_t size;
    ck_assert_int_eq(el_typetab_lookup(t, EL_STOP_THREAD, &size), 0);
    ck_assert_uint_eq(size, 10);
    ck_assert_int_eq(el_typetab_lookup(t, EL_IPE, &size), 0);
    ck_assert_uint_eq(size, EL_SIZE_VARIABLE);
    ck_assert_int_ne(el_typetab_lookup(t, 300, &size), 0);
    ck_assert_str_eq(el_typetab_desc(t, EL_GC_START), "test event");
    ck_assert_uint_eq(el_decoder_data_offset(dec), ev.offset);
    el_decoder_free(dec);
    eb_free(&b);
}
END_TEST

START_TEST(test_not_an_eventlog)
{
    el_error err;
    recs r = {0};
    ck_assert_int_eq(feed_all((const uint8_t *)"", 0, 1, &r, &err),
                     EL_ERR_FORMAT);
    ck_assert(strstr(err.msg, "empty") != NULL);
    const char junk[] = "this is not an eventlog at all";
    ck_assert_int_eq(feed_all((const uint8_t *)junk, sizeof(junk), 7, &r,
                              &err),
                     EL_ERR_FORMAT);
    ck_assert_uint_eq(err.offset, 0);
    ck_assert_uint_eq(r.n, 0);
    free(r.v);
}
END_TEST

/* ---- every event type ----------------------------------------------------- */

START_TEST(test_decode_thread_events)
{
    elbuild p;
    eb_init(&p);
    eb_u32(&p, 7);
    ck_assert_int_eq(decode_std(EL_CREATE_THREAD, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.thread.thread, 7);
    ck_assert_int_eq(decode_std(EL_RUN_THREAD, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_THREAD_RUNNABLE, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_CREATE_SPARK_THREAD, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.thread.thread, 7);
    eb_u16(&p, 3);
    ck_assert_int_eq(decode_std(EL_MIGRATE_THREAD, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.thread_cap.thread, 7);
    ck_assert_uint_eq(g_ev.u.thread_cap.cap, 3);
    ck_assert_int_eq(decode_std(EL_THREAD_WAKEUP, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.thread_cap.cap, 3);
    eb_u32(&p, 9);
    ck_assert_int_eq(decode_std(EL_STOP_THREAD, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.stop_thread.thread, 7);
    ck_assert_uint_eq(g_ev.u.stop_thread.status, 3);
    ck_assert_uint_eq(g_ev.u.stop_thread.blocked_on, 9);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 5);
    eb_bytes(&p, "worker", 6);
    ck_assert_int_eq(decode_std(EL_THREAD_LABEL, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.thread_label.thread, 5);
    STR_EQ(g_ev.u.thread_label.label, "worker");
    eb_free(&p);
}
END_TEST

START_TEST(test_decode_empty_events)
{
    static const uint16_t empty[] = {
        EL_GC_START, EL_GC_END, EL_REQUEST_SEQ_GC, EL_REQUEST_PAR_GC,
        EL_GC_IDLE, EL_GC_WORK, EL_GC_DONE, EL_GC_GLOBAL_SYNC,
        EL_SPARK_CREATE, EL_SPARK_DUD, EL_SPARK_OVERFLOW, EL_SPARK_RUN,
        EL_SPARK_FIZZLE, EL_SPARK_GC, EL_HACK_BUG_T9003, EL_CONC_MARK_BEGIN,
        EL_CONC_SYNC_BEGIN, EL_CONC_SYNC_END, EL_CONC_SWEEP_BEGIN,
        EL_CONC_SWEEP_END, EL_TICKY_COUNTER_BEGIN_SAMPLE};
    elbuild p;
    eb_init(&p);
    for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
        ck_assert_int_eq(decode_std(empty[i], &p), EL_OK);
        ck_assert(g_ev.known);
        ck_assert_ptr_nonnull(el_type_name(empty[i]));
    }
}
END_TEST

START_TEST(test_decode_capsets_and_process)
{
    elbuild p;
    eb_init(&p);
    eb_u32(&p, 1);
    eb_u16(&p, 2);
    ck_assert_int_eq(decode_std(EL_CAPSET_CREATE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.capset_create.capset, 1);
    ck_assert_uint_eq(g_ev.u.capset_create.type, 2);
    ck_assert_int_eq(decode_std(EL_CAPSET_ASSIGN_CAP, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.capset_cap.cap, 2);
    ck_assert_int_eq(decode_std(EL_CAPSET_REMOVE_CAP, &p), EL_OK);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 1);
    ck_assert_int_eq(decode_std(EL_CAPSET_DELETE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.capset.capset, 1);
    eb_u32(&p, 4242);
    ck_assert_int_eq(decode_std(EL_OSPROCESS_PID, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.pid.pid, 4242);
    ck_assert_int_eq(decode_std(EL_OSPROCESS_PPID, &p), EL_OK);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_bytes(&p, "GHC-9.0.2 rts_thr", 17);
    ck_assert_int_eq(decode_std(EL_RTS_IDENTIFIER, &p), EL_OK);
    STR_EQ(g_ev.u.capset_str.text, "GHC-9.0.2 rts_thr");
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_bytes(&p, "./prog\0arg\0", 11);
    ck_assert_int_eq(decode_std(EL_PROGRAM_ARGS, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.capset_vec.vec.len, 10); /* trailing NUL gone */
    ck_assert_int_eq(decode_std(EL_PROGRAM_ENV, &p), EL_OK);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_u64(&p, 1700000000);
    eb_u32(&p, 123);
    ck_assert_int_eq(decode_std(EL_WALL_CLOCK_TIME, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.wall_clock.sec, 1700000000);
    ck_assert_uint_eq(g_ev.u.wall_clock.nsec, 123);
    eb_free(&p);
    eb_init(&p);
    eb_u16(&p, 3);
    ck_assert_int_eq(decode_std(EL_CAP_CREATE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.cap.cap, 3);
    ck_assert_int_eq(decode_std(EL_CAP_DELETE, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_CAP_DISABLE, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_CAP_ENABLE, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_CONC_UPD_REM_SET_FLUSH, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_SPARK_STEAL, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.spark_steal.victim_cap, 3);
    eb_free(&p);
}
END_TEST

START_TEST(test_decode_messages)
{
    elbuild p;
    eb_init(&p);
    eb_bytes(&p, "phase 1", 7);
    ck_assert_int_eq(decode_std(EL_USER_MARKER, &p), EL_OK);
    STR_EQ(g_ev.u.msg.text, "phase 1");
    ck_assert_int_eq(decode_std(EL_USER_MSG, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_LOG_MSG, &p), EL_OK);
    STR_EQ(g_ev.u.msg.text, "phase 1");
    ck_assert_int_eq(decode_std(EL_USER_BINARY_MSG, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.binary.data.len, 7);
    eb_free(&p);
    eb_init(&p);
    eb_cstr(&p, "interned");
    eb_u32(&p, 77);
    ck_assert_int_eq(decode_std(EL_INTERN_STRING, &p), EL_OK);
    STR_EQ(g_ev.u.intern_string.str, "interned");
    ck_assert_uint_eq(g_ev.u.intern_string.id, 77);
    eb_free(&p);
}
END_TEST

START_TEST(test_decode_heap_and_gc)
{
    elbuild p;
    eb_init(&p);
    eb_u32(&p, 0);
    eb_u64(&p, 123456);
    ck_assert_int_eq(decode_std(EL_HEAP_ALLOCATED, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.heap.bytes, 123456);
    ck_assert_int_eq(decode_std(EL_HEAP_SIZE, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_HEAP_LIVE, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_BLOCKS_SIZE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.heap.bytes, 123456);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_u16(&p, 2);
    eb_u64(&p, 1);
    eb_u64(&p, 2);
    eb_u64(&p, 3);
    eb_u64(&p, 4);
    ck_assert_int_eq(decode_std(EL_HEAP_INFO_GHC, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.heap_info.gens, 2);
    ck_assert_uint_eq(g_ev.u.heap_info.block_size, 4);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_u16(&p, 1);
    eb_u64(&p, 10);
    eb_u64(&p, 11);
    eb_u64(&p, 12);
    eb_u32(&p, 2);
    eb_u64(&p, 13);
    eb_u64(&p, 14);
    /* GHC < 8.4: no balanced-copied field */
    ck_assert_int_eq(decode_one(EL_GC_STATS_GHC, &p, 50), EL_OK);
    ck_assert_uint_eq(g_ev.u.gc_stats.gen, 1);
    ck_assert_uint_eq(g_ev.u.gc_stats.frag, 12);
    ck_assert_uint_eq(g_ev.u.gc_stats.par_n_threads, 2);
    ck_assert_uint_eq(g_ev.u.gc_stats.par_tot_copied, 14);
    ck_assert_int_eq(g_ev.u.gc_stats.has_par_balanced_copied, 0);
    eb_u64(&p, 15);
    ck_assert_int_eq(decode_std(EL_GC_STATS_GHC, &p), EL_OK);
    ck_assert_int_eq(g_ev.u.gc_stats.has_par_balanced_copied, 1);
    ck_assert_uint_eq(g_ev.u.gc_stats.par_balanced_copied, 15);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_u32(&p, 100);
    eb_u32(&p, 80);
    eb_u32(&p, 20);
    ck_assert_int_eq(decode_std(EL_MEM_RETURN, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.mem_return.current, 100);
    ck_assert_uint_eq(g_ev.u.mem_return.needed, 80);
    ck_assert_uint_eq(g_ev.u.mem_return.returned, 20);
    eb_free(&p);
    eb_init(&p);
    for (int i = 1; i <= 7; i++)
        eb_u64(&p, (uint64_t)i);
    ck_assert_int_eq(decode_std(EL_SPARK_COUNTERS, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.spark_counters.created, 1);
    ck_assert_uint_eq(g_ev.u.spark_counters.remaining, 7);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 99);
    ck_assert_int_eq(decode_std(EL_CONC_MARK_END, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.conc_mark_end.marked, 99);
    eb_free(&p);
    eb_init(&p);
    eb_u8(&p, 4);
    eb_u32(&p, 1);
    eb_u32(&p, 2);
    eb_u32(&p, 3);
    ck_assert_int_eq(decode_std(EL_NONMOVING_HEAP_CENSUS, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.nonmoving_census.log_blk_size, 4);
    ck_assert_uint_eq(g_ev.u.nonmoving_census.live_blocks, 3);
    eb_free(&p);
}
END_TEST

START_TEST(test_decode_tasks_and_blocks)
{
    elbuild p;
    eb_init(&p);
    eb_u64(&p, 0xabc);
    eb_u16(&p, 1);
    eb_u64(&p, 555);
    ck_assert_int_eq(decode_std(EL_TASK_CREATE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.task_create.task, 0xabc);
    ck_assert_uint_eq(g_ev.u.task_create.cap, 1);
    ck_assert_uint_eq(g_ev.u.task_create.tid, 555);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 0xabc);
    eb_u16(&p, 1);
    eb_u16(&p, 2);
    ck_assert_int_eq(decode_std(EL_TASK_MIGRATE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.task_migrate.new_cap, 2);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 0xabc);
    ck_assert_int_eq(decode_std(EL_TASK_DELETE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.task_delete.task, 0xabc);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 24);
    eb_u64(&p, 999);
    eb_u16(&p, 5);
    ck_assert_int_eq(decode_std(EL_BLOCK_MARKER, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.block.size, 24);
    ck_assert_uint_eq(g_ev.u.block.end_ts, 999);
    ck_assert_uint_eq(g_ev.u.block.cap, 5);
    ck_assert_uint_eq(g_ev.cap, 5);
    eb_free(&p);
}
END_TEST

START_TEST(test_decode_heap_profile)
{
    elbuild p;
    eb_init(&p);
    eb_u8(&p, 0);
    eb_u64(&p, 100000000);
    eb_u32(&p, EL_BREAKDOWN_CLOSURE_TYPE);
    eb_cstr(&p, "Main");
    for (int i = 0; i < 6; i++)
        eb_cstr(&p, "");
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_BEGIN, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.heap_prof_begin.interval_ns, 100000000);
    ck_assert_uint_eq(g_ev.u.heap_prof_begin.breakdown, 7);
    STR_EQ(g_ev.u.heap_prof_begin.filters[0], "Main");
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 12);
    eb_cstr(&p, "go");
    eb_cstr(&p, "Main");
    eb_cstr(&p, "Main.hs:3:1-10");
    eb_u8(&p, 1);
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_COST_CENTRE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.cost_centre.id, 12);
    STR_EQ(g_ev.u.cost_centre.module, "Main");
    STR_EQ(g_ev.u.cost_centre.srcloc, "Main.hs:3:1-10");
    ck_assert_uint_eq(g_ev.u.cost_centre.flags, 1);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 3);
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_SAMPLE_BEGIN, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.sample.era, 3);
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_SAMPLE_END, &p), EL_OK);
    ck_assert_int_eq(decode_std(EL_PROF_BEGIN, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.prof_begin.tick_interval, 3);
    eb_u64(&p, 77);
    ck_assert_int_eq(decode_std(EL_HEAP_BIO_PROF_SAMPLE_BEGIN, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.bio_sample.time, 77);
    eb_free(&p);
    eb_init(&p);
    eb_u8(&p, 0);
    eb_u64(&p, 4096);
    eb_cstr(&p, "THUNK");
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_SAMPLE_STRING, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.sample_string.residency, 4096);
    STR_EQ(g_ev.u.sample_string.label, "THUNK");
    eb_free(&p);
    eb_init(&p);
    eb_u8(&p, 0);
    eb_u64(&p, 512);
    eb_u8(&p, 2);
    eb_u32(&p, 5);
    eb_u32(&p, 6);
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_SAMPLE_COST_CENTRE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.sample_cc.residency, 512);
    ck_assert_uint_eq(g_ev.u.sample_cc.depth, 2);
    ck_assert_uint_eq(g_ev.u.sample_cc.stack[7], 6);
    eb_free(&p);
    eb_init(&p);
    eb_u32(&p, 0);
    eb_u64(&p, 9);
    eb_u8(&p, 1);
    eb_u32(&p, 5);
    ck_assert_int_eq(decode_std(EL_PROF_SAMPLE_COST_CENTRE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.prof_sample_cc.ticks, 9);
    ck_assert_uint_eq(g_ev.u.prof_sample_cc.depth, 1);
    eb_free(&p);
    /* depth says 3 ids but there are 2: corrupt */
    eb_init(&p);
    eb_u8(&p, 0);
    eb_u64(&p, 512);
    eb_u8(&p, 3);
    eb_u32(&p, 5);
    eb_u32(&p, 6);
    ck_assert_int_eq(decode_std(EL_HEAP_PROF_SAMPLE_COST_CENTRE, &p),
                     EL_ERR_FORMAT);
    ck_assert(strstr(g_err.msg, "stack") != NULL);
    eb_free(&p);
}
END_TEST

START_TEST(test_decode_ipe_and_ticky)
{
    elbuild p;
    eb_init(&p);
    eb_u64(&p, 0x4c5e10);
    eb_cstr(&p, "Main_go_info");
    eb_cstr(&p, "21");
    eb_cstr(&p, "Map Int String");
    eb_cstr(&p, "go");
    eb_cstr(&p, "Main");
    eb_cstr(&p, "Main.hs:12:5-30");
    ck_assert_int_eq(decode_std(EL_IPE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.ipe.info, 0x4c5e10);
    STR_EQ(g_ev.u.ipe.table_name, "Main_go_info");
    STR_EQ(g_ev.u.ipe.closure_desc, "21");
    STR_EQ(g_ev.u.ipe.ty_desc, "Map Int String");
    STR_EQ(g_ev.u.ipe.label, "go");
    STR_EQ(g_ev.u.ipe.module, "Main");
    STR_EQ(g_ev.u.ipe.srcloc, "Main.hs:12:5-30");
    eb_free(&p);
    /* missing NUL on the last string: corrupt, with the field named */
    eb_init(&p);
    eb_u64(&p, 0x4c5e10);
    eb_cstr(&p, "a");
    eb_cstr(&p, "21");
    eb_cstr(&p, "t");
    eb_cstr(&p, "l");
    eb_cstr(&p, "M");
    eb_bytes(&p, "M.hs", 4);
    ck_assert_int_eq(decode_std(EL_IPE, &p), EL_ERR_FORMAT);
    ck_assert(strstr(g_err.msg, "source location") != NULL);
    ck_assert_uint_eq(g_err.offset, g_ev.offset);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 1);
    eb_u16(&p, 2);
    eb_cstr(&p, "ii");
    eb_cstr(&p, "f");
    ck_assert_int_eq(decode_std(EL_TICKY_COUNTER_DEF, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.ticky_def.arity, 2);
    STR_EQ(g_ev.u.ticky_def.name, "f");
    ck_assert_uint_eq(g_ev.u.ticky_def.info_tbl, 0);
    eb_u64(&p, 0x1234); /* GHC 9.4 adds the info table */
    ck_assert_int_eq(decode_std(EL_TICKY_COUNTER_DEF, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.ticky_def.info_tbl, 0x1234);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 1);
    eb_u64(&p, 2);
    eb_u64(&p, 3);
    eb_u64(&p, 4);
    ck_assert_int_eq(decode_std(EL_TICKY_COUNTER_SAMPLE, &p), EL_OK);
    ck_assert_uint_eq(g_ev.u.ticky_sample.allocd, 4);
    eb_free(&p);
}
END_TEST

/* ---- compatibility -------------------------------------------------------- */

START_TEST(test_unknown_types_skipped)
{
    /* type 300 fixed 5 bytes, type 301 variable: both skipped by size */
    uint16_t types[][2] = {{EL_RUN_THREAD, 4}, {300, 5}, {301, 0xffff}};
    elbuild b, p;
    recs r = {0};
    eb_init(&b);
    eb_init(&p);
    eb_header(&b, 3, (const uint16_t(*)[2])types);
    eb_u32(&p, 1);
    eb_event(&b, EL_RUN_THREAD, 1, p.buf, 4);
    eb_event(&b, 300, 2, "abcde", 5);
    eb_var_event(&b, 301, 3, "0123456789", 10);
    eb_event(&b, EL_RUN_THREAD, 4, p.buf, 4);
    eb_data_end(&b);
    ck_assert_int_eq(feed_all(b.buf, b.len, b.len, &r, NULL), EL_OK);
    ck_assert_uint_eq(r.n, 4);
    ck_assert_uint_eq(r.v[1].type, 300);
    ck_assert_uint_eq(r.v[1].plen, 5);
    ck_assert_uint_eq(r.v[2].plen, 10);
    ck_assert_uint_eq(r.v[3].ts, 4);
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = 300;
    ev.payload = (const uint8_t *)"abcde";
    ev.payload_len = 5;
    ck_assert_int_eq(el_event_decode(&ev, NULL), EL_OK);
    ck_assert_int_eq(ev.known, 0);
    free(r.v);
    eb_free(&b);
    eb_free(&p);
}
END_TEST

START_TEST(test_trailing_fields_tolerated)
{
    /* A newer writer declares RUN_THREAD with 8 bytes: we read 4. */
    elbuild p;
    eb_init(&p);
    eb_u32(&p, 7);
    eb_u32(&p, 0xdeadbeef);
    ck_assert_int_eq(decode_one(EL_RUN_THREAD, &p, 8), EL_OK);
    ck_assert_uint_eq(g_ev.u.thread.thread, 7);
    ck_assert_uint_eq(g_ev.payload_len, 8);
    ck_assert_uint_eq(g_ev.decoded_len, 4);
    eb_free(&p);
    /* ... and one that declares too few bytes is an error. */
    eb_init(&p);
    eb_u16(&p, 7);
    ck_assert_int_eq(decode_one(EL_RUN_THREAD, &p, 2), EL_ERR_FORMAT);
    ck_assert(strstr(g_err.msg, "thread") != NULL);
    eb_free(&p);
}
END_TEST

/* The payload check the reader runs in stream order (Note [Checking a
 * payload without decoding it]) says yes exactly when el_event_decode
 * succeeds: every type number up to 300, every payload length up to 80,
 * payloads of one repeated byte (stack depths 0-4, no NUL at all) and
 * random ones with NULs here and there. */
START_TEST(test_payload_check_matches_decode)
{
    static const uint8_t fills[] = {0, 1, 2, 3, 4, 'a', 0xff};
    uint8_t buf[80];
    unsigned seed = 31;
    for (unsigned type = 0; type <= 300; type++) {
        for (unsigned pattern = 0; pattern < sizeof(fills) + 64; pattern++) {
            for (size_t i = 0; i < sizeof(buf); i++) {
                if (pattern < sizeof(fills)) {
                    buf[i] = fills[pattern];
                } else {
                    seed = seed * 1103515245u + 12345u;
                    unsigned r = (seed >> 16) % 8;
                    buf[i] = (uint8_t)(r < 2 ? 0 : r < 4 ? r - 1 : 'x');
                }
            }
            for (uint32_t len = 0; len <= sizeof(buf); len++) {
                el_event ev;
                memset(&ev, 0, sizeof(ev));
                ev.type = (uint16_t)type;
                ev.payload = buf + sizeof(buf) - len;
                ev.payload_len = len;
                int ok = event_payload_ok(&ev);
                int decodes = el_event_decode(&ev, NULL) == EL_OK;
                ck_assert_msg(ok == decodes,
                              "type %u, %u bytes, pattern %u: check %d, "
                              "decode %d",
                              type, len, pattern, ok, decodes);
            }
        }
    }
}
END_TEST

/* A label is read up to its first NUL, whatever its length (short ones
 * are searched a word at a time, long ones with memchr) and wherever the
 * NUL falls in a word; with no NUL it is missing. */
START_TEST(test_sample_label_lengths)
{
    for (size_t len = 0; len <= 70; len++) {
        for (size_t cut = 0; cut <= len; cut++) { /* NUL at cut; len: none */
            size_t plen = 9 + len + (cut == len);
            uint8_t *pl = malloc(plen); /* exact: ASan sees a load past it */
            ck_assert_ptr_nonnull(pl);
            memset(pl, 0, 9);
            pl[1] = 7; /* residency 7 << 56 */
            for (size_t i = 0; i < len; i++)
                pl[9 + i] = (uint8_t)(i == cut ? 0 : 'A' + i % 26);
            if (cut == len)
                pl[9 + len] = 0;
            el_event ev;
            memset(&ev, 0, sizeof(ev));
            ev.type = EL_HEAP_PROF_SAMPLE_STRING;
            ev.payload = pl;
            ev.payload_len = (uint32_t)plen;
            ck_assert_int_eq(el_event_decode(&ev, NULL), EL_OK);
            ck_assert_uint_eq(ev.u.sample_string.label.len, cut);
            ck_assert_uint_eq(ev.u.sample_string.residency, (uint64_t)7 << 56);
            ck_assert_int_eq(event_payload_ok(&ev), 1);
            free(pl);
        }
        /* no NUL at all: the label is missing, and the check says so */
        uint8_t *pl = malloc(9 + len);
        ck_assert_ptr_nonnull(pl);
        memset(pl, 'x', 9 + len);
        el_event ev;
        memset(&ev, 0, sizeof(ev));
        ev.type = EL_HEAP_PROF_SAMPLE_STRING;
        ev.payload = pl;
        ev.payload_len = (uint32_t)(9 + len);
        ck_assert_int_ne(el_event_decode(&ev, NULL), EL_OK);
        ck_assert_int_eq(event_payload_ok(&ev), 0);
        free(pl);
    }
}
END_TEST

/* ---- streaming ------------------------------------------------------------ */

START_TEST(test_byte_feeding_equals_whole)
{
    elbuild b;
    build_small(&b);
    recs whole = {0}, bytes = {0}, odd = {0};
    ck_assert_int_eq(feed_all(b.buf, b.len, b.len, &whole, NULL), EL_OK);
    ck_assert_int_eq(feed_all(b.buf, b.len, 1, &bytes, NULL), EL_OK);
    ck_assert_int_eq(feed_all(b.buf, b.len, 7, &odd, NULL), EL_OK);
    ck_assert_uint_eq(whole.n, 13);
    ck_assert(recs_equal(&whole, &bytes));
    ck_assert(recs_equal(&whole, &odd));
    /* events carry their block's capability */
    ck_assert_uint_eq(whole.v[1].cap, 0);
    ck_assert_uint_eq(whole.v[8].cap, 1);
    ck_assert_uint_eq(whole.v[11].cap, EL_CAP_NONE);
    free(whole.v);
    free(bytes.v);
    free(odd.v);
    eb_free(&b);
}
END_TEST

START_TEST(test_truncation_every_offset)
{
    elbuild b;
    build_small(&b);
    recs full = {0};
    ck_assert_int_eq(feed_all(b.buf, b.len, b.len, &full, NULL), EL_OK);
    el_decoder *probe = el_decoder_new(NULL);
    el_event ev;
    el_decoder_input(probe, b.buf, b.len);
    el_decoder_next(probe, &ev);
    uint64_t data_at = el_decoder_data_offset(probe);
    el_decoder_free(probe);
    for (size_t cut = 0; cut < b.len; cut++) {
        recs r = {0};
        el_error err;
        el_status st = feed_all(b.buf, cut, 3, &r, &err);
        if (cut < data_at) {
            ck_assert_msg(st == EL_ERR_FORMAT || st == EL_ERR_TRUNCATED,
                          "cut %zu: status %d", cut, st);
            ck_assert_uint_eq(r.n, 0);
        } else {
            ck_assert_msg(st == EL_ERR_TRUNCATED, "cut %zu: status %d", cut,
                          st);
            /* every event that fits is delivered, and is the same */
            size_t expect = 0;
            while (expect < full.n &&
                   full.v[expect].offset + 10 + full.v[expect].plen +
                           (eb_std_size(full.v[expect].type) == 0xffff ? 2
                                                                       : 0) <=
                       cut)
                expect++;
            ck_assert_uint_eq(r.n, expect);
            for (size_t i = 0; i < r.n; i++)
                ck_assert(memcmp(&r.v[i], &full.v[i], sizeof(rec)) == 0);
            uint64_t next = expect < full.n ? full.v[expect].offset
                                            : b.len - 2;
            ck_assert_uint_eq(err.offset, next);
        }
        free(r.v);
    }
    free(full.v);
    eb_free(&b);
}
END_TEST

START_TEST(test_undeclared_type_is_error)
{
    uint16_t types[][2] = {{EL_GC_START, 0}};
    elbuild b;
    recs r = {0};
    el_error err;
    eb_init(&b);
    eb_header(&b, 1, (const uint16_t(*)[2])types);
    eb_event(&b, EL_GC_START, 1, NULL, 0);
    size_t bad_at = b.len;
    eb_event(&b, 77, 2, NULL, 0);
    eb_data_end(&b);
    ck_assert_int_eq(feed_all(b.buf, b.len, 5, &r, &err), EL_ERR_FORMAT);
    ck_assert_uint_eq(err.offset, bad_at);
    ck_assert(strstr(err.msg, "77") != NULL);
    ck_assert_uint_eq(r.n, 1);
    free(r.v);
    eb_free(&b);
}
END_TEST

/* GHC 9.6 writes the end-of-data marker as the last two bytes of its
 * last block (9.0.2 after it): read whole, every event, no error,
 * whether the bytes come at once or one by one. */
START_TEST(test_data_end_closing_a_block)
{
    elbuild b;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, EL_CAP_NONE, 1);
    eb_event(&b, EL_GC_START, 2, NULL, 0);
    eb_event(&b, EL_GC_END, 3, NULL, 0);
    eb_data_end(&b);
    eb_block_end(&b, 3);
    for (size_t chunk = 1; chunk <= b.len; chunk += b.len - 1) {
        recs r = {0};
        el_error err;
        ck_assert_int_eq(feed_all(b.buf, b.len, chunk, &r, &err), EL_OK);
        size_t gc = 0;
        for (size_t i = 0; i < r.n; i++)
            gc += r.v[i].type == EL_GC_START || r.v[i].type == EL_GC_END;
        ck_assert_uint_eq(gc, 2);
        free(r.v);
    }
    eb_free(&b);
}
END_TEST

START_TEST(test_event_past_block_end_is_error)
{
    elbuild b;
    recs r = {0};
    el_error err;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 0, 1);
    eb_event(&b, EL_GC_START, 2, NULL, 0);
    eb_block_end(&b, 3);
    /* shrink the block by one byte so the GC_START overhangs it */
    size_t marker = b.len - 24 - 10;
    b.buf[marker + 13] = (uint8_t)(b.buf[marker + 13] - 1);
    eb_data_end(&b);
    ck_assert_int_eq(feed_all(b.buf, b.len, b.len, &r, &err), EL_ERR_FORMAT);
    ck_assert_uint_eq(err.offset, marker + 24);
    free(r.v);
    eb_free(&b);
}
END_TEST

START_TEST(test_garbage_after_header)
{
    elbuild b;
    recs r = {0};
    el_error err;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    size_t data_at = b.len;
    srand(1);
    for (int i = 0; i < 5000; i++)
        eb_u8(&b, (uint8_t)rand());
    el_status st = feed_all(b.buf, b.len, 64, &r, &err);
    ck_assert(st == EL_ERR_FORMAT || st == EL_ERR_TRUNCATED);
    ck_assert_uint_ge(err.offset, data_at);
    free(r.v);
    eb_free(&b);
}
END_TEST

/* ---- merge ---------------------------------------------------------------- */

typedef struct order_check {
    uint64_t last;
    size_t n, late;
} order_check;

static int order_sink(void *ctx, el_event *ev)
{
    order_check *o = ctx;
    if (o->n && ev->ts < o->last)
        o->late++;
    else
        o->last = ev->ts;
    o->n++;
    return 0;
}

static size_t push_block(el_merge *m, uint16_t cap, uint64_t start,
                         uint64_t end, uint64_t step)
{
    size_t n = 1;
    uint8_t marker[14] = {0};
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.cap = cap;
    ev.type = EL_BLOCK_MARKER;
    ev.ts = start;
    for (int i = 0; i < 8; i++)
        marker[4 + i] = (uint8_t)(end >> (56 - 8 * i));
    ev.payload = marker;
    ev.payload_len = 14;
    ev.u.block.end_ts = end;
    ev.u.block.cap = cap;
    ck_assert_int_eq(el_merge_push(m, &ev), EL_OK);
    ev.type = EL_GC_START;
    ev.payload_len = 0;
    for (uint64_t t = start + step; t < end; t += step) {
        ev.ts = t;
        ck_assert_int_eq(el_merge_push(m, &ev), EL_OK);
        n++;
    }
    return n;
}

START_TEST(test_merge_orders_caps)
{
    order_check o = {0};
    el_merge *m = el_merge_new(0, order_sink, &o);
    /* Blocks of caps 0 and 1 interleaved out of order, as the RTS writes
     * them when buffers fill at different rates. Both streams have been
     * seen once (a periodic flush), so the merge knows to wait for cap 1. */
    size_t n = push_block(m, 1, 0, 10, 7);
    n += push_block(m, 0, 10, 1000, 10);
    n += push_block(m, 1, 10, 2000, 7);
    n += push_block(m, 0, 1000, 2000, 10);
    n += push_block(m, 1, 2000, 3000, 7);
    n += push_block(m, 0, 2000, 3000, 10);
    ck_assert_int_eq(el_merge_flush(m), EL_OK);
    ck_assert_uint_eq(o.late, 0);
    ck_assert_uint_eq(o.n, n);
    ck_assert_uint_eq(el_merge_get_stats(m)->late_events, 0);
    el_merge_free(m);
}
END_TEST

START_TEST(test_merge_budget_bounds_memory)
{
    order_check o = {0};
    el_merge *m = el_merge_new(4096, order_sink, &o);
    push_block(m, 0, 0, 10, 1);         /* cap 0 seen once, then silent */
    push_block(m, 1, 10, 100000, 1);    /* lots from cap 1 */
    const el_merge_stats *st = el_merge_get_stats(m);
    ck_assert_uint_le(st->peak_bytes, 4096 + 64);
    ck_assert_uint_gt(st->forced, 0);
    push_block(m, 0, 5, 8, 1); /* cap 0 wakes up with old events: late */
    ck_assert_int_eq(el_merge_flush(m), EL_OK);
    ck_assert_uint_gt(st->late_events, 0);
    ck_assert_uint_eq(o.late, st->late_events);
    el_merge_free(m);
}
END_TEST

/* Note [Holding for a quiet stream]: cap 0 seen once, then quiet; what
 * cap 1 sends waits for it, but no longer than the hold, on a push or on a
 * tick, and without a hold as long as the budget allows. */
START_TEST(test_merge_hold_releases_quiet)
{
    for (int hold = 0; hold <= 1; hold++) {
        order_check o = {0};
        el_merge *m = el_merge_new(0, order_sink, &o);
        if (hold)
            el_merge_set_hold(m, 50);
        push_block(m, 0, 0, 10, 1);
        size_t before = o.n;
        push_block(m, 1, 10, 1000, 10); /* held: cap 0 might come first */
        ck_assert_uint_eq(o.n, before);
        struct timespec t = {0, 80 * 1000000L};
        nanosleep(&t, NULL);
        ck_assert_int_eq(el_merge_tick(m), EL_OK);
        if (hold) {
            ck_assert_uint_gt(o.n, before + 90); /* released by the tick */
            ck_assert_uint_eq(el_merge_get_stats(m)->held_out, o.n - before);
        } else {
            ck_assert_uint_eq(o.n, before); /* still waiting */
        }
        push_block(m, 0, 5, 8, 1); /* cap 0 after all, with older events */
        ck_assert_int_eq(el_merge_flush(m), EL_OK);
        ck_assert_uint_eq(el_merge_get_stats(m)->late_events, hold ? 3 : 0);
        ck_assert_uint_eq(el_merge_get_stats(m)->forced, 0);
        el_merge_free(m);
    }
}
END_TEST

/* Note [A stream complete up to a time] (merge.c): a live stream is fed
 * in the pieces the RTS writes. The events of capability 0 wait while
 * capability 1 and the global stream might still precede them, and are
 * released by their empty blocks as soon as each is read whole, without
 * more bytes, a tick or a hold; the global stream's first block (its
 * announcements) counts once it is whole too. */
static int stream_count_sink(void *ctx, const el_event *ev,
                             const el_typetab *t)
{
    (void)t;
    if (ev->type == EL_USER_MARKER)
        (*(size_t *)ctx)++;
    return 0;
}

START_TEST(test_stream_empty_blocks_release)
{
    elbuild b;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    size_t cut[4];
    eb_block_begin(&b, EL_CAP_NONE, 10);
    for (uint16_t cap = 0; cap < 2; cap++) {
        uint8_t p[2] = {0, (uint8_t)cap};
        eb_event(&b, EL_CAP_CREATE, 11 + cap, p, sizeof(p));
    }
    eb_block_end(&b, 20);
    cut[0] = b.len;
    eb_block_begin(&b, 0, 20);
    eb_var_event(&b, EL_USER_MARKER, 500, "tick", 4);
    eb_block_end(&b, 510);
    cut[1] = b.len;
    eb_block_begin(&b, 1, 20); /* cap 1: quiet, an empty block */
    eb_block_end(&b, 520);
    cut[2] = b.len;
    eb_block_begin(&b, EL_CAP_NONE, 20); /* the global one, empty */
    eb_block_end(&b, 530);
    cut[3] = b.len;
    size_t seen = 0;
    el_reader_opts o;
    memset(&o, 0, sizeof(o));
    o.merge_hold_ms = EL_MERGE_HOLD_NONE;
    el_stream *st = el_stream_new(&o, stream_count_sink, &seen);
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(el_stream_feed(st, b.buf + at, cut[i] - at), EL_OK);
        at = cut[i];
        /* held until every stream is known complete past 500 */
        ck_assert_uint_eq(seen, i == 3 ? 1 : 0);
    }
    ck_assert_uint_eq(el_stream_result(st)->merge.late_events, 0);
    el_stream_free(st);
    eb_free(&b);
}
END_TEST

/* ---- reader --------------------------------------------------------------- */

typedef struct sink_check {
    uint64_t last;
    size_t n, late, markers;
} sink_check;

static int reader_sink(void *ctx, const el_event *ev, const el_typetab *t)
{
    sink_check *s = ctx;
    (void)t;
    if (s->n && ev->ts < s->last)
        s->late++;
    s->last = ev->ts;
    s->n++;
    if (ev->type == EL_USER_MARKER) {
        STR_EQ(ev->u.msg.text, "hello");
        s->markers++;
    }
    return 0;
}

static char *write_temp(const elbuild *b)
{
    char *path = strdup("/tmp/rtscope-unit-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b->buf, b->len), (ssize_t)b->len);
    close(fd);
    return path;
}

START_TEST(test_reader_file_exact_order)
{
    elbuild b;
    build_small(&b);
    char *path = write_temp(&b);
    sink_check s = {0};
    el_reader_result res;
    el_error err;
    ck_assert_int_eq(el_reader_run(path, NULL, reader_sink, &s, &res, &err),
                     EL_OK);
    ck_assert_uint_eq(s.n, 13);
    ck_assert_uint_eq(s.late, 0);
    ck_assert_uint_eq(s.markers, 1);
    ck_assert_int_eq(res.truncated, 0);
    /* truncated copy: warning-level result, events before the cut */
    b.len -= 30;
    char *cut = write_temp(&b);
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(el_reader_run(cut, NULL, reader_sink, &s, &res, &err),
                     EL_OK);
    ck_assert_int_eq(res.truncated, 1);
    ck_assert_uint_lt(s.n, 13);
    unlink(path);
    unlink(cut);
    free(path);
    free(cut);
    eb_free(&b);
}
END_TEST

START_TEST(test_reader_missing_file)
{
    sink_check s = {0};
    el_reader_result res;
    el_error err;
    ck_assert_int_eq(el_reader_run("/nonexistent/x.eventlog", NULL,
                                   reader_sink, &s, &res, &err),
                     EL_ERR_IO);
    ck_assert(strstr(err.msg, "cannot open") != NULL);
}
END_TEST

/* What a sink sees: the sequence of delivered events and every count. */
typedef struct seen {
    recs evs;
    uint64_t counts[65536];
} seen;

static int seen_sink(void *ctx, const el_event *ev, const el_typetab *t)
{
    (void)t;
    return recs_add(&((seen *)ctx)->evs, (el_event *)ev);
}

/* Two capabilities' interleaved blocks full of events a filtered sink does
 * not want (fixed, variable-size, and a type above 255), with wanted ones
 * among them, some at equal timestamps across caps. */
static void build_mixed_as(elbuild *b, int corrupt, int announce);

static void build_mixed(elbuild *b, int corrupt)
{
    build_mixed_as(b, corrupt, 0);
}

/* With `announce`, each capability's stream first appears in an empty
 * block, as after a flush, so a pipe's merge knows to wait for it (Note
 * [The merge bound] in merge.c) and can be exact. */
static void build_mixed_as(elbuild *b, int corrupt, int announce)
{
    static const uint16_t extra[2][2] = {{300, 6}, {4000, EL_SIZE_VARIABLE}};
    elbuild p;
    eb_init(b);
    eb_header_std(b, 2, extra);
    eb_init(&p);
    eb_u32(&p, 7);
    eb_u16(&p, 1);
    eb_u32(&p, 0);
    for (uint16_t cap = 0; announce && cap < 2; cap++) {
        eb_block_begin(b, cap, 0);
        eb_block_end(b, 0);
    }
    for (int blk = 0; blk < 6; blk++) {
        uint16_t cap = (uint16_t)(blk % 2);
        uint64_t t0 = 1000u * (uint64_t)(blk / 2);
        eb_block_begin(b, cap, t0);
        for (int i = 0; i < 40; i++) {
            uint64_t ts = t0 + 10u * (uint64_t)i + (cap && i % 3 ? 5 : 0);
            if (corrupt && blk == 3 && i == 30) {
                eb_event(b, 250, ts, NULL, 0); /* not declared */
                continue;
            }
            if (corrupt && blk == 3 && i >= 15 && i < 30) {
                /* a long unwanted run before it, while cap 0 has
                 * wanted events at the same times */
                eb_event(b, EL_RUN_THREAD, ts, p.buf, 4);
                continue;
            }
            switch ((i + blk) % 7) {
            case 0: eb_event(b, EL_RUN_THREAD, ts, p.buf, 4); break;
            case 1: eb_event(b, EL_STOP_THREAD, ts, p.buf, 10); break;
            case 2: eb_event(b, EL_GC_START, ts, NULL, 0); break;
            case 3: eb_event(b, 300, ts, p.buf, 6); break;
            case 4: eb_var_event(b, EL_USER_MSG, ts, "msg", 3); break;
            case 5: eb_var_event(b, 4000, ts, "xy", 2); break;
            default: eb_var_event(b, EL_USER_MARKER, ts, "hello", 5); break;
            }
        }
        eb_block_end(b, t0 + 999);
    }
    eb_data_end(b);
    eb_free(&p);
}

static el_status run_seen_budget(const char *path, const uint8_t *wanted,
                                 int unordered, size_t index_budget,
                                 seen *out, el_reader_result *res,
                                 el_error *err)
{
    el_reader_opts o;
    memset(&o, 0, sizeof(o));
    memset(out, 0, sizeof(*out));
    o.wanted = wanted;
    o.counts = out->counts;
    o.unordered = unordered;
    o.index_budget = index_budget;
    return el_reader_run(path, &o, seen_sink, out, res, err);
}

static el_status run_seen(const char *path, const uint8_t *wanted,
                          int unordered, seen *out, el_reader_result *res,
                          el_error *err)
{
    return run_seen_budget(path, wanted, unordered, 0, out, res, err);
}

/* A 9.6-style log: the global block holds three IPE events, each declared
 * one byte longer than written (the last one ends the block, so its
 * declared length runs one byte into the next block), then cap 0's block
 * with a GC. */
static void build_ipe96(elbuild *b)
{
    static const char *names[3] = {"a_info", "bb_info", "ccc_info"};
    eb_init(b);
    eb_header_std(b, 0, NULL);
    eb_block_begin(b, EL_CAP_NONE, 1);
    for (int i = 0; i < 3; i++) {
        elbuild p;
        eb_init(&p);
        eb_u64(&p, 0x400000u + 0x40u * (unsigned)i);
        eb_cstr(&p, names[i]);
        eb_cstr(&p, "15");
        eb_cstr(&p, "[Int]");
        eb_cstr(&p, "main");
        eb_cstr(&p, "Main");
        eb_cstr(&p, i == 1 ? ":" : "Main.hs:3:1-9");
        eb_var_event(b, EL_IPE, 2 + (uint64_t)i, p.buf, p.len);
        /* the declared length, one more than written */
        b->buf[b->len - p.len - 1]++;
        eb_free(&p);
    }
    eb_block_end(b, 5);
    eb_block_begin(b, 0, 6);
    eb_event(b, EL_GC_START, 7, NULL, 0);
    eb_block_end(b, 8);
    eb_data_end(b);
}

/* The n-th IPE event's location: none for the second (9.6's ":"), else
 * "Main.hs:3:1-9". */
static int ipe_srcloc_check(void *ctx, el_event *ev)
{
    int *n = ctx;
    if (ev->type != EL_IPE)
        return 0;
    ck_assert_int_eq(el_event_decode(ev, NULL), EL_OK);
    ck_assert_uint_eq(ev->u.ipe.srcloc.len, *n == 1 ? 0 : 13);
    (*n)++;
    return 0;
}

/* GHC 9.6.6's IPE events, one byte shorter than declared (Note [GHC 9.6's
 * IPE events are one byte short]), are read whole and the events after
 * them too: fed at once or byte by byte, from a file sparse or dense,
 * wanted or skipped; ":" reads as no location. */
START_TEST(test_ipe_one_byte_short)
{
    static uint8_t want_ipe[65536], want_gc[65536];
    static seen sn;
    elbuild b;
    build_ipe96(&b);
    want_ipe[EL_IPE] = 1;
    want_gc[EL_GC_START] = 1;
    for (size_t chunk = 1; chunk <= b.len; chunk += b.len - 1) {
        recs r = {0};
        el_error err;
        ck_assert_int_eq(feed_all(b.buf, b.len, chunk, &r, &err), EL_OK);
        size_t ipe = 0, gc = 0;
        for (size_t i = 0; i < r.n; i++) {
            ipe += r.v[i].type == EL_IPE;
            gc += r.v[i].type == EL_GC_START;
        }
        ck_assert_uint_eq(ipe, 3);
        ck_assert_uint_eq(gc, 1);
        free(r.v);
    }
    char *path = write_temp(&b);
    const uint8_t *wanted[3] = {NULL, want_ipe, want_gc};
    for (int w = 0; w < 3; w++)
        for (size_t budget = 0; budget < 2; budget++) {
            el_reader_result res;
            el_error err;
            ck_assert_int_eq(run_seen_budget(path, wanted[w], 0, budget, &sn,
                                             &res, &err),
                             EL_OK);
            ck_assert_uint_eq(sn.counts[EL_IPE], 3);
            ck_assert_uint_eq(sn.counts[EL_GC_START], 1);
            /* delivered, not only counted by the index pass */
            size_t ipe = 0, gc = 0;
            for (size_t i = 0; i < sn.evs.n; i++) {
                ipe += sn.evs.v[i].type == EL_IPE;
                gc += sn.evs.v[i].type == EL_GC_START;
            }
            ck_assert_uint_eq(ipe, (w == 2 ? 0 : 3));
            ck_assert_uint_eq(gc, (w == 1 ? 0 : 1));
            free(sn.evs.v);
        }
    el_decoder *dec = el_decoder_new(NULL);
    int n = 0;
    el_decoder_feed(dec, b.buf, b.len, ipe_srcloc_check, &n);
    ck_assert_int_eq(n, 3);
    el_decoder_free(dec);
    unlink(path);
    free(path);
    eb_free(&b);
}
END_TEST

/* Found by fuzz-reader: a block with an event, then outside blocks an IPE
 * event one byte shorter than declared that ends just before corrupt data (a type the
 * header does not declare), so the stop offset is where its declared
 * length runs one byte past. The file reader, its index sparse or dense,
 * delivers every event, then reports the corrupt data where it starts. */
START_TEST(test_ipe_short_before_corrupt)
{
    static seen sn;
    elbuild b, p;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 0, 1); /* two runs: over a budget of one, dense */
    eb_event(&b, EL_GC_START, 1, NULL, 0);
    eb_block_end(&b, 1);
    eb_init(&p);
    eb_u64(&p, 0x401000u);
    const char *strs[6] = {"Main_x_info", "21", "T", "x", "Main", "M.hs:1:1-"};
    for (int i = 0; i < 6; i++)
        eb_cstr(&p, strs[i]);
    eb_var_event(&b, EL_IPE, 2, p.buf, p.len);
    b.buf[b.len - p.len - 1]++; /* declared one byte longer than written */
    uint64_t corrupt_at = b.len;
    eb_u16(&b, 13568); /* not declared */
    eb_bytes(&b, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
    eb_data_end(&b);
    char *path = write_temp(&b);
    for (size_t budget = 0; budget < 2; budget++) {
        el_reader_result res;
        el_error err;
        ck_assert_int_eq(run_seen_budget(path, NULL, 0, budget, &sn, &res,
                                         &err),
                         EL_ERR_FORMAT);
        ck_assert_uint_eq(err.offset, corrupt_at);
        ck_assert_uint_eq(sn.evs.n, 3); /* the block marker too */
        ck_assert_uint_eq(sn.evs.v[1].type, EL_GC_START);
        ck_assert_uint_eq(sn.evs.v[2].type, EL_IPE);
        ck_assert_uint_eq(sn.evs.v[2].plen, p.len);
        free(sn.evs.v);
    }
    unlink(path);
    free(path);
    eb_free(&p);
    eb_free(&b);
}
END_TEST

/* Found on a -hi eventlog of pandoc on 9.6: a 9.6 IPE event (one byte
 * short) across the end of the index pass's read (1 MiB): the index
 * counted the byte the decoder held for the next event into the run, so
 * the run ended one byte into that event and reading it back found "the
 * file changed". Every IPE event of a block of them that spans the read
 * is delivered, from an index sparse or dense. */
START_TEST(test_ipe_short_across_read)
{
    static uint8_t want_ipe[65536];
    static seen sn;
    elbuild b, p;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 0, 1);
    size_t n = 0, across = 0;
    while (b.len < ((size_t)1 << 20) + 4096) {
        eb_init(&p);
        eb_u64(&p, 0x400000u + 8u * n);
        const char *strs[6] = {"Main_x_info", "21", "T", "x", "Main", ":"};
        for (int i = 0; i < 6; i++)
            eb_cstr(&p, strs[i]);
        size_t at = b.len;
        eb_var_event(&b, EL_IPE, 2 + n, p.buf, p.len);
        b.buf[b.len - p.len - 1]++; /* declared one byte longer than written */
        /* the event and its declared byte across the read's end */
        across += at < ((size_t)1 << 20) && b.len + 1 > ((size_t)1 << 20);
        n++;
        eb_free(&p);
    }
    eb_block_end(&b, 3 + n);
    eb_data_end(&b);
    ck_assert_uint_eq(across, 1);
    char *path = write_temp(&b);
    want_ipe[EL_IPE] = 1;
    for (size_t budget = 0; budget < 2; budget++) {
        el_reader_result res;
        el_error err;
        ck_assert_int_eq(run_seen_budget(path, want_ipe, 0, budget, &sn, &res,
                                         &err),
                         EL_OK);
        ck_assert_uint_eq(sn.evs.n, n);
        free(sn.evs.v);
    }
    unlink(path);
    free(path);
    eb_free(&b);
}
END_TEST

/* A filtered sink gets exactly the wanted subsequence of what an
 * unfiltered one gets, the same counts, the same event total and the same
 * truncation point, for the exact file merge and the stream path, for a
 * log cut at each of its last 400 bytes, and for a corrupt one the same
 * events before the same error (Note [Errors after skipped events]). */
START_TEST(test_reader_wanted_filter_exact)
{
    static uint8_t wanted[65536];
    static seen all, some;
    elbuild b, bad;
    build_mixed(&b, 0);
    build_mixed(&bad, 1);
    wanted[EL_GC_START] = 1;
    wanted[EL_USER_MARKER] = 1;
    size_t full = b.len;
    for (size_t cut = full + 1; cut + 400 > full && cut > 0; cut--) {
        /* first round: the corrupt log; then cuts of the good one */
        b.len = cut <= full ? cut : full;
        char *path = write_temp(cut <= full ? &b : &bad);
        for (int unordered = 0; unordered < 2; unordered++) {
            el_reader_result ra, rs;
            el_error ea, es;
            el_status sa = run_seen(path, NULL, unordered, &all, &ra, &ea);
            el_status ss = run_seen(path, wanted, unordered, &some, &rs, &es);
            ck_assert_int_eq(sa, ss);
            if (cut == full + 1) {
                /* the same error, after the same events (counts may
                 * include events read past the error's place in the
                 * order) */
                ck_assert_int_eq(sa, EL_ERR_FORMAT);
                ck_assert_uint_eq(ea.offset, es.offset);
                ck_assert_str_eq(ea.msg, es.msg);
            } else {
                ck_assert_int_eq(sa, EL_OK);
                ck_assert_uint_eq(ra.events, rs.events);
                ck_assert_int_eq(ra.truncated, rs.truncated);
                ck_assert_uint_eq(ra.truncated_at, rs.truncated_at);
                ck_assert_uint_eq(ra.last_ts, rs.last_ts);
                ck_assert(memcmp(all.counts, some.counts,
                                 sizeof(all.counts)) == 0);
            }
            size_t k = 0;
            for (size_t i = 0; i < all.evs.n; i++) {
                if (!wanted[all.evs.v[i].type])
                    continue;
                ck_assert_uint_lt(k, some.evs.n);
                ck_assert(memcmp(&all.evs.v[i], &some.evs.v[k], sizeof(rec)) ==
                          0);
                k++;
            }
            ck_assert_uint_eq(k, some.evs.n);
            if (cut == full) {
                ck_assert_uint_gt(some.evs.n, 60);
                ck_assert_uint_eq(all.counts[300], 34);
                ck_assert_uint_eq(all.counts[4000], 35);
            }
            free(all.evs.v);
            free(some.evs.v);
        }
        unlink(path);
        free(path);
    }
    eb_free(&b);
    eb_free(&bad);
}
END_TEST

/* The same bytes read through a pipe (decoder -> el_merge) instead of a
 * file (index pass -> exact merge). */
static el_status run_seen_pipe(const elbuild *b, const uint8_t *wanted,
                               seen *out, el_reader_result *res, el_error *err)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        size_t at = 0;
        while (at < b->len) {
            ssize_t n = write(fds[1], b->buf + at, b->len - at);
            if (n <= 0)
                _exit(1);
            at += (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    char spec[64];
    snprintf(spec, sizeof(spec), "/dev/fd/%d", fds[0]);
    el_reader_opts o;
    memset(&o, 0, sizeof(o));
    memset(out, 0, sizeof(*out));
    o.wanted = wanted;
    o.counts = out->counts;
    el_status st = el_reader_run(spec, &o, seen_sink, out, res, err);
    close(fds[0]);
    int ws;
    waitpid(pid, &ws, 0);
    return st;
}


static int rec_by_offset(const void *x, const void *y)
{
    const rec *a = x, *b = y;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static void same_reading(el_status sa, const seen *a, const el_reader_result *ra,
                         const el_error *ea, el_status sb, const seen *b,
                         const el_reader_result *rb, const el_error *eb)
{
    ck_assert_int_eq(sa, sb);
    if (sa != EL_OK) {
        ck_assert_uint_eq(ea->offset, eb->offset);
        ck_assert_str_eq(ea->msg, eb->msg);
    }
    ck_assert_uint_eq(ra->events, rb->events);
    ck_assert_int_eq(ra->truncated, rb->truncated);
    ck_assert_uint_eq(ra->truncated_at, rb->truncated_at);
    ck_assert_uint_eq(ra->trailing, rb->trailing);
    ck_assert_uint_eq(ra->last_ts, rb->last_ts);
    ck_assert_uint_eq(ra->merge.late_events, 0);
    ck_assert(memcmp(a->counts, b->counts, sizeof(a->counts)) == 0);
    ck_assert_uint_eq(a->evs.n, b->evs.n);
    if (rb->merge.late_events) {
        /* Timestamps garbled so that a bounded merge cannot be exact: the
         * same events, in another order. */
        qsort(a->evs.v, a->evs.n, sizeof(rec), rec_by_offset);
        qsort(b->evs.v, b->evs.n, sizeof(rec), rec_by_offset);
    }
    for (size_t i = 0; i < a->evs.n; i++)
        ck_assert_msg(memcmp(&a->evs.v[i], &b->evs.v[i], sizeof(rec)) == 0,
                      "event %zu: type %u cap %u ts %llu at %llu, "
                      "then type %u cap %u ts %llu at %llu",
                      i, a->evs.v[i].type, a->evs.v[i].cap,
                      (unsigned long long)a->evs.v[i].ts,
                      (unsigned long long)a->evs.v[i].offset, b->evs.v[i].type,
                      b->evs.v[i].cap, (unsigned long long)b->evs.v[i].ts,
                      (unsigned long long)b->evs.v[i].offset);
}

/* A file (its index sparse or dense) and a pipe carrying the same bytes
 * give the same events, the same counts, the same error at the same offset
 * with the same message, and the same warnings: for the mixed log cut at
 * many places, with an undeclared type in a block, with 0xffff inside a
 * block, with bytes flipped at 300 places, and with trailing data. */
START_TEST(test_reader_file_equals_pipe)
{
    static uint8_t wanted[65536];
    static seen f, d, pp;
    elbuild good, bad;
    build_mixed_as(&good, 0, 1);
    build_mixed_as(&bad, 1, 1);
    wanted[EL_GC_START] = 1;
    wanted[EL_USER_MARKER] = 1;
    wanted[EL_BLOCK_MARKER] = 1;
    elbuild v;
    eb_init(&v);
    unsigned seed = 12345;
    for (int variant = 0; variant < 420; variant++) {
        const elbuild *src = variant == 1 ? &bad : &good;
        v.len = 0;
        eb_bytes(&v, src->buf, src->len);
        if (variant >= 2 && variant < 100) {
            v.len = 200 + (size_t)(variant - 2) * (good.len - 200) / 98;
        } else if (variant == 100) {
            /* 0xffff at an event start in the middle of a closed block:
             * the RTS writes the end marker after its last block (9.0.2)
             * or as that block's last two bytes (9.6), nowhere else */
            size_t at = good.len / 2;
            seen s;
            el_reader_result r;
            el_error e;
            char *path = write_temp(&good);
            memset(&s, 0, sizeof(s));
            ck_assert_int_eq(run_seen(path, NULL, 0, &s, &r, &e), EL_OK);
            for (size_t i = 0; i < s.evs.n; i++)
                if (s.evs.v[i].offset >= at &&
                    s.evs.v[i].type != EL_BLOCK_MARKER) {
                    at = s.evs.v[i].offset;
                    break;
                }
            free(s.evs.v);
            unlink(path);
            free(path);
            v.buf[at] = 0xff;
            v.buf[at + 1] = 0xff;
        } else if (variant == 101) {
            eb_bytes(&v, "trailing", 8);
        } else if (variant > 101) {
            for (int k = 0; k < 1 + variant % 3; k++) {
                seed = seed * 1103515245u + 12345u;
                size_t at = 180 + (seed >> 8) % (v.len - 180);
                seed = seed * 1103515245u + 12345u;
                v.buf[at] = (uint8_t)(seed >> 16);
            }
        }
        for (int w = 0; w < 2; w++) {
            const uint8_t *wt = w ? wanted : NULL;
            el_reader_result rf, rd, rp;
            el_error ef, ed, ep;
            char *path = write_temp(&v);
            el_status sf = run_seen_budget(path, wt, 0, 0, &f, &rf, &ef);
            el_status sd = run_seen_budget(path, wt, 0, 1, &d, &rd, &ed);
            el_status sp = run_seen_pipe(&v, wt, &pp, &rp, &ep);
            same_reading(sf, &f, &rf, &ef, sd, &d, &rd, &ed);
            same_reading(sf, &f, &rf, &ef, sp, &pp, &rp, &ep);
            if (variant <= 101)
                ck_assert_uint_eq(rp.merge.late_events, 0);
            if (variant == 1 || variant == 100)
                ck_assert_int_eq(sf, EL_ERR_FORMAT);
            if (variant == 100)
                ck_assert(strstr(ef.msg, "end-of-data marker inside the "
                                         "block") != NULL);
            if (variant == 101)
                ck_assert_uint_eq(rf.trailing, 8);
            if (variant == 0)
                ck_assert_uint_gt(f.evs.n, 60);
            unlink(path);
            free(path);
            free(f.evs.v);
            free(d.evs.v);
            free(pp.evs.v);
        }
    }
    eb_free(&v);
    eb_free(&good);
    eb_free(&bad);
}
END_TEST

/* Within a capability the RTS may stamp an event earlier than the one it
 * wrote before it ("finished GC" after "GC stats"): the merge keeps the
 * stream's order and does not count it late, and a file gives the same
 * order. */
START_TEST(test_merge_keeps_stream_order)
{
    elbuild b;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    uint8_t stats[64] = {0};
    ck_assert_uint_le(eb_std_size(EL_GC_STATS_GHC), sizeof(stats));
    for (int blk = 0; blk < 4; blk++) {
        uint16_t cap = (uint16_t)(blk % 2);
        uint64_t t0 = 1000u * (uint64_t)blk;
        eb_block_begin(&b, cap, t0);
        eb_event(&b, EL_GC_START, t0 + 10, NULL, 0);
        eb_event(&b, EL_GC_STATS_GHC, t0 + 500, stats,
                 eb_std_size(EL_GC_STATS_GHC));
        eb_event(&b, EL_GC_END, t0 + 499, NULL, 0);
        eb_event(&b, EL_GC_START, t0 + 900, NULL, 0);
        eb_block_end(&b, t0 + 950);
    }
    eb_data_end(&b);
    char *path = write_temp(&b);
    static seen f, p;
    el_reader_result rf, rp;
    el_error ef, ep;
    el_status sf = run_seen(path, NULL, 0, &f, &rf, &ef);
    el_status sp = run_seen_pipe(&b, NULL, &p, &rp, &ep);
    same_reading(sf, &f, &rf, &ef, sp, &p, &rp, &ep);
    ck_assert_int_eq(sf, EL_OK);
    for (size_t i = 1; i < f.evs.n; i++)
        if (f.evs.v[i].type == EL_GC_END)
            ck_assert_int_eq(f.evs.v[i - 1].type, EL_GC_STATS_GHC);
    unlink(path);
    free(path);
    free(f.evs.v);
    free(p.evs.v);
    eb_free(&b);
}
END_TEST

/* The capabilities a pipe's merge waits for are announced in the global
 * stream's first block (CAP_CREATE); events of that block stamped after the
 * capabilities' first ones must wait for the announcements and for those
 * streams, as in a real -N2 program's log. A filtering sink (that does not
 * want CAP_CREATE) gets the same order. */
START_TEST(test_merge_waits_for_announced_caps)
{
    elbuild b;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, EL_CAP_NONE, 90);
    eb_event(&b, EL_GC_START, 200, NULL, 0);
    eb_event(&b, EL_GC_START, 300, NULL, 0);
    for (uint16_t cap = 0; cap < 2; cap++) {
        uint8_t p[2] = {0, (uint8_t)cap};
        eb_event(&b, EL_CAP_CREATE, 350 + cap, p, sizeof(p));
    }
    eb_block_end(&b, 400);
    for (uint16_t cap = 0; cap < 2; cap++) {
        eb_block_begin(&b, cap, 95);
        eb_event(&b, EL_GC_START, 100 + cap, NULL, 0);
        eb_event(&b, EL_GC_START, 250 + cap, NULL, 0);
        eb_event(&b, EL_GC_START, 450 + cap, NULL, 0);
        eb_block_end(&b, 460);
    }
    eb_data_end(&b);
    char *path = write_temp(&b);
    static uint8_t wanted[65536];
    wanted[EL_GC_START] = 1;
    static seen f, p;
    for (int w = 0; w < 2; w++) {
        el_reader_result rf, rp;
        el_error ef, ep;
        el_status sf = run_seen(path, w ? wanted : NULL, 0, &f, &rf, &ef);
        el_status sp = run_seen_pipe(&b, w ? wanted : NULL, &p, &rp, &ep);
        ck_assert_int_eq(sf, EL_OK);
        ck_assert_uint_eq(rp.merge.late_events, 0);
        same_reading(sf, &f, &rf, &ef, sp, &p, &rp, &ep);
        free(f.evs.v);
        free(p.evs.v);
    }
    unlink(path);
    free(path);
    eb_free(&b);
}
END_TEST

/* One address grammar: every form, and the errors. */
START_TEST(test_addr_grammar)
{
    el_addr a;
    el_error e;
    ck_assert_int_eq(el_addr_parse("-", &a, &e), EL_OK);
    ck_assert_int_eq(a.kind, EL_ADDR_STDIN);
    ck_assert_int_eq(el_addr_parse("unix:/tmp/x.sock", &a, &e), EL_OK);
    ck_assert_int_eq(a.kind, EL_ADDR_UNIX);
    ck_assert_str_eq(a.path, "/tmp/x.sock");
    ck_assert_int_eq(el_addr_parse("/nonexistent/x.eventlog", &a, &e), EL_OK);
    ck_assert_int_eq(a.kind, EL_ADDR_FILE);
    ck_assert_int_eq(el_addr_parse("tcp:4242", &a, &e), EL_OK);
    ck_assert_int_eq(a.kind, EL_ADDR_TCP);
    ck_assert_str_eq(a.tcp.host, "127.0.0.1");
    ck_assert_str_eq(a.tcp.port, "4242");
    ck_assert_int_eq(el_addr_parse("tcp:example.org:80", &a, &e), EL_OK);
    ck_assert_str_eq(a.tcp.host, "example.org");
    ck_assert_str_eq(a.tcp.port, "80");
    ck_assert_int_eq(el_addr_parse("tcp:[::1]:99", &a, &e), EL_OK);
    ck_assert_str_eq(a.tcp.host, "::1");
    static const char *bad[] = {"tcp:", "tcp:[::1]", "tcp:h:", "tcp:h:0",
                                "tcp:h:65536", "tcp:h:x", "unix:", "tcp:-1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(el_addr_parse(bad[i], &a, &e), EL_ERR_USAGE);
        ck_assert(strstr(e.msg, bad[i]) != NULL);
    }
    char longp[200];
    memset(longp, 'a', sizeof(longp) - 1);
    longp[sizeof(longp) - 1] = 0;
    memcpy(longp, "unix:", 5);
    ck_assert_int_eq(el_addr_parse(longp, &a, &e), EL_ERR_USAGE);
    /* a PATH that is a socket is a socket */
    char dir[] = "/tmp/rtscope-addr-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char sock[64];
    snprintf(sock, sizeof(sock), "%s/s", dir);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_int_eq(el_addr_parse(sock, &a, &e), EL_OK);
    ck_assert_int_eq(a.kind, EL_ADDR_UNIX);
    close(fd);
    unlink(sock);
    rmdir(dir);
    el_hostport hp;
    ck_assert_int_eq(el_hostport_parse(":9100", "127.0.0.1", &hp, &e), EL_OK);
    ck_assert_str_eq(hp.host, "127.0.0.1");
    ck_assert_int_eq(el_hostport_parse("0", "127.0.0.1", &hp, &e), EL_OK);
    ck_assert_str_eq(hp.port, "0");
    ck_assert_int_eq(el_hostport_parse("[::]:9100", NULL, &hp, &e), EL_OK);
    ck_assert_str_eq(hp.host, "::");
    ck_assert_int_eq(el_hostport_parse("h:notaport", NULL, &hp, &e),
                     EL_ERR_USAGE);
}
END_TEST

/* Types from 256 up and many declared types: found, sized, described. */
START_TEST(test_typetab_large_numbers)
{
    el_typetab *t = el_typetab_new();
    for (unsigned i = 0; i < 3000; i++) {
        char d[32];
        int n = snprintf(d, sizeof(d), "type %u", i * 21u);
        ck_assert_int_eq(el_typetab_declare(t, (uint16_t)(i * 21u),
                                            (uint16_t)(i % 50), d,
                                            (size_t)n),
                         EL_OK);
    }
    ck_assert_uint_eq(el_typetab_count(t), 3000);
    for (unsigned i = 0; i < 3000; i++) {
        uint16_t size = 0;
        char d[32];
        snprintf(d, sizeof(d), "type %u", i * 21u);
        ck_assert_int_eq(el_typetab_lookup(t, (uint16_t)(i * 21u), &size), 0);
        ck_assert_uint_eq(size, i % 50);
        ck_assert_str_eq(el_typetab_desc(t, (uint16_t)(i * 21u)), d);
        ck_assert_uint_eq(el_typetab_nth(t, i), i * 21u);
        ck_assert_int_ne(el_typetab_lookup(t, (uint16_t)(i * 21u + 1), &size),
                         0);
    }
    /* a repeated declaration replaces the size */
    ck_assert_int_eq(el_typetab_declare(t, 4200, 9, "again", 5), EL_OK);
    uint16_t size = 0;
    ck_assert_int_eq(el_typetab_lookup(t, 4200, &size), 0);
    ck_assert_uint_eq(size, 9);
    ck_assert_uint_eq(el_typetab_count(t), 3000);
    el_typetab_free(t);
}
END_TEST

static Suite *decoder_suite(void)
{
    Suite *s = suite_create("eventlog");
    TCase *tc = tcase_create("decoder");
    tcase_add_test(tc, test_header_types);
    tcase_add_test(tc, test_not_an_eventlog);
    tcase_add_test(tc, test_decode_thread_events);
    tcase_add_test(tc, test_decode_empty_events);
    tcase_add_test(tc, test_decode_capsets_and_process);
    tcase_add_test(tc, test_decode_messages);
    tcase_add_test(tc, test_decode_heap_and_gc);
    tcase_add_test(tc, test_decode_tasks_and_blocks);
    tcase_add_test(tc, test_decode_heap_profile);
    tcase_add_test(tc, test_decode_ipe_and_ticky);
    tcase_add_test(tc, test_unknown_types_skipped);
    tcase_add_test(tc, test_trailing_fields_tolerated);
    tcase_add_test(tc, test_payload_check_matches_decode);
    tcase_add_test(tc, test_sample_label_lengths);
    tcase_add_test(tc, test_byte_feeding_equals_whole);
    tcase_add_test(tc, test_truncation_every_offset);
    tcase_add_test(tc, test_undeclared_type_is_error);
    tcase_add_test(tc, test_data_end_closing_a_block);
    tcase_add_test(tc, test_ipe_one_byte_short);
    tcase_add_test(tc, test_ipe_short_before_corrupt);
    tcase_add_test(tc, test_ipe_short_across_read);
    tcase_add_test(tc, test_event_past_block_end_is_error);
    tcase_add_test(tc, test_garbage_after_header);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("merge");
    tcase_add_test(tm, test_merge_orders_caps);
    tcase_add_test(tm, test_merge_budget_bounds_memory);
    tcase_add_test(tm, test_merge_hold_releases_quiet);
    tcase_add_test(tm, test_stream_empty_blocks_release);
    suite_add_tcase(s, tm);
    TCase *tr = tcase_create("reader");
    tcase_add_test(tr, test_reader_file_exact_order);
    tcase_add_test(tr, test_reader_missing_file);
    tcase_add_test(tr, test_reader_wanted_filter_exact);
    tcase_add_test(tr, test_reader_file_equals_pipe);
    tcase_add_test(tr, test_merge_keeps_stream_order);
    tcase_add_test(tr, test_merge_waits_for_announced_caps);
    tcase_add_test(tr, test_addr_grammar);
    tcase_add_test(tc, test_typetab_large_numbers);
    suite_add_tcase(s, tr);
    return s;
}

Suite *samples_suite(void); /* test_samples.c */

int main(void)
{
    SRunner *sr = srunner_create(decoder_suite());
    srunner_add_suite(sr, samples_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    eb_free(&g_log);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
