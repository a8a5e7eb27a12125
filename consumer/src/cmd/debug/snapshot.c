/* rtscope debug snapshot TARGET -o FILE: pause, walk the heap once through
 * a recording of the stub (rec_source.h: the closures, info tables and
 * bitmaps read), take the block list, resume, then write the file
 * (snap_write.c; format in docs/debug.md). */
#define _GNU_SOURCE
#include "cli.h"
#include "debug.h"
#include "rtscope/debug/rec_source.h"
#include "session.h"

#include "rtscope/base/safestr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The program's name and pid: the socket's name is <pid>-<program> in
 * ghc-debug's directory; a socket named otherwise (--debug-stub=PATH,
 * GHC_DEBUG_SOCKET) is asked who is at its other end. */
void debug_snap_name_from(dbg_snap *snap, const dbg_conn *c)
{
    const char *path = c->path;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *end;
    unsigned long long pid = strtoull(base, &end, 10);
    if (end != base && *end == '-') {
        snap->pid = pid;
        base = end + 1;
    } else if (dbg_conn_peer(c, &snap->pid, snap->program,
                             sizeof(snap->program)) == 0) {
        rt_str_blank_ctl(snap->program);
        return;
    }
    size_t n = strnlen(base, sizeof(snap->program) - 1);
    memcpy(snap->program, base, n);
    snap->program[n] = '\0';
}

int debug_snapshot_run(const char *target, const char *out, int gc, int blocks)
{
    debug_session ss;
    dbg_snap snap;
    dbg_snap_init(&snap);
    /* dbg_snap_write checks too, but only after the pause and walk */
    if (dbg_snap_check_path(&snap, out) != 0)
        return debug_fail("%s", snap.err);
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    if (ss.is_snapshot) {
        debug_session_close(&ss);
        return debug_fail("%s: already a snapshot (copy the file)", target);
    }
    debug_snap_name_from(&snap, &ss.conn);
    if (dbg_heap_record(&ss.heap, &snap) != 0) {
        debug_session_close(&ss);
        dbg_snap_free(&snap);
        return debug_fail("out of memory");
    }
    double t0 = debug_now_s();
    r = debug_session_walk(&ss, gc, NULL, NULL, 1);
    if (r == 0 && blocks) {
        dbg_block *b;
        size_t nb;
        if (dbg_heap_blocks(&ss.heap, &b, &nb) != 0)
            r = debug_fail("%s", ss.heap.err);
        free(b); /* recorded */
    }
    debug_session_release(&ss);
    double paused = debug_now_s() - t0;
    dbg_heap_record_stop(&ss.heap);
    if (r)
        goto done;
    dbg_heap *h = &ss.heap;
    dbg_snap_finish(&snap);
    uint64_t bytes = 0, live = dbg_snap_live_bytes(&snap), inblocks = 0;
    for (size_t i = 0; i < snap.nblocks; i++)
        inblocks += snap.blocks[i].size;
    if (dbg_snap_write(&snap, out, 3, &bytes) != 0) {
        r = debug_fail("%s", snap.err);
        goto done;
    }
    char blk[64] = "no block list";
    if (blocks)
        snprintf(blk, sizeof(blk), "heap blocks %" PRIu64 " bytes", inblocks);
    char pause[128];
    if (ss.forked)
        snprintf(pause, sizeof(pause),
                 "paused %.3f s to fork, the copy read in %.3f s", ss.pause_s,
                 paused);
    else
        snprintf(pause, sizeof(pause), "paused %.3f s", paused);
    printf("snapshot %s: %zu closures, %" PRIu64 " bytes of heap, %zu info "
           "tables, %zu roots; file %" PRIu64 " bytes (%.3f of the heap); "
           "%s; %s; %" PRIu64 " requests\n",
           out, snap.nclo, live, snap.ninfos, snap.nroots, bytes,
           live ? (double)bytes / (double)live : 0.0, blk, pause,
           ss.conn.requests);
    debug_warn_unreadable(h, "the snapshot has what could");
done:
    debug_session_close(&ss);
    dbg_snap_free(&snap);
    return r;
}

/* What `debug snapshot` is given. */
typedef struct snapshot_args {
    const char *out;
    int blocks; /* write the block list */
} snapshot_args;

static const opt snapshot_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(snapshot_args, out),
     .help = "where to write it"},
    {.name = "no-blocks",
     .kind = OPT_FLAG,
     .set = 0,
     .value = OPT_AT(snapshot_args, blocks),
     .help = "leave out the block list (a shorter pause)"},
    OPT_END,
};

int debug_snapshot_cmd_run(int argc, char **argv)
{
    snapshot_args sa = {.blocks = 1};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_snapshot, argc, argv, &sa, 1, &a);
    if (r >= 0)
        return r;
    if (!sa.out)
        return debug_usage_error(&debug_cmd_snapshot, "needs -o FILE");
    return debug_snapshot_run(a.target[0], sa.out, a.gc, sa.blocks);
}

static const char debug_snapshot_help[] =
    "  snapshot    pause, copy what a walk from the roots reaches (closures,\n"
    "              info tables, bitmaps, SRTs) and the block list, resume,\n"
    "              then write FILE (zstd-compressed; docs/debug.md)\n";

const debug_command debug_cmd_snapshot = {
    .name = "snapshot",
    .synopsis = "rtscope debug snapshot TARGET -o FILE [--no-gc|--fork] "
                "[--no-blocks]\n",
    .help = debug_snapshot_help,
    .opts = snapshot_opts,
    .no_gc = 1,
    .run = debug_snapshot_cmd_run,
};
