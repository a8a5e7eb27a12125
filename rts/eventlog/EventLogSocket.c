/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog streaming socket: serve the program's eventlog, live, to
 * several clients on a Unix domain or TCP socket.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "RtsFlags.h"
#include "Stats.h"
#include "Schedule.h"
#include "Rtscope.h"
#include "eventlog/EventLogSocket.h"
#include "eventlog/EventLogSocketClients.h"
#include "posix/EventLogSocketListen.h"
#include "posix/ServiceThread.h"
#include "posix/UserSockets.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The heap snapshot request (rts/HeapSnapshot.c), which comes later in the
 * patch series than the socket: referenced weakly, so that this file links
 * without it. */
extern void heapSnapshotAsk (const char *why) __attribute__((weak));

#if defined(TRACING)

/* Note [Eventlog socket: design]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The socket is a tee in front of whatever EventLogWriter the RTS uses
 * (eventLogSocketWrapWriter is applied in startEventLogging): every byte the
 * RTS writes goes to the wrapped writer (the file, unless the socket was
 * asked for without +RTS -l) and, when the socket serves, is cut into whole
 * units by EventLogStream and queued for each client. A dedicated OS thread
 * (holding no capability, with every signal blocked) accepts clients, sends
 * their queues with non-blocking I/O and reads their control messages.
 *
 * The writer side never blocks on a client: it takes one short lock to copy
 * a unit into a reference-counted chunk and append a reference to each
 * client's queue, and wakes the thread with an eventfd. The lock is never
 * held across a system call on a client socket.
 *
 * The clients' side (fan-out, bounded queues, loss, replay) is
 * EventLogSocketClients.c, the listening socket posix/EventLogSocketListen.c.
 */

#define DEFAULT_CLIENT_BOUND   ((size_t)4 << 20)
#define MIN_CLIENT_BOUND       ((size_t)EVENTLOG_SOCKET_MIN_BUFFER)
#define MAX_UNIT               ((size_t)64 << 20)
/* At exit, queued data is sent while the clients take it: until none has
 * taken any for SHUTDOWN_STALL_NS, and for SHUTDOWN_DRAIN_MAX_NS at most. A
 * client that reads, however loaded its machine, gets its stream whole (a
 * live report must not lose the end of a run); one that stopped reading
 * costs the exit half a second. */
#define SHUTDOWN_STALL_NS      (500L * 1000 * 1000)
#define SHUTDOWN_DRAIN_MAX_NS  (5000L * 1000 * 1000)

/* The socket's state. lock guards the fan-out (its stream and clients)
 * and the serving flags; the socket thread runs beside the RTS in every
 * way, non-threaded ones included, so lock and joined are real in every
 * way: GHC's Mutex and Condition, taken with OS_ACQUIRE_LOCK as the
 * ticker thread does (rts/posix/itimer/Pthread.c), not ACQUIRE_LOCK,
 * which is a no-op without THREADED_RTS. eventLogSocketSetupTracing
 * initialises them. */
static struct {
    Mutex lock;
    Condition joined;       /* broadcast when a client joins, and at the end */

    /* configuration */
    char *addr;
    bool at_home;           /* --eventlog-socket: Note [Per-user sockets] */
    bool wait;
    bool required;
    bool from_flags;
    bool socket_only;

    /* the stream and its clients */
    const EventLogWriter *inner;
    SocketFanout fan;

    /* serving */
    bool serving;
    bool shutting_down;
    bool forked;
    SocketListener listener;
    int wake_fd;
    pthread_t thread;
} sock = {
    .listener = { .fd = -1 },
    .wake_fd = -1,
};

static bool teeInit(void);
static bool teeWrite(void *eventlog, size_t size);
static void teeFlush(void);
static void teeStop(void);
static void teeInitVoid(void) { teeInit(); }

static const EventLogWriter teeWriter = {
    .initEventLogWriter = teeInitVoid,
    .writeEventLog = teeWrite,
    .flushEventLog = teeFlush,
    .stopEventLogWriter = teeStop,
};

