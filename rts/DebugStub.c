/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub: ghc-debug's wire protocol served from inside the RTS.
 * This file is the stub's thread: its socket, the connection's life and
 * the pause state. The frames are rts/DebugStubFrame.c, the protocol
 * itself rts/DebugStubRequest.c (the request table) and
 * rts/DebugStubHeap.c (the answers that read memory), the flag
 * rts/DebugStubFlags.c; docs/debug-protocol.md is the specification of
 * what is spoken.
 *
 * ---------------------------------------------------------------------------*/

#define _GNU_SOURCE
#include "Rts.h"
#include "RtsAPI.h"
#include "rts/DebugStub.h"

#include "RtsUtils.h"
#include "Rtscope.h"
#include "DebugStub.h"

#if defined(THREADED_RTS)

#include "Task.h"
#include "Capability.h"
#include "RtsPause.h"
#include "DebugStubRequest.h"
#include "DebugStubFrame.h"
#include "DebugStubVerify.h"
#include "posix/ServiceThread.h"
#include "posix/UserSockets.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Note [The debug stub]
 * ~~~~~~~~~~~~~~~~~~~~~
 * One OS thread, which holds no Capability, runs the stub: it accepts one
 * debugger at a time on a Unix socket and answers its requests. It becomes
 * a bound Task only while it has paused the RTS (rts_pause()).
 *
 * The thread waits in poll() on the listening socket or the connection and
 * on a wake-up pipe through which other threads reach it (a self-pause,
 * the end of a GC it was waiting for, shutdown). Nothing the debugger does
 * can take the program down or leave it paused:
 *
 *  - requests are length-prefixed frames; an unknown command, or a frame
 *    too short for its command, gets an error reply and the connection
 *    goes on; a frame longer than DEBUG_STUB_REQUEST_MAX, or one that
 *    does not arrive in full within STUB_IO_TIMEOUT_MS, gets an error
 *    reply and the connection is closed (the stream cannot be
 *    resynchronised);
 *  - addresses are verified before they are read (Note [Verified reads]);
 *  - writes carry MSG_NOSIGNAL and a send timeout, so a debugger that
 *    stops reading or vanishes costs a closed connection, never SIGPIPE or
 *    a stuck stub;
 *  - when the connection ends, for whatever reason (kill -9 included: the
 *    kernel closes the socket and poll() wakes), the stub resumes the
 *    program, unless the debugger asked for the pause to outlive it
 *    (STAY_PAUSED);
 *  - the thread blocks every signal, so the program's handlers run
 *    elsewhere, and socket errors only ever close the connection.
 */

#define MAX_SAVED      4096

/* The stub's state. lock guards what other threads reach (running,
 * shutdown, the pause token and epoch, the self-pause requests, gc_fired,
 * the saved objects); the rest is the stub thread's own. */
static struct {
    Mutex lock;
    Condition cond;             // broadcast on resume, GC hold and shutdown
    bool running;
    bool shutdown;
    pthread_t thread;
    int listen_fd;
    int wake_rd, wake_wr;
    char path[sizeof(((struct sockaddr_un *) 0)->sun_path)];
    dev_t dev;
    ino_t ino;

    StubPauseState paused;
    PauseToken *token;
    unsigned long resume_epoch; // incremented at every resume
    int self_pause_requests;
    int resume_requests;        // rts_debugStubResume calls not yet served
    bool gc_armed;              // stub thread only: we armed pauseAfterGc
    bool gc_fired;              // the GC hold has the RTS paused for us

    HsStablePtr saved[MAX_SAVED];
    uint32_t n_saved;

    // See Note [Fork mode]; the stub thread's own
    bool fork_child;            // this process is a fork-mode child
    pid_t child;                // in the parent: the child serving, or -1
    int child_fd;               // a pidfd of child, or -1
} stub = {
    .listen_fd = -1, .wake_rd = -1, .wake_wr = -1, .child = -1, .child_fd = -1,
};

/* -----------------------------------------------------------------------------
   Pausing and resuming
   -------------------------------------------------------------------------- */

static void
wake (void)
{
    char b = 1;
    ssize_t r STG_UNUSED = write(stub.wake_wr, &b, 1);
}

