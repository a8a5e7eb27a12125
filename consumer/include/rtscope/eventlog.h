/*
 * rtscope eventlog library: a streaming reader for GHC eventlogs.
 *
 * The data path is a pipeline:
 *
 *     source (file, pipe, socket)  ->  decoder  ->  merge  ->  sink
 *
 * - el_decoder is a push/pull parser: give it any chunk of bytes with
 *   el_decoder_input(), then call el_decoder_next() until it asks for more.
 *   It never holds more than one event (at most 64 KiB) of input.
 * - el_event_decode() turns the raw frame of one event into typed fields.
 * - el_merge orders events of several capabilities by timestamp with a
 *   bounded buffer (see docs/consumer.md, "The merge bound").
 * - el_reader ties it together for files, pipes and sockets and calls one
 *   sink callback per event, in timestamp order.
 *
 * Ownership: every object is created by a *_new() function and released by
 * the matching *_free(); nothing is global. Pointers inside an el_event
 * (payload, strings) are borrowed and valid only during the callback that
 * delivered it.
 */
#ifndef RTSCOPE_EVENTLOG_H
#define RTSCOPE_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Event type numbers (GHC 9.0.2 plus the GHC 9.2 additions).              */

enum el_type {
    EL_CREATE_THREAD = 0,
    EL_RUN_THREAD = 1,
    EL_STOP_THREAD = 2,
    EL_THREAD_RUNNABLE = 3,
    EL_MIGRATE_THREAD = 4,
    EL_THREAD_WAKEUP = 8,
    EL_GC_START = 9,
    EL_GC_END = 10,
    EL_REQUEST_SEQ_GC = 11,
    EL_REQUEST_PAR_GC = 12,
    EL_CREATE_SPARK_THREAD = 15,
    EL_LOG_MSG = 16,
    EL_BLOCK_MARKER = 18,
    EL_USER_MSG = 19,
    EL_GC_IDLE = 20,
    EL_GC_WORK = 21,
    EL_GC_DONE = 22,
    EL_CAPSET_CREATE = 25,
    EL_CAPSET_DELETE = 26,
    EL_CAPSET_ASSIGN_CAP = 27,
    EL_CAPSET_REMOVE_CAP = 28,
    EL_RTS_IDENTIFIER = 29,
    EL_PROGRAM_ARGS = 30,
    EL_PROGRAM_ENV = 31,
    EL_OSPROCESS_PID = 32,
    EL_OSPROCESS_PPID = 33,
    EL_SPARK_COUNTERS = 34,
    EL_SPARK_CREATE = 35,
    EL_SPARK_DUD = 36,
    EL_SPARK_OVERFLOW = 37,
    EL_SPARK_RUN = 38,
    EL_SPARK_STEAL = 39,
    EL_SPARK_FIZZLE = 40,
    EL_SPARK_GC = 41,
    EL_INTERN_STRING = 42,
    EL_WALL_CLOCK_TIME = 43,
    EL_THREAD_LABEL = 44,
    EL_CAP_CREATE = 45,
    EL_CAP_DELETE = 46,
    EL_CAP_DISABLE = 47,
    EL_CAP_ENABLE = 48,
    EL_HEAP_ALLOCATED = 49,
    EL_HEAP_SIZE = 50,
    EL_HEAP_LIVE = 51,
    EL_HEAP_INFO_GHC = 52,
    EL_GC_STATS_GHC = 53,
    EL_GC_GLOBAL_SYNC = 54,
    EL_TASK_CREATE = 55,
    EL_TASK_MIGRATE = 56,
    EL_TASK_DELETE = 57,
    EL_USER_MARKER = 58,
    EL_HACK_BUG_T9003 = 59,
    EL_MEM_RETURN = 90,  /* GHC 9.2 */
    EL_BLOCKS_SIZE = 91, /* GHC 9.2 */
    EL_HEAP_PROF_BEGIN = 160,
    EL_HEAP_PROF_COST_CENTRE = 161,
    EL_HEAP_PROF_SAMPLE_BEGIN = 162,
    EL_HEAP_PROF_SAMPLE_COST_CENTRE = 163,
    EL_HEAP_PROF_SAMPLE_STRING = 164,
    EL_HEAP_PROF_SAMPLE_END = 165,
    EL_HEAP_BIO_PROF_SAMPLE_BEGIN = 166,
    EL_PROF_SAMPLE_COST_CENTRE = 167,
    EL_PROF_BEGIN = 168,
    EL_IPE = 169, /* GHC 9.2 */
    EL_USER_BINARY_MSG = 181,
    EL_CONC_MARK_BEGIN = 200,
    EL_CONC_MARK_END = 201,
    EL_CONC_SYNC_BEGIN = 202,
    EL_CONC_SYNC_END = 203,
    EL_CONC_SWEEP_BEGIN = 204,
    EL_CONC_SWEEP_END = 205,
    EL_CONC_UPD_REM_SET_FLUSH = 206,
    EL_NONMOVING_HEAP_CENSUS = 207,
    EL_TICKY_COUNTER_DEF = 210,          /* GHC 9.2 */
    EL_TICKY_COUNTER_SAMPLE = 211,       /* GHC 9.2 */
    EL_TICKY_COUNTER_BEGIN_SAMPLE = 212, /* GHC 9.2 */
};

