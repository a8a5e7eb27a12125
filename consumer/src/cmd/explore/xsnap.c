/* The explorer's s: a snapshot of the heap being explored, as `rtscope
 * debug snapshot` takes one (a walk from the roots through a recording
 * of the heap source, then the block list), of the program paused or of
 * its forked copy, with the walk's progress and Esc to cancel it. */
#define _GNU_SOURCE
#include "explore.h"

#include "rtscope/debug/rec_source.h"
#include "session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* <program>.<pid>.<n>.explore.rsnap, as the RTS names the snapshots a
 * program takes of itself, n the first that is not there yet; the program
 * and pid are the socket's (<pid>-<program>) or, for a socket named
 * otherwise (--debug-stub=PATH), those of the process at its other end. */
static void snapshot_path(const dbg_snap *snap, char *path, size_t len)
{
    char pid[32] = "";
    if (snap->pid)
        snprintf(pid, sizeof(pid), ".%" PRIu64, snap->pid);
    for (unsigned n = 1;; n++) {
        snprintf(path, len, "%s%s.%u.explore.rsnap",
                 snap->program[0] ? snap->program : "heap", pid, n);
        if (access(path, F_OK) != 0 || n == 9999)
            return;
    }
}

/* The info tables already read go in first: the recording sees only
 * those read after it starts. 0, or -1 when out of memory. */
static int add_known_infos(dbg_heap *h, dbg_snap *snap)
{
    for (size_t i = 0; i < dbg_heap_ninfos(h); i++) {
        dbg_info *in = dbg_heap_info_at(h, i);
        const char *con = ghc_type_is_constr(in->type) ? in->con : NULL;
        char *const *src = in->nsrc == DBG_SOURCE_FIELDS ? in->src : NULL;
        if (in->type && dbg_snap_add_info(snap, in, con, src) != 0)
            return -1;
    }
    return 0;
}

static int nothing(void *ctx, const dbg_closure *c, uint64_t parent)
{
    (void)ctx, (void)c, (void)parent;
    return 0;
}

/* Walk the heap through a recording into snap, with the block list. 0; 1
 * cancelled; -1 (t->err). */
static int record(xt_tree *t, const debug_session *s, dbg_snap *snap,
                  const xt_progress *p)
{
    if (add_known_infos(t->h, snap) != 0 ||
        dbg_snap_set_roots(snap, s->roots, s->nroots) != 0 ||
        dbg_heap_record(t->h, snap) != 0)
        return snprintf(t->err, sizeof(t->err), "out of memory"), -1;
    int r = xt_walk(t, s->roots, s->nroots, nothing, NULL, p);
    dbg_block *b = NULL;
    size_t nb;
    if (r == 0 && dbg_heap_blocks(t->h, &b, &nb) != 0)
        r = -1, snprintf(t->err, sizeof(t->err), "%s", t->h->err);
    free(b); /* recorded */
    dbg_heap_record_stop(t->h);
    return r;
}

int xt_snapshot(xt_tree *t, const debug_session *s, const xt_progress *p,
                char *path, size_t len)
{
    dbg_snap snap;
    dbg_snap_init(&snap);
    debug_snap_name_from(&snap, &s->conn);
    snapshot_path(&snap, path, len);
    double t0 = xt_now();
    int r = record(t, s, &snap, p);
    uint64_t bytes = 0;
    if (r == 0 && (dbg_snap_finish(&snap) != 0 ||
                   dbg_snap_write(&snap, path, 3, &bytes) != 0))
        r = -1, snprintf(t->err, sizeof(t->err), "%.500s", snap.err);
    if (r == 0)
        snprintf(t->err, sizeof(t->err),
                 "snapshot written: %.300s (%zu closures, %" PRIu64
                 " bytes of heap; file %" PRIu64 " bytes) in %.2f s",
                 path, snap.nclo, dbg_snap_live_bytes(&snap), bytes,
                 xt_now() - t0);
    else if (r > 0)
        snprintf(t->err, sizeof(t->err), "snapshot cancelled: nothing written");
    dbg_snap_free(&snap);
    return r;
}