/* -----------------------------------------------------------------------------
 * Configuration
 * ---------------------------------------------------------------------------*/

/* Note [Two readers of a buffer size]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * +RTS --eventlog-socket-buffer=<size> is an RTS flag like -A: RtsFlags.c
 * reads it with its own decodeSize, and a size out of range ends the
 * program with GHC's message, as for any flag. GHC_EVENTLOG_SOCKET_BUFFER
 * is read here instead: an environment variable is often set for a whole
 * shell or service, and a bad one must not stop the program it reaches,
 * so it is reported and the default kept. decodeSize cannot do that (it
 * exits), and it reads a size with atof and the last character, taking
 * "4x" or "1.5.2m" for something; parse_size refuses both.
 */

/* A size with an optional k/m/g suffix; see Note [Two readers of a buffer
 * size]. */
static bool
parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || v <= 0) return false;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: return false;
    }
    if (*end != '\0' || v > (double)EVENTLOG_SOCKET_MAX_BUFFER) return false;
    *out = (size_t)v;
    return true;
}

static bool
set_addr(const char *addr)
{
    if (addr == NULL || *addr == '\0') {
        errorBelch("eventlog-socket: empty address (expected PATH or tcp:[HOST:]PORT)");
        return false;
    }
    stgFree(sock.addr);
    sock.addr = stgMallocBytes(strlen(addr) + 1, "eventlog-socket");
    strcpy(sock.addr, addr);
    return true;
}

void
eventLogSocketSetBuffer(StgWord64 bytes)
{
    // RtsFlags.c has checked the bounds.
    sock.fan.bound = (size_t)bytes;
}

/* GHC_EVENTLOG_SOCKET_BUFFER; see Note [Two readers of a buffer size]. */
static bool
set_bound(const char *s)
{
    size_t n;
    if (!parse_size(s, &n) || n < MIN_CLIENT_BOUND) {
        errorBelch("eventlog-socket: bad buffer size '%s' (expected a size of at least 64k, e.g. 4m)", s);
        return false;
    }
    sock.fan.bound = n;
    return true;
}

bool
eventLogSocketParseFlag(const char *arg, bool *error)
{
    const char *p = "--eventlog-socket";
    size_t n = strlen(p);
    if (strncmp(arg, p, n) != 0) return false;
    const char *rest = arg + n;
    if (*rest == '=') {
        if (!set_addr(rest + 1)) *error = true;
        sock.from_flags = true;
    } else if (*rest == '\0') {
        sock.at_home = true;
        sock.from_flags = true;
    } else if (strcmp(rest, "-wait") == 0) {
        sock.wait = true;
    } else if (strcmp(rest, "-required") == 0) {
        sock.required = true;
    } else {
        return false;
    }
    return true;
}

bool
eventLogSocketConfigure(const char *addr, bool wait, size_t buffer_bytes)
{
    if (!set_addr(addr)) return false;
    sock.wait = wait;
    if (buffer_bytes != 0) {
        if (buffer_bytes < MIN_CLIENT_BOUND) {
            errorBelch("eventlog-socket: buffer of %zu bytes is below the minimum of 64k",
                       buffer_bytes);
            return false;
        }
        sock.fan.bound = buffer_bytes;
    }
    return true;
}

/* A variable that is set and not empty ("VAR= prog" unsets it). */
static const char *
env(const char *name)
{
    const char *e = getenv(name);
    return (e != NULL && *e != '\0') ? e : NULL;
}

/* Note [Eventlog socket: environment]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * eventlog-socket's variables, read as its fromEnv reads them:
 * GHC_EVENTLOG_UNIX_PATH names a Unix socket; failing that,
 * GHC_EVENTLOG_INET_HOST and GHC_EVENTLOG_INET_PORT name a TCP address
 * (one without the other is an error: no socket); GHC_EVENTLOG_WAIT, with
 * any value, waits for the first client. rtscope's older names are
 * aliases read after them: GHC_EVENTLOG_SOCKET (PATH or tcp:[HOST:]PORT),
 * GHC_EVENTLOG_SOCKET_WAIT (any value but 0). GHC_EVENTLOG_SOCKET_BUFFER
 * has no upstream spelling. +RTS flags win over all of them.
 *
 * Unlike the library, which reads them only when the program calls
 * startFromEnv, the RTS reads them at start-up: setting one is how a
 * program built without any socket code is watched. */
