/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Incremental splitter for the eventlog byte stream; see EventLogStream.h.
 *
 * ---------------------------------------------------------------------------*/

#if defined(COMPILING_RTS)
#include "RtscopeGhc.h"
#include "Rts.h"
#endif

#include "EventLogStream.h"

#include <stdlib.h>
#include <string.h>

#define HDR_BEGIN  0x68647262u   /* "hdrb" */
#define HDR_END    0x68647265u   /* "hdre" */
#define HET_BEGIN  0x68657462u   /* "hetb" */
#define HET_END    0x68657465u   /* "hete" */
#define ET_BEGIN   0x65746200u   /* "etb\0" */
#define ET_END     0x65746500u   /* "ete\0" */
#define DATA_BEGIN 0x64617462u   /* "datb" */
#define DATA_END   0xffffu

bool
els_init(ElsStream *s, size_t max_unit)
{
    memset(s, 0, sizeof(*s));
    s->sizes = calloc(ELS_NUM_TYPES, sizeof(int32_t));
    s->declared = malloc(ELS_NUM_TYPES * sizeof(uint16_t));
    if (s->sizes == NULL || s->declared == NULL) {
        free(s->sizes);
        free(s->declared);
        return false;
    }
    s->max_unit = max_unit;
    els_reset(s);
    return true;
}

void
els_reset(ElsStream *s)
{
    for (size_t i = 0; i < s->ndeclared; i++) s->sizes[s->declared[i]] = 0;
    s->ndeclared = 0;
    s->state = ELS_IN_HEADER;
    s->pending_len = 0;
    s->offset = 0;
    s->error = ELS_OK;
}

void
els_free(ElsStream *s)
{
    free(s->sizes);
    free(s->declared);
    free(s->pending);
    memset(s, 0, sizeof(*s));
}

const char *
els_strerror(ElsError e)
{
    switch (e) {
    case ELS_OK:                return "ok";
    case ELS_ERR_BAD_HEADER:    return "malformed eventlog header";
    case ELS_ERR_UNKNOWN_EVENT: return "event of a type the header does not declare";
    case ELS_ERR_BAD_BLOCK:     return "malformed event block";
    case ELS_ERR_TOO_BIG:       return "unit larger than the splitter's bound";
    case ELS_ERR_NOMEM:         return "out of memory";
    case ELS_ERR_AFTER_END:     return "data after the end-of-data marker";
    }
    return "unknown error";
}

/* Length of the header at the start of buf: > 0 when complete, 0 when more
 * bytes are needed, -1 when malformed. Fills s->sizes when complete. */
static long
header_len(ElsStream *s, const uint8_t *buf, size_t len)
{
    size_t p = 0;
#define NEED(n) do { if (len - p < (size_t)(n)) return 0; } while (0)
    NEED(8);
    if (els_get32(buf) != HDR_BEGIN || els_get32(buf + 4) != HET_BEGIN) return -1;
    p = 8;
    for (;;) {
        NEED(4);
        uint32_t tag = els_get32(buf + p);
        if (tag == HET_END) { p += 4; break; }
        if (tag != ET_BEGIN) return -1;
        NEED(4 + 2 + 2 + 4);
        uint16_t num = els_get16(buf + p + 4);
        uint16_t size = els_get16(buf + p + 6);
        uint32_t dlen = els_get32(buf + p + 8);
        if (dlen > (1u << 20)) return -1;
        p += 12;
        NEED(dlen + 4);
        p += dlen;
        uint32_t xlen = els_get32(buf + p);
        if (xlen > (1u << 20)) return -1;
        p += 4;
        NEED(xlen + 4);
        p += xlen;
        if (els_get32(buf + p) != ET_END) return -1;
        p += 4;
        /* sizes are only committed once the whole header is there */
        (void)num; (void)size;
    }
    NEED(8);
    if (els_get32(buf + p) != HDR_END || els_get32(buf + p + 4) != DATA_BEGIN) return -1;
    p += 8;
#undef NEED
    /* second pass: commit the event sizes */
    size_t q = 8;
    while (els_get32(buf + q) == ET_BEGIN) {
        uint16_t num = els_get16(buf + q + 4);
        uint16_t size = els_get16(buf + q + 6);
        uint32_t dlen = els_get32(buf + q + 8);
        q += 12 + dlen;
        uint32_t xlen = els_get32(buf + q);
        q += 4 + xlen + 4;
        if (s->sizes[num] == 0) s->declared[s->ndeclared++] = num;
        s->sizes[num] = ((size == 0xffff) ? ELS_SIZE_VARIABLE : (int32_t)size) + 2;
    }
    return (long)p;
}

