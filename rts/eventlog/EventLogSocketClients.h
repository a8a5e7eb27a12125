/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog socket's clients: the fan-out of the eventlog's units to
 * every client's queue, with bounded queues, loss reports and the replay
 * that lets a client join at any time. Pure data structure: every function
 * here runs under the socket's lock (rts/eventlog/EventLogSocket.c), and
 * none touches a client's socket but to close it.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "eventlog/EventLogStream.h"
#include "eventlog/EventLogSocketControl.h"

#include <sys/uio.h>

#include "BeginPrivate.h"

#define MAX_CLIENTS            64

typedef struct Chunk_ Chunk;

typedef struct {
    Chunk **items;
    size_t cap, head, count;
    size_t bytes;           /* bytes of the chunks queued, the head (even
                               if partly sent) counted whole: what the
                               queue keeps resident */
    size_t sent;            /* bytes of items[head] already sent */
} Queue;

typedef struct {
    int fd;
    bool need_header;       /* joined between two streams */
    bool paused;            /* control command 2 */
    bool closing;           /* its stream ended: close once drained */
    bool dead;
    uint64_t lost_bytes, lost_events, lost_blocks;   /* not yet reported */
    uint64_t skipped_bytes, skipped_events;          /* while paused */
    Queue q;
    ElcParser ctl;
} Client;

/* See Note [Eventlog socket: units and replay] */
typedef struct {
    /* the stream, followed whenever the tee is installed */
    ElsStream stream;
    bool stream_ok;
    bool in_stream;
    uint8_t *header;
    size_t header_len;
    uint8_t *replay;
    size_t replay_len, replay_cap;
    bool replay_truncated;
    Chunk *replay_chunk;    /* header + replay block, cached */

    /* the clients */
    size_t bound;           /* bytes queued per client */
    Client *clients[MAX_CLIENTS];
    int nclients;
    EventLogSocketStats stats;
    bool wake;              /* a unit was queued: the thread has work */
} SocketFanout;

/* EventLogStream's unit callback (els_feed's ctx: the SocketFanout): follow
 * the stream (header, replay) and offer the unit to every client. Sets
 * wake when some client queued it. */
void fanoutUnit (void *fanout, const ElsUnit *u);

/* A new client on fd; NULL (the caller closes fd) when there are
 * MAX_CLIENTS already or no memory. */
Client *fanoutAddClient (SocketFanout *f, int fd);

/* Close the i-th client's socket, free it and its queue. */
void fanoutDropClient (SocketFanout *f, int i);
/* Clients connected and not gone or closing (under the socket's lock). */
int fanoutLiveClients (const SocketFanout *f);

/* What a client has queued, as at most max iovecs; their count. */
int clientPending (Client *cl, struct iovec *iov, int max);

/* The client's socket took n bytes of what clientPending gave. */
void clientSent (Client *cl, size_t n);

#include "EndPrivate.h"