// Runs on the OS thread of the GC that now holds the pause.
static void
gcHoldFired (void)
{
    ACQUIRE_LOCK(&stub.lock);
    stub.gc_fired = true;
    broadcastCondition(&stub.cond);
    RELEASE_LOCK(&stub.lock);
    wake();
}

// The stub thread noticed (or waited for) the GC hold.
static void
takeGcHold (void)
{
    ACQUIRE_LOCK(&stub.lock);
    while (!stub.gc_fired) waitCondition(&stub.cond, &stub.lock);
    stub.gc_fired = false;
    stub.paused = PAUSED_AFTER_GC;
    stub.self_pause_requests = 0;
    RELEASE_LOCK(&stub.lock);
    stub.gc_armed = false;
    stubVerifyNewPause();
}

/* Withdraw our pause-after-GC request. If it has fired already, the GC's
 * thread holds (or is about to hold) every Capability for us: rts_pause()
 * would wait for it forever, so take that pause instead.
 * See Note [Pause after GC] in RtsPause.c. */
void
stubCancelAfterGc (void)
{
    if (!stub.gc_armed) return;
    if (pauseAfterGcDisarm()) {
        stub.gc_armed = false;
        return;
    }
    takeGcHold();
}

void
stubPause (void)
{
    stubCancelAfterGc();
    if (stub.paused != NOT_PAUSED) return;
    PauseToken *t = rts_pause();
    ACQUIRE_LOCK(&stub.lock);
    stub.token = t;
    stub.paused = PAUSED_BY_STUB;
    stub.self_pause_requests = 0;
    RELEASE_LOCK(&stub.lock);
    stubVerifyNewPause();
}

void
stubResume (void)
{
    StubPauseState was = stub.paused;
    if (was == NOT_PAUSED) return;
    stubVerifyEndPause();
    ACQUIRE_LOCK(&stub.lock);
    PauseToken *t = stub.token;
    stub.token = NULL;
    stub.paused = NOT_PAUSED;
    stub.resume_epoch++;
    broadcastCondition(&stub.cond);
    RELEASE_LOCK(&stub.lock);
    if (was == PAUSED_BY_STUB) {
        rts_resume(t);
    } else {
        pauseAfterGcRelease();
    }
}

/* For a census the caller arms first and then requests the census, so
 * that the census's GC is one the pause waits for. See Note [Pause after a
 * census] in RtsPause.c. */
void
stubArmAfterGc (bool census)
{
    stub.gc_armed = true;
    if (census) {
        pauseAfterGcArmCensus(gcHoldFired);
    } else {
        pauseAfterGcArm(gcHoldFired);
    }
}

static void *
majorGcThread (void *arg STG_UNUSED)
{
    performMajorGC();
    return NULL;
}

bool
stubStartMajorGc (void)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    bool ok = pthread_create(&t, &attr, majorGcThread, NULL) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

StubPauseState
stubPauseState (void)
{
    return stub.paused;
}

/* Note [Fork mode]
 * ~~~~~~~~~~~~~~~~
 * ghc-debug's PAUSE takes a mode byte; 1 asks for "fork mode": the
 * debugger inspects a copy of the program while the program runs on. The
 * stub pauses the program (every Haskell thread stopped, every Capability
 * held by this thread, no GC running: the heap is consistent), forks, and
 * resumes at once in the parent, which therefore stops only for the
 * pause and the fork (page tables copied, not the heap: copy-on-write).
 *
 * The child is a process of one thread, this one, which holds every
 * Capability of a heap nobody else can change. It answers the PAUSE and
 * serves the connection like a paused program, until RESUME (answered,
 * then the child exits) or the end of the connection; it never resumes
 * anything and leaves with _exit, so that nothing of the parent's is run
 * or undone there (atexit handlers would remove the parent's socket, stdio
 * buffers would be written twice). It stops listening, forgets the wake-up
 * pipe it shares with the parent, and re-initialises the stub's lock (a
 * thread of the parent's may have held it at the fork: a safe foreign call
 * of rts_debugStubSaveClosure, which rts_pause does not stop). It dies
 * with the parent's stub thread (PR_SET_PDEATHSIG), so a snapshot never
 * outlives the program.
 *
 * The parent leaves the connection alone while the child lives: it waits
 * for the child's end in poll(), on a pidfd (every 100 ms with waitpid if
 * the kernel has none), then serves the connection again, as ghc-debug's
 * stub does. At shutdown it kills the child. A child reaped by someone
 * else (waitpid(-1) in the program) counts as ended.
 */
