/* Typed decoding of one event's payload, the check that it would decode,
 * and the names of event types: one row of layouts[] per type.
 *
 * Every layout reads fields in order from the payload. A field missing at
 * the end of a fixed-size event is an error unless it is one that older
 * GHCs did not write (marked "optional"); bytes left over after the last
 * field we know are newer additions and are skipped (decoded_len tells how
 * many bytes were understood). */
#include "rtscope/eventlog.h"

#include "bytes.h"
#include "event_impl.h"

#include <stdio.h>
#include <string.h>

typedef struct payload_reader {
    const uint8_t *p;
    uint32_t len, pos;
    const char *missing; /* first field that was not there (or, `bad` set,
                            that was not right) */
    const char *what;    /* what the payload holds, when its type does not
                            say (a binary message's rtscope sample), or NULL */
    uint8_t bad;         /* enum reader_bad: how `missing` went wrong */
    uint8_t more;        /* a sample's text: its last token ended in a space */
    uint32_t bad_at;     /* READ_MALFORMED: the payload byte where it starts */
} payload_reader;

/* How a field went wrong: it was not there, or (a sample's text) it was
 * there but not right (Note [rtscope's samples]). */
enum reader_bad {
    READ_LACKS = 0,
    READ_MALFORMED, /* not a number of its width, an empty token, ... */
    READ_TOO_DEEP,  /* more than EL_SAMPLE_MAX_DEPTH frames */
};

static int reader_need(payload_reader *r, uint32_t n, const char *field)
{
    if (r->missing)
        return 0;
    if (r->len - r->pos < n) {
        r->missing = field;
        return 0;
    }
    return 1;
}

static uint8_t reader_u8(payload_reader *r, const char *field)
{
    if (!reader_need(r, 1, field))
        return 0;
    return r->p[r->pos++];
}

static uint16_t reader_u16(payload_reader *r, const char *field)
{
    if (!reader_need(r, 2, field))
        return 0;
    uint16_t v = bytes_get_u16(r->p + r->pos);
    r->pos += 2;
    return v;
}

static uint32_t reader_u32(payload_reader *r, const char *field)
{
    if (!reader_need(r, 4, field))
        return 0;
    uint32_t v = bytes_get_u32(r->p + r->pos);
    r->pos += 4;
    return v;
}

static uint64_t reader_u64(payload_reader *r, const char *field)
{
    if (!reader_need(r, 8, field))
        return 0;
    uint64_t v = bytes_get_u64(r->p + r->pos);
    r->pos += 8;
    return v;
}

/* The first NUL of p[0, n), or NULL. Most strings of a log are short (a
 * -hi sample's label is about 9 bytes, and there is one a sample): those
 * are searched a word at a time in place, which costs less than the call
 * to memchr. A word's lowest byte flagged by the zero-byte test is its
 * first NUL (a false flag only follows a true one), so the test needs the
 * word's first byte lowest: little-endian. */
static const uint8_t *find_nul(const uint8_t *p, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 32) {
        size_t i = 0;
        for (; n - i >= 8; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            uint64_t z =
                (v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull;
            if (z)
                return p + i + (__builtin_ctzll(z) >> 3);
        }
        for (; i < n; i++)
            if (!p[i])
                return p + i;
        return NULL;
    }
#endif
    return memchr(p, 0, n);
}

/* A NUL-terminated string; the terminator is consumed, not returned. */
static el_str reader_cstr(payload_reader *r, const char *field)
{
    el_str s = {"", 0};
    if (r->missing)
        return s;
    const uint8_t *start = r->p + r->pos;
    const uint8_t *nul = find_nul(start, r->len - r->pos);
    if (!nul) {
        r->missing = field;
        return s;
    }
    s.ptr = (const char *)start;
    s.len = (size_t)(nul - start);
    r->pos += (uint32_t)s.len + 1;
    return s;
}

/* The rest of the payload as one string. */
static el_str reader_rest(payload_reader *r)
{
    el_str s = {"", 0};
    if (r->missing)
        return s;
    s.ptr = (const char *)r->p + r->pos;
    s.len = r->len - r->pos;
    r->pos = r->len;
    return s;
}

static int reader_more(const payload_reader *r)
{
    return !r->missing && r->pos < r->len;
}

/* One function per payload layout: each sets every field of its member of
 * ev->u (a missing field reads as 0 and makes the event an error), so the
 * union is never cleared: this runs once per event. */
typedef void (*layout_decode_fn)(el_event *ev, payload_reader *r);

static void decode_none(el_event *ev, payload_reader *r)
{
    (void)ev;
    (void)r;
}

static void decode_thread(el_event *ev, payload_reader *r)
{
    ev->u.thread.thread = reader_u32(r, "thread");
}

static void decode_stop_thread(el_event *ev, payload_reader *r)
{
    ev->u.stop_thread.thread = reader_u32(r, "thread");
    ev->u.stop_thread.status = reader_u16(r, "status");
    ev->u.stop_thread.blocked_on = reader_u32(r, "blocked-on thread");
}

