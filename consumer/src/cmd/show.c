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

/* Describe one event (without time and capability). */
static void show_describe(FILE *f, const el_event *ev, const el_typetab *types)
{
    const char *desc;
    switch (ev->type) {
    case EL_CREATE_THREAD:
        fprintf(f, "creating thread %" PRIu32, ev->u.thread.thread);
        break;
    case EL_RUN_THREAD:
        fprintf(f, "running thread %" PRIu32, ev->u.thread.thread);
        break;
    case EL_STOP_THREAD:
        fprintf(f, "stopping thread %" PRIu32 " (%s)", ev->u.stop_thread.thread,
                show_stop_status(ev->u.stop_thread.status));
        if (ev->u.stop_thread.status == 8 && ev->u.stop_thread.blocked_on)
            fprintf(f, " owned by thread %" PRIu32,
                    ev->u.stop_thread.blocked_on);
        break;
    case EL_THREAD_RUNNABLE:
        fprintf(f, "thread %" PRIu32 " is runnable", ev->u.thread.thread);
        break;
    case EL_MIGRATE_THREAD:
        fprintf(f, "migrating thread %" PRIu32 " to cap %u",
                ev->u.thread_cap.thread, ev->u.thread_cap.cap);
        break;
    case EL_THREAD_WAKEUP:
        fprintf(f, "waking up thread %" PRIu32 " on cap %u",
                ev->u.thread_cap.thread, ev->u.thread_cap.cap);
        break;
    case EL_CREATE_SPARK_THREAD:
        fprintf(f, "creating spark thread %" PRIu32, ev->u.thread.thread);
        break;
    case EL_GC_START:
        fputs("starting GC", f);
        break;
    case EL_GC_END:
        fputs("finished GC", f);
        break;
    case EL_REQUEST_SEQ_GC:
        fputs("requesting sequential GC", f);
        break;
    case EL_REQUEST_PAR_GC:
        fputs("requesting parallel GC", f);
        break;
    case EL_GC_IDLE:
        fputs("GC idle", f);
        break;
    case EL_GC_WORK:
        fputs("GC working", f);
        break;
    case EL_GC_DONE:
        fputs("GC done", f);
        break;
    case EL_GC_GLOBAL_SYNC:
        fputs("all caps stopped for GC", f);
        break;
    case EL_LOG_MSG:
    case EL_USER_MSG:
        cli_put_str(f, ev->u.msg.text);
        break;
    case EL_USER_MARKER:
        fputs("marker: ", f);
        cli_put_str(f, ev->u.msg.text);
        break;
    case EL_BLOCK_MARKER:
        fprintf(f, "block of %" PRIu32 " bytes for cap %u, ends at %" PRIu64,
                ev->u.block.size, ev->u.block.cap, ev->u.block.end_ts);
        break;
    case EL_CAPSET_CREATE:
        fprintf(f, "created capset %" PRIu32 " of type %s",
                ev->u.capset_create.capset,
                ev->u.capset_create.type == 1   ? "custom"
                : ev->u.capset_create.type == 2 ? "OS process"
                : ev->u.capset_create.type == 3 ? "clock domain"
                                                : "unknown");
        break;
    case EL_CAPSET_DELETE:
        fprintf(f, "deleted capset %" PRIu32, ev->u.capset.capset);
        break;
    case EL_CAPSET_ASSIGN_CAP:
        fprintf(f, "assigned cap %u to capset %" PRIu32, ev->u.capset_cap.cap,
                ev->u.capset_cap.capset);
        break;
    case EL_CAPSET_REMOVE_CAP:
        fprintf(f, "removed cap %u from capset %" PRIu32, ev->u.capset_cap.cap,
                ev->u.capset_cap.capset);
        break;
    case EL_RTS_IDENTIFIER:
        fprintf(f, "capset %" PRIu32 ": RTS version \"",
                ev->u.capset_str.capset);
        cli_put_str(f, ev->u.capset_str.text);
        fputc('"', f);
        break;
    case EL_PROGRAM_ARGS:
    case EL_PROGRAM_ENV:
        fprintf(f, "capset %" PRIu32 ": %s ", ev->u.capset_vec.capset,
                ev->type == EL_PROGRAM_ARGS ? "args:" : "env:");
        show_vec(f, ev->u.capset_vec.vec);
        break;
    case EL_OSPROCESS_PID:
        fprintf(f, "capset %" PRIu32 ": pid %" PRIu32, ev->u.pid.capset,
                ev->u.pid.pid);
        break;
    case EL_OSPROCESS_PPID:
        fprintf(f, "capset %" PRIu32 ": parent pid %" PRIu32, ev->u.pid.capset,
                ev->u.pid.pid);
        break;
    case EL_WALL_CLOCK_TIME:
        fprintf(f,
                "capset %" PRIu32 ": wall clock time %" PRIu64 "s %" PRIu32
                "ns (unix epoch)",
                ev->u.wall_clock.capset, ev->u.wall_clock.sec,
                ev->u.wall_clock.nsec);
        break;
    case EL_SPARK_COUNTERS:
        fprintf(f,
                "spark stats: %" PRIu64 " created, %" PRIu64
                " converted, %" PRIu64 " remaining (%" PRIu64
                " overflowed, %" PRIu64 " dud, %" PRIu64 " GC'd, %" PRIu64
                " fizzled)",
                ev->u.spark_counters.created, ev->u.spark_counters.converted,
                ev->u.spark_counters.remaining, ev->u.spark_counters.overflowed,
                ev->u.spark_counters.dud, ev->u.spark_counters.gcd,
                ev->u.spark_counters.fizzled);
        break;
    case EL_SPARK_CREATE:
        fputs("spark created", f);
        break;
    case EL_SPARK_DUD:
        fputs("dud spark discarded", f);
        break;
    case EL_SPARK_OVERFLOW:
        fputs("overflowed spark discarded", f);
        break;
    case EL_SPARK_RUN:
        fputs("running a local spark", f);
        break;
    case EL_SPARK_STEAL:
        fprintf(f, "stealing a spark from cap %u",
                ev->u.spark_steal.victim_cap);
        break;
    case EL_SPARK_FIZZLE:
        fputs("spark fizzled", f);
        break;
    case EL_SPARK_GC:
        fputs("spark GCed", f);
        break;
    case EL_INTERN_STRING:
        fprintf(f, "interned string %" PRIu32 ": \"", ev->u.intern_string.id);
        cli_put_str(f, ev->u.intern_string.str);
        fputc('"', f);
        break;
    case EL_THREAD_LABEL:
        fprintf(f, "thread %" PRIu32 " has label \"",
                ev->u.thread_label.thread);
        cli_put_str(f, ev->u.thread_label.label);
        fputc('"', f);
        break;
    case EL_CAP_CREATE:
        fprintf(f, "created cap %u", ev->u.cap.cap);
        break;
    case EL_CAP_DELETE:
        fprintf(f, "deleted cap %u", ev->u.cap.cap);
        break;
    case EL_CAP_DISABLE:
        fprintf(f, "disabled cap %u", ev->u.cap.cap);
        break;
    case EL_CAP_ENABLE:
        fprintf(f, "enabled cap %u", ev->u.cap.cap);
        break;
    case EL_HEAP_ALLOCATED:
        fprintf(f,
                "allocated on heap capset %" PRIu32 ": %" PRIu64
                " total bytes till now",
                ev->u.heap.capset, ev->u.heap.bytes);
        break;
    case EL_HEAP_SIZE:
        fprintf(f, "size of heap capset %" PRIu32 ": %" PRIu64 " bytes",
                ev->u.heap.capset, ev->u.heap.bytes);
        break;
    case EL_BLOCKS_SIZE:
        fprintf(f, "blocks size of heap capset %" PRIu32 ": %" PRIu64 " bytes",
                ev->u.heap.capset, ev->u.heap.bytes);
        break;
    case EL_HEAP_LIVE:
        fprintf(f, "live data in heap capset %" PRIu32 ": %" PRIu64 " bytes",
                ev->u.heap.capset, ev->u.heap.bytes);
        break;
    case EL_HEAP_INFO_GHC:
        fprintf(f,
                "heap stats for heap capset %" PRIu32
                ": generations %u, %" PRIu64 " bytes max heap size, %" PRIu64
                " bytes alloc area size, %" PRIu64
                " bytes mblock size, %" PRIu64 " bytes block size",
                ev->u.heap_info.capset, ev->u.heap_info.gens,
                ev->u.heap_info.max_heap_size, ev->u.heap_info.alloc_area_size,
                ev->u.heap_info.mblock_size, ev->u.heap_info.block_size);
        break;
    case EL_GC_STATS_GHC:
        fprintf(f,
                "GC stats for heap capset %" PRIu32 ": generation %u, %" PRIu64
                " bytes copied, %" PRIu64 " bytes slop, %" PRIu64
                " bytes fragmentation, %" PRIu32 " par threads, %" PRIu64
                " bytes max par copied, %" PRIu64 " bytes total par copied",
                ev->u.gc_stats.capset, ev->u.gc_stats.gen,
                ev->u.gc_stats.copied, ev->u.gc_stats.slop, ev->u.gc_stats.frag,
                ev->u.gc_stats.par_n_threads, ev->u.gc_stats.par_max_copied,
                ev->u.gc_stats.par_tot_copied);
        if (ev->u.gc_stats.has_par_balanced_copied)
            fprintf(f, ", %" PRIu64 " bytes balanced par copied",
                    ev->u.gc_stats.par_balanced_copied);
        break;
    case EL_MEM_RETURN:
        fprintf(f,
                "memory returned (mblocks) for heap capset %" PRIu32
                ": current %" PRIu32 ", needed %" PRIu32 ", returned %" PRIu32,
                ev->u.mem_return.capset, ev->u.mem_return.current,
                ev->u.mem_return.needed, ev->u.mem_return.returned);
        break;
    case EL_TASK_CREATE:
        fprintf(f,
                "task 0x%" PRIx64 " created on cap %u with OS kernel "
                "thread %" PRIu64,
                ev->u.task_create.task, ev->u.task_create.cap,
                ev->u.task_create.tid);
        break;
    case EL_TASK_MIGRATE:
        fprintf(f, "task 0x%" PRIx64 " migrated from cap %u to cap %u",
                ev->u.task_migrate.task, ev->u.task_migrate.cap,
                ev->u.task_migrate.new_cap);
        break;
    case EL_TASK_DELETE:
        fprintf(f, "task 0x%" PRIx64 " deleted", ev->u.task_delete.task);
        break;
    case EL_HACK_BUG_T9003:
        fputs("empty event for bug #9003", f);
        break;
    case EL_HEAP_PROF_BEGIN:
        fprintf(f,
                "start heap profile %u at sampling period %" PRIu64
                " ns broken down by %s",
                ev->u.heap_prof_begin.profile_id,
                ev->u.heap_prof_begin.interval_ns,
                show_breakdown(ev->u.heap_prof_begin.breakdown));
        for (int i = 0; i < 7; i++) {
            static const char *const fnames[] = {
                "module",      "closure description", "type description",
                "cost centre", "cost centre stack",   "retainer",
                "biography"};
            if (ev->u.heap_prof_begin.filters[i].len) {
                fprintf(f, ", %s filter \"", fnames[i]);
                cli_put_str(f, ev->u.heap_prof_begin.filters[i]);
                fputc('"', f);
            }
        }
        break;
    case EL_HEAP_PROF_COST_CENTRE:
        fprintf(f, "cost centre %" PRIu32 " ", ev->u.cost_centre.id);
        cli_put_str(f, ev->u.cost_centre.label);
        fputs(" in ", f);
        cli_put_str(f, ev->u.cost_centre.module);
        fputs(" at ", f);
        cli_put_str(f, ev->u.cost_centre.srcloc);
        if (ev->u.cost_centre.flags & 1)
            fputs(" CAF", f);
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
        fprintf(f, "start heap prof sample %" PRIu64, ev->u.sample.era);
        break;
    case EL_HEAP_PROF_SAMPLE_END:
        fprintf(f, "end heap prof sample %" PRIu64, ev->u.sample.era);
        break;
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        fprintf(f,
                "start heap prof (biographical) sample %" PRIu64 " at %" PRIu64,
                ev->u.bio_sample.era, ev->u.bio_sample.time);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
        fprintf(
            f, "heap prof sample %u, residency %" PRIu64 ", cost centre stack ",
            ev->u.sample_cc.profile_id, ev->u.sample_cc.residency);
        show_stack(f, ev);
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        fprintf(f, "heap prof sample %u, residency %" PRIu64 ", label ",
                ev->u.sample_string.profile_id, ev->u.sample_string.residency);
        cli_put_str(f, ev->u.sample_string.label);
        break;
    case EL_PROF_SAMPLE_COST_CENTRE:
        fprintf(f,
                "cap %" PRIu32 ": time prof sample, %" PRIu64
                " ticks, cost centre stack ",
                ev->u.prof_sample_cc.capset, ev->u.prof_sample_cc.ticks);
        show_stack(f, ev);
        break;
    case EL_PROF_BEGIN:
        fprintf(f, "start time profile, tick interval %" PRIu64 " ns",
                ev->u.prof_begin.tick_interval);
        break;
    case EL_IPE:
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
        break;
    case EL_USER_BINARY_MSG:
        fprintf(f, "binary message of %zu bytes:", ev->u.binary.data.len);
        for (size_t i = 0; i < ev->u.binary.data.len && i < 64; i++)
            fprintf(f, " %02x", (unsigned char)ev->u.binary.data.ptr[i]);
        if (ev->u.binary.data.len > 64)
            fputs(" ...", f);
        break;
    case EL_CONC_MARK_BEGIN:
        fputs("concurrent mark began", f);
        break;
    case EL_CONC_MARK_END:
        fprintf(f, "concurrent mark ended: %" PRIu32 " objects marked",
                ev->u.conc_mark_end.marked);
        break;
    case EL_CONC_SYNC_BEGIN:
        fputs("post-mark synchronization began", f);
        break;
    case EL_CONC_SYNC_END:
        fputs("post-mark synchronization ended", f);
        break;
    case EL_CONC_SWEEP_BEGIN:
        fputs("concurrent sweep began", f);
        break;
    case EL_CONC_SWEEP_END:
        fputs("concurrent sweep ended", f);
        break;
    case EL_CONC_UPD_REM_SET_FLUSH:
        fprintf(f, "update remembered set flushed by cap %u", ev->u.cap.cap);
        break;
    case EL_NONMOVING_HEAP_CENSUS:
        fprintf(f,
                "nonmoving heap census %u: %" PRIu32 " active, %" PRIu32
                " filled, %" PRIu32 " live blocks",
                1u << (ev->u.nonmoving_census.log_blk_size & 31),
                ev->u.nonmoving_census.active_segs,
                ev->u.nonmoving_census.filled_segs,
                ev->u.nonmoving_census.live_blocks);
        break;
    case EL_TICKY_COUNTER_DEF:
        fprintf(f, "ticky counter 0x%" PRIx64 " arity %u kinds \"",
                ev->u.ticky_def.id, ev->u.ticky_def.arity);
        cli_put_str(f, ev->u.ticky_def.kinds);
        fputs("\" name ", f);
        cli_put_str(f, ev->u.ticky_def.name);
        break;
    case EL_TICKY_COUNTER_SAMPLE:
        fprintf(f,
                "ticky counter 0x%" PRIx64 ": %" PRIu64 " entries, %" PRIu64
                " allocs, %" PRIu64 " allocd",
                ev->u.ticky_sample.id, ev->u.ticky_sample.entries,
                ev->u.ticky_sample.allocs, ev->u.ticky_sample.allocd);
        break;
    case EL_TICKY_COUNTER_BEGIN_SAMPLE:
        fputs("ticky begin sample", f);
        break;
    default:
        desc = el_typetab_desc(types, ev->type);
        fprintf(f, "event type %u (%s), %" PRIu32 " bytes", ev->type,
                desc && *desc ? desc : "unknown", ev->payload_len);
        break;
    }
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
