/* rtscope show: one line per event, in time order, in the spirit of
 * `ghc-events show`. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct show_state {
    FILE *out;
    int blocks;  /* also show block markers */
    int offsets; /* prefix byte offsets */
    int header_done;
    int header; /* print the event-type table first */
} show_state;

static const char *show_stop_status(uint16_t s)
{
    static const char *const names[] = {
        "no status",
        "heap overflow",
        "stack overflow",
        "yielding",
        "blocked",
        "finished",
        "making a foreign call",
        "blocked on an MVar",
        "blocked on a black hole",
        "blocked on an input operation",
        "blocked on an output operation",
        "blocked on a delay operation",
        "blocked on STM",
        "blocked on asyncDoProc",
        "blocked on a foreign call",
        "blocked on a foreign call (2)",
        "blocked on throwTo",
        "migrating",
        "blocked on globalise",
        "no status",
        "blocked reading an MVar",
    };
    return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown status";
}

static const char *show_breakdown(uint32_t b)
{
    switch (b) {
    case EL_BREAKDOWN_COST_CENTRE:
        return "cost centre";
    case EL_BREAKDOWN_MODULE:
        return "module";
    case EL_BREAKDOWN_CLOSURE_DESCR:
        return "closure description";
    case EL_BREAKDOWN_TYPE_DESCR:
        return "type description";
    case EL_BREAKDOWN_RETAINER:
        return "retainer";
    case EL_BREAKDOWN_BIOGRAPHY:
        return "biography";
    case EL_BREAKDOWN_CLOSURE_TYPE:
        return "closure type";
    case EL_BREAKDOWN_INFO_TABLE:
        return "info table";
    default:
        return "unknown breakdown";
    }
}

static void show_vec(FILE *f, el_str v)
{
    size_t start = 0;
    fputc('[', f);
    for (size_t i = 0; i <= v.len; i++) {
        if (i == v.len || v.ptr[i] == 0) {
            el_str one = {v.ptr + start, i - start};
            if (start)
                fputs(", ", f);
            fputc('"', f);
            cli_put_str(f, one);
            fputc('"', f);
            start = i + 1;
        }
    }
    fputc(']', f);
}

static void show_stack(FILE *f, const el_event *ev)
{
    fputc('[', f);
    for (unsigned i = 0; i < el_ccs_depth(ev); i++)
        fprintf(f, i ? ", %" PRIu32 : "%" PRIu32, el_ccs_id(ev, i));
    fputc(']', f);
}

/* ---- what each event type says ---------------------------------------- */
/* See Note [Showing an event]. */

static void show_stop_thread(FILE *f, const el_event *ev)
{
    fprintf(f, "stopping thread %" PRIu32 " (%s)", ev->u.stop_thread.thread,
            show_stop_status(ev->u.stop_thread.status));
    if (ev->u.stop_thread.status == 8 && ev->u.stop_thread.blocked_on)
        fprintf(f, " owned by thread %" PRIu32, ev->u.stop_thread.blocked_on);
}

static void show_block(FILE *f, const el_event *ev)
{
    fprintf(f, "block of %" PRIu32 " bytes for cap %u, ends at %" PRIu64,
            ev->u.block.size, ev->u.block.cap, ev->u.block.end_ts);
}

static void show_capset_create(FILE *f, const el_event *ev)
{
    fprintf(f, "created capset %" PRIu32 " of type %s",
            ev->u.capset_create.capset,
            ev->u.capset_create.type == 1   ? "custom"
            : ev->u.capset_create.type == 2 ? "OS process"
            : ev->u.capset_create.type == 3 ? "clock domain"
                                            : "unknown");
}

static void show_rts_identifier(FILE *f, const el_event *ev)
{
    fprintf(f, "capset %" PRIu32 ": RTS version \"", ev->u.capset_str.capset);
    cli_put_str(f, ev->u.capset_str.text);
    fputc('"', f);
}

static void show_program_vec(FILE *f, const el_event *ev)
{
    fprintf(f, "capset %" PRIu32 ": %s ", ev->u.capset_vec.capset,
            ev->type == EL_PROGRAM_ARGS ? "args:" : "env:");
    show_vec(f, ev->u.capset_vec.vec);
}