static void decode_thread_cap(el_event *ev, payload_reader *r)
{
    ev->u.thread_cap.thread = reader_u32(r, "thread");
    ev->u.thread_cap.cap = reader_u16(r, "capability");
}

static void decode_thread_label(el_event *ev, payload_reader *r)
{
    ev->u.thread_label.thread = reader_u32(r, "thread");
    ev->u.thread_label.label = reader_rest(r);
}

static void decode_msg(el_event *ev, payload_reader *r)
{
    ev->u.msg.text = reader_rest(r);
}

/* Note [rtscope's samples]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * rtscope's RTS posts sampled call stacks (issue #44) as GHC's user binary
 * messages (EL_USER_BINARY_MSG, declared in every header GHC writes), not
 * as event types of their own, which upstream may give to events of its
 * own one day (DESIGN.md, "Eventlog"). The payload of a sample is ASCII
 * text, fields separated by exactly one space, no NUL, no newline:
 *
 *   rtscope:st NS THREAD FLAGS FRAME...          a time sample
 *   rtscope:sa BYTES THREAD SIZE FLAGS FRAME...  an allocation sample
 *
 * NS, BYTES (the weight, u64), THREAD (u32), SIZE (u32, 0 when unknown)
 * and FLAGS (u16) are decimal digits, no sign; every token after FLAGS is
 * a frame, an info table's address in 1 to 16 hexadecimal digits (either
 * case, no 0x), innermost first; zero frames is allowed. Text, not binary
 * numbers, because ghc-events before 0.18 (so eventlog2html) fails on a
 * binary message that is not UTF-8, and would fail on the whole eventlog.
 *
 * A payload is a sample when it starts with "rtscope:st " or "rtscope:sa "
 * (the space included): anything else ("rtscope:st2 ..." of a later
 * format, another tool's message, bytes that are not ASCII) is an ordinary
 * binary message, as before. Once the prefix says "sample", a field the
 * payload ends before is missing and a token that is not a number of its
 * width (an empty one from two spaces or a trailing space, a frame of 17
 * digits, more than EL_SAMPLE_MAX_DEPTH frames) is malformed: corrupt
 * data, as a short payload of any type is, never a read past the payload.
 * The decoder reads every token once, so it checks the whole sample and
 * counts its frames; el_sample_frames() reads them again into numbers for
 * whoever wants them. docs/reference.md has the format.
 */
static el_sample_kind payload_sample_kind(const uint8_t *p, uint32_t len)
{
    if (len < EL_SAMPLE_PREFIX_LEN)
        return EL_SAMPLE_NONE;
    if (memcmp(p, EL_TIME_SAMPLE_PREFIX, EL_SAMPLE_PREFIX_LEN) == 0)
        return EL_TIME_SAMPLE;
    if (memcmp(p, EL_ALLOC_SAMPLE_PREFIX, EL_SAMPLE_PREFIX_LEN) == 0)
        return EL_ALLOC_SAMPLE;
    return EL_SAMPLE_NONE;
}

static void reader_malformed(payload_reader *r, const char *field, uint32_t at)
{
    if (r->missing)
        return;
    r->missing = field;
    r->bad = READ_MALFORMED;
    r->bad_at = at;
}

/* After a sample's token: the payload's end, or the one space after it
 * (consumed; r->more says a token follows). Anything else is part of the
 * token, which is then malformed. */
static void reader_token_end(payload_reader *r, const char *field,
                             uint32_t start)
{
    r->more = 0;
    if (r->pos == r->len)
        return;
    if (r->p[r->pos] != ' ') {
        reader_malformed(r, field, start);
        return;
    }
    r->pos++;
    r->more = 1;
}

/* A sample's decimal field of at most `max`. */
static uint64_t reader_dec(payload_reader *r, uint64_t max, const char *field)
{
    if (r->missing)
        return 0;
    uint32_t start = r->pos;
    if (start == r->len) {
        r->missing = field;
        return 0;
    }
    uint64_t v = 0;
    while (r->pos < r->len && r->p[r->pos] >= '0' && r->p[r->pos] <= '9') {
        unsigned d = (unsigned)(r->p[r->pos] - '0');
        if (v > (max - d) / 10) {
            reader_malformed(r, field, start);
            return 0;
        }
        v = v * 10 + d;
        r->pos++;
    }
    if (r->pos == start) {
        reader_malformed(r, field, start);
        return 0;
    }
    reader_token_end(r, field, start);
    return v;
}

/* A hexadecimal digit's value, or -1. */
static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20; /* 'A'-'F' to 'a'-'f', and nothing else to them */
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* A sample's frames: every token left, each 1 to 16 hexadecimal digits.
 * Returns where their text starts and counts them into *depth. */
static const char *reader_frames(payload_reader *r, uint16_t *depth)
{
    const char *frames = (const char *)r->p + r->pos;
    uint32_t n = 0;
    *depth = 0;
    while (r->more && !r->missing) {
        uint32_t start = r->pos;
        while (r->pos < r->len && hex_value(r->p[r->pos]) >= 0)
            r->pos++;
        if (r->pos == start || r->pos - start > 16) {
            reader_malformed(r, "frame", start);
            return frames;
        }
        reader_token_end(r, "frame", start);
        if (n == EL_SAMPLE_MAX_DEPTH) {
            r->missing = "frame";
            r->bad = READ_TOO_DEEP;
            return frames;
        }
        n++;
    }
    *depth = (uint16_t)n;
    return frames;
}

