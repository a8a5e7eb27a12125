/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * An incremental splitter for the eventlog byte stream the RTS hands to its
 * EventLogWriter: it cuts the stream into whole units (the header, one
 * block, one top-level event, the end-of-data marker) so that the eventlog
 * socket can deliver whole blocks to each client and replay init events to
 * late joiners. See Note [Eventlog socket: units and replay] in
 * EventLogSocket.c.
 *
 * This module depends on nothing but the C library, so that it can be unit
 * tested and fuzzed outside the RTS.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(COMPILING_RTS)
#include "BeginPrivate.h"
#endif

#define ELS_NUM_TYPES 65536
#define ELS_SIZE_UNKNOWN   (-2)
#define ELS_SIZE_VARIABLE  (-1)

/* The block-marker event: 2 (type) + 8 (time) + 4 (size) + 8 (end) + 2 (cap) */
#define ELS_BLOCK_MARKER_TYPE 18
#define ELS_BLOCK_MARKER_LEN  24
#define ELS_USER_MSG_TYPE     19
#define ELS_CAP_GLOBAL        0xffff

typedef enum {
    ELS_UNIT_HEADER,     /* header begin .. data begin, inclusive */
    ELS_UNIT_BLOCK,      /* a block marker and the events it covers */
    ELS_UNIT_EVENT,      /* one event outside any block */
    ELS_UNIT_DATA_END,   /* the 0xffff end-of-data marker */
} ElsUnitKind;

typedef enum {
    ELS_OK = 0,
    ELS_ERR_BAD_HEADER,
    ELS_ERR_UNKNOWN_EVENT,
    ELS_ERR_BAD_BLOCK,
    ELS_ERR_TOO_BIG,
    ELS_ERR_NOMEM,
    ELS_ERR_AFTER_END,
} ElsError;

typedef struct {
    ElsUnitKind kind;
    const uint8_t *bytes;
    size_t len;
    uint16_t cap;            /* blocks: the block's capability */
    uint64_t end_time;       /* blocks: the block's end time */
} ElsUnit;

typedef void (*ElsUnitFn)(void *ctx, const ElsUnit *unit);

typedef enum { ELS_IN_HEADER, ELS_IN_DATA, ELS_ENDED } ElsState;

typedef struct {
    ElsState state;
    int32_t *sizes;          /* ELS_NUM_TYPES entries: 0 unknown, 1 variable,
                                n + 2 for a fixed payload of n bytes; calloc'd,
                                so only declared types' pages are touched */
    uint16_t *declared;      /* the types the header declared */
    size_t ndeclared;
    uint8_t *pending;        /* bytes of an incomplete unit */
    size_t pending_len;
    size_t pending_cap;
    size_t max_unit;         /* larger units are an error */
    uint64_t offset;         /* stream offset of pending[0] */
    ElsError error;
} ElsStream;

/* A stream is created at the start of an eventlog; els_reset starts a new
 * one (after EVENT_DATA_END, a restarted eventlog begins with a header). */
bool els_init(ElsStream *s, size_t max_unit);
void els_reset(ElsStream *s);
void els_free(ElsStream *s);

/* Feed bytes; calls fn for every complete unit, in order. After an error
 * the stream stays in error (els_reset clears it) and returns it again. */
ElsError els_feed(ElsStream *s, const uint8_t *buf, size_t len,
                  ElsUnitFn fn, void *ctx);

const char *els_strerror(ElsError e);

/* Walk the events of a block (the marker itself excluded); fn gets each
 * event's type and its bytes (header included). Returns the number of
 * events, or -1 if the block is malformed. */
typedef void (*ElsEventFn)(void *ctx, uint16_t type,
                           const uint8_t *ev, size_t len);

/* The declared payload size of an event type: ELS_SIZE_UNKNOWN,
 * ELS_SIZE_VARIABLE or the fixed size. */
static inline int32_t els_type_size(const ElsStream *s, uint16_t type)
{ return s->sizes[type] - 2; }
long els_block_events(const ElsStream *s, const uint8_t *block, size_t len,
                      ElsEventFn fn, void *ctx);

/* Big-endian helpers, shared with the socket module. */
static inline uint16_t els_get16(const uint8_t *p)
{ return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t els_get32(const uint8_t *p)
{ return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
       | ((uint32_t)p[2] << 8) | p[3]; }
static inline uint64_t els_get64(const uint8_t *p)
{ return ((uint64_t)els_get32(p) << 32) | els_get32(p + 4); }
static inline void els_put16(uint8_t *p, uint16_t v)
{ p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void els_put32(uint8_t *p, uint32_t v)
{ p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
static inline void els_put64(uint8_t *p, uint64_t v)
{ els_put32(p, (uint32_t)(v >> 32)); els_put32(p + 4, (uint32_t)v); }

#if defined(COMPILING_RTS)
#include "EndPrivate.h"
#endif