/* rtscope's sampled call stacks (issue #44) are user binary messages
 * (EL_USER_BINARY_MSG) whose payload is ASCII text that starts with one of
 * these prefixes, the space included (Note [rtscope's samples] in
 * event.c); the decoder sets u.binary.sample to the kind, EL_SAMPLE_NONE
 * for any other message. */
/* "rtscope:st NS THREAD FLAGS FRAME..." */
#define EL_TIME_SAMPLE_PREFIX "rtscope:st "
/* "rtscope:sa BYTES THREAD SIZE FLAGS FRAME..." */
#define EL_ALLOC_SAMPLE_PREFIX "rtscope:sa "
#define EL_SAMPLE_PREFIX_LEN 11u
/* The most frames a sample may have (u.binary.stack.depth). */
#define EL_SAMPLE_MAX_DEPTH 65535u
typedef enum el_sample_kind {
    EL_SAMPLE_NONE = 0,  /* an ordinary binary message */
    EL_TIME_SAMPLE = 1,  /* weight in nanoseconds */
    EL_ALLOC_SAMPLE = 2, /* weight in bytes */
} el_sample_kind;

/* A sample's flags (u.binary.stack.flags). */
#define EL_SAMPLE_LATE 0x1u      /* taken after its sample point had passed */
#define EL_SAMPLE_TRUNCATED 0x2u /* the stack was deeper than the limit */

/* Capability number of events that belong to no capability (the RTS's
 * global buffer, or events outside any block). */
#define EL_CAP_NONE 0xffffu

/* Declared size of a variable-size event type in the header. */
#define EL_SIZE_VARIABLE 0xffffu

/* Heap profile breakdowns (EL_HEAP_PROF_BEGIN). 8 is -hi (GHC 9.2). */
enum el_breakdown {
    EL_BREAKDOWN_COST_CENTRE = 1,
    EL_BREAKDOWN_MODULE = 2,
    EL_BREAKDOWN_CLOSURE_DESCR = 3,
    EL_BREAKDOWN_TYPE_DESCR = 4,
    EL_BREAKDOWN_RETAINER = 5,
    EL_BREAKDOWN_BIOGRAPHY = 6,
    EL_BREAKDOWN_CLOSURE_TYPE = 7,
    EL_BREAKDOWN_INFO_TABLE = 8,
};

/* ---------------------------------------------------------------------- */
/* Status codes.                                                           */

typedef enum el_status {
    EL_OK = 0,
    EL_FRAME = 1,          /* el_decoder_next: an event is ready */
    EL_NEED_MORE = 2,      /* el_decoder_next: input exhausted */
    EL_END = 3,            /* end-of-data marker seen */
    EL_ERR_FORMAT = -1,    /* not an eventlog / corrupt data */
    EL_ERR_TRUNCATED = -2, /* input ended inside the header or an event */
    EL_ERR_NOMEM = -3,
    EL_ERR_IO = -4,
    EL_ERR_USAGE = -5, /* API misuse or bad argument */
    EL_STOP = -6,      /* a callback asked to stop */
    EL_AGAIN = 4,      /* el_graph_step: no data yet; poll, then step */
} el_status;

/* An error: what went wrong and the byte offset in the stream where the
 * offending item (event, header record) starts. */
