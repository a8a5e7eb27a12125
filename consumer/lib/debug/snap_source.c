/* A loaded snapshot as a heap source for dbg_heap (debug_snap.h). */
#define _GNU_SOURCE
#include "snap_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* ---- the snapshot as a heap source ------------------------------------ */

static const dbg_snap_clo *find_clo(const dbg_snap *s, uint64_t addr)
{
    size_t lo = 0, hi = s->nclo;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->clo[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nclo && s->clo[lo].addr == addr ? &s->clo[lo] : NULL;
}

static const dbg_snap_bm *find_bm(const dbg_snap_bm *v, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].key == key ? &v[lo] : NULL;
}

static const dbg_snap_info *find_info(const dbg_snap *s, uint64_t ptr)
{
    size_t lo = 0, hi = s->ninfos;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->infos[mid].ptr < ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->ninfos && s->infos[lo].ptr == ptr ? &s->infos[lo] : NULL;
}

static int snap_roots(void *src, uint64_t **out, size_t *n)
{
    dbg_snap *s = src;
    *out = malloc((s->nroots ? s->nroots : 1) * sizeof(**out));
    if (!*out) {
        snap_err(s, "out of memory");
        return -1;
    }
    if (s->nroots)
        memcpy(*out, s->roots, s->nroots * sizeof(**out));
    *n = s->nroots;
    return 0;
}

static int snap_closures(void *src, const uint64_t *addrs, size_t n,
                         dbg_buf *out)
{
    static const char gone[] = "not in the snapshot";
    dbg_snap *s = src;
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        const dbg_snap_clo *c = find_clo(s, addrs[i]);
        if (!c) {
            r = dbg_buf_put32(out, 0) | dbg_buf_put16(out, sizeof(gone) - 1) |
                dbg_buf_put(out, gone, sizeof(gone) - 1);
            continue;
        }
        const dbg_snap_bm *m = find_bm(s->maps, s->nmaps, addrs[i]);
        uint32_t nmap = m && m->n == c->size / WORD ? m->n : 0;
        r = dbg_buf_put32(out, c->size) |
            dbg_buf_put(out, s->mem.p + c->off, c->size) |
            dbg_buf_put32(out, nmap);
        if (nmap)
            r |= dbg_buf_put(out, s->bits.p + m->off, nmap);
    }
    if (r != 0)
        snap_err(s, "out of memory");
    return r ? -1 : 0;
}

static int snap_infos(void *src, const uint64_t *ptrs, size_t n, dbg_info *out)
{
    dbg_snap *s = src;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const dbg_snap_info *in = find_info(s, ptrs[i]);
        if (!in) {
            snap_err(s,
                     "info table 0x%" PRIx64 " is not in the snapshot "
                     "(corrupt snapshot)",
                     ptrs[i]);
            return -1;
        }
        out[i].type = in->type;
        out[i].ptrs = in->ptrs;
        out[i].nptrs = in->nptrs;
        out[i].srt = in->srt;
        out[i].con = dup_or_null(in->con, &bad);
        if (in->nsrc == DBG_SOURCE_FIELDS) {
            for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
                out[i].src[k] = dup_or_null(in->src[k] ? in->src[k] : "", &bad);
            out[i].nsrc = DBG_SOURCE_FIELDS;
        }
    }
    if (bad)
        snap_err(s, "out of memory");
    return bad ? -1 : 0;
}

static int bm_reply(dbg_snap *s, const dbg_snap_bm *b, uint32_t n, dbg_buf *bm)
{
    bm->len = 0;
    if (dbg_buf_put32(bm, n) != 0 ||
        dbg_buf_put(bm, s->bits.p + b->off, n) != 0) {
        snap_err(s, "out of memory");
        return -1;
    }
    return 0;
}

static int snap_stack_bitmap(void *src, uint64_t sp, uint32_t off, dbg_buf *bm)
{
    dbg_snap *s = src;
    const dbg_snap_bm *b = find_bm(s->stack, s->nstack, sp + off);
    if (!b) {
        snap_err(s, "no bitmap for the stack frame at 0x%" PRIx64, sp + off);
        return -1;
    }
    return bm_reply(s, b, b->n, bm);
}

static int snap_fun_bitmap(void *src, uint64_t fun, uint16_t n, dbg_buf *bm)
{
    dbg_snap *s = src;
    const dbg_snap_bm *b = find_bm(s->fun, s->nfun, fun);
    if (!b || b->n < n) {
        snap_err(s, "no argument bitmap for the function 0x%" PRIx64, fun);
        return -1;
    }
    return bm_reply(s, b, n, bm);
}

static int snap_blocks(void *src, dbg_block **out, size_t *n)
{
    dbg_snap *s = src;
    if (!s->have_blocks) {
        snap_err(s, "the snapshot holds no block list (taken with "
                    "--no-blocks)");
        return -1;
    }
    *out = malloc((s->nblocks ? s->nblocks : 1) * sizeof(**out));
    if (!*out) {
        snap_err(s, "out of memory");
        return -1;
    }
    if (s->nblocks)
        memcpy(*out, s->blocks, s->nblocks * sizeof(**out));
    *n = s->nblocks;
    return 0;
}

static const char *snap_error(void *src)
{
    return ((dbg_snap *)src)->err;
}

static int snap_dead(void *src)
{
    (void)src;
    return 0;
}

const dbg_source_ops dbg_source_snap = {
    .name = "snapshot",
    .roots = snap_roots,
    .closures = snap_closures,
    .infos = snap_infos,
    .stack_bitmap = snap_stack_bitmap,
    .fun_bitmap = snap_fun_bitmap,
    .blocks = snap_blocks,
    .error = snap_error,
    .dead = snap_dead,
};