static void
configure_from_env(void)
{
    const char *e;
    if (sock.addr == NULL) {
        const char *host = env("GHC_EVENTLOG_INET_HOST");
        const char *port = env("GHC_EVENTLOG_INET_PORT");
        if ((e = env("GHC_EVENTLOG_UNIX_PATH")) != NULL) {
            set_addr(e);
        } else if (host != NULL && port != NULL) {
            size_t n = strlen(host) + strlen(port) + 8;
            char *a = stgMallocBytes(n, "eventlog-socket");
            bool v6 = strchr(host, ':') != NULL && host[0] != '[';
            snprintf(a, n, v6 ? "tcp:[%s]:%s" : "tcp:%s:%s", host, port);
            set_addr(a);
            stgFree(a);
        } else if (host != NULL || port != NULL) {
            errorBelch("eventlog-socket: %s is set but %s is not; no socket "
                       "(set both, e.g. GHC_EVENTLOG_INET_HOST=127.0.0.1 "
                       "GHC_EVENTLOG_INET_PORT=4242)",
                       host ? "GHC_EVENTLOG_INET_HOST" : "GHC_EVENTLOG_INET_PORT",
                       host ? "GHC_EVENTLOG_INET_PORT" : "GHC_EVENTLOG_INET_HOST");
        } else if ((e = env("GHC_EVENTLOG_SOCKET")) != NULL) {
            set_addr(e);
        }
    }
    if (getenv("GHC_EVENTLOG_WAIT") != NULL) {
        sock.wait = true;
    } else if ((e = env("GHC_EVENTLOG_SOCKET_WAIT")) != NULL && strcmp(e, "0") != 0) {
        sock.wait = true;
    }
    if (sock.fan.bound == 0 && (e = env("GHC_EVENTLOG_SOCKET_BUFFER")) != NULL) {
        set_bound(e);
    }
}

void
eventLogSocketSetupTracing(void)
{
    initMutex(&sock.lock);
    initCondition(&sock.joined);

    configure_from_env();
    if (sock.fan.bound == 0) sock.fan.bound = DEFAULT_CLIENT_BOUND;
    if (sock.addr == NULL && sock.at_home && !sock.forked) {
        /* no path given, none in the environment: the user's own */
        char path[sizeof(((struct sockaddr_un *) 0)->sun_path)];
        if (userSocketPath("rtscope/eventlog/sockets", "eventlog-socket",
                           path, sizeof(path))) {
            userSocketMakeParents(path);
            set_addr(path);
        } else if (sock.required) {
            errorBelch("eventlog-socket: required (--eventlog-socket-required), exiting");
            stg_exit(EXIT_FAILURE);
        }
    }

    if (sock.addr != NULL && RtsFlags.TraceFlags.tracing != TRACE_EVENTLOG) {
        /* A socket without +RTS -l: eventlogging on, with the default
         * classes of -l, and no file. */
        RtsFlags.TraceFlags.tracing = TRACE_EVENTLOG;
        RtsFlags.TraceFlags.scheduler = true;
        RtsFlags.TraceFlags.gc = true;
        RtsFlags.TraceFlags.sparks_sampled = true;
        RtsFlags.TraceFlags.user = true;
        sock.socket_only = true;
    }
}

static void
wake_thread(void)
{
    if (sock.wake_fd >= 0) {
        uint64_t one = 1;
        ssize_t r = write(sock.wake_fd, &one, sizeof(one));
        (void)r;   /* a full eventfd is already awake */
    }
}

/* -----------------------------------------------------------------------------
 * The tee writer
 * ---------------------------------------------------------------------------*/

const EventLogWriter *
eventLogSocketWrapWriter(const EventLogWriter *writer)
{
    if (writer == &teeWriter) return writer;
    if (sock.socket_only && writer == &FileEventLogWriter) {
        sock.inner = NULL;
    } else {
        sock.inner = writer;
    }
    return &teeWriter;
}

