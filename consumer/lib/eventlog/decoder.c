/* Incremental eventlog decoder.
 *
 * The decoder reads the caller's chunk in place and copies bytes only when
 * one item (a header record or an event) straddles two chunks; it then
 * assembles that item in `pend`, which is big enough for the largest item
 * the format allows (a 16-bit payload size plus its header). So memory is
 * constant whatever the stream length, and feeding one byte at a time gives
 * exactly the same events as feeding the whole buffer.
 *
 * Layout (all integers big-endian):
 *   header  = "hdrb" "hetb" { "etb\0" num:16 size:16 dlen:32 desc[dlen]
 *                              elen:32 ext[elen] "ete\0" } "hete" "hdre"
 *   data    = "datb" { event } 0xffff
 *   event   = type:16 ts:64 [len:16 if size == 0xffff] payload
 * Events come in blocks: a BLOCK_MARKER event (size:32 end_ts:64 cap:16)
 * says that the next `size` bytes, counted from the marker itself, were
 * written by capability `cap` (0xffff: the RTS's global buffer).
 */
#include "rtscope/eventlog.h"

#include "bytes.h"
#include "decoder_impl.h"
#include "typetab_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_HDRB 0x68647262u
#define MAGIC_HDRE 0x68647265u
#define MAGIC_DATB 0x64617462u
#define MAGIC_HETB 0x68657462u
#define MAGIC_HETE 0x68657465u
#define MAGIC_ETB 0x65746200u
#define MAGIC_ETE 0x65746500u
#define DATA_END 0xffffu

/* Largest item: type + timestamp + length + 0xffff payload bytes. */
#define PEND_SIZE (2 + 8 + 2 + 0xffff + 16)
#define BLOCK_MARKER_PAYLOAD 14u
#define SKIP_VARIABLE 0xffffu

enum dec_state {
    ST_HDR_BEGIN,
    ST_HET_BEGIN,
    ST_ET_OR_END,
    ST_ET_FIELDS,
    ST_ET_DESC,
    ST_ET_EXTLEN,
    ST_ET_EXT,
    ST_ET_END,
    ST_HDR_END,
    ST_DATA_BEGIN,
    ST_DATA,
    ST_DONE,
    ST_ERROR,
};

struct el_decoder {
    el_typetab *own;
    const el_typetab *tab;
    enum dec_state state;
    const uint8_t *in;
    size_t in_len, in_pos;
    uint8_t *pend;
    size_t pend_len;
    uint64_t offset;      /* stream offset of the current item */
    uint64_t data_offset; /* where the data section starts */
    uint64_t skip;        /* bytes of header extension still to skip */
    uint16_t et_num, et_size;
    uint32_t et_dlen;
    int in_block;
    uint16_t block_cap;
    uint64_t block_end;
    uint64_t block_end_ts; /* the block's end time, from its marker */
    int block_told;        /* decoder_block_done() said it is complete */
    uint64_t trailing;
    /* decoder_skip's table for `skip_wanted`: the whole length of an
     * event of each type below 256 it may pass over, SKIP_VARIABLE for a
     * variable-size one, 0 for one it must stop at. */
    const uint8_t *skip_wanted;
    uint16_t skip_len[TYPETAB_DIRECT];
    size_t skip_guess[3];
    el_error err;
};

el_decoder *el_decoder_new(const el_typetab *shared)
{
    el_decoder *dec = calloc(1, sizeof(*dec));
    if (!dec)
        return NULL;
    dec->pend = malloc(PEND_SIZE);
    if (!dec->pend) {
        free(dec);
        return NULL;
    }
    if (shared) {
        dec->tab = shared;
        dec->state = ST_DATA;
    } else {
        dec->own = el_typetab_new();
        if (!dec->own) {
            free(dec->pend);
            free(dec);
            return NULL;
        }
        dec->tab = dec->own;
        dec->state = ST_HDR_BEGIN;
    }
    return dec;
}

void el_decoder_free(el_decoder *dec)
{
    if (!dec)
        return;
    el_typetab_free(dec->own);
    free(dec->pend);
    free(dec);
}