typedef struct el_error {
    el_status status;
    uint64_t offset;
    int sys_errno; /* the errno behind an EL_ERR_IO, or 0 */
    char msg[200];
} el_error;

/* ---------------------------------------------------------------------- */
/* Events.                                                                 */

/* A string inside an event payload: not NUL-terminated, may contain any
 * byte. Borrowed. */
typedef struct el_str {
    const char *ptr;
    size_t len;
} el_str;

typedef struct el_event {
    /* Frame: always filled in by the decoder. */
    uint16_t type;
    uint16_t cap;    /* capability of the enclosing block, or EL_CAP_NONE */
    uint64_t ts;     /* nanoseconds since program start */
    uint64_t offset; /* byte offset of the event in its stream */
    const uint8_t *payload;
    uint32_t payload_len;
    /* Typed fields: filled in by el_event_decode(). Fields trailing the
     * payload that a newer writer appended are ignored; fields an older
     * writer did not write read as zero (see `present`). */
    union {
        struct {
            uint32_t thread;
        } thread; /* 0, 1, 3, 15 */
        struct {
            uint32_t thread;
            uint16_t status;
            uint32_t blocked_on;
        } stop_thread; /* 2 */
        struct {
            uint32_t thread;
            uint16_t cap;
        } thread_cap; /* 4, 8 */
        struct {
            el_str text;
        } msg; /* 16, 19, 58 */
        struct {
            uint32_t size;
            uint64_t end_ts;
            uint16_t cap;
        } block; /* 18 */
        struct {
            uint32_t capset;
            uint16_t type;
        } capset_create; /* 25 */
        struct {
            uint32_t capset;
        } capset; /* 26 */
        struct {
            uint32_t capset;
            uint16_t cap;
        } capset_cap; /* 27, 28 */
        struct {
            uint32_t capset;
            el_str text;
        } capset_str; /* 29 */
        /* 30, 31: NUL-separated strings, trailing NUL removed */
        struct {
            uint32_t capset;
            el_str vec;
        } capset_vec;
        struct {
            uint32_t capset;
            uint32_t pid;
        } pid; /* 32, 33 */
        struct {
            uint64_t created, dud, overflowed, converted, gcd, fizzled,
                remaining;
        } spark_counters; /* 34 */
        struct {
            uint16_t victim_cap;
        } spark_steal; /* 39 */
        struct {
            el_str str;
            uint32_t id;
        } intern_string; /* 42 */
        struct {
            uint32_t capset;
            uint64_t sec;
            uint32_t nsec;
        } wall_clock; /* 43 */
        struct {
            uint32_t thread;
            el_str label;
        } thread_label; /* 44 */
        struct {
            uint16_t cap;
        } cap; /* 45-48, 206 */
        struct {
            uint32_t capset;
            uint64_t bytes;
        } heap; /* 49-51, 91 */
        struct {
            uint32_t capset;
            uint16_t gens;
            uint64_t max_heap_size, alloc_area_size, mblock_size, block_size;
        } heap_info; /* 52 */
        struct {
            uint32_t capset;
            uint16_t gen;
            uint64_t copied, slop, frag;
            uint32_t par_n_threads;
            uint64_t par_max_copied, par_tot_copied;
            uint64_t par_balanced_copied;
            int has_par_balanced_copied;
        } gc_stats; /* 53 */
        struct {
            uint64_t task;
            uint16_t cap;
            uint64_t tid;
        } task_create; /* 55 */
        struct {
            uint64_t task;
            uint16_t cap, new_cap;
        } task_migrate; /* 56 */
        struct {
            uint64_t task;
        } task_delete; /* 57 */
        struct {
            uint32_t capset;
            uint32_t current, needed, returned;
        } mem_return; /* 90 */
        struct {
            uint8_t profile_id;
            uint64_t interval_ns;
            uint32_t breakdown;
            /* module, closure descr, type descr, cost centre, cost centre
             * stack, retainer, biography */
            el_str filters[7];
        } heap_prof_begin; /* 160 */
        struct {
            uint32_t id;
            el_str label, module, srcloc;
            uint8_t flags; /* bit 0: CAF */
        } cost_centre;     /* 161 */
        struct {
            uint64_t era;
        } sample; /* 162, 165 */
        struct {
            uint64_t era;
            uint64_t time;
        } bio_sample; /* 166 */
        struct {
            uint8_t profile_id;
            uint64_t residency;
            uint8_t depth;
            const uint8_t *stack; /* read with el_ccs_id() */
        } sample_cc;              /* 163 */
        struct {
            uint8_t profile_id;
            uint64_t residency;
            el_str label;
        } sample_string; /* 164 */
        struct {
            uint32_t capset;
            uint64_t ticks;
            uint8_t depth;
            const uint8_t *stack; /* read with el_ccs_id() */
        } prof_sample_cc;         /* 167 */
        struct {
            uint64_t tick_interval;
        } prof_begin; /* 168 */
        struct {
            uint64_t info;
            el_str table_name, closure_desc, ty_desc, label, module, srcloc;
        } ipe; /* 169 */
        struct {
            el_str data; /* the whole payload */
            /* el_sample_kind: EL_TIME_SAMPLE or EL_ALLOC_SAMPLE when the
             * message is one of rtscope's samples, its fields in `stack`
             * (see el_sample_kind_of); else EL_SAMPLE_NONE */
            uint8_t sample;
            struct {
                uint64_t weight; /* time: nanoseconds; alloc: bytes */
                uint32_t thread;
                uint32_t size;  /* alloc: the sampled allocation's bytes,
                                   0 when unknown; time: 0 */
                uint16_t flags; /* EL_SAMPLE_LATE, EL_SAMPLE_TRUNCATED */
                uint16_t depth; /* how many frames */
                /* the frames' text (in `data`, up to its end); read
                   them with el_sample_frames() */
                const char *frames;
            } stack;
        } binary; /* 181 */
        struct {
            uint32_t marked;
        } conc_mark_end; /* 201 */
        struct {
            uint8_t log_blk_size;
            uint32_t active_segs, filled_segs, live_blocks;
        } nonmoving_census; /* 207 */
        struct {
            uint64_t id;
            uint16_t arity;
            el_str kinds, name;
            uint64_t info_tbl;
            el_str json;
        } ticky_def; /* 210 */
        struct {
            uint64_t id, entries, allocs, allocd;
        } ticky_sample; /* 211 */
    } u;
    /* Number of payload bytes the decoder understood; the rest is
     * trailing data from a newer writer. */
    uint32_t decoded_len;
    /* 1 if el_event_decode knows this type, 0 if it is opaque. */
    int known;
} el_event;

