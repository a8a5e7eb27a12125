/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Parser for control messages that eventlog-socket clients send to the
 * program, in eventlog-socket's format (protocol version 0):
 *
 *   magic F0 9E 97 8C | version (1 byte, 0) | namespace length N (1 byte) |
 *   namespace (N bytes, UTF-8) | command (1 byte)
 *
 * Commands of the namespace "eventlog-socket": 1 start eventlogging, 2 stop
 * eventlogging, 3 start heap profiling, 4 stop heap profiling, 5 request a
 * heap census. Depends only on the C library (fuzzed outside the RTS).
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <stddef.h>
#include <stdint.h>

#if defined(COMPILING_RTS)
#include "BeginPrivate.h"
#endif

enum {
    ELC_START_EVENTLOG   = 1,
    ELC_STOP_EVENTLOG    = 2,
    ELC_START_HEAP_PROF  = 3,
    ELC_STOP_HEAP_PROF   = 4,
    ELC_REQUEST_CENSUS   = 5,
};

typedef enum { ELC_MAGIC, ELC_VERSION, ELC_NSLEN, ELC_NS, ELC_CMD } ElcState;

typedef struct {
    ElcState state;
    uint8_t magic_seen;       /* bytes of the magic matched so far */
    uint8_t ns_len;
    uint8_t ns_seen;
    uint8_t ns_ok;            /* the namespace so far is "eventlog-socket" */
    uint8_t in_garbage;       /* inside a run of bytes that are no message */
} ElcParser;

void elc_init(ElcParser *p);

/* Feed bytes. For each complete message calls on_command(ctx, id) when it
 * is a known command, and counts it in *ignored otherwise; a run of bytes
 * that is no message at all counts once in *ignored. */
void elc_feed(ElcParser *p, const uint8_t *buf, size_t len,
              void (*on_command)(void *ctx, int cmd), void *ctx,
              unsigned long *ignored);

#if defined(COMPILING_RTS)
#include "EndPrivate.h"
#endif
