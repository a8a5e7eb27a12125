/* The heap walk (debug_heap.h: dbg_heap_walk): breadth first from the
 * roots, in batches of WALK_BATCH closures read with one request, whose
 * info tables are fetched with one more; every reachable closure is
 * visited once, with the closure it was first reached from. */
#include "addr_rank.h"
#include "heap_impl.h"
#include "rtscope/base/grow.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WALK_BATCH 2048

typedef struct qent {
    uint64_t addr, parent;
    uint32_t tag;
} qent;

typedef struct walk {
    dbg_heap *h;
    dbg_visit_fn fn;
    void *ctx;
    rankset seen; /* the closures met (only the set: no ranks) */
    qent *q;      /* the queue: q[head .. n) waits */
    size_t n, cap, head;
    qent *batch;     /* what is being read */
    uint64_t *addrs; /* its addresses */
    clo_rec *recs;   /* its records, in out */
    dbg_buf out;
    ptrvec ptrs, infos;
    fieldvec fields; /* what each of ptrs is, when the heap wants it */
    size_t nread;
    int stop;
    int follow; /* queue what the closures point to (a walk) */
} walk;

/* Queue addr (tagged or not, 0 ignored) unless met before; -1 when out of
 * memory. */
static int walk_enqueue(walk *w, uint64_t addr, uint64_t parent, uint32_t tag)
{
    uint64_t a = UNTAG(addr);
    int fresh = a ? rank_add(&w->seen, a) : 0;
    if (fresh <= 0)
        return fresh;
    if (rt_grow((void **)&w->q, &w->cap, w->n, sizeof(*w->q), 4096) != 0)
        return -1;
    w->q[w->n++] = (qent){.addr = a, .parent = parent, .tag = tag};
    return 0;
}

/* Take the next batch off the queue: its size. */
static size_t walk_take(walk *w)
{
    if (w->head >= ((size_t)1 << 16) && w->head * 2 >= w->n) {
        /* what has been read leaves the queue: it holds the BFS's
         * frontier, not the whole heap (at most twice the frontier: the
         * moves cost a copy of each entry at most once on average) */
        memmove(w->q, w->q + w->head, (w->n - w->head) * sizeof(*w->q));
        w->n -= w->head;
        w->head = 0;
    }
    size_t n = w->n - w->head < WALK_BATCH ? w->n - w->head : WALK_BATCH;
    memcpy(w->batch, w->q + w->head, n * sizeof(*w->batch));
    w->head += n;
    w->nread += n;
    for (size_t i = 0; i < n; i++)
        w->addrs[i] = w->batch[i].addr;
    return n;
}

/* Read the batch's closures, then the info tables of all of them and of
 * their frames, and of what the source read ahead, with one request. 0,
 * or -1 with h->err set. */
static int walk_read(walk *w, size_t n)
{
    dbg_heap *h = w->h;
    w->out.len = 0;
    if (h->ops->closures(h->src, w->addrs, n, &w->out) != 0)
        return heap_src_fail(h);
    size_t off = 0;
    w->infos.n = 0;
    for (size_t i = 0; i < n; i++) {
        const clo_rec *r = &w->recs[i];
        if (!clo_rec_next(&w->out, &off, &w->recs[i])) {
            heap_err(h, "malformed closures reply");
            return -1;
        }
        if (clo_rec_infos(r, &w->infos) != 0)
            goto nomem;
    }
    if (off != w->out.len) {
        heap_err(h, "malformed closures reply");
        return -1;
    }
    size_t na = 0;
    const uint64_t *ahead =
        h->ops->ahead_infos ? h->ops->ahead_infos(h->src, &na) : NULL;
    for (size_t i = 0; ahead && i < na; i++)
        if (ptrvec_push(&w->infos, ahead[i]) != 0)
            goto nomem;
    return info_cache_fetch(h, w->infos.v, w->infos.n);
nomem:
    heap_err(h, "out of memory");
    return -1;
}

/* Decode and visit the batch's closure i and queue what it points to.
 * 0, or -1 with h->err set. */