/* ---------------------------------------------------------------------- */
/* Event-type table, from the eventlog header.                             */

typedef struct el_typetab el_typetab;

el_typetab *el_typetab_new(void);
void el_typetab_free(el_typetab *tab);
/* Declared size of type `num`; returns 0 and sets *size if declared. */
int el_typetab_lookup(const el_typetab *tab, uint16_t num, uint16_t *size);
/* Description from the header, or NULL. */
const char *el_typetab_desc(const el_typetab *tab, uint16_t num);
/* Number of declared types; el_typetab_nth iterates them in order. */
unsigned el_typetab_count(const el_typetab *tab);
uint16_t el_typetab_nth(const el_typetab *tab, unsigned i);
/* Declare a type (used by the decoder and by tests). */
el_status el_typetab_declare(el_typetab *tab, uint16_t num, uint16_t size,
                             const char *desc, size_t desc_len);

/* Name rtscope uses for a type number (stable, lower-case), or NULL. */
const char *el_type_name(uint16_t num);

/* ---------------------------------------------------------------------- */
/* Decoder.                                                                */

typedef struct el_decoder el_decoder;

/* A decoder owns its type table unless one is given: with `shared` set,
 * the decoder skips the header (the stream starts at an event) and uses
 * `shared`, which must outlive it. */
el_decoder *el_decoder_new(const el_typetab *shared);
void el_decoder_free(el_decoder *dec);

/* Give the decoder the next chunk. The decoder reads it in place: keep
 * `buf` alive and unchanged until el_decoder_next() returns EL_NEED_MORE.
 * Passing len == 0 is allowed. */
void el_decoder_input(el_decoder *dec, const uint8_t *buf, size_t len);

/* Next item: EL_FRAME (an event in *ev, frame fields only, valid until the
 * next call; a block marker also has ev->u.block filled in), EL_NEED_MORE,
 * EL_END (end-of-data marker; further input is trailing data), or an error
 * (details in el_decoder_error()). */
el_status el_decoder_next(el_decoder *dec, el_event *ev);