StubForkResult
stubPauseFork (void)
{
    stubPause();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        stubResume();
        errno = err;
        return STUB_FORK_FAILED;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);      // the parent died already
        stub.fork_child = true;
        initMutex(&stub.lock);
        initCondition(&stub.cond);
        close(stub.listen_fd);                  // never unlink: it is the parent's
        close(stub.wake_rd);
        close(stub.wake_wr);
        stub.listen_fd = stub.wake_rd = stub.wake_wr = -1;
        return STUB_FORK_CHILD;
    }
    stub.child = pid;
    stub.child_fd = (int) syscall(SYS_pidfd_open, pid, 0);
    stubResume();
    return STUB_FORK_PARENT;
}

bool
stubIsForkChild (void)
{
    return stub.fork_child;
}

void
stubForkChildExit (void)
{
    _exit(0);
}

// In the parent: whether the fork-mode child has ended (and is reaped).
static bool
childEnded (void)
{
    int status;
    pid_t r = waitpid(stub.child, &status, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) return false;
    // ended (r == child), or reaped by someone else (ECHILD)
    if (stub.child_fd >= 0) close(stub.child_fd);
    stub.child = -1;
    stub.child_fd = -1;
    return true;
}

static void
killChild (void)
{
    if (stub.child < 0) return;
    kill(stub.child, SIGKILL);
    while (waitpid(stub.child, NULL, 0) < 0 && errno == EINTR) { }
    if (stub.child_fd >= 0) close(stub.child_fd);
    stub.child = -1;
    stub.child_fd = -1;
}

void
stubListSavedObjects (void (*fn) (void *user, StgClosure *p), void *user)
{
    // saved[] only grows, and an entry never changes once counted
    ACQUIRE_LOCK(&stub.lock);
    uint32_t n = stub.n_saved;
    RELEASE_LOCK(&stub.lock);
    for (uint32_t i = 0; i < n; i++) {
        fn(user, (StgClosure *) deRefStablePtr(stub.saved[i]));
    }
}

/* -----------------------------------------------------------------------------
   The stub thread
   -------------------------------------------------------------------------- */

static void
endConnection (StubConn *c)
{
    if (stub.fork_child) stubForkChildExit();   // the debugger is done with the copy
    close(c->fd);
    c->fd = -1;
    stubCancelAfterGc();
    c->waiting = WAIT_NONE;
    if (!c->stay_paused) stubResume();
    c->stay_paused = false;
    c->broken = false;
}

// What the stub thread waits for: the wake-up pipe (fds[0]) and one of the
// fork-mode child, the listening socket and the connection (fds[1]).
// Returns how many; *timeout for poll().
static int
pollSet (const StubConn *c, struct pollfd fds[2], int *timeout)
{
    int n = 0;
    fds[n++] = (struct pollfd) { .fd = stub.wake_rd, .events = POLLIN };
    *timeout = -1;
    if (stub.child >= 0) {
        // the connection is the fork-mode child's until it ends
        if (stub.child_fd >= 0) {
            fds[n++] = (struct pollfd) { .fd = stub.child_fd, .events = POLLIN };
        } else {
            *timeout = 100;
        }
    } else if (c->fd < 0) {
        fds[n++] = (struct pollfd) { .fd = stub.listen_fd, .events = POLLIN };
    } else {
        // While a request waits for a pause, only watch for hang-up.
        short ev = c->waiting == WAIT_NONE ? POLLIN : POLLRDHUP;
        fds[n++] = (struct pollfd) { .fd = c->fd, .events = ev };
    }
    return n;
}