static el_status decoder_fail(el_decoder *dec, el_status st, uint64_t offset,
                              const char *fmt, ...)
{
    va_list ap;
    dec->err.status = st;
    dec->err.offset = offset;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(dec->err.msg, sizeof(dec->err.msg), fmt, ap);
    va_end(ap);
    dec->state = ST_ERROR;
    return st;
}

void el_decoder_input(el_decoder *dec, const uint8_t *buf, size_t len)
{
    dec->in = buf;
    dec->in_len = len;
    dec->in_pos = 0;
}

/* Make `n` bytes of the current item available contiguously, or return
 * NULL after saving what there is (the caller then asks for more input). */
static const uint8_t *decoder_ensure(el_decoder *dec, size_t n)
{
    size_t avail = dec->in_len - dec->in_pos;
    if (dec->pend_len == 0 && avail >= n)
        return dec->in + dec->in_pos;
    if (dec->pend_len < n) {
        size_t want = n - dec->pend_len;
        size_t take = want < avail ? want : avail;
        if (take) {
            memcpy(dec->pend + dec->pend_len, dec->in + dec->in_pos, take);
            dec->pend_len += take;
            dec->in_pos += take;
        }
    }
    return dec->pend_len >= n ? dec->pend : NULL;
}

static void decoder_consume(el_decoder *dec, size_t n)
{
    if (dec->pend_len > n) {
        /* an event that ended short of the bytes gathered for it (Note
         * [GHC 9.6's IPE events are one byte short]): the rest is the next
         * event's */
        memmove(dec->pend, dec->pend + n, dec->pend_len - n);
        dec->pend_len -= n;
    } else if (dec->pend_len) {
        dec->pend_len = 0;
    } else {
        dec->in_pos += n;
    }
    dec->offset += n;
}

static el_status decoder_expect_magic(el_decoder *dec, uint32_t magic,
                                      enum dec_state next, const char *what)
{
    const uint8_t *p = decoder_ensure(dec, 4);
    if (!p)
        return EL_NEED_MORE;
    if (bytes_get_u32(p) != magic) {
        if (dec->state == ST_HDR_BEGIN)
            return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                                "not a GHC eventlog (no header magic)");
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt header: expected %s", what);
    }
    decoder_consume(dec, 4);
    dec->state = next;
    if (next == ST_DATA)
        dec->data_offset = dec->offset;
    return EL_OK;
}

