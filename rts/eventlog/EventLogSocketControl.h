/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Parser for control messages that eventlog-socket clients send to the
 * program; their format and commands are in rts/EventLogSocketProtocol.h.
 * Depends only on the C library and that header (fuzzed outside the RTS).
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rts/EventLogSocketProtocol.h"

#if defined(COMPILING_RTS)
#include "BeginPrivate.h"
#endif

typedef enum { ELC_MAGIC, ELC_VERSION, ELC_NSLEN, ELC_NS, ELC_CMD } ElcState;

/* The namespaces whose commands the parser hands out. */
typedef enum {
    ELC_NS_EVENTLOG_SOCKET,   /* EVENTLOG_SOCKET_NAMESPACE: commands on the program */
    ELC_NS_RTSCOPE,           /* RTSCOPE_SOCKET_NAMESPACE: commands on the client's stream */
} ElcNamespace;

typedef struct {
    ElcState state;
    uint8_t magic_seen;       /* bytes of the magic matched so far */
    uint8_t ns_len;
    uint8_t ns_seen;
    uint8_t ns_match;         /* bit k: the namespace so far is known[k]'s */
    uint8_t in_garbage;       /* inside a run of bytes that are no message */
} ElcParser;

void elc_init(ElcParser *p);

/* Feed bytes. For each complete message calls on_command(ctx, ns, id) when
 * it is a known command of a known namespace (an EVENTLOG_SOCKET_CMD_* of
 * ELC_NS_EVENTLOG_SOCKET, a RTSCOPE_SOCKET_CMD_* of ELC_NS_RTSCOPE), and
 * counts it in *ignored otherwise; a run of bytes that is no message at all
 * (an empty namespace included) counts once in *ignored. */
void elc_feed(ElcParser *p, const uint8_t *buf, size_t len,
              void (*on_command)(void *ctx, ElcNamespace ns, int cmd), void *ctx,
              unsigned long *ignored);

#if defined(COMPILING_RTS)
#include "EndPrivate.h"
#endif
