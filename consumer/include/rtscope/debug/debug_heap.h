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

#include "rtscope/debug/debug_client.h"

#include <stddef.h>
#include <stdint.h>

/* GHC's closure types (includes/rts/storage/ClosureTypes.h). */
enum dbg_closure_type {
    DBG_CONSTR = 1,
    DBG_CONSTR_NOCAF = 7,
    DBG_FUN = 8,
    DBG_FUN_STATIC = 14,
    DBG_THUNK = 15,
    DBG_THUNK_STATIC = 21,
    DBG_THUNK_SELECTOR = 22,
    DBG_BCO = 23,
    DBG_AP = 24,
    DBG_PAP = 25,
    DBG_AP_STACK = 26,
    DBG_IND = 27,
    DBG_IND_STATIC = 28,
    DBG_RET_BCO = 29,
    DBG_RET_SMALL = 30,
    DBG_RET_BIG = 31,
    DBG_RET_FUN = 32,
    DBG_UPDATE_FRAME = 33,
    DBG_CATCH_FRAME = 34,
    DBG_UNDERFLOW_FRAME = 35,
    DBG_STOP_FRAME = 36,
    DBG_BLOCKING_QUEUE = 37,
    DBG_BLACKHOLE = 38,
    DBG_MVAR_CLEAN = 39,
    DBG_MVAR_DIRTY = 40,
    DBG_TVAR = 41,
    DBG_ARR_WORDS = 42,
    DBG_MUT_ARR_PTRS_CLEAN = 43,
    DBG_MUT_ARR_PTRS_FROZEN_CLEAN = 46,
    DBG_MUT_VAR_CLEAN = 47,
    DBG_MUT_VAR_DIRTY = 48,
    DBG_WEAK = 49,
    DBG_PRIM = 50,
    DBG_MUT_PRIM = 51,
    DBG_TSO = 52,
    DBG_STACK = 53,
    DBG_TREC_CHUNK = 54,
    DBG_ATOMICALLY_FRAME = 55,
    DBG_CATCH_RETRY_FRAME = 56,
    DBG_CATCH_STM_FRAME = 57,
    DBG_WHITEHOLE = 58,
    DBG_SMALL_MUT_ARR_PTRS_CLEAN = 59,
    DBG_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN = 62,
    DBG_COMPACT_NFDATA = 63,
    DBG_N_CLOSURE_TYPES = 64,
};

const char *dbg_closure_type_name(uint32_t type);
int dbg_type_is_constr(uint32_t type);

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

typedef struct dbg_u64map {
    uint64_t *keys; /* 0 = empty slot */
    uint64_t *vals;
    size_t n, cap;
} dbg_u64map;

int dbg_u64map_put(dbg_u64map *m, uint64_t key, uint64_t val); /* key != 0 */
int dbg_u64map_get(const dbg_u64map *m, uint64_t key, uint64_t *val);
void dbg_u64map_free(dbg_u64map *m);

/* A block group of the heap (BLOCKS, without the memory). */
typedef struct dbg_block {
    uint16_t flags; /* bdescr flags: BF_LARGE 2, BF_PINNED 4, ... */
    uint64_t start;
    uint32_t size; /* bytes */
} dbg_block;

struct dbg_snap;

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
} dbg_source_ops;

/* A closure or frame the walk could not read, and why. */
#define DBG_UNREADABLE_KEPT 8
typedef struct dbg_unreadable {
    uint64_t addr;   /* the closure (or the stack holding the frame) */
    uint64_t parent; /* what it was reached from, 0 for a root */
    char why[200];
} dbg_unreadable;

typedef struct dbg_heap {
    dbg_conn *conn; /* the live connection, NULL for a snapshot */
    const dbg_source_ops *ops;
    void *src;
    char err[512];        /* why the last call failed */
    struct dbg_snap *rec; /* if set, what the walk reads is recorded */
    int rec_failed;
    dbg_info *infos;
    size_t ninfos, capinfos;
    dbg_u64map info_index; /* info ptr -> index + 1 */
    size_t unreadable;     /* closures or frames the walk could not read */
    dbg_unreadable unread[DBG_UNREADABLE_KEPT]; /* the first of them */
    size_t nunread;
    /* Called after each batch of the walk, if set: closures visited so far
     * and closures waiting in the queue. */
    void (*progress)(void *ctx, size_t visited, size_t queued);
    void *progress_ctx;
} dbg_heap;

/* A heap read through a live stub connection. */
void dbg_heap_init(dbg_heap *h, dbg_conn *conn);
/* A heap read from any source. */
void dbg_heap_init_source(dbg_heap *h, const dbg_source_ops *ops, void *src);
void dbg_heap_free(dbg_heap *h);
/* The stub connection as a source. */
extern const dbg_source_ops dbg_source_stub;

/* GC roots and saved objects (caller frees); -1 with h->err set. */
int dbg_heap_roots(dbg_heap *h, uint64_t **out, size_t *n);
/* The heap's block groups (caller frees); -1 with h->err set. */
int dbg_heap_blocks(dbg_heap *h, dbg_block **out, size_t *n);

/* The info table at `ptr` (fetched and cached); NULL with h->err set. */
dbg_info *dbg_heap_info(dbg_heap *h, uint64_t ptr);
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

/* A decoded closure, valid during the visit callback. */
typedef struct dbg_closure {
    uint64_t addr;
    dbg_info *info;
    uint32_t size;            /* bytes */
    const unsigned char *mem; /* the closure's `size` bytes, as in memory */
    const uint64_t *ptrs;     /* untagged pointer fields, in order */
    size_t nptrs;
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

#endif