/* One step of header parsing. */
static el_status decoder_step_header(el_decoder *dec)
{
    const uint8_t *p;
    switch (dec->state) {
    case ST_HDR_BEGIN:
        return decoder_expect_magic(dec, MAGIC_HDRB, ST_HET_BEGIN, "");
    case ST_HET_BEGIN:
        return decoder_expect_magic(dec, MAGIC_HETB, ST_ET_OR_END,
                                    "start of the event-type list");
    case ST_ET_OR_END:
        if (!(p = decoder_ensure(dec, 4)))
            return EL_NEED_MORE;
        if (bytes_get_u32(p) == MAGIC_ETB) {
            dec->state = ST_ET_FIELDS;
        } else if (bytes_get_u32(p) == MAGIC_HETE) {
            dec->state = ST_HDR_END;
        } else {
            return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                                "corrupt header: malformed event-type list");
        }
        decoder_consume(dec, 4);
        return EL_OK;
    case ST_ET_FIELDS:
        if (!(p = decoder_ensure(dec, 8)))
            return EL_NEED_MORE;
        dec->et_num = bytes_get_u16(p);
        dec->et_size = bytes_get_u16(p + 2);
        dec->et_dlen = bytes_get_u32(p + 4);
        if (dec->et_dlen > 0xffff)
            return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                                "corrupt header: event type %u has a "
                                "%u-byte description",
                                dec->et_num, dec->et_dlen);
        decoder_consume(dec, 8);
        dec->state = ST_ET_DESC;
        return EL_OK;
    case ST_ET_DESC:
        if (!(p = decoder_ensure(dec, dec->et_dlen)))
            return EL_NEED_MORE;
        if (dec->et_num == DATA_END)
            return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                                "corrupt header: event type 65535 is the "
                                "end-of-data marker");
        if (dec->own &&
            el_typetab_declare(dec->own, dec->et_num, dec->et_size,
                               (const char *)p, dec->et_dlen) != EL_OK)
            return decoder_fail(dec, EL_ERR_NOMEM, dec->offset,
                                "out of memory");
        decoder_consume(dec, dec->et_dlen);
        dec->state = ST_ET_EXTLEN;
        return EL_OK;
    case ST_ET_EXTLEN:
        if (!(p = decoder_ensure(dec, 4)))
            return EL_NEED_MORE;
        dec->skip = bytes_get_u32(p);
        decoder_consume(dec, 4);
        dec->state = ST_ET_EXT;
        return EL_OK;
    case ST_ET_EXT: {
        size_t avail = dec->in_len - dec->in_pos;
        size_t take = dec->skip < avail ? (size_t)dec->skip : avail;
        dec->in_pos += take;
        dec->offset += take;
        dec->skip -= take;
        if (dec->skip)
            return EL_NEED_MORE;
        dec->state = ST_ET_END;
        return EL_OK;
    }
    case ST_ET_END:
        return decoder_expect_magic(dec, MAGIC_ETE, ST_ET_OR_END,
                                    "end of an event-type record");
    case ST_HDR_END:
        return decoder_expect_magic(dec, MAGIC_HDRE, ST_DATA_BEGIN,
                                    "end of header");
    case ST_DATA_BEGIN:
        return decoder_expect_magic(dec, MAGIC_DATB, ST_DATA, "start of data");
    default:
        return EL_OK;
    }
}

/* The fast path of decoder_next_event: a whole event in the input, inside
 * the current block (or outside any), of a declared type that is not a
 * block marker. Returns 1 with *ev filled and the event consumed, 0 when
 * the general path must take it. */
static int decoder_next_fast(el_decoder *dec, el_event *ev)
{
    size_t avail = dec->in_len - dec->in_pos;
    if (dec->pend_len != 0 || avail < 12)
        return 0;
    const uint8_t *p = dec->in + dec->in_pos;
    uint16_t type = bytes_get_u16(p);
    uint16_t size;
    if (type == DATA_END || type == EL_BLOCK_MARKER || type == EL_IPE ||
        typetab_lookup_inline(dec->tab, type, &size) != 0)
        return 0;
    size_t head = size == EL_SIZE_VARIABLE ? 12 : 10;
    uint32_t plen = size == EL_SIZE_VARIABLE ? bytes_get_u16(p + 10) : size;
    size_t total = head + plen;
    if (avail < total ||
        (dec->in_block && dec->offset + total > dec->block_end))
        return 0;
    event_frame(ev, p, (uint32_t)head, plen, dec->offset);
    ev->cap = dec->in_block ? dec->block_cap : EL_CAP_NONE;
    dec->in_pos += total;
    dec->offset += total;
    return 1;
}

/* The end-of-data marker at dec->offset. */
static el_status decoder_data_end(el_decoder *dec)
{
    /* GHC 9.0.2 writes the end marker after its last block; 9.6 as the
     * last two bytes of it (endEventLogging posts it into the open global
     * block, then closes that block). Anywhere else in a closed block,
     * 0xffff is corrupt data. */
    if (dec->in_block && dec->block_end != UINT64_MAX &&
        dec->offset + 2 < dec->block_end)
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt data: end-of-data marker inside "
                            "the block that ends at offset %llu",
                            (unsigned long long)dec->block_end);
    decoder_consume(dec, 2);
    dec->state = ST_DONE;
    return EL_END;
}

/* The block marker framed in ev (`total` bytes at dec->offset): check it,
 * enter its block, and give ev its fields. */
