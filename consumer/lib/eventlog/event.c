/* Typed decoding of one event's payload, and the names of event types.
 *
 * Every layout reads fields in order from the payload. A field missing at
 * the end of a fixed-size event is an error unless it is one that older
 * GHCs did not write (marked "optional"); bytes left over after the last
 * field we know are newer additions and are skipped (decoded_len tells how
 * many bytes were understood). */
#include "rtscope/eventlog.h"

#include "bytes.h"

#include <stdio.h>
#include <string.h>

typedef struct payload_reader {
    const uint8_t *p;
    uint32_t len, pos;
    const char *missing; /* first field that was not there */
} payload_reader;

static int reader_need(payload_reader *r, uint32_t n, const char *field)
{
    if (r->missing)
        return 0;
    if (r->len - r->pos < n) {
        r->missing = field;
        return 0;
    }
    return 1;
}

static uint8_t reader_u8(payload_reader *r, const char *field)
{
    if (!reader_need(r, 1, field))
        return 0;
    return r->p[r->pos++];
}

static uint16_t reader_u16(payload_reader *r, const char *field)
{
    if (!reader_need(r, 2, field))
        return 0;
    uint16_t v = bytes_get_u16(r->p + r->pos);
    r->pos += 2;
    return v;
}

static uint32_t reader_u32(payload_reader *r, const char *field)
{
    if (!reader_need(r, 4, field))
        return 0;
    uint32_t v = bytes_get_u32(r->p + r->pos);
    r->pos += 4;
    return v;
}

static uint64_t reader_u64(payload_reader *r, const char *field)
{
    if (!reader_need(r, 8, field))
        return 0;
    uint64_t v = bytes_get_u64(r->p + r->pos);
    r->pos += 8;
    return v;
}

/* A NUL-terminated string; the terminator is consumed, not returned. */
static el_str reader_cstr(payload_reader *r, const char *field)
{
    el_str s = {"", 0};
    if (r->missing)
        return s;
    const uint8_t *start = r->p + r->pos;
    const uint8_t *nul = memchr(start, 0, r->len - r->pos);
    if (!nul) {
        r->missing = field;
        return s;
    }
    s.ptr = (const char *)start;
    s.len = (size_t)(nul - start);
    r->pos += (uint32_t)s.len + 1;
    return s;
}

/* The rest of the payload as one string. */
static el_str reader_rest(payload_reader *r)
{
    el_str s = {"", 0};
    if (r->missing)
        return s;
    s.ptr = (const char *)r->p + r->pos;
    s.len = r->len - r->pos;
    r->pos = r->len;
    return s;
}

static int reader_more(const payload_reader *r)
{
    return !r->missing && r->pos < r->len;
}