static void show_wall_clock(FILE *f, const el_event *ev)
{
    fprintf(f,
            "capset %" PRIu32 ": wall clock time %" PRIu64 "s %" PRIu32
            "ns (unix epoch)",
            ev->u.wall_clock.capset, ev->u.wall_clock.sec,
            ev->u.wall_clock.nsec);
}

static void show_spark_counters(FILE *f, const el_event *ev)
{
    fprintf(f,
            "spark stats: %" PRIu64 " created, %" PRIu64 " converted, %" PRIu64
            " remaining (%" PRIu64 " overflowed, %" PRIu64 " dud, %" PRIu64
            " GC'd, %" PRIu64 " fizzled)",
            ev->u.spark_counters.created, ev->u.spark_counters.converted,
            ev->u.spark_counters.remaining, ev->u.spark_counters.overflowed,
            ev->u.spark_counters.dud, ev->u.spark_counters.gcd,
            ev->u.spark_counters.fizzled);
}

static void show_spark_steal(FILE *f, const el_event *ev)
{
    fprintf(f, "stealing a spark from cap %u", ev->u.spark_steal.victim_cap);
}

static void show_intern_string(FILE *f, const el_event *ev)
{
    fprintf(f, "interned string %" PRIu32 ": \"", ev->u.intern_string.id);
    cli_put_str(f, ev->u.intern_string.str);
    fputc('"', f);
}

static void show_thread_label(FILE *f, const el_event *ev)
{
    fprintf(f, "thread %" PRIu32 " has label \"", ev->u.thread_label.thread);
    cli_put_str(f, ev->u.thread_label.label);
    fputc('"', f);
}

static void show_heap_info(FILE *f, const el_event *ev)
{
    fprintf(f,
            "heap stats for heap capset %" PRIu32 ": generations %u, %" PRIu64
            " bytes max heap size, %" PRIu64 " bytes alloc area size, %" PRIu64
            " bytes mblock size, %" PRIu64 " bytes block size",
            ev->u.heap_info.capset, ev->u.heap_info.gens,
            ev->u.heap_info.max_heap_size, ev->u.heap_info.alloc_area_size,
            ev->u.heap_info.mblock_size, ev->u.heap_info.block_size);
}

static void show_gc_stats(FILE *f, const el_event *ev)
{
    fprintf(f,
            "GC stats for heap capset %" PRIu32 ": generation %u, %" PRIu64
            " bytes copied, %" PRIu64 " bytes slop, %" PRIu64
            " bytes fragmentation, %" PRIu32 " par threads, %" PRIu64
            " bytes max par copied, %" PRIu64 " bytes total par copied",
            ev->u.gc_stats.capset, ev->u.gc_stats.gen, ev->u.gc_stats.copied,
            ev->u.gc_stats.slop, ev->u.gc_stats.frag,
            ev->u.gc_stats.par_n_threads, ev->u.gc_stats.par_max_copied,
            ev->u.gc_stats.par_tot_copied);
    if (ev->u.gc_stats.has_par_balanced_copied)
        fprintf(f, ", %" PRIu64 " bytes balanced par copied",
                ev->u.gc_stats.par_balanced_copied);
}

static void show_mem_return(FILE *f, const el_event *ev)
{
    fprintf(f,
            "memory returned (mblocks) for heap capset %" PRIu32
            ": current %" PRIu32 ", needed %" PRIu32 ", returned %" PRIu32,
            ev->u.mem_return.capset, ev->u.mem_return.current,
            ev->u.mem_return.needed, ev->u.mem_return.returned);
}

static void show_task_create(FILE *f, const el_event *ev)
{
    fprintf(f,
            "task 0x%" PRIx64 " created on cap %u with OS kernel "
            "thread %" PRIu64,
            ev->u.task_create.task, ev->u.task_create.cap,
            ev->u.task_create.tid);
}

static void show_task_migrate(FILE *f, const el_event *ev)
{
    fprintf(f, "task 0x%" PRIx64 " migrated from cap %u to cap %u",
            ev->u.task_migrate.task, ev->u.task_migrate.cap,
            ev->u.task_migrate.new_cap);
}

static void show_task_delete(FILE *f, const el_event *ev)
{
    fprintf(f, "task 0x%" PRIx64 " deleted", ev->u.task_delete.task);
}