static el_status decoder_enter_block(el_decoder *dec, el_event *ev,
                                     size_t total)
{
    if (ev->payload_len < BLOCK_MARKER_PAYLOAD)
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt data: block marker of %u bytes",
                            ev->payload_len);
    uint32_t bsize = bytes_get_u32(ev->payload);
    if (dec->in_block && dec->block_end != UINT64_MAX)
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt data: block marker inside the "
                            "block that ends at offset %llu",
                            (unsigned long long)dec->block_end);
    if (bsize != 0 && bsize < total)
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt data: block of %u bytes is "
                            "smaller than its marker",
                            bsize);
    dec->in_block = 1;
    dec->block_cap = bytes_get_u16(ev->payload + 12);
    /* Block markers come with their fields: the merge and the file reader
     * need them before el_event_decode() runs. */
    ev->u.block.size = bsize;
    ev->u.block.end_ts = bytes_get_u64(ev->payload + 4);
    ev->u.block.cap = dec->block_cap;
    /* Size 0: a block that was never closed; it lasts until the next
     * marker. */
    dec->block_end = bsize ? dec->offset + bsize : UINT64_MAX;
    dec->block_end_ts = ev->u.block.end_ts;
    dec->block_told = 0;
    return EL_OK;
}

int decoder_block_done(el_decoder *dec, uint16_t *cap, uint64_t *end_ts)
{
    if (!dec->in_block || dec->block_told || dec->block_end == UINT64_MAX ||
        dec->offset < dec->block_end)
        return 0;
    dec->block_told = 1;
    *cap = dec->block_cap;
    *end_ts = dec->block_end_ts;
    return 1;
}

/* Note [GHC 9.6's IPE events are one byte short]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An IPE event's payload is the info table's address and six strings, each
 * ending in a NUL, the last "file:span". GHC 9.6's postIPE writes the file
 * and the span joined by a colon, with one NUL, but declares the length
 * as if each had its own (the colon and a NUL for the file, one more for
 * the span): every IPE event of a 9.6 RTS says one byte more than it
 * wrote, and the next event starts at that byte. ghc-events reads the
 * strings and takes the next event from where they end; so does the
 * decoder, for IPE events only: when the six strings end exactly one
 * byte before the declared end, the event ends there. Anything else is
 * framed by its declared length as every event is (a GHC whose IPE events
 * carry more after the strings keeps them, as trailing fields). The fast
 * paths (decoder_next_fast, decoder_skip, scan_wanted, and the file
 * reader's cursor_next_in_run) never frame an IPE event; they leave it to
 * decoder_next_event and the reader's cursor_frame, which both call
 * ipe_framed_len (decoder_impl.h).
 */
static el_status decoder_next_event(el_decoder *dec, el_event *ev)
{
    if (decoder_next_fast(dec, ev))
        return EL_FRAME;
    const uint8_t *p = decoder_ensure(dec, 2);
    if (!p)
        return EL_NEED_MORE;
    uint16_t type = bytes_get_u16(p);
    if (type == DATA_END)
        return decoder_data_end(dec);
    uint16_t size;
    if (el_typetab_lookup(dec->tab, type, &size) != 0)
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt data: event type %u is not declared "
                            "in the header",
                            type);
    size_t head = size == EL_SIZE_VARIABLE ? 12 : 10;
    if (!(p = decoder_ensure(dec, head)))
        return EL_NEED_MORE;
    uint32_t plen = size == EL_SIZE_VARIABLE ? bytes_get_u16(p + 10) : size;
    size_t total = head + plen;
    if (!(p = decoder_ensure(dec, total)))
        return EL_NEED_MORE;
    if (type == EL_IPE && size == EL_SIZE_VARIABLE) {
        plen = ipe_framed_len(p + head, plen, plen);
        total = head + plen;
    }

    event_frame(ev, p, (uint32_t)head, plen, dec->offset);

    if (dec->in_block && dec->offset >= dec->block_end)
        dec->in_block = 0;
    if (dec->in_block && dec->offset + total > dec->block_end)
        return decoder_fail(dec, EL_ERR_FORMAT, dec->offset,
                            "corrupt data: event of type %u (%zu bytes) "
                            "runs past the end of its block at offset %llu",
                            type, total, (unsigned long long)dec->block_end);
    if (type == EL_BLOCK_MARKER) {
        el_status st = decoder_enter_block(dec, ev, total);
        if (st != EL_OK)
            return st;
    }
    ev->cap = dec->in_block ? dec->block_cap : EL_CAP_NONE;
    decoder_consume(dec, total);
    return EL_FRAME;
}