/* Note [IPE events a byte short of their length]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * EVENT_IPE's payload is the info table's address and six NUL-terminated
 * strings. GHC 9.6's postIPE (upstream, unpatched by rtscope) writes the
 * last one as "file:span" with one NUL, but declares a length one byte
 * longer, as if file and span had a NUL each: the next event starts at the
 * declared end minus one. Readers that take the strings one by one
 * (ghc-events, rtscope's decoder) never notice; a splitter that skips by
 * the declared length would lose its place in the block for good. So an
 * IPE event whose six strings end exactly one byte before its declared end
 * ends there; every other event, IPE events of 9.0.2's series included, is
 * its declared length. rtscope's consumer applies the same rule (Note
 * [GHC 9.6's IPE events are one byte short] in its decoder.c). */
#define ELS_IPE_TYPE 169

/* The payload length of the IPE event whose payload (declared bytes long)
 * starts at payload, with avail bytes of it at hand: the 9.6 rule above
 * when the strings end within avail, else the declared length. */
static size_t
ipe_len(const uint8_t *payload, size_t declared, size_t avail)
{
    size_t at = 8;
    if (avail > declared) avail = declared;
    for (int field = 0; field < 6; field++) {
        const uint8_t *nul = at < avail ? memchr(payload + at, 0, avail - at) : NULL;
        if (nul == NULL) return declared;
        at = (size_t)(nul - payload) + 1;
    }
    return at + 1 == declared ? at : declared;
}

/* Length of the event at buf (header + payload): > 0 complete, 0 need
 * more, -1 unknown type. */
static long
event_len(const ElsStream *s, const uint8_t *buf, size_t len)
{
    if (len < 2) return 0;
    uint16_t type = els_get16(buf);
    int32_t size = els_type_size(s, type);
    if (size == ELS_SIZE_UNKNOWN) return -1;
    if (size == ELS_SIZE_VARIABLE) {
        if (len < 12) return 0;
        size_t n = 12 + (size_t)els_get16(buf + 10);
        if (type == ELS_IPE_TYPE) n = 12 + ipe_len(buf + 12, n - 12, len - 12);
        return len < n ? 0 : (long)n;
    }
    size_t n = 10 + (size_t)size;
    return len < n ? 0 : (long)n;
}

/* Try to cut one unit from buf. Returns its length (> 0), 0 if more bytes
 * are needed, or -1 with s->error set. */