static void show_heap_prof_begin(FILE *f, const el_event *ev)
{
    static const char *const fnames[] = {
        "module",      "closure description", "type description",
        "cost centre", "cost centre stack",   "retainer",
        "biography"};
    fprintf(f,
            "start heap profile %u at sampling period %" PRIu64
            " ns broken down by %s",
            ev->u.heap_prof_begin.profile_id, ev->u.heap_prof_begin.interval_ns,
            show_breakdown(ev->u.heap_prof_begin.breakdown));
    for (int i = 0; i < 7; i++) {
        if (ev->u.heap_prof_begin.filters[i].len) {
            fprintf(f, ", %s filter \"", fnames[i]);
            cli_put_str(f, ev->u.heap_prof_begin.filters[i]);
            fputc('"', f);
        }
    }
}

static void show_cost_centre(FILE *f, const el_event *ev)
{
    fprintf(f, "cost centre %" PRIu32 " ", ev->u.cost_centre.id);
    cli_put_str(f, ev->u.cost_centre.label);
    fputs(" in ", f);
    cli_put_str(f, ev->u.cost_centre.module);
    fputs(" at ", f);
    cli_put_str(f, ev->u.cost_centre.srcloc);
    if (ev->u.cost_centre.flags & 1)
        fputs(" CAF", f);
}

static void show_bio_sample(FILE *f, const el_event *ev)
{
    fprintf(f, "start heap prof (biographical) sample %" PRIu64 " at %" PRIu64,
            ev->u.bio_sample.era, ev->u.bio_sample.time);
}

static void show_sample_cc(FILE *f, const el_event *ev)
{
    fprintf(f, "heap prof sample %u, residency %" PRIu64 ", cost centre stack ",
            ev->u.sample_cc.profile_id, ev->u.sample_cc.residency);
    show_stack(f, ev);
}

static void show_sample_string(FILE *f, const el_event *ev)
{
    fprintf(f, "heap prof sample %u, residency %" PRIu64 ", label ",
            ev->u.sample_string.profile_id, ev->u.sample_string.residency);
    cli_put_str(f, ev->u.sample_string.label);
}

static void show_prof_sample_cc(FILE *f, const el_event *ev)
{
    fprintf(f,
            "cap %" PRIu32 ": time prof sample, %" PRIu64
            " ticks, cost centre stack ",
            ev->u.prof_sample_cc.capset, ev->u.prof_sample_cc.ticks);
    show_stack(f, ev);
}

static void show_prof_begin(FILE *f, const el_event *ev)
{
    fprintf(f, "start time profile, tick interval %" PRIu64 " ns",
            ev->u.prof_begin.tick_interval);
}

static void show_ipe(FILE *f, const el_event *ev)
{
    fprintf(f, "info table 0x%" PRIx64 ": ", ev->u.ipe.info);
    cli_put_str(f, ev->u.ipe.table_name);
    fputs(" closure-type ", f);
    cli_put_str(f, ev->u.ipe.closure_desc);
    fputs(" type \"", f);
    cli_put_str(f, ev->u.ipe.ty_desc);
    fputs("\" label \"", f);
    cli_put_str(f, ev->u.ipe.label);
    fputs("\" in ", f);
    cli_put_str(f, ev->u.ipe.module);
    fputs(" at ", f);
    cli_put_str(f, ev->u.ipe.srcloc);
}

/* One of rtscope's samples (a binary message: el_sample_kind_of). */
static void show_stack_sample(FILE *f, const el_event *ev, el_sample_kind k)
{
    if (k == EL_TIME_SAMPLE)
        fprintf(f, "time sample: thread %" PRIu32 ", %.1f ms",
                ev->u.binary.stack.thread,
                (double)ev->u.binary.stack.weight / 1e6);
    else
        fprintf(f, "allocation sample: thread %" PRIu32 ", %" PRIu64 " bytes",
                ev->u.binary.stack.thread, ev->u.binary.stack.weight);
    if (k == EL_ALLOC_SAMPLE && ev->u.binary.stack.size)
        fprintf(f, ", objects of %" PRIu32 " bytes", ev->u.binary.stack.size);
    fprintf(f, ", %u frame%s", ev->u.binary.stack.depth,
            ev->u.binary.stack.depth == 1 ? "" : "s");
    if (ev->u.binary.stack.flags & EL_SAMPLE_LATE)
        fputs(", late", f);
    if (ev->u.binary.stack.flags & EL_SAMPLE_TRUNCATED)
        fputs(", truncated", f);
}

