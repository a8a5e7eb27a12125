/* Internals of the heap reader, shared by its files: heap.c (the heap),
 * heap_err.c (its errors), info_cache.c, decode.c, walk.c, stub_source.c
 * and rec_source.c. Not a public header: commands see debug_heap.h. */
#ifndef RTSCOPE_HEAP_IMPL_H
#define RTSCOPE_HEAP_IMPL_H

#include "rtscope/base/grow.h"
#include "rtscope/base/hmap.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WORD ((size_t)8)
#define UNTAG(p) ((p) & ~(uint64_t)7)

/* ---- heap_err.c --------------------------------------------------------- */

void heap_err(dbg_heap *h, const char *msg);
/* A closure or frame that cannot be read: counted, and the first few kept
 * with where they are and why, for the warning every command prints. */
void heap_note_unreadable(dbg_heap *h, uint64_t addr, uint64_t parent,
                          const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* After a source call failed: take its message into h->err; returns -1. */
int heap_src_fail(dbg_heap *h);

/* ---- info_cache.c ------------------------------------------------------- */

struct dbg_info_cache {
    dbg_info *infos; /* in the order met; moves when it grows */
    size_t n, cap;
    hmap index; /* info ptr -> index + 1 */
};

/* The cached info table of ptr, or NULL (nothing is fetched). Inline: the
 * walk asks for each closure's. */
static inline dbg_info *info_cache_lookup(dbg_heap *h, uint64_t ptr)
{
    uint64_t v;
    if (!h->cache || !hmap_get(&h->cache->index, ptr, &v))
        return NULL;
    return &h->cache->infos[v - 1];
}
/* Fetch the info tables of the pointers not yet cached (0 is skipped), in
 * one request. 0, or -1 with h->err set. */
int info_cache_fetch(dbg_heap *h, const uint64_t *ptrs, size_t n);
void info_cache_free(dbg_info_cache *c);
/* Free what a source filled into n results (constructor, source). */
void info_results_free(dbg_info *in, size_t n);

/* ---- decode.c ----------------------------------------------------------- */

/* A closure as a source gives it: memory and, for stacks and applications,
 * the stub's pointer map (Note [Pointer maps] in rts/DebugStubLayout.c). */
typedef struct clo_rec {
    const unsigned char *mem, *map;
    uint32_t size, nmap;
    const char *why; /* size 0: why it cannot be read (whylen bytes) */
    uint16_t whylen;
} clo_rec;

/* The next record of a closures reply at *off: 1, or 0 if malformed.
 * Inline, as ptrvec_push: the walk calls them for every closure. */
static inline int clo_rec_next(const dbg_buf *b, size_t *off, clo_rec *r)
{
    size_t o = *off;
    memset(r, 0, sizeof(*r));
    if (b->len - o < 4)
        return 0;
    r->size = dbg_rd32(b->p + o);
    o += 4;
    if (r->size == 0) {
        if (b->len - o < 2)
            return 0;
        r->whylen = dbg_rd16(b->p + o);
        o += 2;
        if (b->len - o < r->whylen)
            return 0;
        r->why = (const char *)b->p + o;
        o += r->whylen;
    } else {
        if (b->len - o < r->size || r->size % WORD)
            return 0;
        r->mem = b->p + o;
        o += r->size;
        if (b->len - o < 4)
            return 0;
        r->nmap = dbg_rd32(b->p + o);
        o += 4;
        if ((r->nmap && r->nmap != r->size / WORD) || b->len - o < r->nmap)
            return 0;
        r->map = r->nmap ? b->p + o : NULL;
        o += r->nmap;
    }
    *off = o;
    return 1;
}
/* The length of the record at p (within len), 0 if malformed. */
size_t clo_rec_len(const unsigned char *p, size_t len);

/* Untagged, nonzero pointers. */
typedef struct ptrvec {
    uint64_t *v;
    size_t n, cap;
} ptrvec;

/* Push UNTAG(x) unless it is 0; -1 when out of memory. */
static inline int ptrvec_push(ptrvec *p, uint64_t x)
{
    x = UNTAG(x);
    if (!x)
        return 0;
    if (rt_grow((void **)&p->v, &p->cap, p->n, sizeof(*p->v), 64) != 0)
        return -1;
    p->v[p->n++] = x;
    return 0;
}

/* The info pointers a record holds, onto out: its own and its frames'
 * (the words its pointer map marks DEBUG_STUB_WORD_FRAME). -1 when out of
 * memory. */
static inline int clo_rec_infos(const clo_rec *r, ptrvec *out)
{
    if (!r->size)
        return 0;
    if (ptrvec_push(out, dbg_rdptr(r->mem)) != 0)
        return -1;
    for (uint32_t k = 0; k < r->nmap; k++)
        if (r->map[k] == DEBUG_STUB_WORD_FRAME &&
            ptrvec_push(out, dbg_rdptr(r->mem + (size_t)k * WORD)) != 0)
            return -1;
    return 0;
}

/* Where a closure is and whence it was reached. */
typedef struct decode_at {
    uint64_t addr, parent;
} decode_at;

/* The pointers of the closure r (info table in) into out (emptied first):
 * its SRT, its pointer fields, its frames' SRTs. What cannot be read is
 * noted (heap_note_unreadable). May fetch info tables and bitmaps. */
void decode_closure(dbg_heap *h, decode_at at, dbg_info *in, const clo_rec *r,
                    ptrvec *out);

/* What each pointer decode_closure finds is (DBG_FIELD values), in step
 * with its pointers. */
typedef struct fieldvec {
    uint64_t *v;
    size_t n, cap;
} fieldvec;

/* decode_closure, and into fields (emptied first; NULL: not wanted) what
 * each pointer is. */
void decode_closure_fields(dbg_heap *h, decode_at at, dbg_info *in,
                           const clo_rec *r, ptrvec *out, fieldvec *fields);

/* ---- walk.c ------------------------------------------------------------- */

/* Visit the closures at addrs (untagged), in that order, as the walk
 * visits them (parent 0) but following nothing. 0, or -1 with h->err. */
int heap_visit_list(dbg_heap *h, const uint64_t *addrs, size_t n,
                    dbg_visit_fn fn, void *ctx);

#endif
