/* Byte sources for the addresses of el_addr_parse (addr.c).
 * A regular file (also on standard input) is marked seekable so the reader
 * can merge capabilities exactly with one cursor each. */
#define _POSIX_C_SOURCE 200809L
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int source_fail_errno(el_error *err, int e, const char *fmt,
                             const char *a, const char *b)
{
    err->status = EL_ERR_IO;
    err->offset = 0;
    err->sys_errno = e;
    snprintf(err->msg, sizeof(err->msg), fmt, a, b);
    return -1;
}

static int source_fail(el_error *err, const char *fmt, const char *a,
                       const char *b)
{
    return source_fail_errno(err, 0, fmt, a, b);
}

/* Sockets are connected without blocking: a connect still in progress is
 * finished by source_connected(). */
static int source_connect_done(source *src, int fd, int rc, int e,
                               el_error *err)
{
    if (rc == 0) {
        src->fd = fd;
        return 0;
    }
    if (e == EINPROGRESS || e == EAGAIN) {
        src->fd = fd;
        src->connecting = 1;
        return 0;
    }
    close(fd);
    return source_fail_errno(err, e, "cannot connect: %s%s", strerror(e), "");
}

static int source_connect_unix(source *src, el_error *err)
{
    struct sockaddr_un sa;
    if (strlen(src->target) >= sizeof(sa.sun_path))
        return source_fail(err, "socket path too long: %s%s", src->target, "");
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return source_fail_errno(err, errno, "socket: %s%s", strerror(errno),
                                 "");
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, src->target, strlen(src->target) + 1);
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
    int e = errno;
    struct stat st;
    if (rc != 0 && e == ECONNREFUSED && stat(src->target, &st) == 0 &&
        !S_ISSOCK(st.st_mode)) {
        close(fd);
        return source_fail_errno(
            err, ENOTSOCK,
            "cannot connect: it is %s, not a socket (give the program's "
            "--eventlog-socket path)%s",
            S_ISDIR(st.st_mode)    ? "a directory"
            : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                                   : "a file",
            "");
    }
    return source_connect_done(src, fd, rc, e, err);
}

static int source_connect_tcp(source *src, el_error *err)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    int g = getaddrinfo(src->target, src->port, &hints, &res);
    if (g != 0)
        return source_fail(err, "cannot resolve %s: %s", src->target,
                           gai_strerror(g));
    int fd =
        socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
               res->ai_protocol);
    if (fd < 0) {
        int e = errno;
        freeaddrinfo(res);
        return source_fail_errno(err, e, "socket: %s%s", strerror(e), "");
    }
    int rc = connect(fd, res->ai_addr, res->ai_addrlen);
    int e = errno;
    freeaddrinfo(res);
    return source_connect_done(src, fd, rc, e, err);
}

int source_connected(source *src, el_error *err)
{
    if (!src->connecting)
        return 1;
    struct pollfd p = {src->fd, POLLOUT, 0};
    if (poll(&p, 1, 0) == 0)
        return 0;
    int e = 0;
    socklen_t len = sizeof(e);
    if (getsockopt(src->fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
        e = errno;
    if (e == EINPROGRESS || e == EALREADY)
        return 0;
    src->connecting = 0;
    if (e) {
        close(src->fd);
        src->fd = -1;
        return source_fail_errno(err, e, "cannot connect: %s%s", strerror(e),
                                 "");
    }
    return 1;
}

int source_open(source *src, const char *spec, el_error *err)
{
    memset(src, 0, sizeof(*src));
    src->fd = -1;
    el_addr addr;
    if (el_addr_parse(spec, &addr, err) != EL_OK)
        return -1;
    switch (addr.kind) {
    case EL_ADDR_STDIN:
        src->kind = SOURCE_STDIN;
        src->fd = 0;
        break;
    case EL_ADDR_UNIX:
        src->kind = SOURCE_UNIX;
        src->target = strdup(addr.path);
        if (!src->target)
            return source_fail(err, "out of memory%s%s", "", "");
        return source_connect_unix(src, err);
    case EL_ADDR_TCP:
        src->kind = SOURCE_TCP;
        src->target = strdup(addr.tcp.host);
        src->port = strdup(addr.tcp.port);
        if (!src->target || !src->port)
            return source_fail(err, "out of memory%s%s", "", "");
        return source_connect_tcp(src, err);
    case EL_ADDR_FILE:
        src->kind = SOURCE_FILE;
        src->fd = open(addr.path, O_RDONLY);
        if (src->fd < 0)
            return source_fail_errno(err, errno, "cannot open: %s%s",
                                     strerror(errno), "");
        break;
    }
    struct stat st;
    if (fstat(src->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t here = lseek(src->fd, 0, SEEK_CUR);
        if (here >= 0 && st.st_size >= here) {
            src->seekable = 1;
            src->base = here;
            src->size = (uint64_t)(st.st_size - here);
        }
    } else if (src->kind == SOURCE_FILE && S_ISDIR(st.st_mode)) {
        close(src->fd);
        src->fd = -1;
        return source_fail(err, "is a directory%s%s", "", "");
    }
    return 0;
}

ssize_t source_read(source *src, uint8_t *buf, size_t len)
{
    for (;;) {
        ssize_t n = read(src->fd, buf, len);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

ssize_t source_pread(source *src, uint8_t *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(src->fd, buf + got, len - got,
                          (off_t)(src->base + off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

void source_close(source *src)
{
    if (src->fd > 0 || (src->fd == 0 && src->kind != SOURCE_STDIN))
        close(src->fd);
    src->fd = -1;
    free(src->target);
    free(src->port);
    src->target = src->port = NULL;
}