/* Note [Skipping unwanted events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sink like `rtscope stats` looks at a few event types and only counts
 * the rest, and those are most of a large eventlog (thread scheduling
 * events). Handing each of them out through el_decoder_next(), the merge
 * and the sink callback costs several calls per event; decoder_skip()
 * instead walks them in one tight loop: one load from the type table, one
 * from `wanted`, one counter increment, the largest timestamp. It only
 * takes events the general path would have passed through unchanged (whole,
 * declared, inside the current block), so framing errors and truncation are
 * still found, at the same offsets, by el_decoder_next(); and never one the
 * merge orders by, wanted or not: block markers (their end times bound a
 * stream) and the announcements of capabilities (CAP_CREATE,
 * CAPSET_ASSIGN_CAP: the streams the merge waits for, Note [The merge
 * bound] in merge.c). Skipped events are never delivered, so their order
 * among other streams' events does not matter; what the file reader must
 * keep exact is the order of the events around them: a skipped event's
 * timestamp still counts in its stream's merge key (Note [Order within a
 * capability] in merge.c), so decoder_skip tells the largest it passed.
 */
/* Note [Predicted event lengths]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Where an event starts depends on the length of the one before, which is
 * a table load indexed by a byte just loaded: two dependent loads per event
 * put a floor of about 10 cycles under the loop. decoder_skip keeps the
 * three lengths it saw last in registers and adds the matching register,
 * not the loaded value, to the position: the branch that picks it is
 * predicted, so the next event's loads start before this one's have
 * finished. Real logs use few lengths (run/stop/wakeup are 14, 20 and 16
 * bytes), so the guesses nearly always match; a miss only costs a branch
 * mispredict and takes the loaded length.
 */
static void decoder_skip_table(el_decoder *dec, const uint8_t *wanted)
{
    for (unsigned t = 0; t < TYPETAB_DIRECT; t++) {
        uint32_t v = dec->tab->lo[t];
        uint32_t size = v & 0xffffu;
        /* Never passed over, wanted or not: what the merge orders by (see
         * Note [Skipping unwanted events]), and IPE events, framed by what
         * they hold (Note [GHC 9.6's IPE events are one byte short]). */
        if (!v || wanted[t] || t == EL_BLOCK_MARKER || t == EL_CAP_CREATE ||
            t == EL_CAPSET_ASSIGN_CAP || t == EL_IPE)
            dec->skip_len[t] = 0;
        else if (size == EL_SIZE_VARIABLE)
            dec->skip_len[t] = SKIP_VARIABLE;
        else
            dec->skip_len[t] =
                (uint16_t)(10u + size < SKIP_VARIABLE ? 10u + size : 0);
    }
    dec->skip_wanted = wanted;
}

/* Aligned so that the loop's place in the instruction cache does not move
 * with unrelated changes elsewhere in the file: builds that differed only
 * in other functions took 43 to 48 ms for `stats` of a 200 MB flood log,
 * where the profile was the same (this loop and the kernel's copy). */
