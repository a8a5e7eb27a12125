/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Heap snapshots the program takes of itself; see HeapSnapshot.h and
 * includes/rts/HeapSnapshot.h.
 *
 * ---------------------------------------------------------------------------*/

#define _GNU_SOURCE
#include "Rts.h"
#include "RtsAPI.h"
#include "rts/HeapSnapshot.h"

#include "RtsUtils.h"
#include "Rtscope.h"
#include "Schedule.h"
#include "Capability.h"
#include "IPE.h"
#include "IPEBinary.h"
#include "Trace.h"
#include "sm/Storage.h"
#include "eventlog/EventLog.h"
#include "DebugStubVerify.h"
#include "HeapSnapshot.h"
#include "HeapSnapshotWalk.h"
#include "HeapSnapshotWrite.h"
#include "HeapSnapshotZstd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(THREADED_RTS)
#include <pthread.h>
#endif

/* Note [Heap snapshots]
 * ~~~~~~~~~~~~~~~~~~~~~
 * The program writes a snapshot of its reachable heap (the format of
 * `rtscope debug snapshot`, includes/rts/HeapSnapshotFormat.h) when
 *
 *  - a major GC finds the heap over -M (--heap-snapshot-on-overflow), before
 *    the scheduler throws HeapOverflow: once per process;
 *  - a major GC finds more live bytes than a threshold
 *    (--heap-snapshot-at=SIZE[:FACTOR[:COUNT]]): first SIZE, then FACTOR
 *    times the live bytes of the last one, at most COUNT times;
 *  - it is asked to: a signal (--heap-snapshot-signal), the eventlog
 *    socket's control command, or rts_requestHeapSnapshot() (C, and
 *    Rtscope.Profiling.requestHeapSnapshot).
 *
 * Taking a snapshot is a fork(): the child, a process of one thread with a
 * copy-on-write image of a heap nobody changes, walks it from the roots
 * (rts/HeapSnapshotWalk.c) and writes the file (rts/HeapSnapshotWrite.c),
 * while the program runs on. The program stops only for the fork, which
 * happens where no mutator runs: after a GC, in scheduleDoGC() before any
 * Capability is released (or the parallel GC's workers are); for a request,
 * in the threaded RTS on this module's thread, which pauses the RTS
 * (rts_pause()) for the fork, and in the non-threaded RTS in the scheduler
 * loop, which the request reaches by a context switch, or in awaitEvent()
 * when a signal interrupts the program's wait for I/O or a timer. (A
 * control command cannot interrupt that wait in the non-threaded RTS: it
 * is served when the program next runs.)
 *
 * One writer at a time. A request while one writes is refused with a
 * message; a threshold crossed meanwhile is taken after the first GC (of
 * any generation) once the writer is done, not at the next major GC, which
 * a program whose heap has stopped growing may not have for long; heap
 * overflow waits for the writer and then takes its own. The file is
 * written as NAME.tmp beside NAME and renamed when complete, so a file
 * under a snapshot's name is always whole. The child reports through a
 * pipe; the parent (this module's thread, or the scheduler loop, or
 * hs_exit) reaps it and prints one line on stderr and in the eventlog:
 * where the snapshot is, or why there is none (an error of the child's,
 * or its death by a signal), removing the .tmp. hs_exit waits for the
 * writer, so the snapshot of a program dying of heap overflow is complete
 * when it exits, with stock GHC's message and status.
 *
 * The child closes every file descriptor but its file and the report pipe
 * (a listening socket of the program's must not outlive it), drops the
 * program's signal handlers, never writes to the eventlog, and leaves with
 * _exit(). It runs at a lower priority than the program (nice +10, its
 * compressor's threads too): a service that is being written down keeps
 * its CPU when the machine is busy, and the writer takes what is left (a
 * 1 ms request loop on 2 cores: p99 4 ms undisturbed, 14 ms while a
 * writer ran at the program's priority with its two compressor threads;
 * benchmarks/snapshot). At heap overflow the program only waits for it.
 */
#define WRITER_NICE 10

#define SNAP_SUFFIX ".rsnap"