static void show_binary(FILE *f, const el_event *ev)
{
    el_sample_kind k = el_sample_kind_of(ev);
    if (k != EL_SAMPLE_NONE) {
        show_stack_sample(f, ev, k);
        return;
    }
    fprintf(f, "binary message of %zu bytes:", ev->u.binary.data.len);
    for (size_t i = 0; i < ev->u.binary.data.len && i < 64; i++)
        fprintf(f, " %02x", (unsigned char)ev->u.binary.data.ptr[i]);
    if (ev->u.binary.data.len > 64)
        fputs(" ...", f);
}

static void show_conc_mark_end(FILE *f, const el_event *ev)
{
    fprintf(f, "concurrent mark ended: %" PRIu32 " objects marked",
            ev->u.conc_mark_end.marked);
}

static void show_nonmoving_census(FILE *f, const el_event *ev)
{
    fprintf(f,
            "nonmoving heap census %u: %" PRIu32 " active, %" PRIu32
            " filled, %" PRIu32 " live blocks",
            1u << (ev->u.nonmoving_census.log_blk_size & 31),
            ev->u.nonmoving_census.active_segs,
            ev->u.nonmoving_census.filled_segs,
            ev->u.nonmoving_census.live_blocks);
}

static void show_ticky_def(FILE *f, const el_event *ev)
{
    fprintf(f, "ticky counter 0x%" PRIx64 " arity %u kinds \"",
            ev->u.ticky_def.id, ev->u.ticky_def.arity);
    cli_put_str(f, ev->u.ticky_def.kinds);
    fputs("\" name ", f);
    cli_put_str(f, ev->u.ticky_def.name);
}

static void show_ticky_sample(FILE *f, const el_event *ev)
{
    fprintf(f,
            "ticky counter 0x%" PRIx64 ": %" PRIu64 " entries, %" PRIu64
            " allocs, %" PRIu64 " allocd",
            ev->u.ticky_sample.id, ev->u.ticky_sample.entries,
            ev->u.ticky_sample.allocs, ev->u.ticky_sample.allocd);
}

/* Note [Showing an event]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * What `rtscope show` prints for an event is a line of show_formats,
 * indexed by the event's type: a fixed text, one format over the fields of
 * a payload that many types share (a thread, a cap, a heap's bytes, ...),
 * or a function of its own for the rest. A type without a line prints its
 * number, the header's description and its size. The formats of the
 * shared shapes are checked by hand, not by the compiler: each names the
 * fields of its shape in show_shaped's order.
 */
typedef enum show_shape {
    SHOW_UNKNOWN,    /* no line: "event type N (desc), B bytes" */
    SHOW_TEXT,       /* the text as it is */
    SHOW_MSG,        /* the text, then u.msg.text */
    SHOW_THREAD,     /* u.thread.thread */
    SHOW_THREAD_CAP, /* u.thread_cap.thread, u.thread_cap.cap */
    SHOW_CAP,        /* u.cap.cap */
    SHOW_CAPSET,     /* u.capset.capset */
    SHOW_CAPSET_CAP, /* u.capset_cap.cap, u.capset_cap.capset */
    SHOW_PID,        /* u.pid.capset, u.pid.pid */
    SHOW_HEAP,       /* u.heap.capset, u.heap.bytes */
    SHOW_ERA,        /* u.sample.era */
    SHOW_FN,         /* fn */
} show_shape;

typedef struct show_format {
    show_shape shape;
    const char *fmt;
    void (*fn)(FILE *f, const el_event *ev);
} show_format;

#define SHOW_TYPES (EL_TICKY_COUNTER_BEGIN_SAMPLE + 1)
#define SHOW_FUNC(f)                                                           \
    {                                                                          \
        SHOW_FN, NULL, f                                                       \
    }