static void decode_binary(el_event *ev, payload_reader *r)
{
    el_sample_kind kind = payload_sample_kind(r->p, r->len);
    ev->u.binary.sample = (uint8_t)kind;
    if (kind == EL_SAMPLE_NONE) {
        ev->u.binary.data = reader_rest(r);
        return;
    }
    ev->u.binary.data.ptr = (const char *)r->p;
    ev->u.binary.data.len = r->len;
    r->what = kind == EL_TIME_SAMPLE ? "time sample" : "allocation sample";
    r->pos = EL_SAMPLE_PREFIX_LEN;
    ev->u.binary.stack.weight = reader_dec(r, UINT64_MAX, "weight");
    ev->u.binary.stack.thread = (uint32_t)reader_dec(r, UINT32_MAX, "thread");
    ev->u.binary.stack.size = kind == EL_ALLOC_SAMPLE
                                  ? (uint32_t)reader_dec(r, UINT32_MAX, "size")
                                  : 0;
    ev->u.binary.stack.flags = (uint16_t)reader_dec(r, UINT16_MAX, "flags");
    ev->u.binary.stack.frames = reader_frames(r, &ev->u.binary.stack.depth);
}

static void decode_block(el_event *ev, payload_reader *r)
{
    ev->u.block.size = reader_u32(r, "block size");
    ev->u.block.end_ts = reader_u64(r, "end time");
    ev->u.block.cap = reader_u16(r, "capability");
}

static void decode_capset_create(el_event *ev, payload_reader *r)
{
    ev->u.capset_create.capset = reader_u32(r, "capset");
    ev->u.capset_create.type = reader_u16(r, "capset type");
}

static void decode_capset(el_event *ev, payload_reader *r)
{
    ev->u.capset.capset = reader_u32(r, "capset");
}

static void decode_capset_cap(el_event *ev, payload_reader *r)
{
    ev->u.capset_cap.capset = reader_u32(r, "capset");
    ev->u.capset_cap.cap = reader_u16(r, "capability");
}

static void decode_capset_str(el_event *ev, payload_reader *r)
{
    ev->u.capset_str.capset = reader_u32(r, "capset");
    ev->u.capset_str.text = reader_rest(r);
}

/* NUL-separated strings; the trailing NULs are not part of the vector. */
static void decode_capset_vec(el_event *ev, payload_reader *r)
{
    ev->u.capset_vec.capset = reader_u32(r, "capset");
    ev->u.capset_vec.vec = reader_rest(r);
    while (ev->u.capset_vec.vec.len &&
           ev->u.capset_vec.vec.ptr[ev->u.capset_vec.vec.len - 1] == 0)
        ev->u.capset_vec.vec.len--;
}

static void decode_pid(el_event *ev, payload_reader *r)
{
    ev->u.pid.capset = reader_u32(r, "capset");
    ev->u.pid.pid = reader_u32(r, "pid");
}

static void decode_wall_clock(el_event *ev, payload_reader *r)
{
    ev->u.wall_clock.capset = reader_u32(r, "capset");
    ev->u.wall_clock.sec = reader_u64(r, "seconds");
    ev->u.wall_clock.nsec = reader_u32(r, "nanoseconds");
}

static void decode_spark_counters(el_event *ev, payload_reader *r)
{
    ev->u.spark_counters.created = reader_u64(r, "created");
    ev->u.spark_counters.dud = reader_u64(r, "dud");
    ev->u.spark_counters.overflowed = reader_u64(r, "overflowed");
    ev->u.spark_counters.converted = reader_u64(r, "converted");
    ev->u.spark_counters.gcd = reader_u64(r, "gcd");
    ev->u.spark_counters.fizzled = reader_u64(r, "fizzled");
    ev->u.spark_counters.remaining = reader_u64(r, "remaining");
}

static void decode_spark_steal(el_event *ev, payload_reader *r)
{
    ev->u.spark_steal.victim_cap = reader_u16(r, "victim capability");
}

static void decode_intern_string(el_event *ev, payload_reader *r)
{
    ev->u.intern_string.str = reader_cstr(r, "string");
    ev->u.intern_string.id = reader_u32(r, "string id");
}

static void decode_cap(el_event *ev, payload_reader *r)
{
    ev->u.cap.cap = reader_u16(r, "capability");
}

static void decode_heap(el_event *ev, payload_reader *r)
{
    ev->u.heap.capset = reader_u32(r, "capset");
    ev->u.heap.bytes = reader_u64(r, "bytes");
}