/* Declare the end of input. Returns EL_OK if the stream ended cleanly at
 * the end-of-data marker; EL_ERR_TRUNCATED if it ended before (the error
 * offset is where the last complete event ends); EL_ERR_FORMAT etc. */
el_status el_decoder_finish(el_decoder *dec);

const el_error *el_decoder_error(const el_decoder *dec);
const el_typetab *el_decoder_types(const el_decoder *dec);
/* 1 once the header has been read. */
int el_decoder_header_done(const el_decoder *dec);
/* Offset of the next unread byte of the stream. */
uint64_t el_decoder_offset(const el_decoder *dec);
/* Offset where the data section starts (valid once the header is read). */
uint64_t el_decoder_data_offset(const el_decoder *dec);
/* Bytes of a partly received event held by the decoder. */
size_t el_decoder_pending(const el_decoder *dec);
/* Bytes seen after the end-of-data marker. */
uint64_t el_decoder_trailing(const el_decoder *dec);
/* Re-position a header-less decoder at an event boundary at `offset`
 * (used by the file reader's per-capability cursors). */
void el_decoder_seek(el_decoder *dec, uint64_t offset);

/* Convenience push interface: feed a chunk and call `fn` for every event
 * (frame fields only). Returns EL_OK / EL_END / an error / EL_STOP. */
typedef int (*el_frame_fn)(void *ctx, el_event *ev);
el_status el_decoder_feed(el_decoder *dec, const uint8_t *buf, size_t len,
                          el_frame_fn fn, void *ctx);

/* Fill ev->u from ev->payload. Returns EL_OK, or EL_ERR_FORMAT with a
 * message in *err when the payload is too short for the type's layout. */
el_status el_event_decode(el_event *ev, el_error *err);

/* The kind of rtscope sample a decoded event is: EL_TIME_SAMPLE or
 * EL_ALLOC_SAMPLE for an EL_USER_BINARY_MSG that carries one (its fields
 * in u.binary.stack), else EL_SAMPLE_NONE. */
el_sample_kind el_sample_kind_of(const el_event *ev);
/* The frames of a decoded sample (el_sample_kind_of), innermost first,
 * as info-table addresses in the form of EL_IPE's info field: the first
 * min(depth, max) of them into out[], in one pass over the payload's
 * text; returns how many it wrote (0 for other events). */
size_t el_sample_frames(const el_event *ev, uint64_t *out, size_t max);

/* Cost-centre stacks of a decoded EL_HEAP_PROF_SAMPLE_COST_CENTRE or
 * EL_PROF_SAMPLE_COST_CENTRE event, as ids (the ids of
 * EL_HEAP_PROF_COST_CENTRE events): how deep, and the i-th (0 is the
 * innermost, as the RTS writes them). 0 for other events. */
unsigned el_ccs_depth(const el_event *ev);
uint32_t el_ccs_id(const el_event *ev, unsigned i);

/* ---------------------------------------------------------------------- */
/* Bounded merge of per-capability streams (for pipes and sockets).       */

typedef struct el_merge el_merge;

typedef struct el_merge_stats {
    uint64_t late_events; /* delivered after a later event */
    uint64_t max_late_ns; /* worst lateness */
    uint64_t forced;      /* events released because the buffer was full */
    uint64_t peak_bytes;  /* high-water mark of buffered bytes */
    uint64_t held_out;    /* events released because they waited too long
                             (el_merge_set_hold) */
} el_merge_stats;

/* Events delivered to `fn` in order; `budget` bytes of buffered events at
 * most (0 = default, 16 MiB). Events of one capability keep the order they
 * were pushed in: the RTS may stamp an event a little earlier than one it
 * wrote before it in the same block, and that is not lateness (see Note
 * [Order within a capability] in merge.c). Block markers pushed must have
 * u.block filled in, as el_decoder_next() does. */
el_merge *el_merge_new(size_t budget, el_frame_fn fn, void *ctx);
void el_merge_free(el_merge *m);
/* Hand over one event (frame fields; payload copied if buffered). */
el_status el_merge_push(el_merge *m, const el_event *ev);
/* An event of capability `cap` stamped `ts` was read but not pushed (a
 * sink does not want it): the stream's later events are ordered after it
 * all the same, so a filtering sink sees the order an unfiltered one does. */