static const show_format show_formats[SHOW_TYPES] = {
    [EL_CREATE_THREAD] = {SHOW_THREAD, "creating thread %" PRIu32, NULL},
    [EL_RUN_THREAD] = {SHOW_THREAD, "running thread %" PRIu32, NULL},
    [EL_STOP_THREAD] = SHOW_FUNC(show_stop_thread),
    [EL_THREAD_RUNNABLE] = {SHOW_THREAD, "thread %" PRIu32 " is runnable",
                            NULL},
    [EL_MIGRATE_THREAD] = {SHOW_THREAD_CAP,
                           "migrating thread %" PRIu32 " to cap %u", NULL},
    [EL_THREAD_WAKEUP] = {SHOW_THREAD_CAP,
                          "waking up thread %" PRIu32 " on cap %u", NULL},
    [EL_CREATE_SPARK_THREAD] = {SHOW_THREAD, "creating spark thread %" PRIu32,
                                NULL},
    [EL_GC_START] = {SHOW_TEXT, "starting GC", NULL},
    [EL_GC_END] = {SHOW_TEXT, "finished GC", NULL},
    [EL_REQUEST_SEQ_GC] = {SHOW_TEXT, "requesting sequential GC", NULL},
    [EL_REQUEST_PAR_GC] = {SHOW_TEXT, "requesting parallel GC", NULL},
    [EL_GC_IDLE] = {SHOW_TEXT, "GC idle", NULL},
    [EL_GC_WORK] = {SHOW_TEXT, "GC working", NULL},
    [EL_GC_DONE] = {SHOW_TEXT, "GC done", NULL},
    [EL_GC_GLOBAL_SYNC] = {SHOW_TEXT, "all caps stopped for GC", NULL},
    [EL_LOG_MSG] = {SHOW_MSG, "", NULL},
    [EL_USER_MSG] = {SHOW_MSG, "", NULL},
    [EL_USER_MARKER] = {SHOW_MSG, "marker: ", NULL},
    [EL_BLOCK_MARKER] = SHOW_FUNC(show_block),
    [EL_CAPSET_CREATE] = SHOW_FUNC(show_capset_create),
    [EL_CAPSET_DELETE] = {SHOW_CAPSET, "deleted capset %" PRIu32, NULL},
    [EL_CAPSET_ASSIGN_CAP] = {SHOW_CAPSET_CAP,
                              "assigned cap %u to capset %" PRIu32, NULL},
    [EL_CAPSET_REMOVE_CAP] = {SHOW_CAPSET_CAP,
                              "removed cap %u from capset %" PRIu32, NULL},
    [EL_RTS_IDENTIFIER] = SHOW_FUNC(show_rts_identifier),
    [EL_PROGRAM_ARGS] = SHOW_FUNC(show_program_vec),
    [EL_PROGRAM_ENV] = SHOW_FUNC(show_program_vec),
    [EL_OSPROCESS_PID] = {SHOW_PID, "capset %" PRIu32 ": pid %" PRIu32, NULL},
    [EL_OSPROCESS_PPID] = {SHOW_PID, "capset %" PRIu32 ": parent pid %" PRIu32,
                           NULL},
    [EL_WALL_CLOCK_TIME] = SHOW_FUNC(show_wall_clock),
    [EL_SPARK_COUNTERS] = SHOW_FUNC(show_spark_counters),
    [EL_SPARK_CREATE] = {SHOW_TEXT, "spark created", NULL},
    [EL_SPARK_DUD] = {SHOW_TEXT, "dud spark discarded", NULL},
    [EL_SPARK_OVERFLOW] = {SHOW_TEXT, "overflowed spark discarded", NULL},
    [EL_SPARK_RUN] = {SHOW_TEXT, "running a local spark", NULL},
    [EL_SPARK_STEAL] = SHOW_FUNC(show_spark_steal),
    [EL_SPARK_FIZZLE] = {SHOW_TEXT, "spark fizzled", NULL},
    [EL_SPARK_GC] = {SHOW_TEXT, "spark GCed", NULL},
    [EL_INTERN_STRING] = SHOW_FUNC(show_intern_string),
    [EL_THREAD_LABEL] = SHOW_FUNC(show_thread_label),
    [EL_CAP_CREATE] = {SHOW_CAP, "created cap %u", NULL},
    [EL_CAP_DELETE] = {SHOW_CAP, "deleted cap %u", NULL},
    [EL_CAP_DISABLE] = {SHOW_CAP, "disabled cap %u", NULL},
    [EL_CAP_ENABLE] = {SHOW_CAP, "enabled cap %u", NULL},
    [EL_HEAP_ALLOCATED] = {SHOW_HEAP,
                           "allocated on heap capset %" PRIu32 ": %" PRIu64
                           " total bytes till now",
                           NULL},
    [EL_HEAP_SIZE] = {SHOW_HEAP,
                      "size of heap capset %" PRIu32 ": %" PRIu64 " bytes",
                      NULL},
    [EL_BLOCKS_SIZE] = {SHOW_HEAP,
                        "blocks size of heap capset %" PRIu32 ": %" PRIu64
                        " bytes",
                        NULL},
    [EL_HEAP_LIVE] = {SHOW_HEAP,
                      "live data in heap capset %" PRIu32 ": %" PRIu64 " bytes",
                      NULL},
    [EL_HEAP_INFO_GHC] = SHOW_FUNC(show_heap_info),
    [EL_GC_STATS_GHC] = SHOW_FUNC(show_gc_stats),
    [EL_MEM_RETURN] = SHOW_FUNC(show_mem_return),
    [EL_TASK_CREATE] = SHOW_FUNC(show_task_create),
    [EL_TASK_MIGRATE] = SHOW_FUNC(show_task_migrate),
    [EL_TASK_DELETE] = SHOW_FUNC(show_task_delete),
    [EL_HACK_BUG_T9003] = {SHOW_TEXT, "empty event for bug #9003", NULL},
    [EL_HEAP_PROF_BEGIN] = SHOW_FUNC(show_heap_prof_begin),
    [EL_HEAP_PROF_COST_CENTRE] = SHOW_FUNC(show_cost_centre),
    [EL_HEAP_PROF_SAMPLE_BEGIN] = {SHOW_ERA, "start heap prof sample %" PRIu64,
                                   NULL},
    [EL_HEAP_PROF_SAMPLE_END] = {SHOW_ERA, "end heap prof sample %" PRIu64,
                                 NULL},
    [EL_HEAP_BIO_PROF_SAMPLE_BEGIN] = SHOW_FUNC(show_bio_sample),
    [EL_HEAP_PROF_SAMPLE_COST_CENTRE] = SHOW_FUNC(show_sample_cc),
    [EL_HEAP_PROF_SAMPLE_STRING] = SHOW_FUNC(show_sample_string),
    [EL_PROF_SAMPLE_COST_CENTRE] = SHOW_FUNC(show_prof_sample_cc),
    [EL_PROF_BEGIN] = SHOW_FUNC(show_prof_begin),
    [EL_IPE] = SHOW_FUNC(show_ipe),
    [EL_USER_BINARY_MSG] = SHOW_FUNC(show_binary),
    [EL_CONC_MARK_BEGIN] = {SHOW_TEXT, "concurrent mark began", NULL},
    [EL_CONC_MARK_END] = SHOW_FUNC(show_conc_mark_end),
    [EL_CONC_SYNC_BEGIN] = {SHOW_TEXT, "post-mark synchronization began", NULL},
    [EL_CONC_SYNC_END] = {SHOW_TEXT, "post-mark synchronization ended", NULL},
    [EL_CONC_SWEEP_BEGIN] = {SHOW_TEXT, "concurrent sweep began", NULL},
    [EL_CONC_SWEEP_END] = {SHOW_TEXT, "concurrent sweep ended", NULL},
    [EL_CONC_UPD_REM_SET_FLUSH] = {SHOW_CAP,
                                   "update remembered set flushed by cap %u",
                                   NULL},
    [EL_NONMOVING_HEAP_CENSUS] = SHOW_FUNC(show_nonmoving_census),
    [EL_TICKY_COUNTER_DEF] = SHOW_FUNC(show_ticky_def),
    [EL_TICKY_COUNTER_SAMPLE] = SHOW_FUNC(show_ticky_sample),
    [EL_TICKY_COUNTER_BEGIN_SAMPLE] = {SHOW_TEXT, "ticky begin sample", NULL},
};

