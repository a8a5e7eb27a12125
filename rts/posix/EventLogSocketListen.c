/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog socket's listening socket: see EventLogSocketListen.h.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "posix/EventLogSocketListen.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#if defined(TRACING)

static int
set_nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int
listen_unix(SocketListener *l, const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errorBelch("eventlog-socket: path %s is too long (%zu bytes, at most %zu)",
                   path, strlen(path), sizeof(sa.sun_path) - 1);
        return -1;
    }
    strcpy(sa.sun_path, path);

    /* the directory must be the user's own (or sticky, like /tmp) */
    char *dir = stgMallocBytes(strlen(path) + 2, "eventlog-socket");
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) strcpy(dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        errorBelch("eventlog-socket: directory %s of %s does not exist", dir, path);
        stgFree(dir);
        return -1;
    }
    if (st.st_uid != geteuid() && !(st.st_mode & S_ISVTX)) {
        errorBelch("eventlog-socket: directory %s is not owned by you; "
                   "refusing to create %s there", dir, path);
        stgFree(dir);
        return -1;
    }
    stgFree(dir);

    /* an existing socket: live (never stolen) or stale (replaced) */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            errorBelch("eventlog-socket: %s exists and is not a socket", path);
            return -1;
        }
        int probe = socket(AF_UNIX, SOCK_STREAM, 0);
        if (probe >= 0) {
            int r = connect(probe, (struct sockaddr *)&sa, sizeof(sa));
            int err = errno;
            close(probe);
            if (r == 0) {
                errorBelch("eventlog-socket: %s is in use by a live program", path);
                return -1;
            }
            if (err != ECONNREFUSED) {
                errorBelch("eventlog-socket: cannot probe %s: %s", path, strerror(err));
                return -1;
            }
        }
        if (unlink(path) != 0) {
            errorBelch("eventlog-socket: cannot remove stale socket %s: %s",
                       path, strerror(errno));
            return -1;
        }
    }

    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        errorBelch("eventlog-socket: socket: %s", strerror(errno));
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        errorBelch("eventlog-socket: cannot bind %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (chmod(path, 0600) != 0 || listen(fd, 16) != 0 || set_nonblock_cloexec(fd) != 0) {
        errorBelch("eventlog-socket: cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    if (stat(path, &st) == 0) {
        l->unix_dev = st.st_dev;
        l->unix_ino = st.st_ino;
    }
    l->unix_path = stgMallocBytes(strlen(path) + 1, "eventlog-socket");
    strcpy(l->unix_path, path);
    return fd;
}

/* tcp:PORT, tcp::PORT, tcp:HOST:PORT, tcp:[V6]:PORT; loopback by default */
static int
listen_tcp(const char *spec)
{
    char host[256] = "127.0.0.1";
    const char *port;
    const char *colon = strrchr(spec, ':');
    if (colon == NULL) {
        port = spec;
    } else {
        size_t hl = (size_t)(colon - spec);
        port = colon + 1;
        if (hl > 0) {
            const char *h = spec;
            if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') { h++; hl -= 2; }
            if (hl >= sizeof(host)) {
                errorBelch("eventlog-socket: host name too long in tcp:%s", spec);
                return -1;
            }
            memcpy(host, h, hl);
            host[hl] = '\0';
        }
    }
    char *end;
    long pn = strtol(port, &end, 10);
    if (*port == '\0' || *end != '\0' || pn < 0 || pn > 65535) {
        errorBelch("eventlog-socket: bad port in tcp:%s", spec);
        return -1;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        errorBelch("eventlog-socket: cannot resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) { err = errno; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0
            && set_nonblock_cloexec(fd) == 0) {
            break;
        }
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        errorBelch("eventlog-socket: cannot listen on tcp:%s: %s", spec, strerror(err));
    }
    return fd;
}

bool
socketListen(SocketListener *l, const char *addr)
{
    l->fd = strncmp(addr, "tcp:", 4) == 0 ? listen_tcp(addr + 4) : listen_unix(l, addr);
    return l->fd >= 0;
}

int
socketAccept(SocketListener *l)
{
    for (;;) {
        int fd = accept(l->fd, NULL, NULL);
        if (fd < 0) return -1;      /* EAGAIN, or a client that vanished */
        if (set_nonblock_cloexec(fd) == 0) return fd;
        close(fd);
    }
}

void
socketUnlisten(SocketListener *l)
{
    if (l->fd >= 0) close(l->fd);
    l->fd = -1;
    if (l->unix_path != NULL) {
        struct stat st;
        if (stat(l->unix_path, &st) == 0 && st.st_dev == l->unix_dev
            && st.st_ino == l->unix_ino) {
            unlink(l->unix_path);   /* only our own socket */
        }
        stgFree(l->unix_path);
        l->unix_path = NULL;
    }
}

void
socketForget(SocketListener *l)
{
    if (l->fd >= 0) close(l->fd);
    l->fd = -1;
}

#endif /* TRACING */