el_status el_merge_note(el_merge *m, uint16_t cap, uint64_t ts);
/* The block of capability `cap` (EL_CAP_NONE: the global stream) that
 * ended at end_ts has been pushed whole: that stream will produce nothing
 * earlier (Note [A stream complete up to a time] in merge.c). */
el_status el_merge_block_end(el_merge *m, uint16_t cap, uint64_t end_ts);
/* Deliver everything still buffered (end of stream). */
el_status el_merge_flush(el_merge *m);
/* Live streams: release an event once it has waited `hold_ms` ms (of the
 * monotonic clock) for a quiet stream that might still precede it (0: wait
 * as long as the budget allows, the default). See Note [Holding for a quiet
 * stream] in merge.c. */
void el_merge_set_hold(el_merge *m, unsigned hold_ms);
/* Release what has waited long enough (call it when no data comes). */
el_status el_merge_tick(el_merge *m);
const el_merge_stats *el_merge_get_stats(const el_merge *m);

/* ---------------------------------------------------------------------- */
/* Addresses: the one grammar for where an eventlog comes from.            */

typedef enum el_addr_kind {
    EL_ADDR_STDIN, /* "-" */
    EL_ADDR_FILE,  /* PATH that is not a socket */
    EL_ADDR_UNIX,  /* "unix:PATH", or a PATH that is a socket */
    EL_ADDR_TCP,   /* "tcp:HOST:PORT", "tcp:[V6]:PORT", "tcp:PORT" */
} el_addr_kind;

typedef struct el_hostport {
    char host[256];
    char port[8];
} el_hostport;

typedef struct el_addr {
    el_addr_kind kind;
    char path[4096]; /* EL_ADDR_FILE, EL_ADDR_UNIX */
    el_hostport tcp; /* EL_ADDR_TCP */
} el_addr;

/* Parse an address: "-", "unix:PATH", "tcp:[HOST:]PORT" (HOST defaults to
 * 127.0.0.1; "[::1]" for IPv6), or a PATH, which is a Unix socket if it is
 * one now and a file otherwise (a command that can only follow sockets
 * takes a PATH that is not one yet as a socket to wait for). Returns EL_OK
 * or EL_ERR_USAGE with a message in *err. */
el_status el_addr_parse(const char *spec, el_addr *out, el_error *err);
/* "[HOST:]PORT" (also "[V6]:PORT", ":PORT"), for listening addresses and
 * tcp: addresses; HOST defaults to `default_host`. Port 0 is allowed. */
el_status el_hostport_parse(const char *s, const char *default_host,
                            el_hostport *out, el_error *err);

/* ---------------------------------------------------------------------- */
/* Reader: source -> decoder -> merge -> sink.                             */

/* Sink callback: receives decoded events in timestamp order. Return
 * nonzero to stop. `types` is the header's event-type table. */
typedef int (*el_sink_fn)(void *ctx, const el_event *ev,
                          const el_typetab *types);

#define EL_MERGE_HOLD_MS 2000u
#define EL_MERGE_HOLD_NONE 0xffffffffu

typedef struct el_reader_opts {
    int reconnect;       /* sockets: reconnect when the stream ends */
    int reconnect_max;   /* max reconnect attempts (0 = unlimited) */
    size_t merge_budget; /* bytes, 0 = default */
    /* Files: bytes the reader may use to remember where the events the
     * sink wants are, so that it reads just those (0 = default, 16 MiB;
     * beyond it the file is read whole a second time). */
    size_t index_budget;
    int unordered; /* 1: skip the merge, deliver in file order */
    /* Milliseconds the merge holds an event for a quiet capability
     * (el_merge_set_hold): 0 = EL_MERGE_HOLD_MS for a socket read through
     * an el_graph (el_reader_run, live, export), else no limit;
     * EL_MERGE_HOLD_NONE = no limit. */
    unsigned merge_hold_ms;
    /* Optional: only types with wanted[type] != 0 are decoded and given to
     * the sink (the others are still read, checked for framing, ordered
     * and counted). Saves the decode and the call for events a sink does
     * not look at. NULL: every event. */
    const uint8_t *wanted;
    /* Optional: counts[type] is incremented for every event read. */
    uint64_t *counts;
    /* Optional: called with wait_ctx each time el_reader_run is about to
     * wait for a pipe or socket to send more. A sink that writes what it
     * is given (show) flushes its output here, so a live reader sees an
     * event as soon as the merge releases it, not when a buffer fills. */
    void (*on_wait)(void *wait_ctx);
    void *wait_ctx;
} el_reader_opts;