/* An event of a shared shape, as its format says. */
static void show_shaped(FILE *f, const show_format *sf, const el_event *ev)
{
    const char *fmt = sf->fmt;
    switch (sf->shape) {
    case SHOW_TEXT:
        fputs(fmt, f);
        break;
    case SHOW_MSG:
        fputs(fmt, f);
        cli_put_str(f, ev->u.msg.text);
        break;
    case SHOW_THREAD:
        fprintf(f, fmt, ev->u.thread.thread);
        break;
    case SHOW_THREAD_CAP:
        fprintf(f, fmt, ev->u.thread_cap.thread, ev->u.thread_cap.cap);
        break;
    case SHOW_CAP:
        fprintf(f, fmt, ev->u.cap.cap);
        break;
    case SHOW_CAPSET:
        fprintf(f, fmt, ev->u.capset.capset);
        break;
    case SHOW_CAPSET_CAP:
        fprintf(f, fmt, ev->u.capset_cap.cap, ev->u.capset_cap.capset);
        break;
    case SHOW_PID:
        fprintf(f, fmt, ev->u.pid.capset, ev->u.pid.pid);
        break;
    case SHOW_HEAP:
        fprintf(f, fmt, ev->u.heap.capset, ev->u.heap.bytes);
        break;
    case SHOW_ERA:
        fprintf(f, fmt, ev->u.sample.era);
        break;
    case SHOW_FN:
        sf->fn(f, ev);
        break;
    case SHOW_UNKNOWN:
        break;
    }
}