__attribute__((aligned(64))) uint64_t decoder_skip(el_decoder *dec,
                                                   const uint8_t *wanted,
                                                   uint64_t *counts,
                                                   uint64_t *max_ts)
{
    if (!wanted || dec->state != ST_DATA || dec->pend_len)
        return 0;
    if (dec->skip_wanted != wanted)
        decoder_skip_table(dec, wanted);
    const uint8_t *in = dec->in;
    const uint16_t *len = dec->skip_len;
    size_t pos = dec->in_pos, lim = dec->in_len;
    if (dec->in_block) {
        if (dec->offset >= dec->block_end)
            return 0;
        uint64_t room = dec->block_end - dec->offset;
        if (room < lim - pos)
            lim = pos + (size_t)room;
    }
    uint64_t n = 0, mx = *max_ts;
    size_t g0 = dec->skip_guess[0], g1 = dec->skip_guess[1],
           g2 = dec->skip_guess[2];
    while (lim - pos >= 12) {
        /* Type numbers are big-endian: p[0] is 0 below 256. */
        const uint8_t *p = in + pos;
        if (p[0])
            break;
        size_t total = len[p[1]];
        if (!total)
            break;
        if (total == SKIP_VARIABLE)
            total = 12u + (size_t)bytes_get_u16(p + 10);
        if (total > lim - pos)
            break;
        uint64_t t = bytes_get_u64(p + 2);
        if (t > mx)
            mx = t;
        if (counts)
            counts[p[1]]++;
        n++;
        /* See Note [Predicted event lengths]. */
        if (total == g0) {
            pos += g0;
        } else if (total == g1) {
            pos += g1;
        } else if (total == g2) {
            pos += g2;
        } else {
            pos += total;
            g2 = g1;
            g1 = g0;
            g0 = total;
        }
    }
    dec->skip_guess[0] = g0;
    dec->skip_guess[1] = g1;
    dec->skip_guess[2] = g2;
    dec->offset += pos - dec->in_pos;
    dec->in_pos = pos;
    *max_ts = mx;
    return n;
}

/* Note [Scanning wanted events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The file reader's index pass (Note [Reading a file] in reader.c) does
 * not hand the events a sink wants to the sink either: it checks their
 * payloads and records where they are. So decoder_scan() passes over them
 * too: where decoder_skip's loop stops at a wanted event, scan_wanted()
 * hands it to a callback with its frame and its stream's key before it,
 * and the loop goes on; it stays at one only when the callback refuses it
 * (a payload that would not decode: el_decoder_next() then returns it, and
 * the reader reports the error where a pipe would). scan_wanted takes only
 * what the loop would take (whole, declared, inside the current block, no
 * block marker or capability announcement), so the decoder's state stays
 * what el_decoder_next() would have made it. The skip loop itself is left
 * as it is: a run of wanted events (the samples of a census) costs one call
 * out of it, and scan_wanted takes the whole run in one loop, checking the
 * decoder's state and the block's room once.
 */
static uint64_t scan_wanted(el_decoder *dec, const uint8_t *wanted,
                            uint64_t *counts, uint64_t *max_ts,
                            decoder_wanted_fn fn, void *ctx)
{
    if (dec->state != ST_DATA || dec->pend_len)
        return 0;
    size_t room = dec->in_len - dec->in_pos;
    if (dec->in_block) {
        if (dec->offset >= dec->block_end)
            return 0;
        if (dec->block_end - dec->offset < room)
            room = (size_t)(dec->block_end - dec->offset);
    }
    const uint8_t *p = dec->in + dec->in_pos, *lim = p + room;
    uint16_t cap = dec->in_block ? dec->block_cap : EL_CAP_NONE;
    uint64_t n = 0, mx = *max_ts;
    el_event ev;
    while (lim - p >= 12) {
        uint16_t type = bytes_get_u16(p), size;
        if (type >= TYPETAB_DIRECT || (wanted && !wanted[type]) ||
            type == EL_BLOCK_MARKER || type == EL_CAP_CREATE ||
            type == EL_CAPSET_ASSIGN_CAP || type == EL_IPE ||
            typetab_lookup_inline(dec->tab, type, &size) != 0)
            break;
        size_t head = size == EL_SIZE_VARIABLE ? 12 : 10;
        size_t plen = size == EL_SIZE_VARIABLE ? bytes_get_u16(p + 10) : size;
        if (head + plen > (size_t)(lim - p))
            break;
        event_frame(&ev, p, (uint32_t)head, (uint32_t)plen, dec->offset);
        ev.cap = cap;
        if (fn(ctx, &ev, (uint32_t)(head + plen), mx) != 0)
            break;
        if (ev.ts > mx)
            mx = ev.ts;
        if (counts)
            counts[type]++;
        n++;
        p += head + plen;
        dec->offset += head + plen;
    }
    dec->in_pos = (size_t)(p - dec->in);
    *max_ts = mx;
    return n;
}