el_status el_event_decode(el_event *ev, el_error *err)
{
    payload_reader rr = {ev->payload, ev->payload_len, 0, NULL};
    payload_reader *r = &rr;
    ev->known = 1;
    /* Every case below sets all of its fields (a missing one reads as 0
     * and makes the event an error), so no memset of the union here: this
     * runs once per event. */
    switch (ev->type) {
    case EL_CREATE_THREAD:
    case EL_RUN_THREAD:
    case EL_THREAD_RUNNABLE:
    case EL_CREATE_SPARK_THREAD:
        ev->u.thread.thread = reader_u32(r, "thread");
        break;
    case EL_STOP_THREAD:
        ev->u.stop_thread.thread = reader_u32(r, "thread");
        ev->u.stop_thread.status = reader_u16(r, "status");
        ev->u.stop_thread.blocked_on = reader_u32(r, "blocked-on thread");
        break;
    case EL_MIGRATE_THREAD:
    case EL_THREAD_WAKEUP:
        ev->u.thread_cap.thread = reader_u32(r, "thread");
        ev->u.thread_cap.cap = reader_u16(r, "capability");
        break;
    case EL_LOG_MSG:
    case EL_USER_MSG:
    case EL_USER_MARKER:
        ev->u.msg.text = reader_rest(r);
        break;
    case EL_BLOCK_MARKER:
        ev->u.block.size = reader_u32(r, "block size");
        ev->u.block.end_ts = reader_u64(r, "end time");
        ev->u.block.cap = reader_u16(r, "capability");
        break;
    case EL_CAPSET_CREATE:
        ev->u.capset_create.capset = reader_u32(r, "capset");
        ev->u.capset_create.type = reader_u16(r, "capset type");
        break;
    case EL_CAPSET_DELETE:
        ev->u.capset.capset = reader_u32(r, "capset");
        break;
    case EL_CAPSET_ASSIGN_CAP:
    case EL_CAPSET_REMOVE_CAP:
        ev->u.capset_cap.capset = reader_u32(r, "capset");
        ev->u.capset_cap.cap = reader_u16(r, "capability");
        break;
    case EL_RTS_IDENTIFIER:
        ev->u.capset_str.capset = reader_u32(r, "capset");
        ev->u.capset_str.text = reader_rest(r);
        break;
    case EL_PROGRAM_ARGS:
    case EL_PROGRAM_ENV:
        ev->u.capset_vec.capset = reader_u32(r, "capset");
        ev->u.capset_vec.vec = reader_rest(r);
        while (ev->u.capset_vec.vec.len &&
               ev->u.capset_vec.vec.ptr[ev->u.capset_vec.vec.len - 1] == 0)
            ev->u.capset_vec.vec.len--;
        break;
    case EL_OSPROCESS_PID:
    case EL_OSPROCESS_PPID:
        ev->u.pid.capset = reader_u32(r, "capset");
        ev->u.pid.pid = reader_u32(r, "pid");
        break;
    case EL_SPARK_COUNTERS:
        ev->u.spark_counters.created = reader_u64(r, "created");
        ev->u.spark_counters.dud = reader_u64(r, "dud");
        ev->u.spark_counters.overflowed = reader_u64(r, "overflowed");
        ev->u.spark_counters.converted = reader_u64(r, "converted");
        ev->u.spark_counters.gcd = reader_u64(r, "gcd");
        ev->u.spark_counters.fizzled = reader_u64(r, "fizzled");
        ev->u.spark_counters.remaining = reader_u64(r, "remaining");
        break;
    case EL_SPARK_STEAL:
        ev->u.spark_steal.victim_cap = reader_u16(r, "victim capability");
        break;
    case EL_INTERN_STRING:
        ev->u.intern_string.str = reader_cstr(r, "string");
        ev->u.intern_string.id = reader_u32(r, "string id");
        break;
    case EL_WALL_CLOCK_TIME:
        ev->u.wall_clock.capset = reader_u32(r, "capset");
        ev->u.wall_clock.sec = reader_u64(r, "seconds");
        ev->u.wall_clock.nsec = reader_u32(r, "nanoseconds");
        break;
    case EL_THREAD_LABEL:
        ev->u.thread_label.thread = reader_u32(r, "thread");
        ev->u.thread_label.label = reader_rest(r);
        break;
    case EL_CAP_CREATE:
    case EL_CAP_DELETE:
    case EL_CAP_DISABLE:
    case EL_CAP_ENABLE:
    case EL_CONC_UPD_REM_SET_FLUSH:
        ev->u.cap.cap = reader_u16(r, "capability");
        break;
    case EL_HEAP_ALLOCATED:
    case EL_HEAP_SIZE:
    case EL_HEAP_LIVE:
    case EL_BLOCKS_SIZE:
        ev->u.heap.capset = reader_u32(r, "capset");
        ev->u.heap.bytes = reader_u64(r, "bytes");
        break;
    case EL_HEAP_INFO_GHC:
        ev->u.heap_info.capset = reader_u32(r, "capset");
        ev->u.heap_info.gens = reader_u16(r, "generations");
        ev->u.heap_info.max_heap_size = reader_u64(r, "max heap size");
        ev->u.heap_info.alloc_area_size = reader_u64(r, "alloc area size");
        ev->u.heap_info.mblock_size = reader_u64(r, "mblock size");
        ev->u.heap_info.block_size = reader_u64(r, "block size");
        break;
    case EL_GC_STATS_GHC:
        ev->u.gc_stats.capset = reader_u32(r, "capset");
        ev->u.gc_stats.gen = reader_u16(r, "generation");
        ev->u.gc_stats.copied = reader_u64(r, "copied");
        ev->u.gc_stats.slop = reader_u64(r, "slop");
        ev->u.gc_stats.frag = reader_u64(r, "fragmentation");
        ev->u.gc_stats.par_n_threads = reader_u32(r, "parallel threads");
        ev->u.gc_stats.par_max_copied = reader_u64(r, "max copied");
        ev->u.gc_stats.par_tot_copied = reader_u64(r, "total copied");
        ev->u.gc_stats.par_balanced_copied = 0;
        ev->u.gc_stats.has_par_balanced_copied = 0;
        if (reader_more(r)) { /* optional: GHC >= 8.4 */
            ev->u.gc_stats.par_balanced_copied =
                reader_u64(r, "balanced copied");
            ev->u.gc_stats.has_par_balanced_copied = 1;
        }
        break;
    case EL_TASK_CREATE:
        ev->u.task_create.task = reader_u64(r, "task");
        ev->u.task_create.cap = reader_u16(r, "capability");
        ev->u.task_create.tid = reader_u64(r, "kernel thread");
        break;
    case EL_TASK_MIGRATE:
        ev->u.task_migrate.task = reader_u64(r, "task");
        ev->u.task_migrate.cap = reader_u16(r, "capability");
        ev->u.task_migrate.new_cap = reader_u16(r, "new capability");
        break;
    case EL_TASK_DELETE:
        ev->u.task_delete.task = reader_u64(r, "task");
        break;
    case EL_MEM_RETURN:
        ev->u.mem_return.capset = reader_u32(r, "capset");
        ev->u.mem_return.current = reader_u32(r, "current mblocks");
        ev->u.mem_return.needed = reader_u32(r, "needed mblocks");
        ev->u.mem_return.returned = reader_u32(r, "returned mblocks");
        break;
    case EL_HEAP_PROF_BEGIN:
        ev->u.heap_prof_begin.profile_id = reader_u8(r, "profile id");
        ev->u.heap_prof_begin.interval_ns = reader_u64(r, "interval");
        ev->u.heap_prof_begin.breakdown = reader_u32(r, "breakdown");
        for (int i = 0; i < 7; i++)
            ev->u.heap_prof_begin.filters[i] = reader_cstr(r, "filter");
        break;
    case EL_HEAP_PROF_COST_CENTRE:
        ev->u.cost_centre.id = reader_u32(r, "cost centre id");
        ev->u.cost_centre.label = reader_cstr(r, "label");
        ev->u.cost_centre.module = reader_cstr(r, "module");
        ev->u.cost_centre.srcloc = reader_cstr(r, "source location");
        ev->u.cost_centre.flags = reader_u8(r, "flags");
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_PROF_SAMPLE_END:
        ev->u.sample.era = reader_u64(r, "era");
        break;
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        ev->u.bio_sample.era = reader_u64(r, "era");
        ev->u.bio_sample.time = reader_u64(r, "time");
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
        ev->u.sample_cc.profile_id = reader_u8(r, "profile id");
        ev->u.sample_cc.residency = reader_u64(r, "residency");
        ev->u.sample_cc.depth = reader_u8(r, "stack depth");
        ev->u.sample_cc.stack = NULL;
        if (reader_need(r, 4u * ev->u.sample_cc.depth, "stack")) {
            ev->u.sample_cc.stack = r->p + r->pos;
            r->pos += 4u * ev->u.sample_cc.depth;
        }
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        ev->u.sample_string.profile_id = reader_u8(r, "profile id");
        ev->u.sample_string.residency = reader_u64(r, "residency");
        ev->u.sample_string.label = reader_cstr(r, "label");
        break;
    case EL_PROF_SAMPLE_COST_CENTRE:
        ev->u.prof_sample_cc.capset = reader_u32(r, "capset");
        ev->u.prof_sample_cc.ticks = reader_u64(r, "ticks");
        ev->u.prof_sample_cc.depth = reader_u8(r, "stack depth");
        ev->u.prof_sample_cc.stack = NULL;
        if (reader_need(r, 4u * ev->u.prof_sample_cc.depth, "stack")) {
            ev->u.prof_sample_cc.stack = r->p + r->pos;
            r->pos += 4u * ev->u.prof_sample_cc.depth;
        }
        break;
    case EL_PROF_BEGIN:
        ev->u.prof_begin.tick_interval = reader_u64(r, "tick interval");
        break;
    case EL_IPE:
        ev->u.ipe.info = reader_u64(r, "info table");
        ev->u.ipe.table_name = reader_cstr(r, "table name");
        ev->u.ipe.closure_desc = reader_cstr(r, "closure type");
        ev->u.ipe.ty_desc = reader_cstr(r, "type");
        ev->u.ipe.label = reader_cstr(r, "label");
        ev->u.ipe.module = reader_cstr(r, "module");
        ev->u.ipe.srcloc = reader_cstr(r, "source location");
        break;
    case EL_USER_BINARY_MSG:
        ev->u.binary.data = reader_rest(r);
        break;
    case EL_CONC_MARK_END:
        ev->u.conc_mark_end.marked = reader_u32(r, "marked objects");
        break;
    case EL_NONMOVING_HEAP_CENSUS:
        ev->u.nonmoving_census.log_blk_size = reader_u8(r, "block size");
        ev->u.nonmoving_census.active_segs = reader_u32(r, "active");
        ev->u.nonmoving_census.filled_segs = reader_u32(r, "filled");
        ev->u.nonmoving_census.live_blocks = reader_u32(r, "live blocks");
        break;
    case EL_TICKY_COUNTER_DEF:
        ev->u.ticky_def.id = reader_u64(r, "counter id");
        ev->u.ticky_def.arity = reader_u16(r, "arity");
        ev->u.ticky_def.kinds = reader_cstr(r, "kinds");
        ev->u.ticky_def.name = reader_cstr(r, "name");
        ev->u.ticky_def.info_tbl = 0;
        ev->u.ticky_def.json.ptr = "";
        ev->u.ticky_def.json.len = 0;
        if (reader_more(r)) /* optional: GHC >= 9.4 */
            ev->u.ticky_def.info_tbl = reader_u64(r, "info table");
        if (reader_more(r))
            ev->u.ticky_def.json = reader_cstr(r, "json description");
        break;
    case EL_TICKY_COUNTER_SAMPLE:
        ev->u.ticky_sample.id = reader_u64(r, "counter id");
        ev->u.ticky_sample.entries = reader_u64(r, "entry count");
        ev->u.ticky_sample.allocs = reader_u64(r, "allocs");
        ev->u.ticky_sample.allocd = reader_u64(r, "allocd");
        break;
    case EL_GC_START:
    case EL_GC_END:
    case EL_REQUEST_SEQ_GC:
    case EL_REQUEST_PAR_GC:
    case EL_GC_IDLE:
    case EL_GC_WORK:
    case EL_GC_DONE:
    case EL_GC_GLOBAL_SYNC:
    case EL_SPARK_CREATE:
    case EL_SPARK_DUD:
    case EL_SPARK_OVERFLOW:
    case EL_SPARK_RUN:
    case EL_SPARK_FIZZLE:
    case EL_SPARK_GC:
    case EL_HACK_BUG_T9003:
    case EL_CONC_MARK_BEGIN:
    case EL_CONC_SYNC_BEGIN:
    case EL_CONC_SYNC_END:
    case EL_CONC_SWEEP_BEGIN:
    case EL_CONC_SWEEP_END:
    case EL_TICKY_COUNTER_BEGIN_SAMPLE:
        break;
    default:
        ev->known = 0;
        ev->decoded_len = 0;
        return EL_OK;
    }
    if (r->missing) {
        if (err) {
            err->status = EL_ERR_FORMAT;
            err->offset = ev->offset;
            snprintf(err->msg, sizeof(err->msg),
                     "corrupt data: %s event (type %u, %u payload bytes) "
                     "lacks its %s field",
                     el_type_name(ev->type), ev->type, ev->payload_len,
                     r->missing);
        }
        return EL_ERR_FORMAT;
    }
    ev->decoded_len = r->pos;
    return EL_OK;
}