static bool listen_start(const char *addr);


/* Note [Waiting for a client]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * --eventlog-socket-wait holds the program until a client has joined. A
 * client that leaves at once does not count: that is another program
 * asking whether the socket is in use (listen_start's probe connects and
 * closes), and it used to let a waiting program run on with nobody
 * following it. So a new client counts once it is still there after
 * WAIT_GRACE_NS; the server thread marks one that closed as dead as soon as
 * it sees the hang-up.
 */
#define WAIT_GRACE_NS 100000000L

static void
wait_for_client(void)
{
    uint64_t seen = 0;
    OS_ACQUIRE_LOCK(&sock.lock);
    while (sock.serving) {
        if (sock.fan.stats.clients_connected > seen) {
            seen = sock.fan.stats.clients_connected;
            OS_RELEASE_LOCK(&sock.lock);
            struct timespec grace = {0, WAIT_GRACE_NS};
            while (nanosleep(&grace, &grace) != 0 && errno == EINTR) {}
            OS_ACQUIRE_LOCK(&sock.lock);
            if (fanoutLiveClients(&sock.fan) > 0) break;
            continue;
        }
        waitCondition(&sock.joined, &sock.lock);
    }
    OS_RELEASE_LOCK(&sock.lock);
}

static bool
teeInit(void)
{
    if (sock.inner != NULL && sock.inner->initEventLogWriter != NULL) {
        sock.inner->initEventLogWriter();
    }
    OS_ACQUIRE_LOCK(&sock.lock);
    // Every init begins a new stream with a header of its own: a restart,
    // and the child of forkProcess() (restartEventLogging()), whose
    // follower state is a copy of the parent's, mid-stream.
    if (!sock.forked) {
        if (sock.fan.stream.sizes == NULL) {
            sock.fan.stream_ok = els_init(&sock.fan.stream, MAX_UNIT);
        } else {
            els_reset(&sock.fan.stream);
            sock.fan.stream_ok = true;
        }
    }
    bool start = sock.addr != NULL && !sock.serving && !sock.forked;
    OS_RELEASE_LOCK(&sock.lock);

    if (start) {
        if (!listen_start(sock.addr)) {
            if (sock.required) {
                errorBelch("eventlog-socket: required (--eventlog-socket-required), exiting");
                stg_exit(EXIT_FAILURE);
            }
            /* the program runs on without the socket */
            stgFree(sock.addr);
            sock.addr = NULL;
        } else if (sock.wait) {
            debugBelch("eventlog-socket: waiting for a client on %s\n", sock.addr);
            wait_for_client();
        }
    }
    return true;
}

static bool
teeWrite(void *eventlog, size_t size)
{
    bool ok = true;
    if (sock.inner != NULL) {
        ok = sock.inner->writeEventLog(eventlog, size);
    }
    OS_ACQUIRE_LOCK(&sock.lock);
    sock.fan.wake = false;
    if (sock.fan.stream_ok && !sock.forked) {
        ElsError e = els_feed(&sock.fan.stream, eventlog, size, fanoutUnit, &sock.fan);
        if (e != ELS_OK) {
            /* cannot happen with the RTS's own output; never hurt it */
            errorBelch("eventlog-socket: stopped following the eventlog: %s",
                       els_strerror(e));
            sock.fan.stream_ok = false;
        }
    }
    bool wake = sock.fan.wake;
    OS_RELEASE_LOCK(&sock.lock);
    if (wake) wake_thread();
    return ok;
}

static void
teeFlush(void)
{
    if (sock.inner != NULL && sock.inner->flushEventLog != NULL) {
        sock.inner->flushEventLog();
    }
    wake_thread();
}

static void shut_down(void);

