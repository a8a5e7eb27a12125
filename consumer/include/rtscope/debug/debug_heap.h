/* debug_heap: the heap of a paused debuggee, read through a heap source
 * (a live stub connection, or a snapshot file: debug_snap.h): an
 * info-table cache (type, layout, SRT, constructor name, source
 * information) and closure decoding for GHC 9.0's x86_64 layouts
 * (non-profiled, tables next to code), and a breadth-first walk from the
 * roots that reports every reachable closure once with the closure it was
 * first reached from. Commands written against dbg_heap work unchanged on
 * either source. */
#ifndef RTSCOPE_DEBUG_HEAP_H
#define RTSCOPE_DEBUG_HEAP_H

#include "rtscope/base/closure_types.h"
#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_layout.h"

#include <stddef.h>
#include <stdint.h>

/* One info table, as the stub describes it. */
typedef struct dbg_info {
    uint64_t ptr;   /* the info pointer (as in closure headers) */
    uint32_t type;  /* closure type */
    uint32_t ptrs;  /* layout: pointer words (CONSTR, FUN, THUNK, PRIM) */
    uint32_t nptrs; /* layout: non-pointer words */
    uint64_t srt;   /* SRT closure, 0 if none */
    int srt_known;
    char *con; /* constructor description, GHC's form, or NULL */
    int con_tried;
    char *src[DBG_SOURCE_FIELDS]; /* SOURCE_INFO fields, if nsrc == 6 */
    int nsrc;
    int src_tried;
} dbg_info;

/* A block group of the heap (BLOCKS, without the memory). */
typedef struct dbg_block {
    uint16_t flags; /* bdescr flags: BF_LARGE 2, BF_PINNED 4, ... */
    uint64_t start;
    uint32_t size; /* bytes */
} dbg_block;

/* Where the heap is read from. Every function returns 0, or -1 with a
 * message that error() returns. Replies use the stub protocol's encodings
 * (docs/debug-protocol.md), so a source is a heap the stub could serve. */
typedef struct dbg_source_ops {
    const char *name; /* "stub" or "snapshot" */
    /* GC roots followed by the saved objects; caller frees *out. */
    int (*roots)(void *src, uint64_t **out, size_t *n);
    /* The closures at addrs, a record each in order, as READ_CLOSURES
     * answers: u32be size; then, if size is 0, u16be n and n bytes saying
     * why the closure cannot be read; else its size bytes of memory, u32be
     * m and m bytes of pointer map (one DEBUG_STUB_WORD_* per word; m is 0
     * when the info table tells the layout). */
    int (*closures)(void *src, const uint64_t *addrs, size_t n, dbg_buf *out);
    /* Everything known of each info pointer, into out[i] (ptr set by the
     * caller): type, layout, SRT, constructor description and source
     * information (malloc'd; con_tried and src_tried set). A pointer that
     * is no info table gets type 0. */
    int (*infos)(void *src, const uint64_t *ptrs, size_t n, dbg_info *out);
    /* STACK_BITMAP / FUN_BITMAP replies (u32be n, n bytes of 0/1), for
     * closures that came without a pointer map (snapshots of format 1). */
    int (*stack_bitmap)(void *src, uint64_t sp, uint32_t off, dbg_buf *bm);
    int (*fun_bitmap)(void *src, uint64_t fun, uint16_t n, dbg_buf *bm);
    /* The heap's block groups; caller frees *out. */
    int (*blocks)(void *src, dbg_block **out, size_t *n);
    const char *(*error)(void *src);
    /* Nonzero once the source can answer nothing more (connection lost). */
    int (*dead)(void *src);
    /* A walk begins (may be NULL): what the source kept of an earlier walk
     * may be out of date. */
    void (*walk_begins)(void *src);
    /* The info pointers (tables and frames') of the closures the source
     * read ahead of the walk since the last call, or NULL (may be NULL):
     * the walk describes them with its batch's tables in one request, so
     * a walk down a list whose closures each have a table of their own (a
     * static list of CAFs) pays no round trip a table. Valid until the
     * source's next call. */
    const uint64_t *(*ahead_infos)(void *src, size_t *n);
} dbg_source_ops;

/* A closure or frame the walk could not read, and why. */
#define DBG_UNREADABLE_KEPT 8
typedef struct dbg_unreadable {
    uint64_t addr;   /* the closure (or the stack holding the frame) */
    uint64_t parent; /* what it was reached from, 0 for a root */
    char why[200];
} dbg_unreadable;

/* The info tables met so far (info_cache.c). */
typedef struct dbg_info_cache dbg_info_cache;