const char *el_type_name(uint16_t num)
{
    switch (num) {
    case EL_CREATE_THREAD:
        return "create-thread";
    case EL_RUN_THREAD:
        return "run-thread";
    case EL_STOP_THREAD:
        return "stop-thread";
    case EL_THREAD_RUNNABLE:
        return "thread-runnable";
    case EL_MIGRATE_THREAD:
        return "migrate-thread";
    case EL_THREAD_WAKEUP:
        return "thread-wakeup";
    case EL_GC_START:
        return "gc-start";
    case EL_GC_END:
        return "gc-end";
    case EL_REQUEST_SEQ_GC:
        return "request-seq-gc";
    case EL_REQUEST_PAR_GC:
        return "request-par-gc";
    case EL_CREATE_SPARK_THREAD:
        return "create-spark-thread";
    case EL_LOG_MSG:
        return "log-msg";
    case EL_BLOCK_MARKER:
        return "block-marker";
    case EL_USER_MSG:
        return "user-msg";
    case EL_GC_IDLE:
        return "gc-idle";
    case EL_GC_WORK:
        return "gc-work";
    case EL_GC_DONE:
        return "gc-done";
    case EL_CAPSET_CREATE:
        return "capset-create";
    case EL_CAPSET_DELETE:
        return "capset-delete";
    case EL_CAPSET_ASSIGN_CAP:
        return "capset-assign-cap";
    case EL_CAPSET_REMOVE_CAP:
        return "capset-remove-cap";
    case EL_RTS_IDENTIFIER:
        return "rts-identifier";
    case EL_PROGRAM_ARGS:
        return "program-args";
    case EL_PROGRAM_ENV:
        return "program-env";
    case EL_OSPROCESS_PID:
        return "osprocess-pid";
    case EL_OSPROCESS_PPID:
        return "osprocess-ppid";
    case EL_SPARK_COUNTERS:
        return "spark-counters";
    case EL_SPARK_CREATE:
        return "spark-create";
    case EL_SPARK_DUD:
        return "spark-dud";
    case EL_SPARK_OVERFLOW:
        return "spark-overflow";
    case EL_SPARK_RUN:
        return "spark-run";
    case EL_SPARK_STEAL:
        return "spark-steal";
    case EL_SPARK_FIZZLE:
        return "spark-fizzle";
    case EL_SPARK_GC:
        return "spark-gc";
    case EL_INTERN_STRING:
        return "intern-string";
    case EL_WALL_CLOCK_TIME:
        return "wall-clock-time";
    case EL_THREAD_LABEL:
        return "thread-label";
    case EL_CAP_CREATE:
        return "cap-create";
    case EL_CAP_DELETE:
        return "cap-delete";
    case EL_CAP_DISABLE:
        return "cap-disable";
    case EL_CAP_ENABLE:
        return "cap-enable";
    case EL_HEAP_ALLOCATED:
        return "heap-allocated";
    case EL_HEAP_SIZE:
        return "heap-size";
    case EL_HEAP_LIVE:
        return "heap-live";
    case EL_HEAP_INFO_GHC:
        return "heap-info";
    case EL_GC_STATS_GHC:
        return "gc-stats";
    case EL_GC_GLOBAL_SYNC:
        return "gc-global-sync";
    case EL_TASK_CREATE:
        return "task-create";
    case EL_TASK_MIGRATE:
        return "task-migrate";
    case EL_TASK_DELETE:
        return "task-delete";
    case EL_USER_MARKER:
        return "user-marker";
    case EL_HACK_BUG_T9003:
        return "hack-bug-t9003";
    case EL_MEM_RETURN:
        return "mem-return";
    case EL_BLOCKS_SIZE:
        return "blocks-size";
    case EL_HEAP_PROF_BEGIN:
        return "heap-prof-begin";
    case EL_HEAP_PROF_COST_CENTRE:
        return "heap-prof-cost-centre";
    case EL_HEAP_PROF_SAMPLE_BEGIN:
        return "heap-prof-sample-begin";
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
        return "heap-prof-sample-cost-centre";
    case EL_HEAP_PROF_SAMPLE_STRING:
        return "heap-prof-sample-string";
    case EL_HEAP_PROF_SAMPLE_END:
        return "heap-prof-sample-end";
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        return "heap-bio-prof-sample-begin";
    case EL_PROF_SAMPLE_COST_CENTRE:
        return "prof-sample-cost-centre";
    case EL_PROF_BEGIN:
        return "prof-begin";
    case EL_IPE:
        return "ipe";
    case EL_USER_BINARY_MSG:
        return "user-binary-msg";
    case EL_CONC_MARK_BEGIN:
        return "conc-mark-begin";
    case EL_CONC_MARK_END:
        return "conc-mark-end";
    case EL_CONC_SYNC_BEGIN:
        return "conc-sync-begin";
    case EL_CONC_SYNC_END:
        return "conc-sync-end";
    case EL_CONC_SWEEP_BEGIN:
        return "conc-sweep-begin";
    case EL_CONC_SWEEP_END:
        return "conc-sweep-end";
    case EL_CONC_UPD_REM_SET_FLUSH:
        return "conc-upd-rem-set-flush";
    case EL_NONMOVING_HEAP_CENSUS:
        return "nonmoving-heap-census";
    case EL_TICKY_COUNTER_DEF:
        return "ticky-counter-def";
    case EL_TICKY_COUNTER_SAMPLE:
        return "ticky-counter-sample";
    case EL_TICKY_COUNTER_BEGIN_SAMPLE:
        return "ticky-counter-begin-sample";
    default:
        return NULL;
    }
}

unsigned el_ccs_depth(const el_event *ev)
{
    if (ev->type == EL_HEAP_PROF_SAMPLE_COST_CENTRE)
        return ev->u.sample_cc.depth;
    if (ev->type == EL_PROF_SAMPLE_COST_CENTRE)
        return ev->u.prof_sample_cc.depth;
    return 0;
}

uint32_t el_ccs_id(const el_event *ev, unsigned i)
{
    const uint8_t *stack = ev->type == EL_HEAP_PROF_SAMPLE_COST_CENTRE
                               ? ev->u.sample_cc.stack
                               : ev->u.prof_sample_cc.stack;
    if (i >= el_ccs_depth(ev))
        return 0;
    return bytes_get_u32(stack + (size_t)4 * i);
}