/* Note [The socket at exit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * The eventlog's writer stops in hs_exit, once the end-of-data marker is
 * written: then the socket drains to its clients (SHUTDOWN_STALL_NS),
 * closes, and a Unix socket's file is removed. An atexit() handler did it
 * alone before; it never runs when the program ends on a signal: after
 * Ctrl-C, GHC's handler runs hs_exit and then kills the program with the
 * signal, so the file was left behind and the clients' streams were cut
 * before their end. The writer also stops when the program ends its
 * eventlog itself (endEventLogging, maybe to start it again): the socket
 * goes on serving then, so it shuts down only when the scheduler is
 * shutting down. The atexit() handler stays, for an exit that skips
 * hs_exit; the second call finds the socket down. */
static void
teeStop(void)
{
    if (sock.inner != NULL && sock.inner->stopEventLogWriter != NULL) {
        sock.inner->stopEventLogWriter();
    }
    wake_thread();
    if (RELAXED_LOAD(&sched_state) == SCHED_SHUTTING_DOWN) shut_down();
}

/* -----------------------------------------------------------------------------
 * Serving
 * ---------------------------------------------------------------------------*/

static void *socket_thread(void *arg);
static void at_exit(void);
static void at_fork_child(void);

static bool
listen_start(const char *addr)
{
    SocketListener l = { .fd = -1 };
    if (!socketListen(&l, addr)) return false;
    int wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wfd < 0) {
        errorBelch("eventlog-socket: eventfd: %s", strerror(errno));
        socketUnlisten(&l);
        return false;
    }
    OS_ACQUIRE_LOCK(&sock.lock);
    sock.listener = l;
    sock.wake_fd = wfd;
    sock.serving = true;
    OS_RELEASE_LOCK(&sock.lock);

    /* the thread takes no signal: they belong to the RTS */
    int r = createServiceThread(&sock.thread, socket_thread);
    if (r != 0) {
        errorBelch("eventlog-socket: cannot start its thread: %s", strerror(r));
        OS_ACQUIRE_LOCK(&sock.lock);
        sock.serving = false;
        OS_RELEASE_LOCK(&sock.lock);
        socketUnlisten(&sock.listener);
        close(wfd);
        sock.wake_fd = -1;
        return false;
    }
    static bool registered = false;
    if (!registered) {
        atexit(at_exit);
        pthread_atfork(NULL, NULL, at_fork_child);
        registered = true;
    }
    return true;
}

bool
eventLogSocketStart(const char *addr)
{
    if (eventLogStatus() != EVENTLOG_RUNNING) {
        errorBelch("eventlog-socket: the eventlog is not running (use +RTS -l)");
        return false;
    }
    OS_ACQUIRE_LOCK(&sock.lock);
    bool busy = sock.serving;
    OS_RELEASE_LOCK(&sock.lock);
    if (busy) {
        errorBelch("eventlog-socket: already serving on %s", sock.addr);
        return false;
    }
    if (!set_addr(addr)) return false;
    if (sock.fan.bound == 0) sock.fan.bound = DEFAULT_CLIENT_BOUND;
    if (!listen_start(addr)) {
        stgFree(sock.addr);
        sock.addr = NULL;
        return false;
    }
    return true;
}

const char *
eventLogSocketAddress(void)
{
    OS_ACQUIRE_LOCK(&sock.lock);
    // sock.addr is never freed once the socket serves
    const char *a = sock.serving ? sock.addr : NULL;
    OS_RELEASE_LOCK(&sock.lock);
    return a;
}

void
eventLogSocketGetStats(EventLogSocketStats *stats)
{
    OS_ACQUIRE_LOCK(&sock.lock);
    *stats = sock.fan.stats;
    stats->clients_active = (unsigned long)sock.fan.nclients;
    OS_RELEASE_LOCK(&sock.lock);
}

/* -----------------------------------------------------------------------------
 * The socket thread
 * ---------------------------------------------------------------------------*/

