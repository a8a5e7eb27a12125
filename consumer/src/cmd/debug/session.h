/* debug_session: what every `rtscope debug` inspection does, on a live
 * program or a snapshot file: open the TARGET, then pause (live only),
 * read the roots, walk the heap with progress on a terminal, and let the
 * program go as soon as the heap is read. Commands are written against
 * the dbg_heap this gives them and work unchanged on either. */
#ifndef RTSCOPE_DEBUG_SESSION_H
#define RTSCOPE_DEBUG_SESSION_H

#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"

#include <stddef.h>
#include <stdint.h>

typedef struct debug_session {
    char target[4096];
    int is_snapshot;
    dbg_conn conn; /* live */
    dbg_snap snap; /* snapshot */
    dbg_heap heap;
    int resume_after; /* we paused it: resume when done */
    int forked;       /* the walk reads a fork-mode copy */
    double pause_s;   /* how long the PAUSE request took */
    uint64_t *roots;
    size_t nroots;
} debug_session;

/* Seconds on a monotonic clock. */
double debug_now_s(void);

/* "rtscope debug: MSG" on stderr; returns CLI_EXIT_DATA. */
int debug_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* debug_fail's messages name COMMAND instead of debug (`rtscope explore`). */
void debug_fail_as(const char *command);
/* The last message debug_fail printed (without "rtscope CMD: "), or "". */
const char *debug_last_failure(void);

/* Open TARGET: a snapshot file (known by its magic) or a live stub (a
 * socket path, pid or program name), checking the stub's version. Returns
 * 0, or an exit status with the error printed. */
int debug_session_open(debug_session *s, const char *target);

/* Pause a live program as debug_session_walk does with `gc` (nothing for a
 * snapshot or gc < 0), for a caller that reads something paused before the
 * walk; then walk with gc = -1. Returns 0, or an exit status with the
 * error printed. */
int debug_session_pause(debug_session *s, int gc);
/* Pause (after a major GC if gc > 0, at once if gc == 0; gc < 0: the
 * caller paused it and set resume_after; a program paused already stays so),
 * read the roots and walk the heap calling fn (may be NULL) for each reachable
 * closure. Unless hold, the program is resumed once the heap is read.
 * Returns 0, or an exit status with the error printed. */
int debug_session_walk(debug_session *s, int gc, dbg_visit_fn fn, void *ctx,
                       int hold);
/* If some closures or frames could not be read: "rtscope debug: warning:
 * N closures or frames could not be read; CONSEQUENCE" on stderr. */
void debug_warn_unreadable(const dbg_heap *h, const char *consequence);

/* Resume now if the session paused the program. */
void debug_session_release(debug_session *s);
/* Resume if needed, disconnect, free everything. */
void debug_session_close(debug_session *s);

/* The snapshot's program and pid: from the socket path of its debuggee
 * (<pid>-<program> in ghc-debug's directory), else from the process at the
 * other end of the connection (dbg_conn_peer). */
void debug_snap_name_from(dbg_snap *snap, const dbg_conn *c);

/* rtscope debug snapshot (snapshot.c): returns an exit status. */
int debug_snapshot_run(const char *target, const char *out, int gc, int blocks);

#endif