static struct {
    pid_t writer;               // the writer in flight, or 0
    int report_fd;              // read end of its report pipe
    char path[PATH_MAX];        // its snapshot's name
    char why[16];
    StgWord64 started_ns;
    StgWord64 pause_ns;         // what the program stopped for: the fork,
                                // or (a request, threaded) the whole pause
    StgWord64 last_reap_ns;
    unsigned seq;               // snapshots begun by this process
    volatile sig_atomic_t pending;   // a request waits
    const char *pending_why;
    bool overflow_taken;
    StgWord64 at_next;          // live bytes that take the next threshold one
    bool at_due;                // a major GC crossed it while a writer ran
    StgWord64 at_due_live;      // the live bytes it found
    uint32_t at_taken;
    bool shutdown;              // hs_exit() has begun: no more snapshots
#if defined(THREADED_RTS)
    Mutex lock;                 // writer, report_fd, path, why, seq
    pthread_t thread;
    bool thread_started;
    int wake_rd, wake_wr;
#endif
} hs = {
    .report_fd = -1,
#if defined(THREADED_RTS)
    .wake_rd = -1, .wake_wr = -1,
#endif
};

#if defined(THREADED_RTS)
#define HS_LOCK()   ACQUIRE_LOCK(&hs.lock)
#define HS_UNLOCK() RELEASE_LOCK(&hs.lock)
#else
#define HS_LOCK()
#define HS_UNLOCK()
#endif

/* -----------------------------------------------------------------------------
   Messages
   -------------------------------------------------------------------------- */

// One line on stderr and, if the eventlog is on, as a log message.
static void
say (const char *fmt, ...) GNUC3_ATTRIBUTE(format (printf, 1, 2));

static void
say (const char *fmt, ...)
{
    char msg[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    // one write(), so that the line is not interleaved with others
    char line[sizeof(msg) + 16];
    int n = snprintf(line, sizeof(line), "%s%s\n", RTSCOPE_MSG_PREFIX, msg);
    if (n > 0) {
        ssize_t r STG_UNUSED = write(STDERR_FILENO, line, (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1);
    }
#if defined(TRACING)
    if (eventlog_enabled) trace_("%s%s", RTSCOPE_MSG_PREFIX, msg);
#endif
}

/* -----------------------------------------------------------------------------
   The writer (the child)
   -------------------------------------------------------------------------- */

static void
report (int fd, const char *fmt, ...) GNUC3_ATTRIBUTE(format (printf, 2, 3));

static void
report (int fd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n > 0) {
        ssize_t r STG_UNUSED = write(fd, msg, (size_t) n < sizeof(msg) ? (size_t) n : sizeof(msg) - 1);
    }
}

// Close every descriptor above `keep`, which the child keeps (0-2 too).
static void
closeOthers (int keep)
{
#if defined(SYS_close_range)
    if (syscall(SYS_close_range, keep + 1, ~0U, 0) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = keep + 1; fd < max; fd++) close(fd);
}

// The child's whole life: walk, write, rename, report, _exit.
static void GNUC3_ATTRIBUTE(__noreturn__)
writerMain (int report_fd, const char *path, pid_t parent, StgWord64 t0)
{
    // nothing of the program's runs here: no handlers, no eventlog
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    for (int s = 1; s < NSIG; s++) {
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
    }
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGINT);
    sigaddset(&term, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &term, NULL);
    eventlog_enabled = false;
    ipeForkChild();
    errno = 0;
    if (nice(WRITER_NICE) == -1 && errno != 0) {
        // not allowed to: it writes at the program's priority
    }
    if (dup2(report_fd, 3) < 0) _exit(2);
    closeOthers(3);
    report_fd = 3;

    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        report(report_fd, "error cannot create %s: %s", tmp, strerror(errno));
        _exit(1);
    }
    const char *why = NULL;
    stubVerifyNewPause();
    SnapWalk *w = snapWalk(&why);
    SnapWriteStats st;
    int err = w == NULL ? ENOMEM : snapWriteFile(fd, w, parent, (StgWord64) time(NULL), &st);
    if (close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && rename(tmp, path) != 0) err = errno;
    if (err != 0) {
        unlink(tmp);
        report(report_fd, "error writing %s: %s", tmp, strerror(err));
        _exit(1);
    }
    report(report_fd, "ok %llu %llu %llu %llu %llu",
           (unsigned long long) st.closures, (unsigned long long) st.heap_bytes,
           (unsigned long long) st.file_bytes, (unsigned long long) st.unreadable,
           (unsigned long long) (getMonotonicNSec() - t0));
    _exit(0);
}

