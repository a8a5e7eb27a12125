/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog socket's listening socket (rts/eventlog/EventLogSocket.c
 * serves it): a Unix domain socket or a TCP port, non-blocking.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <sys/types.h>

#include "BeginPrivate.h"

typedef struct {
    int fd;                 /* -1 when not listening */
    char *unix_path;        /* the Unix socket we made, to remove at the end */
    dev_t unix_dev;
    ino_t unix_ino;
} SocketListener;

/* Listen on addr: a Unix socket path, or tcp:[HOST:]PORT (HOST defaults to
 * 127.0.0.1). false, with a message on stderr, if it cannot. A Unix
 * socket is made only in a directory of the user's own (or a sticky one,
 * like /tmp), mode 0600; a stale socket is replaced, a live one or any
 * other file never. */
bool socketListen (SocketListener *l, const char *addr);

/* The next waiting connection, non-blocking and close-on-exec, or -1 when
 * none waits. */
int socketAccept (SocketListener *l);

/* Stop listening, and remove the Unix socket if it is still ours. */
void socketUnlisten (SocketListener *l);

/* In the child of a fork: close the descriptor, leave the socket (the
 * parent still serves on it). */
void socketForget (SocketListener *l);

#include "EndPrivate.h"