static void decode_heap_info(el_event *ev, payload_reader *r)
{
    ev->u.heap_info.capset = reader_u32(r, "capset");
    ev->u.heap_info.gens = reader_u16(r, "generations");
    ev->u.heap_info.max_heap_size = reader_u64(r, "max heap size");
    ev->u.heap_info.alloc_area_size = reader_u64(r, "alloc area size");
    ev->u.heap_info.mblock_size = reader_u64(r, "mblock size");
    ev->u.heap_info.block_size = reader_u64(r, "block size");
}

static void decode_gc_stats(el_event *ev, payload_reader *r)
{
    ev->u.gc_stats.capset = reader_u32(r, "capset");
    ev->u.gc_stats.gen = reader_u16(r, "generation");
    ev->u.gc_stats.copied = reader_u64(r, "copied");
    ev->u.gc_stats.slop = reader_u64(r, "slop");
    ev->u.gc_stats.frag = reader_u64(r, "fragmentation");
    ev->u.gc_stats.par_n_threads = reader_u32(r, "parallel threads");
    ev->u.gc_stats.par_max_copied = reader_u64(r, "max copied");
    ev->u.gc_stats.par_tot_copied = reader_u64(r, "total copied");
    ev->u.gc_stats.par_balanced_copied = 0;
    ev->u.gc_stats.has_par_balanced_copied = 0;
    if (reader_more(r)) { /* optional: GHC >= 8.4 */
        ev->u.gc_stats.par_balanced_copied = reader_u64(r, "balanced copied");
        ev->u.gc_stats.has_par_balanced_copied = 1;
    }
}

static void decode_task_create(el_event *ev, payload_reader *r)
{
    ev->u.task_create.task = reader_u64(r, "task");
    ev->u.task_create.cap = reader_u16(r, "capability");
    ev->u.task_create.tid = reader_u64(r, "kernel thread");
}

static void decode_task_migrate(el_event *ev, payload_reader *r)
{
    ev->u.task_migrate.task = reader_u64(r, "task");
    ev->u.task_migrate.cap = reader_u16(r, "capability");
    ev->u.task_migrate.new_cap = reader_u16(r, "new capability");
}

static void decode_task_delete(el_event *ev, payload_reader *r)
{
    ev->u.task_delete.task = reader_u64(r, "task");
}

static void decode_mem_return(el_event *ev, payload_reader *r)
{
    ev->u.mem_return.capset = reader_u32(r, "capset");
    ev->u.mem_return.current = reader_u32(r, "current mblocks");
    ev->u.mem_return.needed = reader_u32(r, "needed mblocks");
    ev->u.mem_return.returned = reader_u32(r, "returned mblocks");
}

static void decode_heap_prof_begin(el_event *ev, payload_reader *r)
{
    ev->u.heap_prof_begin.profile_id = reader_u8(r, "profile id");
    ev->u.heap_prof_begin.interval_ns = reader_u64(r, "interval");
    ev->u.heap_prof_begin.breakdown = reader_u32(r, "breakdown");
    for (int i = 0; i < 7; i++)
        ev->u.heap_prof_begin.filters[i] = reader_cstr(r, "filter");
}

static void decode_cost_centre(el_event *ev, payload_reader *r)
{
    ev->u.cost_centre.id = reader_u32(r, "cost centre id");
    ev->u.cost_centre.label = reader_cstr(r, "label");
    ev->u.cost_centre.module = reader_cstr(r, "module");
    ev->u.cost_centre.srcloc = reader_cstr(r, "source location");
    ev->u.cost_centre.flags = reader_u8(r, "flags");
}

static void decode_sample(el_event *ev, payload_reader *r)
{
    ev->u.sample.era = reader_u64(r, "era");
}

static void decode_bio_sample(el_event *ev, payload_reader *r)
{
    ev->u.bio_sample.era = reader_u64(r, "era");
    ev->u.bio_sample.time = reader_u64(r, "time");
}

/* `depth` cost-centre ids, read later with el_ccs_id(). */
static const uint8_t *reader_stack(payload_reader *r, uint8_t depth)
{
    if (!reader_need(r, 4u * depth, "stack"))
        return NULL;
    const uint8_t *stack = r->p + r->pos;
    r->pos += 4u * depth;
    return stack;
}

static void decode_sample_cc(el_event *ev, payload_reader *r)
{
    ev->u.sample_cc.profile_id = reader_u8(r, "profile id");
    ev->u.sample_cc.residency = reader_u64(r, "residency");
    ev->u.sample_cc.depth = reader_u8(r, "stack depth");
    ev->u.sample_cc.stack = reader_stack(r, ev->u.sample_cc.depth);
}

static void decode_sample_string(el_event *ev, payload_reader *r)
{
    ev->u.sample_string.profile_id = reader_u8(r, "profile id");
    ev->u.sample_string.residency = reader_u64(r, "residency");
    ev->u.sample_string.label = reader_cstr(r, "label");
}

static void decode_prof_sample_cc(el_event *ev, payload_reader *r)
{
    ev->u.prof_sample_cc.capset = reader_u32(r, "capset");
    ev->u.prof_sample_cc.ticks = reader_u64(r, "ticks");
    ev->u.prof_sample_cc.depth = reader_u8(r, "stack depth");
    ev->u.prof_sample_cc.stack = reader_stack(r, ev->u.prof_sample_cc.depth);
}