static void
on_command(void *ctx, ElcNamespace ns, int cmd)
{
    Client *cl = ctx;
    sock.fan.stats.control_ok++;
    if (ns == ELC_NS_RTSCOPE) {
        switch (cmd) {
        case RTSCOPE_SOCKET_CMD_RESUME_STREAM: cl->paused = false; break;
        case RTSCOPE_SOCKET_CMD_PAUSE_STREAM: cl->paused = true; break;
        case RTSCOPE_SOCKET_CMD_HEAP_SNAPSHOT:
            if (heapSnapshotAsk != NULL) heapSnapshotAsk("control");
            break;
        }
        return;
    }
    switch (cmd) {
    case EVENTLOG_SOCKET_CMD_START_PROFILING: startProfTimer(); break;
    case EVENTLOG_SOCKET_CMD_STOP_PROFILING: stopProfTimer(); break;
    case EVENTLOG_SOCKET_CMD_START_HEAP_PROF: startHeapProfTimer(); break;
    case EVENTLOG_SOCKET_CMD_STOP_HEAP_PROF: stopHeapProfTimer(); break;
    case EVENTLOG_SOCKET_CMD_REQUEST_CENSUS: requestHeapCensus(); break;
    }
}

static void
accept_clients(void)
{
    int fd;
    while ((fd = socketAccept(&sock.listener)) >= 0) {
        OS_ACQUIRE_LOCK(&sock.lock);
        Client *cl = fanoutAddClient(&sock.fan, fd);
        if (cl != NULL) broadcastCondition(&sock.joined);
        OS_RELEASE_LOCK(&sock.lock);
        if (cl == NULL) close(fd);      /* MAX_CLIENTS already, or no memory */
    }
}

/* Send what the socket takes of cl's queue; *progress is set when some
 * went. False when the client is gone. The lock is not held across
 * sendmsg: the chunks stay while queued. */
static bool
send_client(Client *cl, bool *progress)
{
    for (;;) {
        struct iovec iov[64];
        OS_ACQUIRE_LOCK(&sock.lock);
        int n = clientPending(cl, iov, 64);
        OS_RELEASE_LOCK(&sock.lock);
        if (n == 0) return true;

        struct msghdr mh;
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)n;
        ssize_t sent = sendmsg(cl->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        }
        OS_ACQUIRE_LOCK(&sock.lock);
        clientSent(cl, (size_t)sent);
        OS_RELEASE_LOCK(&sock.lock);
        if (sent > 0) *progress = true;
    }
}