// Serve what other threads asked for through the wake-up pipe: the GC
// hold, a self-pause, a resume. true: the stub is to shut down.
static bool
serveWakeUps (StubConn *c)
{
    ACQUIRE_LOCK(&stub.lock);
    bool shutdown = stub.shutdown;
    bool self_pause = stub.self_pause_requests > 0;
    bool resume = stub.resume_requests > 0;
    stub.resume_requests = 0;
    bool gc_fired = stub.gc_fired;
    RELEASE_LOCK(&stub.lock);

    if (shutdown) return true;
    if (gc_fired) takeGcHold();
    if (self_pause) stubPause();
    if (resume) {
        stubCancelAfterGc();
        stubResume();
    }
    // An after-GC request withdrawn for a self-pause waits for the
    // next major GC again once the program runs.
    if (c->fd >= 0 && c->waiting == WAIT_AFTER_GC && !stub.gc_armed &&
        stub.paused == NOT_PAUSED) {
        stubArmAfterGc(c->census);
    }
    return false;
}

static void
acceptConnection (StubConn *c)
{
    int fd = accept4(stub.listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) return;
    stubFrameStart(c, fd);
    c->waiting = WAIT_NONE;
    c->stay_paused = false;
    if (stub.paused == NOT_PAUSED) stubVerifyNewPause();
}

static void *
stubThread (void *arg STG_UNUSED)
{
    StubConn *c = stgMallocBytes(sizeof(StubConn), "debug stub connection");
    memset(c, 0, sizeof(StubConn));
    c->fd = -1;

    for (;;) {
        struct pollfd fds[2];
        int timeout;
        int n = pollSet(c, fds, &timeout);
        if (poll(fds, n, timeout) < 0 && errno != EINTR) {
            sleep(1);           // should not happen; do not spin
            continue;
        }

        if (fds[0].revents) {
            char buf[64];
            while (read(stub.wake_rd, buf, sizeof(buf)) > 0) { }
        }
        if (serveWakeUps(c)) break;

        if (stub.child >= 0) {
            // poll() watched the child, not the connection: look again
            childEnded();
            continue;
        }

        if (c->fd >= 0) stubAnswerWaiting(c);

        if (c->fd < 0) {
            if (n > 1 && (fds[1].revents & POLLIN)) acceptConnection(c);
            continue;
        }

        if (c->broken) {
            endConnection(c);
            continue;
        }
        short rev = n > 1 ? fds[1].revents : 0;
        if (rev & (POLLHUP | POLLERR | POLLNVAL | POLLRDHUP)) {
            endConnection(c);
        } else if ((rev & POLLIN) && c->waiting == WAIT_NONE) {
            if (!stubServeOne(c)) endConnection(c);
        }
    }

    killChild();
    if (c->fd >= 0) {
        c->stay_paused = false;
        endConnection(c);
    }
    stubCancelAfterGc();
    stubResume();
    stgFree(c->frame);
    stgFree(c);
    return NULL;
}

/* -----------------------------------------------------------------------------
   Starting and stopping
   -------------------------------------------------------------------------- */

static void
removeSocket (void)
{
    struct stat st;
    if (stub.path[0] != '\0' && stat(stub.path, &st) == 0 &&
        st.st_dev == stub.dev && st.st_ino == stub.ino) {
        unlink(stub.path);
    }
}

static void
atExitRemoveSocket (void)
{
    removeSocket();
}

// The socket's path when none is given: GHC_DEBUG_SOCKET, else ghc-debug's
// convention (Note [Per-user sockets] in posix/UserSockets.c). Reports why
// there is none (false).
static bool
defaultPath (char *out, size_t size)
{
    const char *env = getenv("GHC_DEBUG_SOCKET");
    if (env != NULL && env[0] != '\0') {
        if ((size_t) snprintf(out, size, "%s", env) < size) return true;
        errorBelch("%sdebug stub: GHC_DEBUG_SOCKET is too long; not started",
                   RTSCOPE_MSG_PREFIX);
        return false;
    }
    if (userSocketPath("ghc-debug/debuggee/sockets", "debug stub", out, size)) {
        return true;
    }
    errorBelch("%sdebug stub: +RTS --debug-stub=PATH or GHC_DEBUG_SOCKET=PATH "
               "names one; not started", RTSCOPE_MSG_PREFIX);
    return false;
}

// Whether a live process listens on path.
static bool
someoneListens (const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(a.sun_path)) { close(fd); return false; }
    memcpy(a.sun_path, path, strlen(path) + 1);
    bool alive = connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0;
    close(fd);
    return alive;
}

static void
pathTooLong (void)
{
    errorBelch("%sdebug stub: socket path too long (a Unix socket path has at most %d bytes); not started",
               RTSCOPE_MSG_PREFIX, (int) sizeof(stub.path) - 1);
}