typedef struct el_reader_result {
    int truncated;         /* input ended before the end-of-data marker */
    uint64_t truncated_at; /* offset of the first byte not decoded */
    uint64_t trailing;     /* bytes after the end-of-data marker */
    uint64_t bytes;        /* bytes read */
    uint64_t events;       /* events read (delivered or not wanted) */
    uint64_t last_ts;      /* latest timestamp seen */
    el_merge_stats merge;
} el_reader_result;

/* The push pipeline (decoder -> merge -> sink) for a caller that reads the
 * bytes itself (a poll loop): el_reader_run reads pipes and sockets with it,
 * so whoever reads a stream gets the same events, errors and warnings.
 * `opts`: wanted, counts, merge_budget, unordered are used. */
typedef struct el_stream el_stream;
el_stream *el_stream_new(const el_reader_opts *opts, el_sink_fn sink,
                         void *ctx);
void el_stream_free(el_stream *s);
/* Push the next bytes; the sink gets every event that can be released.
 * Returns EL_OK (more, please), EL_STOP (the sink asked to stop) or an
 * error (el_stream_error; every event before it was delivered). Once not
 * EL_OK, it stays so. */
el_status el_stream_feed(el_stream *s, const uint8_t *buf, size_t len);
/* The input ended: deliver the rest. EL_OK (see el_stream_result for a
 * truncation or trailing bytes) or an error. */
el_status el_stream_finish(el_stream *s);
const el_reader_result *el_stream_result(el_stream *s);
const el_error *el_stream_error(const el_stream *s);
const el_typetab *el_stream_types(const el_stream *s);
int el_stream_header_done(const el_stream *s);
/* Bytes of the stream taken so far. */
uint64_t el_stream_offset(const el_stream *s);
/* No bytes came for a while: deliver what the merge has held long enough
 * (el_reader_opts.merge_hold_ms). Returns as el_stream_feed. */
el_status el_stream_tick(el_stream *s);

/* The graph: an address read in steps (Note [One graph for every source] in
 * graph.c). Sockets connect without blocking; a step returns EL_AGAIN when
 * a socket has nothing yet: poll el_graph_pollfd's descriptor, then step
 * again. A file is read (exactly merged) in one step. */
typedef struct el_graph el_graph;
/* NULL with *err filled when the address is bad or cannot be opened (for
 * a socket: a refusal seen at once; err->sys_errno says why). */
el_graph *el_graph_new(const char *spec, const el_reader_opts *opts,
                       el_sink_fn sink, void *ctx, el_error *err);
void el_graph_free(el_graph *g);
/* Read at most about `max_bytes` (0: no limit) and deliver. EL_AGAIN, EL_OK
 * (the input ended: el_graph_result), EL_STOP (the sink asked), or an
 * error (el_graph_error). */
el_status el_graph_step(el_graph *g, size_t max_bytes);
/* The descriptor to poll and for what (POLLOUT while connecting, else
 * POLLIN); -1 when the graph is done. */
int el_graph_pollfd(const el_graph *g, short *events);
/* Milliseconds to poll at most before stepping again even without data,
 * so that the merge releases what it has held long enough (a socket's
 * merge_hold_ms); -1: no limit. */
int el_graph_timeout_ms(const el_graph *g);
int el_graph_fd(const el_graph *g);
int el_graph_connected(const el_graph *g);
int el_graph_is_socket(const el_graph *g);
const el_reader_result *el_graph_result(el_graph *g);
const el_error *el_graph_error(const el_graph *g);
int el_graph_header_done(const el_graph *g);
/* The header's event types, once read (streams), else NULL. */
const el_typetab *el_graph_types(const el_graph *g);
/* Bytes of a stream taken so far. */
uint64_t el_graph_offset(const el_graph *g);

/* Read `spec` (an address: el_addr_parse) to the end.
 * Returns EL_OK (also for a truncated stream: see res->truncated), or an
 * error described in *err. */
el_status el_reader_run(const char *spec, const el_reader_opts *opts,
                        el_sink_fn sink, void *ctx, el_reader_result *res,
                        el_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RTSCOPE_EVENTLOG_H */
