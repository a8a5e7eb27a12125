/* dup_strings: Haskell Strings ([Char]: (:) cells whose heads are C#) in
 * the heap, grouped by their text (ghc-debug's string analysis): the
 * same text built more than once is memory sharing would save. One walk
 * gathers the cells and characters; dbg_strings_finish decodes each
 * string from its first cell (Note [Finding strings] in dup_strings.c).
 * Names and output are the caller's. */
#ifndef RTSCOPE_DEBUG_DUP_STRINGS_H
#define RTSCOPE_DEBUG_DUP_STRINGS_H

#include "rtscope/base/hmap.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* Characters of a string decoded at most (longer ones are grouped by
 * this prefix and their length). */
#define DBG_STRING_MAX 65536

/* The strings of one text. */
typedef struct dbg_string_group {
    uint64_t h1, h2;  /* hash of the text; first (dup_impl.h) */
    uint64_t example; /* the first cell of the first one met */
    uint64_t count;
    uint64_t length; /* characters */
    uint64_t bytes;  /* its (:) cells' bytes, each */
    int ends;        /* it ends in [] (else in something unevaluated) */
    uint32_t nsamp;
    uint64_t *samp; /* first cells of the first keep of them */
} dbg_string_group;

/* A (:) cell met by the walk (private). */
typedef struct dbg_string_cell {
    uint64_t addr, head, tail;
    uint32_t size;
    uint8_t inner; /* the tail of a cell with a character */
} dbg_string_cell;

typedef struct dbg_strings {
    dbg_heap *h;
    size_t keep; /* samples kept a group */
    int nomem;
    dbg_string_group *groups; /* after dbg_strings_finish: most bytes
                                 wasted first, then most copies */
    size_t n, cap;
    uint64_t strings, bytes; /* all of them */
    uint64_t dup_strings, dup_bytes;
    /* (private) what the walk met */
    dbg_string_cell *cells;
    size_t ncells, cellcap;
    hmap cellof; /* cell address -> index */
    hmap chars;  /* C# address -> its character */
    hmap inds;   /* indirection address -> what it points to */
    hmap nils;   /* [] closures */
    hmap kind;   /* info pointer -> what it is + 1 */
    hmap index;  /* text hash -> group */
} dbg_strings;

void dbg_strings_init(dbg_strings *s, dbg_heap *h, size_t keep);
/* A dbg_visit_fn (ctx: the analysis); stops the walk when out of memory
 * (nomem). */
int dbg_strings_visit(void *ctx, const dbg_closure *c, uint64_t parent);
/* After the walk: the strings decoded and grouped, the groups with more
 * than one string kept. 0, or -1 when out of memory. */
int dbg_strings_finish(dbg_strings *s);
/* The text of the string whose first cell is at addr as UTF-8 into buf
 * (at most len - 1 bytes, cut at a character), from what the walk met:
 * its length in characters. */
size_t dbg_strings_text(const dbg_strings *s, uint64_t addr, char *buf,
                        size_t len);
void dbg_strings_free(dbg_strings *s);

static inline uint64_t dbg_string_wasted(const dbg_string_group *g)
{
    return (g->count - 1) * g->bytes;
}

#endif