typedef struct dbg_heap {
    dbg_conn *conn; /* the live connection, NULL for a snapshot */
    /* the heap's GHC (debug_layout.h): 9.0.2's unless the caller sets the
     * one the stub's VERSION or the snapshot's header names */
    const dbg_layout *layout;
    const dbg_source_ops *ops;
    void *src;
    /* A source the heap made and frees (dbg_heap_init's stub source, a
     * recording wrapper): its free function, or NULL. */
    void (*src_free)(void *src);
    char err[512]; /* why the last call failed */
    dbg_info_cache *cache;
    size_t unreadable; /* closures or frames the walk could not read */
    dbg_unreadable unread[DBG_UNREADABLE_KEPT]; /* the first of them */
    size_t nunread;
    /* Nonzero: the walk tells what each pointer is (dbg_closure.fields). */
    int want_fields;
    /* Called after each batch of the walk, if set: closures visited so far
     * and closures waiting in the queue. */
    void (*progress)(void *ctx, size_t visited, size_t queued);
    void *progress_ctx;
} dbg_heap;

/* A heap read through a live stub connection (stub_source.h), which the
 * caller keeps connected. Returns 0, or -1 when out of memory. */
int dbg_heap_init(dbg_heap *h, dbg_conn *conn);
/* A heap read from any source. */
void dbg_heap_init_source(dbg_heap *h, const dbg_source_ops *ops, void *src);
void dbg_heap_free(dbg_heap *h);

/* GC roots and saved objects (caller frees); -1 with h->err set. */
int dbg_heap_roots(dbg_heap *h, uint64_t **out, size_t *n);
/* The heap's block groups (caller frees); -1 with h->err set. */
int dbg_heap_blocks(dbg_heap *h, dbg_block **out, size_t *n);

/* The info table at `ptr` (fetched and cached); NULL with h->err set. */
dbg_info *dbg_heap_info(dbg_heap *h, uint64_t ptr);
/* The info tables met so far, numbered in the order they were met: how
 * many, number i, and the number of one (commands index by it). */
size_t dbg_heap_ninfos(const dbg_heap *h);
dbg_info *dbg_heap_info_at(const dbg_heap *h, size_t i);
size_t dbg_heap_info_index(const dbg_heap *h, const dbg_info *info);
/* Constructor description (GHC's form, "main:Main.Leak"), NULL if not a
 * constructor or unknown. */
const char *dbg_heap_con_descr(dbg_heap *h, dbg_info *info);
/* Source information (6 fields) or NULL when none is known. */
char *const *dbg_heap_source(dbg_heap *h, dbg_info *info);

/* The module of an info table into out: its provenance's module, else its
 * constructor's. 0 when it has none (the RTS's own tables, tables nothing
 * is known about). */
int dbg_info_module(dbg_heap *h, dbg_info *info, char *out, size_t outlen);
/* Is this one of the RTS's own info tables (stg_...: ARR_WORDS, arrays,
 * generic thunks and applications, TSO, STACK, MVar...)? */
int dbg_info_is_rts(dbg_heap *h, dbg_info *info);

/* "pkg:Mod.Sub.Name" -> "pkg:Mod.Sub:Name" (ghc-debug's display), into
 * out. */
void dbg_con_display(const char *descr, char *out, size_t outlen);
/* Does a constructor description match NAME: "Leak", "Main.Leak",
 * "Main:Leak", "main:Main.Leak" or "main:Main:Leak"? */
int dbg_con_matches(const char *descr, const char *name);

/* What a pointer of a closure is, as the GC meets it: a kind and up to two
 * numbers (28 bits each, saturated), DBG_FIELD(kind, a, b). */
enum dbg_field_kind {
    DBG_FIELD_PAYLOAD,    /* payload word a (a constructor's field, a
                           * function's or thunk's free variable) */
    DBG_FIELD_SRT,        /* the closure's static reference table */
    DBG_FIELD_NAMED,      /* a field of an RTS object: a indexes
                           * dbg_field_names; b an entry (TREC_CHUNK) */
    DBG_FIELD_ELEMENT,    /* element a of an array */
    DBG_FIELD_ARG,        /* argument a of a PAP or AP */
    DBG_FIELD_FRAME_SRT,  /* the SRT of stack frame a (0: the top) */
    DBG_FIELD_FRAME_SLOT, /* word b of stack frame a (1: after its header) */
};
#define DBG_FIELD_MAX ((uint64_t)0xfffffff)
#define DBG_FIELD(kind, a, b)                                                  \
    ((uint64_t)(kind) << 56 |                                                  \
     ((uint64_t)(a) > DBG_FIELD_MAX ? DBG_FIELD_MAX : (uint64_t)(a)) << 28 |   \
     ((uint64_t)(b) > DBG_FIELD_MAX ? DBG_FIELD_MAX : (uint64_t)(b)))