/* -----------------------------------------------------------------------------
   The parent: starting and reaping writers
   -------------------------------------------------------------------------- */

// The name of the next snapshot: DIR/PROG.PID.SEQ.WHY.rsnap.
static bool
nextPath (const char *why, char *out, size_t len)
{
    const HeapSnapshotConfig *c = &heap_snapshot_config;
    const char *dir = strcmp(why, "overflow") == 0 && c->overflow_dir != NULL
        ? c->overflow_dir : c->dir != NULL ? c->dir : ".";
    const char *prog = prog_name != NULL ? prog_name : "program";
    const char *slash = strrchr(prog, '/');
    if (slash != NULL) prog = slash + 1;
    int n = snprintf(out, len, "%s/%s.%d.%u.%s" SNAP_SUFFIX, dir, prog,
                     (int) getpid(), hs.seq + 1, why);
    return n > 0 && (size_t) n + 4 < len;       // room for ".tmp"
}

// What the writer said, or "" if nothing (it died first).
static void
readReport (char *buf, size_t len)
{
    size_t got = 0;
    while (hs.report_fd >= 0 && got + 1 < len) {
        ssize_t r = read(hs.report_fd, buf + got, len - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t) r;
    }
    buf[got] = '\0';
}

// The writer has ended with status (or was reaped by someone else:
// status -1): say how it went.
static void
writerEnded (int status)
{
    char rep[520];
    readReport(rep, sizeof(rep));
    unsigned long long closures, heap, file, unreadable, ns;
    if (sscanf(rep, "ok %llu %llu %llu %llu %llu", &closures, &heap, &file,
               &unreadable, &ns) == 5) {
        say("heap snapshot (%s) written: %s (%llu closures, %.1f MB of heap, "
            "%.1f MB, %.2f s; the program paused %.1f ms)%s",
            hs.why, hs.path, closures, heap / 1e6, file / 1e6, ns / 1e9,
            hs.pause_ns / 1e6, unreadable ? "; some closures were unreadable" : "");
    } else {
        char tmp[PATH_MAX + 8];
        snprintf(tmp, sizeof(tmp), "%s.tmp", hs.path);
        unlink(tmp);
        if (strncmp(rep, "error ", 6) == 0) {
            say("heap snapshot (%s) failed: %s; no snapshot written", hs.why, rep + 6);
        } else if (status != -1 && WIFSIGNALED(status)) {
            say("heap snapshot (%s) failed: its writer (pid %d) was killed by "
                "signal %d; no snapshot written", hs.why, (int) hs.writer,
                WTERMSIG(status));
        } else {
            say("heap snapshot (%s) failed: its writer (pid %d) ended without "
                "a word; no snapshot written", hs.why, (int) hs.writer);
        }
    }
    if (hs.report_fd >= 0) close(hs.report_fd);
    hs.report_fd = -1;
    hs.writer = 0;
}

// Whether the writer's report pipe has its report or its end (the writer
// reports, then exits at once).
static bool
reportReady (void)
{
    struct pollfd p = { .fd = hs.report_fd, .events = POLLIN };
    return hs.report_fd < 0 || poll(&p, 1, 0) > 0;
}