static void decode_prof_begin(el_event *ev, payload_reader *r)
{
    ev->u.prof_begin.tick_interval = reader_u64(r, "tick interval");
}

static void decode_ipe(el_event *ev, payload_reader *r)
{
    ev->u.ipe.info = reader_u64(r, "info table");
    ev->u.ipe.table_name = reader_cstr(r, "table name");
    ev->u.ipe.closure_desc = reader_cstr(r, "closure type");
    ev->u.ipe.ty_desc = reader_cstr(r, "type");
    ev->u.ipe.label = reader_cstr(r, "label");
    ev->u.ipe.module = reader_cstr(r, "module");
    ev->u.ipe.srcloc = reader_cstr(r, "source location");
    /* GHC 9.6 writes file ":" span even when it has neither (a return
     * frame's table): ":" is no location, as 9.2's empty string */
    if (ev->u.ipe.srcloc.len == 1 && ev->u.ipe.srcloc.ptr[0] == ':')
        ev->u.ipe.srcloc.len = 0;
}

static void decode_conc_mark_end(el_event *ev, payload_reader *r)
{
    ev->u.conc_mark_end.marked = reader_u32(r, "marked objects");
}

static void decode_nonmoving_census(el_event *ev, payload_reader *r)
{
    ev->u.nonmoving_census.log_blk_size = reader_u8(r, "block size");
    ev->u.nonmoving_census.active_segs = reader_u32(r, "active");
    ev->u.nonmoving_census.filled_segs = reader_u32(r, "filled");
    ev->u.nonmoving_census.live_blocks = reader_u32(r, "live blocks");
}

static void decode_ticky_def(el_event *ev, payload_reader *r)
{
    ev->u.ticky_def.id = reader_u64(r, "counter id");
    ev->u.ticky_def.arity = reader_u16(r, "arity");
    ev->u.ticky_def.kinds = reader_cstr(r, "kinds");
    ev->u.ticky_def.name = reader_cstr(r, "name");
    ev->u.ticky_def.info_tbl = 0;
    ev->u.ticky_def.json.ptr = "";
    ev->u.ticky_def.json.len = 0;
    if (reader_more(r)) /* optional: GHC >= 9.4 */
        ev->u.ticky_def.info_tbl = reader_u64(r, "info table");
    if (reader_more(r))
        ev->u.ticky_def.json = reader_cstr(r, "json description");
}

static void decode_ticky_sample(el_event *ev, payload_reader *r)
{
    ev->u.ticky_sample.id = reader_u64(r, "counter id");
    ev->u.ticky_sample.entries = reader_u64(r, "entry count");
    ev->u.ticky_sample.allocs = reader_u64(r, "allocs");
    ev->u.ticky_sample.allocd = reader_u64(r, "allocd");
}

/* Note [Checking a payload without decoding it]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The reader must know whether a wanted event's payload decodes at the
 * place it reads it, in stream order (Note [Payload errors in stream
 * order] in pipeline.c), but decodes it only when it hands it to the sink,
 * which on the file path is after the merge: so each event is decoded
 * once. event_payload_ok() tells without decoding, from the shape of the
 * type's layout in layouts[]:
 *
 *   PAYLOAD_FIXED    fixed fields and perhaps the rest as one string: it
 *                    decodes when it has at least min_len bytes;
 *   PAYLOAD_OPT_U64  min_len bytes of fixed fields then an optional u64
 *                    (GC stats): exactly min_len bytes, or 8 more at least;
 *   PAYLOAD_STRINGS  min_len - nstr bytes of fixed fields then nstr
 *                    NUL-terminated strings: that many NULs after the
 *                    fixed fields (one string: a NUL as the last byte,
 *                    which is how the RTS writes it, says so at once);
 *   PAYLOAD_STACK    min_len bytes of fixed fields, the last a stack depth,
 *                    then 4 bytes a frame;
 *   PAYLOAD_DECODE   anything else (strings with fields after them,
 *                    optional strings, a binary message that may be an
 *                    rtscope sample): decoded to tell. These types are
 *                    rare in a log (IPE's strings are counted, not
 *                    decoded: PAYLOAD_STRINGS), or cheap to decode (a
 *                    binary message: a prefix compared, a sample's text
 *                    read once, every token checked).
 *
 * The table and el_event_decode() are two descriptions of one layout; the
 * unit test test_payload_check_matches_decode holds them together on every
 * type and payload length.
 */
enum payload_shape {
    PAYLOAD_FIXED,
    PAYLOAD_OPT_U64,
    PAYLOAD_STRINGS,
    PAYLOAD_STACK,
    PAYLOAD_DECODE,
};

typedef struct event_layout {
    const char *name; /* el_type_name() */
    layout_decode_fn decode;
    uint8_t min_len; /* the shortest payload that decodes */
    uint8_t shape;   /* enum payload_shape */
    uint8_t nstr;    /* PAYLOAD_STRINGS: how many strings end it */
} event_layout;