#define DBG_FIELD_KIND(f) ((enum dbg_field_kind)((f) >> 56))
#define DBG_FIELD_A(f) ((uint32_t)(((f) >> 28) & DBG_FIELD_MAX))
#define DBG_FIELD_B(f) ((uint32_t)((f)&DBG_FIELD_MAX))

/* The names of the RTS objects' fields (DBG_FIELD_NAMED). */
enum dbg_named_field {
    DBG_NF_INDIRECTEE,
    DBG_NF_SELECTEE,
    DBG_NF_FUN,
    DBG_NF_VAR,
    DBG_NF_HEAD,
    DBG_NF_TAIL,
    DBG_NF_VALUE,
    DBG_NF_CURRENT_VALUE,
    DBG_NF_WATCH_QUEUE,
    DBG_NF_LINK,
    DBG_NF_BH,
    DBG_NF_OWNER,
    DBG_NF_QUEUE,
    DBG_NF_CFINALIZERS,
    DBG_NF_KEY,
    DBG_NF_FINALIZER,
    DBG_NF_INSTRS,
    DBG_NF_LITERALS,
    DBG_NF_PTRS,
    DBG_NF_PREV_CHUNK,
    DBG_NF_TVAR,
    DBG_NF_EXPECTED,
    DBG_NF_NEW_VALUE,
    DBG_NF_STACKOBJ,
    DBG_NF_TREC,
    DBG_NF_BLOCKED_EXCEPTIONS,
    DBG_NF_BQ,
    DBG_NF_BLOCK_INFO,
    DBG_NF_LABEL, /* a thread's label (GHC 9.6) */
    DBG_NF_N
};
extern const char *const dbg_field_names[DBG_NF_N];

/* A field as a user reads it, into buf: "srt", "indirectee", "frame 3
 * slot 2", "frame 3 srt", "arg 1", "entry 2 tvar"... Returns 1 and sets
 * *index instead for the fields that are a position (a payload word, an
 * array element): the caller writes those as a number. */
int dbg_field_describe(uint64_t field, char *buf, size_t len, uint32_t *index);

/* A decoded closure, valid during the visit callback. */
typedef struct dbg_closure {
    uint64_t addr;
    dbg_info *info;
    uint32_t size;            /* bytes */
    const unsigned char *mem; /* the closure's `size` bytes, as in memory */
    const uint64_t *ptrs;     /* untagged pointer fields, in order */
    size_t nptrs;
    /* What each of ptrs is (DBG_FIELD), when the heap's want_fields is
     * set; else NULL. */
    const uint64_t *fields;
    /* A value passed down the walk's tree: tag is what the visit of the
     * parent left in *down (0 for a root); *down starts as tag, and what
     * the visit leaves there goes to the closures first reached from this
     * one (census --by module passes the owning module down to RTS
     * objects this way). */
    uint32_t tag;
    uint32_t *down;
} dbg_closure;

/* Called once per reachable closure in breadth-first order; parent is the
 * closure it was first reached from (0 for a root). Return nonzero to stop
 * the walk. */
typedef int (*dbg_visit_fn)(void *ctx, const dbg_closure *c, uint64_t parent);

/* Walk the heap from roots (the program must be paused). Returns 0 (also
 * when stopped by the callback) or -1 with h->err set. */
int dbg_heap_walk(dbg_heap *h, const uint64_t *roots, size_t nroots,
                  dbg_visit_fn fn, void *ctx);

/* One closure read on its own (read.c), for browsing: its memory, info
 * table, pointers (as the walk follows them: SRT, fields, frames' SRTs)
 * and, for stacks and applications, the stub's pointer map. */
typedef struct dbg_read {
    dbg_closure c;      /* c.mem and c.ptrs point into the buffers below */
    const uint8_t *map; /* one DEBUG_STUB_WORD_* per word, or NULL */
    uint32_t nmap;
    char why[200];  /* when it could not be read */
    dbg_buf buf;    /* (the reply) */
    uint64_t *ptrv; /* (the pointers) */
    size_t ptrcap;
} dbg_read;

/* Read the closure at addr (the program must be paused): 0, 1 when it
 * cannot be read (r->why says why), -1 with h->err set when the source
 * failed. r starts zeroed; call again to reuse it; dbg_read_free at the
 * end. */
int dbg_heap_read(dbg_heap *h, uint64_t addr, dbg_read *r);
void dbg_read_free(dbg_read *r);

#endif