// Reap the writer if it has ended (wait: until it has). Lock held.
static void
reapLocked (bool wait)
{
    if (hs.writer == 0) return;
    int status = 0;
    pid_t r;
    do {
        r = waitpid(hs.writer, &status, wait ? 0 : WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == 0) return;                         // still at work
    if (r < 0) {
        // not ours to wait for (the program ignores SIGCHLD, or reaped it
        // itself): its end is the pipe's, which a wait reads up to
        if (!wait && !reportReady()) return;
        writerEnded(-1);
        return;
    }
    writerEnded(status);
}

typedef enum { TAKE_STARTED, TAKE_BUSY, TAKE_FAILED } TakeResult;

/* Start a writer. The caller has stopped every mutator. wait: wait for a
 * writer in flight first (heap overflow), rather than refuse. */
static TakeResult
take (const char *why, bool wait)
{
    HS_LOCK();
    reapLocked(wait);
    if (hs.writer != 0) {
        HS_UNLOCK();
        return TAKE_BUSY;
    }
    char path[PATH_MAX];
    int pfd[2];
    if (!nextPath(why, path, sizeof(path))) {
        HS_UNLOCK();
        say("heap snapshot (%s) failed: the directory's name is too long", why);
        return TAKE_FAILED;
    }
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        HS_UNLOCK();
        say("heap snapshot (%s) failed: pipe: %s", why, strerror(errno));
        return TAKE_FAILED;
    }
    pid_t parent = getpid();
    (void) snapZstdLoad();      // once, before any fork: at init if asked then
    StgWord64 t0 = getMonotonicNSec();
    pid_t pid = fork();
    if (pid == 0) writerMain(pfd[1], path, parent, t0);
    int err = errno;
    hs.pause_ns = getMonotonicNSec() - t0;
    close(pfd[1]);
    if (pid < 0) {
        close(pfd[0]);
        HS_UNLOCK();
        say("heap snapshot (%s) failed: cannot fork: %s", why, strerror(err));
        return TAKE_FAILED;
    }
    hs.writer = pid;
    hs.report_fd = pfd[0];
    hs.seq++;
    hs.started_ns = t0;
    snprintf(hs.path, sizeof(hs.path), "%s", path);
    snprintf(hs.why, sizeof(hs.why), "%s", why);
    HS_UNLOCK();
    return TAKE_STARTED;
}

// A request served (the caller has stopped every mutator); whether a
// writer started.
static bool
serveRequest (void)
{
    if (!hs.pending) return false;
    const char *why = hs.pending_why != NULL ? hs.pending_why : "request";
    hs.pending = 0;
    // The program is shutting down (hs_exit() has begun: its main thread
    // has returned, and its threads are to be deleted and its heap
    // collected for the last time), so a snapshot now would be of an empty
    // heap, not of the one the request was about.
    if (hs.shutdown || RELAXED_LOAD(&sched_state) >= SCHED_INTERRUPTING) {
        say("heap snapshot (%s) not taken: the program is exiting", why);
        return false;
    }
    TakeResult r = take(why, false);
    if (r == TAKE_BUSY) {
        say("heap snapshot (%s) not taken: one is being written (%s)", why, hs.path);
    }
    return r == TAKE_STARTED;
}

/* -----------------------------------------------------------------------------
   The threaded RTS: this module's thread serves requests and reaps
   -------------------------------------------------------------------------- */

#if defined(THREADED_RTS)

static void *
threadMain (void *arg STG_UNUSED)
{
    for (;;) {
        struct pollfd fds[2] = {
            { .fd = hs.wake_rd, .events = POLLIN },
            { .fd = -1, .events = POLLIN },
        };
        HS_LOCK();
        bool stop = hs.shutdown;
        fds[1].fd = hs.report_fd;
        HS_UNLOCK();
        if (stop) return NULL;
        // the report pipe's end (POLLHUP) is the writer's end
        if (poll(fds, 2, fds[1].fd >= 0 ? 1000 : -1) < 0 && errno != EINTR) return NULL;
        char b[64];
        while (read(hs.wake_rd, b, sizeof(b)) > 0) { }
        HS_LOCK();
        stop = hs.shutdown;
        HS_UNLOCK();
        if (stop) return NULL;
        if (hs.pending) {
            StgWord64 t0 = getMonotonicNSec();
            PauseToken *t = rts_pause();
            bool started = serveRequest();
            rts_resume(t);
            if (started) {
                // the whole pause, not only the fork (reaped here, later)
                HS_LOCK();
                hs.pause_ns = getMonotonicNSec() - t0;
                HS_UNLOCK();
            }
        }
        HS_LOCK();
        reapLocked(false);
        HS_UNLOCK();
    }
}

static void
wake (void)
{
    if (hs.wake_wr < 0) return;
    char b = 1;
    ssize_t r STG_UNUSED = write(hs.wake_wr, &b, 1);
}

// Start the thread once (not from a signal handler: init does it there).
static void
startThread (void)
{
    HS_LOCK();
    if (!hs.thread_started && !hs.shutdown) {
        int p[2];
        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0) {
            hs.wake_rd = p[0];
            hs.wake_wr = p[1];
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            hs.thread_started = pthread_create(&hs.thread, NULL, threadMain, NULL) == 0;
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        if (!hs.thread_started) {
            say("heap snapshots on request are off: cannot start their thread: %s",
                strerror(errno));
        }
    }
    HS_UNLOCK();
}

