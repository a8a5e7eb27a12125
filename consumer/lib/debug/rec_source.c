/* A recording heap source: see rtscope/debug/rec_source.h. Each answer of
 * the inner source is passed on unchanged and copied into the snapshot. */
#include "rtscope/debug/rec_source.h"
#include "heap_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec_source {
    const dbg_source_ops *ops; /* the inner source */
    void *src;
    void (*src_free)(void *src);
    dbg_snap *snap;
    char err[64]; /* "out of memory", when recording failed */
} rec_source;

/* The inner source's answer r, or -1 with "out of memory" when recording
 * it failed (bad). */
static int rec_done(rec_source *s, int r, int bad)
{
    if (r == 0 && bad) {
        snprintf(s->err, sizeof(s->err), "out of memory");
        return -1;
    }
    if (r != 0)
        s->err[0] = '\0'; /* the inner source's message */
    return r;
}

static int rec_roots(void *src, uint64_t **out, size_t *n)
{
    rec_source *s = src;
    int r = s->ops->roots(s->src, out, n);
    return rec_done(s, r, r == 0 && dbg_snap_set_roots(s->snap, *out, *n));
}

static int rec_closures(void *src, const uint64_t *addrs, size_t n,
                        dbg_buf *out)
{
    rec_source *s = src;
    size_t off = out->len;
    int r = s->ops->closures(s->src, addrs, n, out);
    int bad = 0;
    for (size_t i = 0; r == 0 && !bad && i < n; i++) {
        clo_rec c;
        if (!clo_rec_next(out, &off, &c))
            break; /* the walk says what is malformed */
        if (!c.size)
            continue;
        bad = dbg_snap_add_closure(s->snap, addrs[i], c.mem, c.size) != 0 ||
              (c.nmap &&
               dbg_snap_add_ptrmap(s->snap, addrs[i], c.map, c.nmap) != 0);
    }
    return rec_done(s, r, bad);
}

static int rec_infos(void *src, const uint64_t *ptrs, size_t n, dbg_info *out)
{
    rec_source *s = src;
    int r = s->ops->infos(s->src, ptrs, n, out);
    int bad = 0;
    for (size_t i = 0; r == 0 && !bad && i < n; i++) {
        const char *con = ghc_type_is_constr(out[i].type) ? out[i].con : NULL;
        char *const *srcinfo =
            out[i].nsrc == DBG_SOURCE_FIELDS ? out[i].src : NULL;
        dbg_info in = out[i];
        in.ptr = ptrs[i];
        bad = dbg_snap_add_info(s->snap, &in, con, srcinfo) != 0;
    }
    return rec_done(s, r, bad);
}

static int rec_stack_bitmap(void *src, uint64_t sp, uint32_t off, dbg_buf *bm)
{
    rec_source *s = src;
    int r = s->ops->stack_bitmap(s->src, sp, off, bm);
    return rec_done(
        s, r,
        r == 0 && dbg_snap_add_stack_bitmap(s->snap, sp + off, bm->p, bm->len));
}

static int rec_fun_bitmap(void *src, uint64_t fun, uint16_t n, dbg_buf *bm)
{
    rec_source *s = src;
    int r = s->ops->fun_bitmap(s->src, fun, n, bm);
    return rec_done(
        s, r, r == 0 && dbg_snap_add_fun_bitmap(s->snap, fun, bm->p, bm->len));
}

static int rec_blocks(void *src, dbg_block **out, size_t *n)
{
    rec_source *s = src;
    int r = s->ops->blocks(s->src, out, n);
    return rec_done(s, r, r == 0 && dbg_snap_set_blocks(s->snap, *out, *n));
}

static const char *rec_error(void *src)
{
    rec_source *s = src;
    return s->err[0] ? s->err : s->ops->error(s->src);
}

static int rec_dead(void *src)
{
    rec_source *s = src;
    return s->ops->dead(s->src);
}

static void rec_walk_begins(void *src)
{
    rec_source *s = src;
    if (s->ops->walk_begins)
        s->ops->walk_begins(s->src);
}

static const uint64_t *rec_ahead_infos(void *src, size_t *n)
{
    rec_source *s = src;
    *n = 0;
    return s->ops->ahead_infos ? s->ops->ahead_infos(s->src, n) : NULL;
}

static const dbg_source_ops rec_ops = {
    .name = "recording",
    .roots = rec_roots,
    .closures = rec_closures,
    .infos = rec_infos,
    .stack_bitmap = rec_stack_bitmap,
    .fun_bitmap = rec_fun_bitmap,
    .blocks = rec_blocks,
    .error = rec_error,
    .dead = rec_dead,
    .walk_begins = rec_walk_begins,
    .ahead_infos = rec_ahead_infos,
};

/* dbg_heap.src_free while recording: the inner source too. */
static void rec_free_all(void *src)
{
    rec_source *s = src;
    if (s->src_free)
        s->src_free(s->src);
    free(s);
}

int dbg_heap_record(dbg_heap *h, dbg_snap *snap)
{
    rec_source *s = calloc(1, sizeof(*s));
    if (!s) {
        heap_err(h, "out of memory");
        return -1;
    }
    s->ops = h->ops;
    s->src = h->src;
    s->src_free = h->src_free;
    s->snap = snap;
    snap->ghc_version = h->layout->ghc; /* the heap's GHC, as the stub said */
    h->ops = &rec_ops;
    h->src = s;
    h->src_free = rec_free_all;
    return 0;
}

void dbg_heap_record_stop(dbg_heap *h)
{
    if (h->ops != &rec_ops)
        return;
    rec_source *s = h->src;
    h->ops = s->ops;
    h->src = s->src;
    h->src_free = s->src_free;
    free(s);
}