uint64_t decoder_scan(el_decoder *dec, const uint8_t *wanted, uint64_t *counts,
                      uint64_t *max_ts, decoder_wanted_fn fn, void *ctx)
{
    uint64_t n = 0;
    for (;;) {
        n += decoder_skip(dec, wanted, counts, max_ts);
        /* wanted events come in runs (the samples of a census) */
        uint64_t k = scan_wanted(dec, wanted, counts, max_ts, fn, ctx);
        if (!k)
            return n;
        n += k;
    }
}

el_status el_decoder_next(el_decoder *dec, el_event *ev)
{
    for (;;) {
        el_status st;
        switch (dec->state) {
        case ST_DATA:
            return decoder_next_event(dec, ev);
        case ST_DONE:
            dec->trailing += dec->in_len - dec->in_pos;
            dec->in_pos = dec->in_len;
            return EL_NEED_MORE;
        case ST_ERROR:
            return dec->err.status;
        default:
            st = decoder_step_header(dec);
            if (st != EL_OK)
                return st;
        }
    }
}

el_status el_decoder_finish(el_decoder *dec)
{
    switch (dec->state) {
    case ST_DONE:
        return EL_OK;
    case ST_ERROR:
        return dec->err.status;
    case ST_DATA:
        if (dec->pend_len)
            return decoder_fail(dec, EL_ERR_TRUNCATED, dec->offset,
                                "input ends inside an event (%zu bytes "
                                "of it present)",
                                dec->pend_len);
        return decoder_fail(dec, EL_ERR_TRUNCATED, dec->offset,
                            "input ends without the end-of-data marker");
    default:
        if (dec->offset == 0 && dec->pend_len == 0)
            return decoder_fail(dec, EL_ERR_FORMAT, 0,
                                "empty input, not a GHC eventlog");
        if (dec->state == ST_HDR_BEGIN)
            return decoder_fail(dec, EL_ERR_FORMAT, 0,
                                "not a GHC eventlog (too short)");
        return decoder_fail(dec, EL_ERR_TRUNCATED, dec->offset,
                            "input ends inside the eventlog header");
    }
}

el_status el_decoder_feed(el_decoder *dec, const uint8_t *buf, size_t len,
                          el_frame_fn fn, void *ctx)
{
    el_event ev;
    el_decoder_input(dec, buf, len);
    for (;;) {
        el_status st = el_decoder_next(dec, &ev);
        if (st == EL_FRAME) {
            if (fn(ctx, &ev))
                return EL_STOP;
        } else if (st == EL_NEED_MORE) {
            return dec->state == ST_DONE ? EL_END : EL_OK;
        } else if (st != EL_END) {
            return st;
        }
    }
}

const el_error *el_decoder_error(const el_decoder *dec)
{
    return &dec->err;
}

const el_typetab *el_decoder_types(const el_decoder *dec)
{
    return dec->tab;
}

int el_decoder_header_done(const el_decoder *dec)
{
    return dec->state == ST_DATA || dec->state == ST_DONE ||
           (dec->state == ST_ERROR && dec->data_offset != 0);
}

uint64_t el_decoder_offset(const el_decoder *dec)
{
    return dec->offset + dec->pend_len;
}

uint64_t decoder_framed_end(const el_decoder *dec)
{
    return dec->offset;
}

uint64_t el_decoder_data_offset(const el_decoder *dec)
{
    return dec->data_offset;
}

size_t el_decoder_pending(const el_decoder *dec)
{
    return dec->pend_len;
}

uint64_t el_decoder_trailing(const el_decoder *dec)
{
    return dec->trailing;
}

void el_decoder_seek(el_decoder *dec, uint64_t offset)
{
    dec->offset = offset;
    dec->pend_len = 0;
    dec->in_block = 0;
    dec->in = NULL;
    dec->in_len = dec->in_pos = 0;
    if (dec->state != ST_ERROR)
        dec->state = ST_DATA;
}

uint16_t decoder_stream(const el_decoder *dec)
{
    return dec->in_block ? dec->block_cap : EL_CAP_NONE;
}