static void
read_control(Client *cl)
{
    uint8_t buf[4096];
    for (;;) {
        ssize_t r = recv(cl->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (r > 0) {
            OS_ACQUIRE_LOCK(&sock.lock);
            unsigned long ignored = 0;
            elc_feed(&cl->ctl, buf, (size_t)r, on_command, cl, &ignored);
            sock.fan.stats.control_ignored += ignored;
            OS_RELEASE_LOCK(&sock.lock);
            continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            cl->dead = true;    /* the client went away */
        }
        return;
    }
}

static int64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
socket_thread(void *arg STG_UNUSED)
{
    struct pollfd pfd[MAX_CLIENTS + 2];
    Client *polled[MAX_CLIENTS];
    int64_t deadline = 0, stall = 0;    /* see SHUTDOWN_STALL_NS */

    for (;;) {
        OS_ACQUIRE_LOCK(&sock.lock);
        bool down = sock.shutting_down;
        if (down && deadline == 0) {
            deadline = now_ns() + SHUTDOWN_DRAIN_MAX_NS;
            stall = now_ns() + SHUTDOWN_STALL_NS;
        }
        /* clients whose stream ended and who got all of it */
        for (int i = 0; i < sock.fan.nclients; ) {
            Client *cl = sock.fan.clients[i];
            if (cl->dead || (cl->closing && cl->q.count == 0)) fanoutDropClient(&sock.fan, i);
            else i++;
        }
        bool pending = false;
        int n = 0;
        pfd[n].fd = sock.wake_fd; pfd[n].events = POLLIN; n++;
        if (!down) { pfd[n].fd = sock.listener.fd; pfd[n].events = POLLIN; n++; }
        int first = n;
        for (int i = 0; i < sock.fan.nclients; i++) {
            Client *cl = sock.fan.clients[i];
            polled[i] = cl;
            pfd[n].fd = cl->fd;
            pfd[n].events = POLLIN | (cl->q.count ? POLLOUT : 0);
            if (cl->q.count) pending = true;
            n++;
        }
        int nclients = sock.fan.nclients;
        OS_RELEASE_LOCK(&sock.lock);

        int timeout = -1;
        if (down) {
            int64_t left = (stall < deadline ? stall : deadline) - now_ns();
            if (!pending || left <= 0) break;
            timeout = (int)(left / 1000000) + 1;
        }
        int r = poll(pfd, (nfds_t)n, timeout);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;

        if (pfd[0].revents & POLLIN) {
            uint64_t v;
            ssize_t rr = read(sock.wake_fd, &v, sizeof(v));
            (void)rr;
        }
        for (int i = 0; i < nclients; i++) {
            Client *cl = polled[i];
            short re = pfd[first + i].revents;
            if (re & (POLLERR | POLLNVAL)) { cl->dead = true; continue; }
            if (re & (POLLIN | POLLHUP)) read_control(cl);
            bool progress = false;
            if (!cl->dead && (re & POLLOUT)) {
                if (!send_client(cl, &progress)) cl->dead = true;
            }
            if (progress && down) stall = now_ns() + SHUTDOWN_STALL_NS;
        }
        if (!down && (pfd[1].revents & POLLIN)) accept_clients();
    }

    OS_ACQUIRE_LOCK(&sock.lock);
    while (sock.fan.nclients > 0) fanoutDropClient(&sock.fan, 0);
    sock.serving = false;
    broadcastCondition(&sock.joined);
    OS_RELEASE_LOCK(&sock.lock);
    return NULL;
}

/* -----------------------------------------------------------------------------
 * Exit and fork
 * ---------------------------------------------------------------------------*/

static void
at_exit(void)
{
    shut_down();
}

static void
shut_down(void)
{
    OS_ACQUIRE_LOCK(&sock.lock);
    bool serving = sock.serving && !sock.forked;
    sock.shutting_down = true;
    OS_RELEASE_LOCK(&sock.lock);
    if (!serving) return;
    wake_thread();
    /* the thread drains while clients read (SHUTDOWN_STALL_NS), then closes */
    pthread_join(sock.thread, NULL);
    socketUnlisten(&sock.listener);     /* and removes our Unix socket */
    close(sock.wake_fd);
    sock.wake_fd = -1;
}

/* The child of a fork does not serve: it closes its copies of the
 * descriptors (the parent keeps serving) and writes only the file. */
static void
at_fork_child(void)
{
    initMutex(&sock.lock);
    initCondition(&sock.joined);
    sock.forked = true;
    sock.serving = false;
    sock.fan.stream_ok = false;
    socketForget(&sock.listener);
    if (sock.wake_fd >= 0) close(sock.wake_fd);
    sock.wake_fd = -1;
    for (int i = 0; i < sock.fan.nclients; i++) close(sock.fan.clients[i]->fd);
    sock.fan.nclients = 0;
}

#else /* !TRACING */

/* Without TRACING there is no eventlog to serve. */

bool
eventLogSocketParseFlag(const char *arg, bool *error)
{
    if (strncmp(arg, "--eventlog-socket", 17) != 0) return false;
    errorBelch("the flag %s requires the program to be built with -eventlog or -debug", arg);
    *error = true;
    return true;
}

void eventLogSocketSetupTracing(void) {}

const EventLogWriter *
eventLogSocketWrapWriter(const EventLogWriter *writer)
{
    return writer;
}

bool
eventLogSocketConfigure(const char *addr STG_UNUSED, bool wait STG_UNUSED,
                        size_t buffer_bytes STG_UNUSED)
{
    errorBelch("eventlog-socket: this RTS was built without eventlog support");
    return false;
}

bool
eventLogSocketStart(const char *addr STG_UNUSED)
{
    errorBelch("eventlog-socket: this RTS was built without eventlog support");
    return false;
}

const char *
eventLogSocketAddress(void)
{
    return NULL;
}

void
eventLogSocketGetStats(EventLogSocketStats *stats)
{
    memset(stats, 0, sizeof(*stats));
}

#endif /* TRACING */