/* Describe one event (without time and capability). */
static void show_describe(FILE *f, const el_event *ev, const el_typetab *types)
{
    const show_format *sf =
        ev->type < SHOW_TYPES ? &show_formats[ev->type] : NULL;
    if (sf && sf->shape != SHOW_UNKNOWN) {
        show_shaped(f, sf, ev);
        return;
    }
    const char *desc = el_typetab_desc(types, ev->type);
    fprintf(f, "event type %u (%s), %" PRIu32 " bytes", ev->type,
            desc && *desc ? desc : "unknown", ev->payload_len);
}

static int show_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    show_state *s = ctx;
    FILE *f = s->out;
    if (s->header && !s->header_done) {
        s->header_done = 1;
        fputs("Event Types:\n", f);
        for (unsigned i = 0; i < el_typetab_count(types); i++) {
            uint16_t num = el_typetab_nth(types, i), size;
            el_typetab_lookup(types, num, &size);
            fprintf(f, "%u: %s (", num, el_typetab_desc(types, num));
            if (size == EL_SIZE_VARIABLE)
                fputs("variable size)\n", f);
            else
                fprintf(f, "size %u)\n", size);
        }
        fputs("\nEvents:\n", f);
    }
    if (ev->type == EL_BLOCK_MARKER && !s->blocks)
        return 0;
    if (s->offsets)
        fprintf(f, "@%-10" PRIu64 " ", ev->offset);
    fprintf(f, "%12" PRIu64 ": ", ev->ts);
    if (ev->cap != EL_CAP_NONE)
        fprintf(f, "cap %u: ", ev->cap);
    show_describe(f, ev, types);
    fputc('\n', f);
    return ferror(f) ? 1 : 0;
}

static const char show_about[] =
    "Print one line per event, in time order: the timestamp in nanoseconds,\n"
    "the capability (for events written by one), and what happened.\n";

/* What `rtscope show` is given. */
typedef struct show_args {
    cli_input_opts io;
    const char *output;
    show_state s;
} show_args;

static const opt show_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(show_args, output),
     .help = "write to FILE instead of standard output"},
    {.name = "header",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(show_args, s.header),
     .help = "print the header's event-type table first"},
    {.name = "blocks",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(show_args, s.blocks),
     .help = "also print block markers"},
    {.name = "offsets",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(show_args, s.offsets),
     .help = "prefix each line with the event's byte offset"},
    OPT_INCLUDE(cli_input_table, show_args, io),
    OPT_END,
};

static void show_flush(void *out)
{
    fflush(out);
}

static int show_run(int argc, char **argv)
{
    show_args a;
    memset(&a, 0, sizeof(a));
    a.output = "-";
    int first = opts_parse("show", argc, argv, &(opts_bind){show_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (first != argc - 1)
        return cli_usage_error(&cli_cmd_show, "expected one INPUT");
    show_state *s = &a.s;
    const char *output = a.output;
    s->out = cli_open_output(output);
    if (!s->out)
        return CLI_EXIT_USAGE;
    static char obuf[1 << 16];
    setvbuf(s->out, obuf, _IOFBF, sizeof(obuf));
    /* A live input's events are printed as they are released, not when
     * 64 KiB of lines have piled up. */
    a.io.reader.on_wait = show_flush;
    a.io.reader.wait_ctx = s->out;
    el_reader_result res;
    int rc = cli_read(argv[first], &a.io, show_sink, s, &res);
    if (cli_close_output(s->out, output) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_DATA;
    return rc;
}

const cli_command cli_cmd_show = {
    .name = "show",
    .summary = "print every event, one per line",
    .synopsis = "rtscope show [options] INPUT",
    .about = show_about,
    .opts = show_opts,
    .run = show_run,
};