static int walk_visit(walk *w, size_t i)
{
    dbg_heap *h = w->h;
    const clo_rec *rec = &w->recs[i];
    decode_at at = {w->batch[i].addr, w->batch[i].parent};
    if (!rec->size) {
        heap_note_unreadable(h, at.addr, at.parent, "%.*s", (int)rec->whylen,
                             rec->why);
        return 0;
    }
    if (rec->size < WORD) {
        heap_note_unreadable(h, at.addr, at.parent, "a closure of %u bytes",
                             rec->size);
        return 0;
    }
    uint64_t iptr = dbg_rdptr(rec->mem);
    dbg_info *in = info_cache_lookup(h, iptr);
    if (!in || !in->type) {
        heap_note_unreadable(h, at.addr, at.parent,
                             "its info table 0x%" PRIx64 " is not valid", iptr);
        return 0;
    }
    /* decode may issue requests that reuse nothing of `out` */
    decode_closure_fields(h, at, in, rec, &w->ptrs,
                          h->want_fields ? &w->fields : NULL);
    if (h->ops->dead(h->src))
        return heap_src_fail(h);
    uint32_t down = w->batch[i].tag;
    dbg_closure c = {.addr = at.addr,
                     .info = info_cache_lookup(h, iptr), /* may have moved */
                     .size = rec->size,
                     .mem = rec->mem,
                     .ptrs = w->ptrs.v,
                     .nptrs = w->ptrs.n,
                     .fields = h->want_fields ? w->fields.v : NULL,
                     .tag = w->batch[i].tag,
                     .down = &down};
    if (w->fn && w->fn(w->ctx, &c, at.parent)) {
        w->stop = 1;
        return 0;
    }
    for (size_t k = 0; w->follow && k < w->ptrs.n; k++)
        if (walk_enqueue(w, w->ptrs.v[k], at.addr, down) != 0) {
            heap_err(h, "out of memory");
            return -1;
        }
    return 0;
}

static void walk_free(walk *w)
{
    rank_free(&w->seen);
    free(w->q);
    free(w->ptrs.v);
    free(w->fields.v);
    free(w->infos.v);
    free(w->addrs);
    free(w->recs);
    free(w->batch);
    dbg_buf_free(&w->out);
}

/* A walk's batch buffers. 0, or -1 with h->err set (the walk is freed
 * as it is). */
static int walk_alloc(walk *w)
{
    w->addrs = malloc(WALK_BATCH * sizeof(*w->addrs));
    w->recs = malloc(WALK_BATCH * sizeof(*w->recs));
    w->batch = malloc(WALK_BATCH * sizeof(*w->batch));
    heap_err(w->h, "out of memory");
    return w->addrs && w->recs && w->batch ? 0 : -1;
}

int dbg_heap_walk(dbg_heap *h, const uint64_t *roots, size_t nroots,
                  dbg_visit_fn fn, void *ctx)
{
    walk w = {.h = h, .fn = fn, .ctx = ctx, .follow = 1};
    int r = -1;
    if (walk_alloc(&w) != 0)
        goto done;
    if (h->ops->walk_begins)
        h->ops->walk_begins(h->src);
    for (size_t i = 0; i < nroots; i++)
        if (walk_enqueue(&w, roots[i], 0, 0) != 0)
            goto done;
    while (w.head < w.n && !w.stop) {
        size_t n = walk_take(&w);
        if (walk_read(&w, n) != 0)
            goto done;
        for (size_t i = 0; i < n && !w.stop; i++)
            if (walk_visit(&w, i) != 0)
                goto done;
        if (h->progress)
            h->progress(h->progress_ctx, w.nread, w.n - w.head);
    }
    r = 0;
    h->err[0] = '\0';
done:
    walk_free(&w);
    return r;
}

int heap_visit_list(dbg_heap *h, const uint64_t *addrs, size_t n,
                    dbg_visit_fn fn, void *ctx)
{
    walk w = {.h = h, .fn = fn, .ctx = ctx};
    int r = -1;
    if (walk_alloc(&w) != 0)
        goto done;
    for (size_t at = 0; at < n && !w.stop;) {
        size_t k = n - at < WALK_BATCH ? n - at : WALK_BATCH;
        for (size_t i = 0; i < k; i++)
            w.batch[i] = (qent){.addr = addrs[at + i]};
        memcpy(w.addrs, addrs + at, k * sizeof(*w.addrs));
        if (walk_read(&w, k) != 0)
            goto done;
        for (size_t i = 0; i < k && !w.stop; i++)
            if (walk_visit(&w, i) != 0)
                goto done;
        at += k;
    }
    r = 0;
    h->err[0] = '\0';
done:
    walk_free(&w);
    return r;
}
