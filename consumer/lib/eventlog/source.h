/* Byte sources for the reader: files, standard input, Unix and TCP sockets
 * (internal). */
#ifndef RTSCOPE_SOURCE_H
#define RTSCOPE_SOURCE_H

#include "rtscope/eventlog.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum source_kind {
    SOURCE_FILE,
    SOURCE_STDIN,
    SOURCE_UNIX,
    SOURCE_TCP,
};

typedef struct source {
    enum source_kind kind;
    int fd;
    int seekable;   /* a regular file: pread works */
    off_t base;     /* offset of the stream start in the file */
    uint64_t size;  /* size of a seekable source */
    int connecting; /* a socket's connect is in progress */
    char *target;   /* path, or host, for sockets */
    char *port;
} source;

/* Parse `spec` (el_addr_parse) and open it, or start connecting to it:
 * sockets are non-blocking. Returns 0, or -1 with *err filled. */
int source_open(source *src, const char *spec, el_error *err);
/* 1 once a socket is connected (at once for other sources), 0 while the
 * connect is in progress (poll for POLLOUT), -1 if it failed (*err). */
int source_connected(source *src, el_error *err);
/* read(2) that retries on EINTR: returns bytes, 0 at end, -1 on error
 * (EAGAIN: a socket has nothing yet). */
ssize_t source_read(source *src, uint8_t *buf, size_t len);
/* pread relative to the stream start (seekable sources). */
ssize_t source_pread(source *src, uint8_t *buf, size_t len, uint64_t off);
void source_close(source *src);

#endif