static long
next_unit(ElsStream *s, const uint8_t *buf, size_t len, ElsUnit *u)
{
    long n;
    switch (s->state) {
    case ELS_IN_HEADER:
        n = header_len(s, buf, len);
        if (n < 0) { s->error = ELS_ERR_BAD_HEADER; return -1; }
        if (n == 0) return 0;
        u->kind = ELS_UNIT_HEADER;
        u->cap = ELS_CAP_GLOBAL;
        u->end_time = 0;
        s->state = ELS_IN_DATA;
        return n;
    case ELS_IN_DATA:
        if (len < 2) return 0;
        if (els_get16(buf) == DATA_END) {
            u->kind = ELS_UNIT_DATA_END;
            u->cap = ELS_CAP_GLOBAL;
            u->end_time = 0;
            s->state = ELS_ENDED;
            return 2;
        }
        if (els_get16(buf) == ELS_BLOCK_MARKER_TYPE) {
            if (els_type_size(s, ELS_BLOCK_MARKER_TYPE) == ELS_SIZE_UNKNOWN) {
                s->error = ELS_ERR_UNKNOWN_EVENT; return -1;
            }
            if (len < ELS_BLOCK_MARKER_LEN) return 0;
            uint32_t size = els_get32(buf + 10);
            if (size < ELS_BLOCK_MARKER_LEN) { s->error = ELS_ERR_BAD_BLOCK; return -1; }
            if (size > s->max_unit) { s->error = ELS_ERR_TOO_BIG; return -1; }
            if (len < size) return 0;
            u->kind = ELS_UNIT_BLOCK;
            u->end_time = els_get64(buf + 14);
            u->cap = els_get16(buf + 22);
            return (long)size;
        }
        n = event_len(s, buf, len);
        if (n < 0) { s->error = ELS_ERR_UNKNOWN_EVENT; return -1; }
        if (n == 0) return 0;
        u->kind = ELS_UNIT_EVENT;
        u->cap = ELS_CAP_GLOBAL;
        u->end_time = 0;
        return n;
    case ELS_ENDED:
        s->error = ELS_ERR_AFTER_END;
        return -1;
    }
    return -1;
}

static bool
pending_append(ElsStream *s, const uint8_t *buf, size_t len)
{
    if (s->pending_len + len > s->max_unit + 16) {
        s->error = ELS_ERR_TOO_BIG;
        return false;
    }
    if (s->pending_len + len > s->pending_cap) {
        size_t cap = s->pending_cap ? s->pending_cap : 4096;
        while (cap < s->pending_len + len) cap *= 2;
        uint8_t *p = realloc(s->pending, cap);
        if (p == NULL) { s->error = ELS_ERR_NOMEM; return false; }
        s->pending = p;
        s->pending_cap = cap;
    }
    memcpy(s->pending + s->pending_len, buf, len);
    s->pending_len += len;
    return true;
}

ElsError
els_feed(ElsStream *s, const uint8_t *buf, size_t len, ElsUnitFn fn, void *ctx)
{
    if (s->error != ELS_OK) return s->error;

    /* Finish a unit that started in an earlier call: append only as many
     * bytes as needed, so the fast path below sees unit boundaries. */
    while (s->pending_len > 0 && len > 0) {
        ElsUnit u;
        /* add bytes in small steps until a unit's length is known */
        size_t step = len < 4096 ? len : 4096;
        if (!pending_append(s, buf, step)) return s->error;
        buf += step; len -= step;
        long n = next_unit(s, s->pending, s->pending_len, &u);
        if (n < 0) return s->error;
        if (n == 0) continue;
        /* a complete unit: give back what belongs to the next one */
        size_t extra = s->pending_len - (size_t)n;
        buf -= extra; len += extra;
        u.bytes = s->pending; u.len = (size_t)n;
        s->pending_len = 0;
        s->offset += (uint64_t)n;
        fn(ctx, &u);
        if (u.kind == ELS_UNIT_DATA_END) els_reset(s);
    }

    /* Fast path: whole units straight from the caller's buffer. */
    while (len > 0) {
        ElsUnit u;
        long n = next_unit(s, buf, len, &u);
        if (n < 0) return s->error;
        if (n == 0) {
            if (!pending_append(s, buf, len)) return s->error;
            return ELS_OK;
        }
        u.bytes = buf; u.len = (size_t)n;
        s->offset += (uint64_t)n;
        fn(ctx, &u);
        buf += n; len -= (size_t)n;
        if (u.kind == ELS_UNIT_DATA_END) els_reset(s);
    }
    return ELS_OK;
}

long
els_block_events(const ElsStream *s, const uint8_t *block, size_t len,
                 ElsEventFn fn, void *ctx)
{
    if (len < ELS_BLOCK_MARKER_LEN) return -1;
    size_t p = ELS_BLOCK_MARKER_LEN;
    long count = 0;
    while (p < len) {
        long n = event_len(s, block + p, len - p);
        if (n <= 0) return -1;
        if (fn) fn(ctx, els_get16(block + p), block + p, (size_t)n);
        p += (size_t)n;
        count++;
    }
    return count;
}