#else

static void wake (void) { }

#endif /* THREADED_RTS */

/* -----------------------------------------------------------------------------
   Entry points
   -------------------------------------------------------------------------- */

void
heapSnapshotRequest (const char *why)
{
    hs.pending_why = why;
    hs.pending = 1;
#if defined(THREADED_RTS)
    wake();
#else
    contextSwitchAllCapabilities();     // to the scheduler, soon
#endif
}

void
heapSnapshotAsk (const char *why)
{
#if defined(THREADED_RTS)
    startThread();
#endif
    heapSnapshotRequest(why);
}

void
rts_requestHeapSnapshot (void)
{
    heapSnapshotAsk("api");
}

static void
onSignal (int sig STG_UNUSED)
{
    int saved = errno;
    heapSnapshotRequest("signal");
    errno = saved;
}

void
initHeapSnapshots (void)
{
    const HeapSnapshotConfig *c = &heap_snapshot_config;
#if defined(THREADED_RTS)
    initMutex(&hs.lock);
#endif
    hs.at_next = c->at_size;
    // See Note [Compressed sections] in HeapSnapshotZstd.c
    if (c->signal != 0 || c->at_size != 0 || c->on_overflow) {
        (void) snapZstdLoad();
    }
#if defined(THREADED_RTS)
    // the thread that reaps (and reports) writers, and serves signals
    if (c->signal != 0 || c->at_size != 0 || c->on_overflow) startThread();
#endif
    if (c->signal != 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = onSignal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(c->signal, &sa, NULL) != 0) {
            say("--heap-snapshot-signal: cannot handle signal %d: %s", c->signal,
                strerror(errno));
        }
    }
}

void
exitHeapSnapshots (void)
{
    HS_LOCK();
    hs.shutdown = true;
    HS_UNLOCK();
#if defined(THREADED_RTS)
    HS_LOCK();
    bool started = hs.thread_started;
    HS_UNLOCK();
    if (started) {
        wake();
        pthread_join(hs.thread, NULL);
    }
#endif
    // A request not served yet is dropped, and said so (serveRequest).
    (void) serveRequest();
    HS_LOCK();
    reapLocked(true);   // a snapshot being written is finished first
    HS_UNLOCK();
}

static StgWord64
liveBytes (void)
{
    StgWord64 words = 0;
    for (uint32_t g = 0; g < RtsFlags.GcFlags.generations; g++) {
        words += genLiveWords(&generations[g]);
    }
    return words * sizeof(StgWord);
}

void
heapSnapshotAfterGc (bool major_gc)
{
    const HeapSnapshotConfig *c = &heap_snapshot_config;
    if (heap_overflow && c->on_overflow && !hs.overflow_taken) {
        hs.overflow_taken = true;
        if (take("overflow", true) == TAKE_STARTED) wake();
        return;
    }
    if (c->at_size == 0 || hs.at_taken >= c->at_count) return;
    if (major_gc) {
        StgWord64 live = liveBytes();
        if (live >= hs.at_next) {
            hs.at_due = true;
            hs.at_due_live = live;
        }
    }
    if (!hs.at_due) return;
    // as for a request (serveRequest): not of the heap an exit empties
    if (hs.shutdown || RELAXED_LOAD(&sched_state) >= SCHED_INTERRUPTING) {
        hs.at_due = false;
        say("heap snapshot (at) not taken: the program is exiting");
        return;
    }
    // due: now, or after the first GC (minor ones too) once the writer
    // in flight is done
    switch (take("at", false)) {
    case TAKE_STARTED:
        wake();                         // to watch the writer's end
        hs.at_taken++;
        hs.at_due = false;
        hs.at_next = (StgWord64) ((double) hs.at_due_live * c->at_factor);
        break;
    case TAKE_FAILED:                   // said why; the next crossing retries
        hs.at_due = false;
        break;
    case TAKE_BUSY:
        break;
    }
}

void
heapSnapshotSchedule (void)
{
#if !defined(THREADED_RTS)
    (void) serveRequest();
    if (hs.writer != 0) {
        StgWord64 now = getMonotonicNSec();
        if (now - hs.last_reap_ns > 100000000) {
            hs.last_reap_ns = now;
            reapLocked(false);
        }
    }
#endif
}
