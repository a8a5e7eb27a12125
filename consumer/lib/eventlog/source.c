/* Byte sources: a path, "-" (standard input), "unix:PATH", "tcp:HOST:PORT".
 * A regular file (also on standard input) is marked seekable so the reader
 * can merge capabilities exactly with one cursor each. */
#define _POSIX_C_SOURCE 200809L
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int source_fail(el_error *err, const char *fmt, const char *a,
                       const char *b)
{
    err->status = EL_ERR_IO;
    err->offset = 0;
    snprintf(err->msg, sizeof(err->msg), fmt, a, b);
    return -1;
}

static int source_connect_unix(source *src, el_error *err)
{
    struct sockaddr_un sa;
    if (strlen(src->target) >= sizeof(sa.sun_path))
        return source_fail(err, "socket path too long: %s%s", src->target,
                           "");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return source_fail(err, "socket: %s%s", strerror(errno), "");
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, src->target, strlen(src->target) + 1);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(fd);
        return source_fail(err, "cannot connect: %s%s", strerror(e), "");
    }
    src->fd = fd;
    return 0;
}

static int source_connect_tcp(source *src, el_error *err)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(src->target, src->port, &hints, &res);
    if (rc != 0)
        return source_fail(err, "cannot resolve %s: %s", src->target,
                           gai_strerror(rc));
    int fd = -1, e = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return source_fail(err, "cannot connect: %s%s", strerror(e), "");
    src->fd = fd;
    return 0;
}

int source_reconnect(source *src, el_error *err)
{
    if (src->fd >= 0)
        close(src->fd);
    src->fd = -1;
    if (src->kind == SOURCE_UNIX)
        return source_connect_unix(src, err);
    if (src->kind == SOURCE_TCP)
        return source_connect_tcp(src, err);
    return source_fail(err, "cannot reconnect a file%s%s", "", "");
}

int source_open(source *src, const char *spec, el_error *err)
{
    memset(src, 0, sizeof(*src));
    src->fd = -1;
    if (strcmp(spec, "-") == 0) {
        src->kind = SOURCE_STDIN;
        src->fd = 0;
    } else if (strncmp(spec, "unix:", 5) == 0) {
        src->kind = SOURCE_UNIX;
        src->target = strdup(spec + 5);
        if (!src->target)
            return source_fail(err, "out of memory%s%s", "", "");
        return source_connect_unix(src, err);
    } else if (strncmp(spec, "tcp:", 4) == 0) {
        src->kind = SOURCE_TCP;
        const char *hp = spec + 4;
        const char *colon = strrchr(hp, ':');
        if (!colon || colon == hp || !colon[1])
            return source_fail(err, "expected tcp:HOST:PORT, got %s%s", spec,
                               "");
        size_t hl = (size_t)(colon - hp);
        if (hp[0] == '[' && hl >= 2 && hp[hl - 1] == ']') {
            hp++;
            hl -= 2;
        }
        src->target = strndup(hp, hl);
        src->port = strdup(colon + 1);
        if (!src->target || !src->port)
            return source_fail(err, "out of memory%s%s", "", "");
        return source_connect_tcp(src, err);
    } else {
        src->kind = SOURCE_FILE;
        src->fd = open(spec, O_RDONLY);
        if (src->fd < 0)
            return source_fail(err, "cannot open: %s%s", strerror(errno), "");
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
