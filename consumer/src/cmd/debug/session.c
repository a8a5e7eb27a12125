/* debug_session: open, pause, walk, release. See session.h. */
#define _GNU_SOURCE
#include "session.h"

#include "cli.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double debug_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The command whose errors debug_fail prints: `rtscope explore` shares
 * the sessions. */
static const char *debug_fail_command = "debug";

void debug_fail_as(const char *command)
{
    debug_fail_command = command;
}

/* The last message debug_fail printed, without the command's name. */
static char debug_last_failure_text[512];

int debug_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(debug_last_failure_text, sizeof(debug_last_failure_text), fmt,
              ap);
    va_end(ap);
    fprintf(stderr, "rtscope %s: %s\n", debug_fail_command,
            debug_last_failure_text);
    return CLI_EXIT_DATA;
}

const char *debug_last_failure(void)
{
    return debug_last_failure_text;
}

/* Connect to the debuggee whose socket is `path` (a resolved target). */
static int open_live_path(debug_session *s, const char *path)
{
    dbg_conn *c = &s->conn;
    if (dbg_connect(c, path) != 0)
        return debug_fail("%s", c->err);
    uint32_t v;
    int prof = -1;
    if (dbg_version(c, &v, &prof) != 0) {
        int r = debug_fail("%s", c->err);
        dbg_close(c);
        return r;
    }
    const dbg_layout *layout = dbg_layout_for(v);
    if (!layout) {
        dbg_close(c);
        return debug_fail("%s: the debuggee's stub reports version %u; "
                          "rtscope debug reads the heaps of GHC %s",
                          path, v, dbg_layout_known());
    }
    if (prof > 0) {
        /* every closure carries a profiling header that the decoder does
         * not expect: better no answer than a wrong one */
        dbg_close(c);
        return debug_fail("%s: the debuggee is a profiled program (-prof); "
                          "rtscope debug reads non-profiled heaps only "
                          "(ghc-debug's clients read profiled ones)",
                          path);
    }
    if (dbg_heap_init(&s->heap, c) != 0) {
        dbg_close(c);
        return debug_fail("out of memory");
    }
    s->heap.layout = layout;
    return 0;
}

static int open_live(debug_session *s, const char *target)
{
    char path[4096], err[512];
    if (dbg_target_resolve(target, path, sizeof(path), err, sizeof(err)) != 0)
        return debug_fail("%s", err);
    return open_live_path(s, path);
}

int debug_session_open(debug_session *s, const char *target)
{
    memset(s, 0, sizeof(*s));
    s->conn.fd = -1;
    snprintf(s->target, sizeof(s->target), "%s", target);
    struct stat st;
    if (stat(target, &st) == 0 && S_ISREG(st.st_mode)) {
        /* A bare name of an executable that is not a snapshot is a
         * program's name where a debuggee of that name runs: where the
         * program was built (./Service is there). Otherwise a file is
         * read as a snapshot, and one that is not gets that error. */
        char path[4096], err[512];
        if (!strchr(target, '/') && (st.st_mode & 0111) &&
            !dbg_snap_file_is_snapshot(target) &&
            dbg_target_resolve(target, path, sizeof(path), err, sizeof(err)) ==
                0)
            return open_live_path(s, path);
        if (!dbg_snap_file_is_snapshot(target))
            return debug_fail("%s: offset 0: not an rtscope snapshot (no "
                              "snapshot magic) and not a debug socket",
                              target);
        if (dbg_snap_load_file(&s->snap, target) != 0)
            return debug_fail("%s: %s", target, s->snap.err);
        s->is_snapshot = 1;
        dbg_heap_init_source(&s->heap, &dbg_source_snap, &s->snap);
        s->heap.layout =
            dbg_layout_for(s->snap.ghc_version); /* loaded: known */
        return 0;
    }
    return open_live(s, target);
}

/* Progress of a long walk, on a terminal only: one line rewritten. */
typedef struct debug_progress {
    size_t shown;
    int active;
} debug_progress;

static void progress_cb(void *ctx, size_t visited, size_t queued)
{
    debug_progress *p = ctx;
    if (visited - p->shown < 200000)
        return;
    p->shown = visited;
    p->active = 1;
    fprintf(stderr, "\rrtscope debug: %zu closures read, %zu queued...",
            visited, queued);
    fflush(stderr);
}

/* Pause for an inspection; resume_after = 1 if we paused it. */
static int pause_live(debug_session *s, int gc)
{
    int already = 0;
    double t0 = debug_now_s();
    if (dbg_pause(&s->conn, gc, &already) != 0)
        return -1;
    s->pause_s = debug_now_s() - t0;
    s->resume_after = !already;
    s->forked = gc == DBG_PAUSE_FORK && !already;
    if (already && dbg_stay_paused(&s->conn, 1) != 0) /* leave it as found */
        return -1;
    return 0;
}

int debug_session_pause(debug_session *s, int gc)
{
    if (s->is_snapshot || gc < 0)
        return 0;
    return pause_live(s, gc) != 0 ? debug_fail("%s", s->conn.err) : 0;
}

int debug_session_walk(debug_session *s, int gc, dbg_visit_fn fn, void *ctx,
                       int hold)
{
    debug_progress prog = {0};
    if (isatty(STDERR_FILENO)) {
        s->heap.progress = progress_cb;
        s->heap.progress_ctx = &prog;
    }
    int r = 0, failed = 0; /* 1: the pause, 2: the walk */
    if (!s->is_snapshot && gc >= 0 && pause_live(s, gc) != 0)
        failed = 1;
    else if (dbg_heap_roots(&s->heap, &s->roots, &s->nroots) != 0 ||
             dbg_heap_walk(&s->heap, s->roots, s->nroots, fn, ctx) != 0)
        failed = 2;
    if (prog.active) /* the progress line goes before any message */
        fprintf(stderr, "\r\033[K");
    if (failed == 1)
        r = debug_fail("%s", s->conn.err);
    else if (failed == 2)
        r = s->is_snapshot ? debug_fail("%s: %s", s->target, s->heap.err)
                           : debug_fail("%s", s->heap.err);
    s->heap.progress = NULL;
    if (!hold)
        debug_session_release(s);
    return r;
}

/* Let the program go as soon as the heap is read: what follows (constructor
 * names, source locations) is static data the stub reads unpaused. */
void debug_session_release(debug_session *s)
{
    if (s->resume_after && s->conn.fd >= 0)
        dbg_resume(&s->conn, NULL);
    s->resume_after = 0;
}

void debug_session_close(debug_session *s)
{
    debug_session_release(s);
    dbg_close(&s->conn);
    dbg_heap_free(&s->heap);
    dbg_snap_free(&s->snap);
    free(s->roots);
    s->roots = NULL;
}

void debug_warn_unreadable(const dbg_heap *h, const char *consequence)
{
    if (!h->unreadable)
        return;
    fprintf(stderr,
            "rtscope debug: warning: %zu closures or frames could "
            "not be read; %s\n",
            h->unreadable, consequence);
    for (size_t i = 0; i < h->nunread; i++) {
        const dbg_unreadable *u = &h->unread[i];
        if (u->parent)
            fprintf(stderr,
                    "  0x%012" PRIx64 " (reached from 0x%012" PRIx64 "): %s\n",
                    u->addr, u->parent, u->why);
        else
            fprintf(stderr, "  0x%012" PRIx64 " (a root): %s\n", u->addr,
                    u->why);
    }
    if (h->unreadable > h->nunread)
        fprintf(stderr, "  ... and %zu more\n", h->unreadable - h->nunread);
}