// The socket's path, want (path, or the default when NULL), and the
// temporary name to bind it under, tmp (want itself when the path is too
// long for a suffix; see Note [Socket permissions]). Both have
// sizeof(stub.path) bytes. false, having said why, if there is none.
static bool
socketPaths (const char *path, char *want, char *tmp)
{
    size_t size = sizeof(stub.path);
    if (path != NULL) {
        if (strlen(path) + 1 >= size) {
            pathTooLong();
            return false;
        }
        strcpy(want, path);
    } else if (!defaultPath(want, size)) {
        return false;           // defaultPath said why
    }
    if (strlen(want) >= size) {
        pathTooLong();
        return false;
    }
    int tmp_len = -1;
    if (strlen(want) + 8 < size) {
        tmp_len = snprintf(tmp, size, "%s.tmp%d", want, (int) getpid() % 100);
    }
    if (tmp_len < 0 || (size_t) tmp_len >= size) {
        strcpy(tmp, want);
    }
    return true;
}

// Whether the stub may take want: nothing there, or a stale socket nobody
// listens on. Says why not.
static bool
pathFree (const char *want)
{
    // Only a socket is ever replaced (a stale one, in listenAt): the path
    // may be a typo for a file of the user's, which bind-and-rename would
    // destroy.
    struct stat there;
    if (lstat(want, &there) == 0 && !S_ISSOCK(there.st_mode)) {
        errorBelch("%sdebug stub: %s exists and is not a socket; not started",
                   RTSCOPE_MSG_PREFIX, want);
        return false;
    }
    if (someoneListens(want)) {
        errorBelch("%sdebug stub: %s is in use by another process; not started",
                   RTSCOPE_MSG_PREFIX, want);
        return false;
    }
    return true;
}

/* Note [Socket permissions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The socket gives read access to the whole heap, so it must be the
 * owner's alone (mode 0600). Its mode comes from the umask at bind(),
 * and the umask is process-wide (changing it would race with the
 * program's other threads). So we bind under a temporary name, chmod
 * it, and rename it into place: nobody ever sees the socket at its
 * real path with looser modes. When the path is too long for a
 * suffix we bind in place and chmod at once; the directory ghc-debug's
 * convention uses is created 0700, which covers the window.
 */

// A socket listening at want, bound as tmp and renamed into place (see
// Note [Socket permissions]); -1 and errno if it cannot be.
static int
listenAt (const char *tmp, const char *want)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    strcpy(a.sun_path, tmp);
    unlink(tmp);                // a stale socket (nobody listens there)
    if (bind(fd, (struct sockaddr *) &a, sizeof(a)) != 0 ||
        chmod(tmp, 0600) != 0 || listen(fd, 4) != 0 ||
        (strcmp(tmp, want) != 0 && rename(tmp, want) != 0)) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        return -1;
    }
    return fd;
}

// Undo listenAt and what followed it, keeping errno.
static void
stopListening (void)
{
    int e = errno;
    close(stub.listen_fd);
    stub.listen_fd = -1;
    removeSocket();
    stub.path[0] = '\0';
    errno = e;
}

// The stub's thread, and the wake-up pipe through which other threads
// reach it, for the socket stub.listen_fd. false and errno if not.
static bool
startThread (void)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    stub.wake_rd = pipefd[0];
    stub.wake_wr = pipefd[1];

    // The thread blocks every signal: the program's handlers run elsewhere.
    int err = createServiceThread(&stub.thread, stubThread);
    if (err != 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        stub.wake_rd = stub.wake_wr = -1;
        errno = err;
        return false;
    }
    return true;
}