/* Every type rtscope knows, by number; a hole is a type it does not. */
static const event_layout layouts[] = {
    [EL_CREATE_THREAD] = {"create-thread", decode_thread, 4, PAYLOAD_FIXED, 0},
    [EL_RUN_THREAD] = {"run-thread", decode_thread, 4, PAYLOAD_FIXED, 0},
    [EL_STOP_THREAD] = {"stop-thread", decode_stop_thread, 10, PAYLOAD_FIXED,
                        0},
    [EL_THREAD_RUNNABLE] = {"thread-runnable", decode_thread, 4, PAYLOAD_FIXED,
                            0},
    [EL_MIGRATE_THREAD] = {"migrate-thread", decode_thread_cap, 6,
                           PAYLOAD_FIXED, 0},
    [EL_THREAD_WAKEUP] = {"thread-wakeup", decode_thread_cap, 6, PAYLOAD_FIXED,
                          0},
    [EL_GC_START] = {"gc-start", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_GC_END] = {"gc-end", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_REQUEST_SEQ_GC] = {"request-seq-gc", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_REQUEST_PAR_GC] = {"request-par-gc", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_CREATE_SPARK_THREAD] = {"create-spark-thread", decode_thread, 4,
                                PAYLOAD_FIXED, 0},
    [EL_LOG_MSG] = {"log-msg", decode_msg, 0, PAYLOAD_FIXED, 0},
    [EL_BLOCK_MARKER] = {"block-marker", decode_block, 14, PAYLOAD_FIXED, 0},
    [EL_USER_MSG] = {"user-msg", decode_msg, 0, PAYLOAD_FIXED, 0},
    [EL_GC_IDLE] = {"gc-idle", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_GC_WORK] = {"gc-work", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_GC_DONE] = {"gc-done", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_CAPSET_CREATE] = {"capset-create", decode_capset_create, 6,
                          PAYLOAD_FIXED, 0},
    [EL_CAPSET_DELETE] = {"capset-delete", decode_capset, 4, PAYLOAD_FIXED, 0},
    [EL_CAPSET_ASSIGN_CAP] = {"capset-assign-cap", decode_capset_cap, 6,
                              PAYLOAD_FIXED, 0},
    [EL_CAPSET_REMOVE_CAP] = {"capset-remove-cap", decode_capset_cap, 6,
                              PAYLOAD_FIXED, 0},
    [EL_RTS_IDENTIFIER] = {"rts-identifier", decode_capset_str, 4,
                           PAYLOAD_FIXED, 0},
    [EL_PROGRAM_ARGS] = {"program-args", decode_capset_vec, 4, PAYLOAD_FIXED,
                         0},
    [EL_PROGRAM_ENV] = {"program-env", decode_capset_vec, 4, PAYLOAD_FIXED, 0},
    [EL_OSPROCESS_PID] = {"osprocess-pid", decode_pid, 8, PAYLOAD_FIXED, 0},
    [EL_OSPROCESS_PPID] = {"osprocess-ppid", decode_pid, 8, PAYLOAD_FIXED, 0},
    [EL_SPARK_COUNTERS] = {"spark-counters", decode_spark_counters, 56,
                           PAYLOAD_FIXED, 0},
    [EL_SPARK_CREATE] = {"spark-create", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_SPARK_DUD] = {"spark-dud", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_SPARK_OVERFLOW] = {"spark-overflow", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_SPARK_RUN] = {"spark-run", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_SPARK_STEAL] = {"spark-steal", decode_spark_steal, 2, PAYLOAD_FIXED, 0},
    [EL_SPARK_FIZZLE] = {"spark-fizzle", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_SPARK_GC] = {"spark-gc", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_INTERN_STRING] = {"intern-string", decode_intern_string, 5,
                          PAYLOAD_DECODE, 0},
    [EL_WALL_CLOCK_TIME] = {"wall-clock-time", decode_wall_clock, 16,
                            PAYLOAD_FIXED, 0},
    [EL_THREAD_LABEL] = {"thread-label", decode_thread_label, 4, PAYLOAD_FIXED,
                         0},
    [EL_CAP_CREATE] = {"cap-create", decode_cap, 2, PAYLOAD_FIXED, 0},
    [EL_CAP_DELETE] = {"cap-delete", decode_cap, 2, PAYLOAD_FIXED, 0},
    [EL_CAP_DISABLE] = {"cap-disable", decode_cap, 2, PAYLOAD_FIXED, 0},
    [EL_CAP_ENABLE] = {"cap-enable", decode_cap, 2, PAYLOAD_FIXED, 0},
    [EL_HEAP_ALLOCATED] = {"heap-allocated", decode_heap, 12, PAYLOAD_FIXED, 0},
    [EL_HEAP_SIZE] = {"heap-size", decode_heap, 12, PAYLOAD_FIXED, 0},
    [EL_HEAP_LIVE] = {"heap-live", decode_heap, 12, PAYLOAD_FIXED, 0},
    [EL_HEAP_INFO_GHC] = {"heap-info", decode_heap_info, 38, PAYLOAD_FIXED, 0},
    [EL_GC_STATS_GHC] = {"gc-stats", decode_gc_stats, 50, PAYLOAD_OPT_U64, 0},
    [EL_GC_GLOBAL_SYNC] = {"gc-global-sync", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_TASK_CREATE] = {"task-create", decode_task_create, 18, PAYLOAD_FIXED,
                        0},
    [EL_TASK_MIGRATE] = {"task-migrate", decode_task_migrate, 12, PAYLOAD_FIXED,
                         0},
    [EL_TASK_DELETE] = {"task-delete", decode_task_delete, 8, PAYLOAD_FIXED, 0},
    [EL_USER_MARKER] = {"user-marker", decode_msg, 0, PAYLOAD_FIXED, 0},
    [EL_HACK_BUG_T9003] = {"hack-bug-t9003", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_MEM_RETURN] = {"mem-return", decode_mem_return, 16, PAYLOAD_FIXED, 0},
    [EL_BLOCKS_SIZE] = {"blocks-size", decode_heap, 12, PAYLOAD_FIXED, 0},
    [EL_HEAP_PROF_BEGIN] = {"heap-prof-begin", decode_heap_prof_begin, 20,
                            PAYLOAD_STRINGS, 7},
    [EL_HEAP_PROF_COST_CENTRE] = {"heap-prof-cost-centre", decode_cost_centre,
                                  8, PAYLOAD_DECODE, 0},
    [EL_HEAP_PROF_SAMPLE_BEGIN] = {"heap-prof-sample-begin", decode_sample, 8,
                                   PAYLOAD_FIXED, 0},
    [EL_HEAP_PROF_SAMPLE_COST_CENTRE] = {"heap-prof-sample-cost-centre",
                                         decode_sample_cc, 10, PAYLOAD_STACK,
                                         0},
    [EL_HEAP_PROF_SAMPLE_STRING] = {"heap-prof-sample-string",
                                    decode_sample_string, 10, PAYLOAD_STRINGS,
                                    1},
    [EL_HEAP_PROF_SAMPLE_END] = {"heap-prof-sample-end", decode_sample, 8,
                                 PAYLOAD_FIXED, 0},
    [EL_HEAP_BIO_PROF_SAMPLE_BEGIN] = {"heap-bio-prof-sample-begin",
                                       decode_bio_sample, 16, PAYLOAD_FIXED, 0},
    [EL_PROF_SAMPLE_COST_CENTRE] = {"prof-sample-cost-centre",
                                    decode_prof_sample_cc, 13, PAYLOAD_STACK,
                                    0},
    [EL_PROF_BEGIN] = {"prof-begin", decode_prof_begin, 8, PAYLOAD_FIXED, 0},
    [EL_IPE] = {"ipe", decode_ipe, 14, PAYLOAD_STRINGS, 6},
    [EL_USER_BINARY_MSG] = {"user-binary-msg", decode_binary, 0, PAYLOAD_DECODE,
                            0},
    [EL_CONC_MARK_BEGIN] = {"conc-mark-begin", decode_none, 0, PAYLOAD_FIXED,
                            0},
    [EL_CONC_MARK_END] = {"conc-mark-end", decode_conc_mark_end, 4,
                          PAYLOAD_FIXED, 0},
    [EL_CONC_SYNC_BEGIN] = {"conc-sync-begin", decode_none, 0, PAYLOAD_FIXED,
                            0},
    [EL_CONC_SYNC_END] = {"conc-sync-end", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_CONC_SWEEP_BEGIN] = {"conc-sweep-begin", decode_none, 0, PAYLOAD_FIXED,
                             0},
    [EL_CONC_SWEEP_END] = {"conc-sweep-end", decode_none, 0, PAYLOAD_FIXED, 0},
    [EL_CONC_UPD_REM_SET_FLUSH] = {"conc-upd-rem-set-flush", decode_cap, 2,
                                   PAYLOAD_FIXED, 0},
    [EL_NONMOVING_HEAP_CENSUS] = {"nonmoving-heap-census",
                                  decode_nonmoving_census, 13, PAYLOAD_FIXED,
                                  0},
    [EL_TICKY_COUNTER_DEF] = {"ticky-counter-def", decode_ticky_def, 12,
                              PAYLOAD_DECODE, 0},
    [EL_TICKY_COUNTER_SAMPLE] = {"ticky-counter-sample", decode_ticky_sample,
                                 32, PAYLOAD_FIXED, 0},
    [EL_TICKY_COUNTER_BEGIN_SAMPLE] = {"ticky-counter-begin-sample",
                                       decode_none, 0, PAYLOAD_FIXED, 0},
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static const event_layout *layout_of(uint16_t type)
{
    return type < NLAYOUTS && layouts[type].decode ? &layouts[type] : NULL;
}

static el_status decode_fail(const el_event *ev, const payload_reader *r,
                             el_error *err)
{
    if (!err)
        return EL_ERR_FORMAT;
    err->status = EL_ERR_FORMAT;
    err->offset = ev->offset;
    const char *type = el_type_name(ev->type);
    if (!r->what)
        snprintf(err->msg, sizeof(err->msg),
                 "corrupt data: %s event (type %u, %u payload bytes) "
                 "lacks its %s field",
                 type, ev->type, ev->payload_len, r->missing);
    else if (r->bad == READ_TOO_DEEP)
        snprintf(err->msg, sizeof(err->msg),
                 "corrupt data: rtscope %s (%s event, type %u, %u payload "
                 "bytes) has more than %u frames",
                 r->what, type, ev->type, ev->payload_len, EL_SAMPLE_MAX_DEPTH);
    else if (r->bad == READ_MALFORMED)
        snprintf(err->msg, sizeof(err->msg),
                 "corrupt data: rtscope %s (%s event, type %u, %u payload "
                 "bytes) has a malformed %s%s at payload byte %u",
                 r->what, type, ev->type, ev->payload_len, r->missing,
                 strcmp(r->missing, "frame") == 0 ? "" : " field", r->bad_at);
    else
        snprintf(err->msg, sizeof(err->msg),
                 "corrupt data: rtscope %s (%s event, type %u, %u payload "
                 "bytes) lacks its %s field",
                 r->what, type, ev->type, ev->payload_len, r->missing);
    return EL_ERR_FORMAT;
}

el_status el_event_decode(el_event *ev, el_error *err)
{
    const event_layout *l = layout_of(ev->type);
    if (!l) {
        ev->known = 0;
        ev->decoded_len = 0;
        return EL_OK;
    }
    payload_reader r = {ev->payload, ev->payload_len, 0, NULL, NULL, 0, 0, 0};
    ev->known = 1;
    l->decode(ev, &r);
    if (r.missing)
        return decode_fail(ev, &r, err);
    ev->decoded_len = r.pos;
    return EL_OK;
}

/* PAYLOAD_STRINGS: `n` NULs in p[0, len). */
static int payload_has_strings(const uint8_t *p, uint32_t len, unsigned n)
{
    if (n == 1 && len && p[len - 1] == 0)
        return 1;
    const uint8_t *end = p + len;
    for (; n; n--) {
        const uint8_t *nul = find_nul(p, (size_t)(end - p));
        if (!nul)
            return 0;
        p = nul + 1;
    }
    return 1;
}

/* See event_impl.h and Note [Checking a payload without decoding it]. */
int event_payload_ok(const el_event *ev)
{
    const event_layout *l = layout_of(ev->type);
    if (!l)
        return 1;
    uint32_t len = ev->payload_len;
    if (len < l->min_len)
        return 0;
    switch (l->shape) {
    case PAYLOAD_FIXED:
        return 1;
    case PAYLOAD_OPT_U64:
        return len == l->min_len || len - l->min_len >= 8;
    case PAYLOAD_STRINGS:
        return payload_has_strings(ev->payload + (l->min_len - l->nstr),
                                   len - (l->min_len - l->nstr), l->nstr);
    case PAYLOAD_STACK:
        return len - l->min_len >= 4u * ev->payload[l->min_len - 1];
    default: {
        el_event scratch = *ev;
        return el_event_decode(&scratch, NULL) == EL_OK;
    }
    }
}

const char *el_type_name(uint16_t num)
{
    const event_layout *l = layout_of(num);
    return l ? l->name : NULL;
}

unsigned el_ccs_depth(const el_event *ev)
{
    if (ev->type == EL_HEAP_PROF_SAMPLE_COST_CENTRE)
        return ev->u.sample_cc.depth;
    if (ev->type == EL_PROF_SAMPLE_COST_CENTRE)
        return ev->u.prof_sample_cc.depth;
    return 0;
}

uint32_t el_ccs_id(const el_event *ev, unsigned i)
{
    const uint8_t *stack = ev->type == EL_HEAP_PROF_SAMPLE_COST_CENTRE
                               ? ev->u.sample_cc.stack
                               : ev->u.prof_sample_cc.stack;
    if (i >= el_ccs_depth(ev))
        return 0;
    return bytes_get_u32(stack + (size_t)4 * i);
}

el_sample_kind el_sample_kind_of(const el_event *ev)
{
    if (ev->type != EL_USER_BINARY_MSG || !ev->known)
        return EL_SAMPLE_NONE;
    return (el_sample_kind)ev->u.binary.sample;
}

size_t el_sample_frames(const el_event *ev, uint64_t *out, size_t max)
{
    if (el_sample_kind_of(ev) == EL_SAMPLE_NONE)
        return 0;
    const char *p = ev->u.binary.stack.frames;
    const char *end = ev->u.binary.data.ptr + ev->u.binary.data.len;
    size_t n = ev->u.binary.stack.depth < max ? ev->u.binary.stack.depth : max;
    /* the decoder checked the text: n tokens of hexadecimal digits, each
       but the last followed by one space (the end bounds it all the same) */
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        int d;
        while (p < end && (d = hex_value((uint8_t)*p)) >= 0) {
            v = v << 4 | (uint64_t)d;
            p++;
        }
        out[i] = v;
        if (p < end)
            p++; /* the space */
    }
    return n;
}