int
rts_debugStubStart (const char *path)
{
    char want[sizeof(stub.path)];
    char tmp[sizeof(stub.path)];

    ACQUIRE_LOCK(&stub.lock);
    if (stub.running) {
        RELEASE_LOCK(&stub.lock);
        return 0;
    }
    if (!socketPaths(path, want, tmp)) goto fail;      // it said why
    userSocketMakeParents(want);
    if (!pathFree(want)) goto fail;                     // it said why

    int fd = listenAt(tmp, want);
    if (fd < 0) goto sys_fail;
    struct stat st;
    if (stat(want, &st) == 0) {
        stub.dev = st.st_dev;
        stub.ino = st.st_ino;
    }
    strcpy(stub.path, want);
    stub.listen_fd = fd;
    if (!startThread()) {
        stopListening();
        goto sys_fail;
    }
    stub.running = true;
    stub.shutdown = false;

    static bool atexit_done = false;
    if (!atexit_done) {
        atexit(atExitRemoveSocket);
        atexit_done = true;
    }
    RELEASE_LOCK(&stub.lock);
    return 0;

sys_fail:
    errorBelch("%sdebug stub: cannot listen on %s: %s; not started",
               RTSCOPE_MSG_PREFIX, want, strerror(errno));
fail:
    RELEASE_LOCK(&stub.lock);
    return -1;
}

const char *
rts_debugStubSocketPath (void)
{
    return stub.running ? stub.path : NULL;
}

void
rts_debugStubSaveClosure (HsStablePtr sp)
{
    ACQUIRE_LOCK(&stub.lock);
    if (stub.n_saved < MAX_SAVED) {
        stub.saved[stub.n_saved++] = sp;
    } else {
        hs_free_stable_ptr(sp);
    }
    RELEASE_LOCK(&stub.lock);
}

void
rts_debugStubPause (void)
{
    Task *task = myTask();
    if (task != NULL && task->cap != NULL &&
        RELAXED_LOAD(&task->cap->running_task) == task) {
        // We would wait for the stub's pause, which waits for our Capability.
        errorBelch("error: rts_debugStubPause: called from a thread that owns a capability.\n"
                   "   Perhaps a 'foreign import unsafe' should be 'safe'?");
        stg_exit(EXIT_FAILURE);
    }
    ACQUIRE_LOCK(&stub.lock);
    if (!stub.running || stub.shutdown) {
        RELEASE_LOCK(&stub.lock);
        return;
    }
    unsigned long epoch = stub.resume_epoch;
    stub.self_pause_requests++;
    wake();
    while (stub.resume_epoch == epoch && !stub.shutdown) {
        waitCondition(&stub.cond, &stub.lock);
    }
    RELEASE_LOCK(&stub.lock);
}

void
rts_debugStubResume (void)
{
    ACQUIRE_LOCK(&stub.lock);
    if (stub.running && !stub.shutdown) {
        stub.resume_requests++;
        wake();
    }
    RELEASE_LOCK(&stub.lock);
}

void
initDebugStub (void)
{
    // never closed: a foreign thread may still call rts_debugStubPause
    // while hs_exit runs
    initMutex(&stub.lock);
    initCondition(&stub.cond);
    const char *path;
    if (debugStubWanted(&path)) {
        rts_debugStubStart(path);
    }
}

void
exitDebugStub (void)
{
    ACQUIRE_LOCK(&stub.lock);
    if (!stub.running) {
        RELEASE_LOCK(&stub.lock);
        return;
    }
    stub.shutdown = true;
    broadcastCondition(&stub.cond);
    RELEASE_LOCK(&stub.lock);
    wake();
    pthread_join(stub.thread, NULL);

    ACQUIRE_LOCK(&stub.lock);
    close(stub.listen_fd);
    close(stub.wake_rd);
    close(stub.wake_wr);
    stub.listen_fd = stub.wake_rd = stub.wake_wr = -1;
    removeSocket();
    stub.path[0] = '\0';
    stub.running = false;
    RELEASE_LOCK(&stub.lock);
}

#else /* !THREADED_RTS */

int
rts_debugStubStart (const char *path STG_UNUSED)
{
    errorBelch("%sdebug stub: needs the threaded RTS (link the program with -threaded)",
               RTSCOPE_MSG_PREFIX);
    return -1;
}

const char *
rts_debugStubSocketPath (void)
{
    return NULL;
}

void
rts_debugStubSaveClosure (HsStablePtr sp)
{
    hs_free_stable_ptr(sp);
}

void
rts_debugStubPause (void)
{
}

void
rts_debugStubResume (void)
{
}

void
initDebugStub (void)
{
    const char *path;
    debugStubWanted(&path);     // says why the stub cannot start
}

void
exitDebugStub (void)
{
}

#endif /* THREADED_RTS */
