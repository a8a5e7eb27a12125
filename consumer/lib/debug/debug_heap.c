/* debug_heap: info tables, closure decoding and the heap walk. See
 * debug_heap.h. Layouts are GHC 9.0's (includes/rts/storage/Closures.h),
 * x86_64, non-profiled: a one-word header, thunks one extra word. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD ((size_t)8)
#define UNTAG(p) ((p) & ~(uint64_t)7)
#define WALK_BATCH 2048

static const char *const type_names[DBG_N_CLOSURE_TYPES] = {
    "INVALID_OBJECT",
    "CONSTR",
    "CONSTR_1_0",
    "CONSTR_0_1",
    "CONSTR_2_0",
    "CONSTR_1_1",
    "CONSTR_0_2",
    "CONSTR_NOCAF",
    "FUN",
    "FUN_1_0",
    "FUN_0_1",
    "FUN_2_0",
    "FUN_1_1",
    "FUN_0_2",
    "FUN_STATIC",
    "THUNK",
    "THUNK_1_0",
    "THUNK_0_1",
    "THUNK_2_0",
    "THUNK_1_1",
    "THUNK_0_2",
    "THUNK_STATIC",
    "THUNK_SELECTOR",
    "BCO",
    "AP",
    "PAP",
    "AP_STACK",
    "IND",
    "IND_STATIC",
    "RET_BCO",
    "RET_SMALL",
    "RET_BIG",
    "RET_FUN",
    "UPDATE_FRAME",
    "CATCH_FRAME",
    "UNDERFLOW_FRAME",
    "STOP_FRAME",
    "BLOCKING_QUEUE",
    "BLACKHOLE",
    "MVAR_CLEAN",
    "MVAR_DIRTY",
    "TVAR",
    "ARR_WORDS",
    "MUT_ARR_PTRS_CLEAN",
    "MUT_ARR_PTRS_DIRTY",
    "MUT_ARR_PTRS_FROZEN_DIRTY",
    "MUT_ARR_PTRS_FROZEN_CLEAN",
    "MUT_VAR_CLEAN",
    "MUT_VAR_DIRTY",
    "WEAK",
    "PRIM",
    "MUT_PRIM",
    "TSO",
    "STACK",
    "TREC_CHUNK",
    "ATOMICALLY_FRAME",
    "CATCH_RETRY_FRAME",
    "CATCH_STM_FRAME",
    "WHITEHOLE",
    "SMALL_MUT_ARR_PTRS_CLEAN",
    "SMALL_MUT_ARR_PTRS_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN",
    "COMPACT_NFDATA",
};

const char *dbg_closure_type_name(uint32_t type)
{
    return type < DBG_N_CLOSURE_TYPES ? type_names[type] : "UNKNOWN";
}

int dbg_type_is_constr(uint32_t type)
{
    return type >= DBG_CONSTR && type <= DBG_CONSTR_NOCAF;
}

static int type_is_fun(uint32_t t)
{
    return t >= DBG_FUN && t <= DBG_FUN_STATIC;
}
static int type_is_frame(uint32_t t)
{
    return (t >= DBG_RET_SMALL && t <= DBG_STOP_FRAME) ||
           (t >= DBG_ATOMICALLY_FRAME && t <= DBG_CATCH_STM_FRAME);
}

/* ---- u64 map ---------------------------------------------------------- */

static size_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

int dbg_u64map_put(dbg_u64map *m, uint64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 1024;
        uint64_t *nk = calloc(nc, sizeof(*nk)), *nv = malloc(nc * sizeof(*nv));
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i])
                continue;
            size_t j = mix(m->keys[i]) & (nc - 1);
            while (nk[j])
                j = (j + 1) & (nc - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = nc;
    }
    size_t j = mix(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->keys[j])
        m->n++;
    m->keys[j] = key;
    m->vals[j] = val;
    return 0;
}

int dbg_u64map_get(const dbg_u64map *m, uint64_t key, uint64_t *val)
{
    if (!m->cap)
        return 0;
    size_t j = mix(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->keys[j] == key) {
            if (val)
                *val = m->vals[j];
            return 1;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return 0;
}

void dbg_u64map_free(dbg_u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

/* ---- sources --------------------------------------------------------- */

static void heap_err(dbg_heap *h, const char *msg)
{
    snprintf(h->err, sizeof(h->err), "%s", msg);
}

/* A closure or frame that cannot be read: counted, and the first few kept
 * with where they are and why, for the warning every command prints. */
static void note_unreadable(dbg_heap *h, uint64_t addr, uint64_t parent,
                            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note_unreadable(dbg_heap *h, uint64_t addr, uint64_t parent,
                            const char *fmt, ...)
{
    h->unreadable++;
    if (h->nunread >= DBG_UNREADABLE_KEPT)
        return;
    dbg_unreadable *u = &h->unread[h->nunread++];
    u->addr = addr;
    u->parent = parent;
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(u->why, sizeof(u->why), fmt, ap);
    va_end(ap);
}

/* After a source call failed: take its message. */
static int src_fail(dbg_heap *h)
{
    const char *e = h->ops->error(h->src);
    heap_err(h, e && *e ? e : "heap source failed");
    return -1;
}

void dbg_heap_init_source(dbg_heap *h, const dbg_source_ops *ops, void *src)
{
    memset(h, 0, sizeof(*h));
    h->ops = ops;
    h->src = src;
}

void dbg_heap_init(dbg_heap *h, dbg_conn *conn)
{
    dbg_heap_init_source(h, &dbg_source_stub, conn);
    h->conn = conn;
}

/* ---- info tables ------------------------------------------------------ */

void dbg_heap_free(dbg_heap *h)
{
    for (size_t i = 0; i < h->ninfos; i++) {
        free(h->infos[i].con);
        for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
            free(h->infos[i].src[k]);
    }
    free(h->infos);
    dbg_u64map_free(&h->info_index);
    memset(h, 0, sizeof(*h));
}

int dbg_heap_roots(dbg_heap *h, uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return h->ops->roots(h->src, out, n) == 0 ? 0 : src_fail(h);
}

int dbg_heap_blocks(dbg_heap *h, dbg_block **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return h->ops->blocks(h->src, out, n) == 0 ? 0 : src_fail(h);
}

static dbg_info *info_lookup(dbg_heap *h, uint64_t ptr)
{
    uint64_t v;
    return dbg_u64map_get(&h->info_index, ptr, &v) ? &h->infos[v - 1] : NULL;
}

/* Fetch the info tables (and SRTs) of the pointers not yet cached. */
static int fetch_infos(dbg_heap *h, const uint64_t *ptrs, size_t n)
{
    uint64_t *want = malloc((n ? n : 1) * sizeof(*want));
    size_t nw = 0;
    if (!want) {
        heap_err(h, "out of memory");
        return -1;
    }
    dbg_u64map seen = {0};
    for (size_t i = 0; i < n; i++) {
        if (!ptrs[i] || info_lookup(h, ptrs[i]) ||
            dbg_u64map_get(&seen, ptrs[i], NULL))
            continue;
        dbg_u64map_put(&seen, ptrs[i], 1);
        want[nw++] = ptrs[i];
    }
    dbg_u64map_free(&seen);
    if (h->ninfos + nw > h->capinfos) {
        size_t nc = (h->ninfos + nw) * 2;
        dbg_info *ni = realloc(h->infos, nc * sizeof(*ni));
        if (!ni) {
            free(want);
            heap_err(h, "out of memory");
            return -1;
        }
        h->infos = ni;
        h->capinfos = nc;
    }
    if (nw == 0 || !h->infos) {
        free(want);
        if (nw)
            heap_err(h, "out of memory");
        return nw ? -1 : 0;
    }
    dbg_info *fresh = h->infos + h->ninfos;
    for (size_t i = 0; i < nw; i++) {
        memset(&fresh[i], 0, sizeof(fresh[i]));
        fresh[i].ptr = want[i];
    }
    int r = h->ops->infos(h->src, want, nw, fresh);
    free(want);
    if (r != 0) { /* what a failed source filled in before it failed */
        for (size_t i = 0; i < nw; i++) {
            free(fresh[i].con);
            for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
                free(fresh[i].src[k]);
        }
        return src_fail(h);
    }
    for (size_t i = 0; i < nw; i++) {
        fresh[i].srt_known = 1;
        fresh[i].con_tried = 1;
        fresh[i].src_tried = 1;
        h->ninfos++;
        if (dbg_u64map_put(&h->info_index, fresh[i].ptr, h->ninfos) != 0) {
            heap_err(h, "out of memory");
            return -1;
        }
    }
    return 0;
}

dbg_info *dbg_heap_info(dbg_heap *h, uint64_t ptr)
{
    dbg_info *in = info_lookup(h, ptr);
    if (in)
        return in;
    if (fetch_infos(h, &ptr, 1) != 0)
        return NULL;
    in = info_lookup(h, ptr);
    if (!in)
        heap_err(h, "no such info table");
    return in;
}

const char *dbg_heap_con_descr(dbg_heap *h, dbg_info *info)
{
    (void)h; /* fetched with the info table */
    return dbg_type_is_constr(info->type) ? info->con : NULL;
}

char *const *dbg_heap_source(dbg_heap *h, dbg_info *info)
{
    (void)h;
    return info->nsrc == DBG_SOURCE_FIELDS ? info->src : NULL;
}

int dbg_info_module(dbg_heap *h, dbg_info *info, char *out, size_t outlen)
{
    char *const *src = dbg_heap_source(h, info);
    if (src && src[4][0]) {
        snprintf(out, outlen, "%s", src[4]);
        return 1;
    }
    const char *con = dbg_heap_con_descr(h, info);
    if (!con)
        return 0;
    char disp[1024];
    dbg_con_display(con, disp, sizeof(disp));
    const char *colon = strchr(disp, ':');
    const char *last = colon ? strrchr(disp, ':') : NULL;
    if (!colon || last <= colon)
        return 0;
    snprintf(out, outlen, "%.*s", (int)(last - colon - 1), colon + 1);
    return 1;
}

int dbg_info_is_rts(dbg_heap *h, dbg_info *info)
{
    char *const *src = dbg_heap_source(h, info);
    return src && strncmp(src[0], "stg_", 4) == 0 && !src[4][0];
}

/* Where the constructor name starts: after the last '.' that ends a module
 * component (upper-case start), so operators like :. keep their dots.
 * Returns the index of that '.', or -1. */
static long con_split(const char *s)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return -1;
    const char *p = colon + 1, *split = NULL;
    while (*p >= 'A' && *p <= 'Z') {
        const char *dot = strchr(p, '.');
        if (!dot || dot[1] == '\0')
            break;
        split = dot;
        p = dot + 1;
    }
    return split ? split - s : -1;
}

void dbg_con_display(const char *descr, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", descr);
    long k = con_split(descr);
    if (k >= 0 && (size_t)k < outlen - 1)
        out[k] = ':';
}

int dbg_con_matches(const char *descr, const char *name)
{
    if (strcmp(descr, name) == 0)
        return 1;
    char disp[1024];
    dbg_con_display(descr, disp, sizeof(disp));
    if (strcmp(disp, name) == 0)
        return 1;
    long k = con_split(descr);
    const char *colon = strchr(descr, ':');
    const char *con = k >= 0 ? descr + k + 1 : (colon ? colon + 1 : descr);
    if (strcmp(con, name) == 0)
        return 1;
    if (colon && k >= 0) { /* Mod.Name or Mod:Name */
        size_t ml = (size_t)(descr + k - (colon + 1));
        if (strncmp(name, colon + 1, ml) == 0 &&
            (name[ml] == '.' || name[ml] == ':') &&
            strcmp(name + ml + 1, con) == 0)
            return 1;
    }
    return 0;
}

/* ---- decoding --------------------------------------------------------- */

typedef struct ptrvec {
    uint64_t *v;
    size_t n, cap;
} ptrvec;

static int pv_push(ptrvec *p, uint64_t x)
{
    x = UNTAG(x);
    if (!x)
        return 0;
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        uint64_t *nv = realloc(p->v, nc * sizeof(*nv));
        if (!nv)
            return -1;
        p->v = nv;
        p->cap = nc;
    }
    p->v[p->n++] = x;
    return 0;
}

static uint64_t word_at(const unsigned char *mem, uint32_t size, size_t i)
{
    return (i + 1) * WORD <= size ? dbg_rdptr(mem + i * WORD) : 0;
}

/* The 32-bit half-word at byte offset `off`, 0 beyond the closure. */
static uint32_t half_at(const unsigned char *mem, uint32_t size, size_t off)
{
    uint32_t x = 0;
    if (off + 4 <= size)
        memcpy(&x, mem + off, 4);
    return x;
}

static void push_words(ptrvec *out, const unsigned char *mem, uint32_t size,
                       size_t first, size_t count)
{
    for (size_t i = first; i < first + count && (i + 1) * WORD <= size; i++)
        pv_push(out, dbg_rdptr(mem + i * WORD));
}

/* A closure as the source gives it: memory and, for stacks and
 * applications, the stub's pointer map (Note [Pointer maps] in
 * rts/DebugStubLayout.c). */
typedef struct clo_rec {
    const unsigned char *mem, *map;
    uint32_t size, nmap;
    const char *why; /* size 0: why it cannot be read (whylen bytes) */
    uint16_t whylen;
} clo_rec;

/* The next record of a closures reply at *off: 1, or 0 if malformed. */
static int next_rec(const dbg_buf *b, size_t *off, clo_rec *r)
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

/* A bitmap reply (u32be n, n bytes) holds what it says. */
static int bitmap_ok(const dbg_buf *bm, size_t atleast)
{
    return bm->len >= 4 && bm->len >= 4 + (size_t)dbg_rd32(bm->p) &&
           dbg_rd32(bm->p) >= atleast;
}

/* What a decoder needs besides the closure: where it is and whence. */
typedef struct decode_at {
    uint64_t addr, parent;
} decode_at;

/* Pointers among n payload words at word index `first`, per the argument
 * bitmap of the function `fun` (FUN_BITMAP): snapshots of format 1. */
static void push_fun_args(dbg_heap *h, decode_at at, uint64_t fun,
                          const unsigned char *mem, uint32_t size, size_t first,
                          uint32_t n, ptrvec *out)
{
    if (n == 0)
        return;
    if (n > 0xffff || (first + n) * WORD > size) {
        note_unreadable(h, at.addr, at.parent,
                        "%u arguments do not fit the closure", n);
        return;
    }
    dbg_buf bm = {0};
    if (h->ops->fun_bitmap(h->src, UNTAG(fun), (uint16_t)n, &bm) == 0 &&
        bitmap_ok(&bm, n)) {
        if (h->rec &&
            dbg_snap_add_fun_bitmap(h->rec, UNTAG(fun), bm.p, bm.len) != 0)
            h->rec_failed = 1;
        for (uint32_t i = 0; i < n; i++)
            if (bm.p[4 + i])
                pv_push(out, word_at(mem, size, first + i));
    } else {
        note_unreadable(h, at.addr, at.parent,
                        "no argument bitmap for the function 0x%" PRIx64,
                        UNTAG(fun));
    }
    dbg_buf_free(&bm);
}

/* The pointers of a STACK object without a pointer map (snapshots of
 * format 1): frame by frame from sp, with the bitmaps the source holds. */
static void decode_stack(dbg_heap *h, decode_at at, const unsigned char *mem,
                         uint32_t size, ptrvec *out)
{
    uint64_t addr = at.addr;
    uint64_t sp = word_at(mem, size, 2);
    uint32_t stack_words = half_at(mem, size, WORD);
    uint64_t end = 3 * WORD + (uint64_t)stack_words * WORD;
    if (end > size || sp < addr + 3 * WORD || sp >= addr + end ||
        (sp - addr) % WORD) {
        note_unreadable(h, addr, at.parent, "stack pointer outside its stack");
        return;
    }
    uint64_t off = sp - addr;
    dbg_buf bm = {0};
    while (off + WORD <= end) {
        uint64_t finfo = dbg_rdptr(mem + off);
        dbg_info *fi = dbg_heap_info(h, finfo);
        if (!fi || !fi->type) {
            note_unreadable(h, addr, at.parent,
                            "stack frame at word %" PRIu64 ": no info table",
                            off / WORD);
            break;
        }
        if (fi->srt)
            pv_push(out, fi->srt);
        if (fi->type == DBG_STOP_FRAME)
            break;
        if (fi->type == DBG_UNDERFLOW_FRAME) {
            pv_push(out, word_at(mem, size, off / WORD + 1));
            break;
        }
        size_t payload = 1;
        if (fi->type == DBG_RET_FUN) {
            pv_push(out, word_at(mem, size, off / WORD + 2));
            payload = 3;
        } else if (!type_is_frame(fi->type)) {
            note_unreadable(h, addr, at.parent,
                            "stack frame at word %" PRIu64 ": a %s", off / WORD,
                            dbg_closure_type_name(fi->type));
            break;
        }
        uint32_t rel = (uint32_t)(off - (sp - addr));
        if (h->ops->stack_bitmap(h->src, sp, rel, &bm) != 0 ||
            !bitmap_ok(&bm, 0)) {
            note_unreadable(h, addr, at.parent,
                            "stack frame at word %" PRIu64 ": no bitmap",
                            off / WORD);
            break;
        }
        if (h->rec &&
            dbg_snap_add_stack_bitmap(h->rec, sp + rel, bm.p, bm.len) != 0)
            h->rec_failed = 1;
        uint32_t n = dbg_rd32(bm.p);
        for (uint32_t i = 0; i < n; i++)
            if (bm.p[4 + i])
                pv_push(out, word_at(mem, size, off / WORD + payload + i));
        off += (payload + n) * WORD;
    }
    dbg_buf_free(&bm);
}

/* The pointers a pointer map marks, and the SRTs of the frames it marks
 * (their info tables were fetched with the batch). */
static void decode_map(dbg_heap *h, decode_at at, const clo_rec *r, ptrvec *out)
{
    for (uint32_t i = 0; i < r->nmap; i++) {
        if (r->map[i] == DEBUG_STUB_WORD_PTR) {
            pv_push(out, dbg_rdptr(r->mem + (size_t)i * WORD));
        } else if (r->map[i] == DEBUG_STUB_WORD_FRAME) {
            dbg_info *fi =
                dbg_heap_info(h, dbg_rdptr(r->mem + (size_t)i * WORD));
            if (!fi || !fi->type)
                note_unreadable(h, at.addr, at.parent,
                                "stack frame at word %u: no info table", i);
            else if (fi->srt)
                pv_push(out, fi->srt);
        }
    }
}

static void decode(dbg_heap *h, decode_at at, dbg_info *in, const clo_rec *r,
                   ptrvec *out)
{
    const unsigned char *mem = r->mem;
    uint32_t size = r->size;
    uint32_t t = in->type;
    out->n = 0;
    if (in->srt)
        pv_push(out, in->srt);
    if (r->nmap &&
        (t == DBG_STACK || t == DBG_AP_STACK || t == DBG_PAP || t == DBG_AP)) {
        decode_map(h, at, r, out);
    } else if (dbg_type_is_constr(t) || type_is_fun(t) || t == DBG_PRIM ||
               t == DBG_MUT_PRIM) {
        push_words(out, mem, size, 1, in->ptrs);
    } else if (t >= DBG_THUNK && t <= DBG_THUNK_STATIC) {
        push_words(out, mem, size, 2, in->ptrs);
    } else {
        switch (t) {
        case DBG_THUNK_SELECTOR:
            push_words(out, mem, size, 2, 1);
            break;
        case DBG_AP: {
            uint32_t nargs = half_at(mem, size, 2 * WORD + 4);
            uint64_t fun = word_at(mem, size, 3);
            pv_push(out, fun);
            push_fun_args(h, at, fun, mem, size, 4, nargs, out);
            break;
        }
        case DBG_PAP: {
            uint32_t nargs = half_at(mem, size, WORD + 4);
            uint64_t fun = word_at(mem, size, 2);
            pv_push(out, fun);
            push_fun_args(h, at, fun, mem, size, 3, nargs, out);
            break;
        }
        case DBG_AP_STACK:
            push_words(out, mem, size, 3, 1);
            note_unreadable(h, at.addr, at.parent,
                            "an AP_STACK without a pointer map (a snapshot "
                            "of format 1): its stack chunk is not followed");
            break;
        case DBG_IND:
        case DBG_IND_STATIC:
        case DBG_BLACKHOLE:
        case DBG_MUT_VAR_CLEAN:
        case DBG_MUT_VAR_DIRTY:
            push_words(out, mem, size, 1, 1);
            break;
        case DBG_BCO:
        case DBG_MVAR_CLEAN:
        case DBG_MVAR_DIRTY:
            push_words(out, mem, size, 1, 3);
            break;
        case DBG_TVAR:
            push_words(out, mem, size, 1, 2);
            break;
        case DBG_BLOCKING_QUEUE:
            push_words(out, mem, size, 1, 4);
            break;
        case DBG_WEAK:
            push_words(out, mem, size, 1, 5);
            break;
        case DBG_TREC_CHUNK: {
            /* prev_chunk, next_entry_idx, then entries of four words
             * (tvar, expected_value, new_value, num_updates) */
            push_words(out, mem, size, 1, 1);
            uint64_t used = word_at(mem, size, 2);
            for (uint64_t e = 0; e < used && e < 16; e++)
                push_words(out, mem, size, 3 + 4 * (size_t)e, 3);
            break;
        }
        case DBG_TSO: {
            /* the fields the GC follows (scavengeTSO): _link, stackobj,
             * trec, blocked_exceptions, bq, and block_info when the
             * thread is blocked on a closure (or not blocked) */
            push_words(out, mem, size, 1, 1);
            push_words(out, mem, size, 3, 1);
            push_words(out, mem, size, 10, 3);
            if (size >= 6 * WORD) {
                uint16_t why;
                memcpy(&why, mem + 4 * WORD + 2, 2); /* host order */
                if (why == 0 || why == 1 || why == 2 || why == 12 ||
                    why == 14 || why == 15)
                    push_words(out, mem, size, 5, 1);
            }
            break;
        }
        case DBG_STACK:
            decode_stack(h, at, mem, size, out);
            break;
        default:
            if (t >= DBG_MUT_ARR_PTRS_CLEAN &&
                t <= DBG_MUT_ARR_PTRS_FROZEN_CLEAN)
                push_words(out, mem, size, 3, (size_t)word_at(mem, size, 1));
            else if (t >= DBG_SMALL_MUT_ARR_PTRS_CLEAN &&
                     t <= DBG_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN)
                push_words(out, mem, size, 2, (size_t)word_at(mem, size, 1));
            break; /* ARR_WORDS, WHITEHOLE, COMPACT_NFDATA...: no pointers */
        }
    }
}

/* ---- the walk --------------------------------------------------------- */

typedef struct qent {
    uint64_t addr, parent;
    uint32_t tag;
} qent;

/* The closures the walk has met: a bitmap of 8-byte words per 1 MiB of
 * address space, found through a map of those pages. A BFS meets nearby
 * addresses together, so this touches far less memory than a hash set of
 * every address (which made the walk wait on cache misses). */
#define PAGE_SHIFT 20
#define PAGE_WORDS ((size_t)1 << (PAGE_SHIFT - 3 - 6)) /* uint64_t per page */

typedef struct addrset {
    dbg_u64map pages; /* (addr >> PAGE_SHIFT) + 1 -> index + 1 */
    uint64_t **bits;
    size_t n, cap;
    uint64_t last_key;
    uint64_t *last;
} addrset;

/* 1 if a was not in the set (and is now), 0 if it was, -1 out of memory. */
static int addrset_add(addrset *s, uint64_t a)
{
    uint64_t key = (a >> PAGE_SHIFT) + 1, v;
    uint64_t *b = s->last;
    if (key != s->last_key || !b) {
        if (dbg_u64map_get(&s->pages, key, &v) && s->bits && v - 1 < s->n) {
            b = s->bits[v - 1];
        } else {
            if (s->n == s->cap || !s->bits) {
                size_t nc = s->cap ? s->cap * 2 : 64;
                uint64_t **nb = realloc(s->bits, nc * sizeof(*nb));
                if (!nb)
                    return -1;
                s->bits = nb;
                s->cap = nc;
            }
            b = calloc(PAGE_WORDS, sizeof(*b));
            if (!b)
                return -1;
            s->bits[s->n++] = b;
            if (dbg_u64map_put(&s->pages, key, s->n) != 0)
                return -1;
        }
        s->last_key = key;
        s->last = b;
    }
    uint64_t w = (a & (((uint64_t)1 << PAGE_SHIFT) - 1)) >> 3;
    uint64_t bit = (uint64_t)1 << (w & 63);
    if (b[w >> 6] & bit)
        return 0;
    b[w >> 6] |= bit;
    return 1;
}

static void addrset_free(addrset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->bits[i]);
    free(s->bits);
    dbg_u64map_free(&s->pages);
    memset(s, 0, sizeof(*s));
}

int dbg_heap_walk(dbg_heap *h, const uint64_t *roots, size_t nroots,
                  dbg_visit_fn fn, void *ctx)
{
    addrset seen = {0};
    qent *q = NULL;
    size_t qn = 0, qcap = 0, qhead = 0;
    dbg_buf out = {0};
    ptrvec ptrs = {0}, infos = {0};
    uint64_t *addrs = malloc(WALK_BATCH * sizeof(*addrs));
    clo_rec *recs = malloc(WALK_BATCH * sizeof(*recs));
    qent *batch = malloc(WALK_BATCH * sizeof(*batch));
    int r = -1, stop = 0;
    heap_err(h, "out of memory");
    if (!addrs || !recs || !batch)
        goto done;
    if (h->conn && h->conn->ahead) { /* read ahead in another pause */
        h->conn->ahead_free(h->conn->ahead);
        h->conn->ahead = NULL;
    }

#define ENQUEUE(a, par)                                                        \
    do {                                                                       \
        uint64_t a_ = UNTAG(a);                                                \
        int new_ = a_ ? addrset_add(&seen, a_) : 0;                            \
        if (new_ < 0)                                                          \
            goto done;                                                         \
        if (new_) {                                                            \
            if (qn == qcap) {                                                  \
                size_t nc_ = qcap ? qcap * 2 : 4096;                           \
                qent *nq_ = realloc(q, nc_ * sizeof(*nq_));                    \
                if (!nq_)                                                      \
                    goto done;                                                 \
                q = nq_;                                                       \
                qcap = nc_;                                                    \
            }                                                                  \
            q[qn].addr = a_;                                                   \
            q[qn].parent = (par);                                              \
            q[qn].tag = down;                                                  \
            qn++;                                                              \
        }                                                                      \
    } while (0)

    uint32_t down = 0;
    size_t nread = 0;
    for (size_t i = 0; i < nroots; i++)
        ENQUEUE(roots[i], 0);

    while (qhead < qn && !stop) {
        if (qhead >= ((size_t)1 << 20) && qhead * 2 >= qn) {
            /* what has been read leaves the queue: it holds the BFS's
             * frontier, not the whole heap */
            memmove(q, q + qhead, (qn - qhead) * sizeof(*q));
            qn -= qhead;
            qhead = 0;
        }
        size_t n = qn - qhead < WALK_BATCH ? qn - qhead : WALK_BATCH;
        memcpy(batch, q + qhead, n * sizeof(*batch));
        qhead += n;
        nread += n;
        for (size_t i = 0; i < n; i++)
            addrs[i] = batch[i].addr;
        out.len = 0;
        if (h->ops->closures(h->src, addrs, n, &out) != 0) {
            src_fail(h);
            goto done;
        }
        /* the records, and the info tables of the whole batch at once:
         * the closures' and their frames' */
        size_t off = 0;
        infos.n = 0;
        for (size_t i = 0; i < n; i++) {
            if (!next_rec(&out, &off, &recs[i])) {
                heap_err(h, "malformed closures reply");
                goto done;
            }
            if (!recs[i].size)
                continue;
            if (pv_push(&infos, dbg_rdptr(recs[i].mem)) != 0)
                goto done;
            for (uint32_t k = 0; k < recs[i].nmap; k++)
                if (recs[i].map[k] == DEBUG_STUB_WORD_FRAME &&
                    pv_push(&infos,
                            dbg_rdptr(recs[i].mem + (size_t)k * WORD)) != 0)
                    goto done;
        }
        if (off != out.len) {
            heap_err(h, "malformed closures reply");
            goto done;
        }
        if (fetch_infos(h, infos.v, infos.n) != 0)
            goto done;
        for (size_t i = 0; i < n && !stop; i++) {
            const clo_rec *rec = &recs[i];
            decode_at at = {batch[i].addr, batch[i].parent};
            if (!rec->size) {
                note_unreadable(h, at.addr, at.parent, "%.*s", (int)rec->whylen,
                                rec->why);
                continue;
            }
            if (rec->size < WORD) {
                note_unreadable(h, at.addr, at.parent, "a closure of %u bytes",
                                rec->size);
                continue;
            }
            uint64_t iptr = dbg_rdptr(rec->mem);
            dbg_info *in = info_lookup(h, iptr);
            if (!in || !in->type) {
                note_unreadable(h, at.addr, at.parent,
                                "its info table 0x%" PRIx64 " is not valid",
                                iptr);
                continue;
            }
            /* decode may issue requests that reuse nothing of `out` */
            decode(h, at, in, rec, &ptrs);
            if (h->ops->dead(h->src)) {
                src_fail(h);
                goto done;
            }
            if (h->rec &&
                (dbg_snap_add_closure(h->rec, at.addr, rec->mem, rec->size) !=
                     0 ||
                 (rec->nmap && dbg_snap_add_ptrmap(h->rec, at.addr, rec->map,
                                                   rec->nmap) != 0)))
                h->rec_failed = 1;
            if (h->rec_failed) {
                heap_err(h, "out of memory");
                goto done;
            }
            in = info_lookup(h, iptr); /* decode may grow the cache */
            down = batch[i].tag;
            dbg_closure c = {.addr = at.addr,
                             .info = in,
                             .size = rec->size,
                             .mem = rec->mem,
                             .ptrs = ptrs.v,
                             .nptrs = ptrs.n,
                             .tag = batch[i].tag,
                             .down = &down};
            if (fn && fn(ctx, &c, at.parent)) {
                stop = 1;
                break;
            }
            for (size_t k = 0; k < ptrs.n; k++)
                ENQUEUE(ptrs.v[k], at.addr);
        }
        if (h->progress)
            h->progress(h->progress_ctx, nread, qn - qhead);
    }
    r = 0;
    h->err[0] = '\0';
#undef ENQUEUE
done:
    addrset_free(&seen);
    free(q);
    free(ptrs.v);
    free(infos.v);
    free(addrs);
    free(recs);
    free(batch);
    dbg_buf_free(&out);
    return r;
}

/* ---- the stub as a source --------------------------------------------- */

static int stub_roots(void *src, uint64_t **out, size_t *n)
{
    dbg_conn *c = src;
    uint64_t *r1, *r2;
    size_t n1, n2;
    if (dbg_ptr_list(c, DEBUG_STUB_CMD_ROOTS, &r1, &n1) != 0)
        return -1;
    if (dbg_ptr_list(c, DEBUG_STUB_CMD_SAVED_OBJECTS, &r2, &n2) != 0) {
        free(r1);
        return -1;
    }
    uint64_t *all = realloc(r1, (n1 + n2 + 1) * sizeof(*all));
    if (!all) {
        free(r1);
        free(r2);
        snprintf(c->err, sizeof(c->err), "out of memory");
        return -1;
    }
    if (n2)
        memcpy(all + n1, r2, n2 * sizeof(*all));
    free(r2);
    *out = all;
    *n = n1 + n2;
    return 0;
}

/* Closures the stub read ahead (Note [Reading ahead] in
 * rts/DebugStubRequest.c): address -> their record in buf. Each is used
 * once (the walk reads a closure once); the whole cache is dropped when it
 * grows past AHEAD_MAX_BYTES, which costs requests, never correctness. */
#define AHEAD_BUDGET 4096
#define AHEAD_WHEN_FEWER 128 /* a narrow frontier: a wide one fills batches */
#define AHEAD_MAX_BYTES ((size_t)64 << 20)
typedef struct ahead_cache {
    dbg_u64map index; /* addr -> offset in buf + 1 */
    dbg_buf buf;
} ahead_cache;

static void ahead_free(void *p)
{
    ahead_cache *a = p;
    dbg_u64map_free(&a->index);
    dbg_buf_free(&a->buf);
    free(a);
}

/* The length of the record at p (within len), 0 if malformed. */
static size_t rec_len(const unsigned char *p, size_t len)
{
    dbg_buf b = {(unsigned char *)p, len, len};
    size_t off = 0;
    clo_rec r;
    return next_rec(&b, &off, &r) ? off : 0;
}

/* READ_CLOSURES for the closures not read ahead, with a read-ahead budget;
 * the records of all of them, in order, into out. */
static int stub_closures(void *src, const uint64_t *addrs, size_t n,
                         dbg_buf *out)
{
    dbg_conn *c = src;
    if (!c->ahead) {
        c->ahead = calloc(1, sizeof(ahead_cache));
        c->ahead_free = ahead_free;
        if (!c->ahead) {
            snprintf(c->err, sizeof(c->err), "out of memory");
            return -1;
        }
    }
    ahead_cache *a = c->ahead;
    dbg_buf body = {0}, reply = {0};
    int r = dbg_buf_put32(&body, 0);
    uint32_t ask = 0, budget = 0;
    for (size_t i = 0; i < n && r == 0; i++)
        if (!a->index.n || !dbg_u64map_get(&a->index, addrs[i], NULL)) {
            r = dbg_buf_putptr(&body, addrs[i]);
            ask++;
        }
    if (r == 0 && ask) {
        body.p[0] = (unsigned char)(ask >> 24);
        body.p[1] = (unsigned char)(ask >> 16);
        body.p[2] = (unsigned char)(ask >> 8);
        body.p[3] = (unsigned char)ask;
        budget = ask < AHEAD_WHEN_FEWER ? AHEAD_BUDGET : 0;
        if (budget)
            r = dbg_buf_put32(&body, budget);
        if (r == 0)
            r = dbg_request_ok(c, DEBUG_STUB_CMD_READ_CLOSURES, &body, &reply);
        else
            snprintf(c->err, sizeof(c->err), "out of memory");
    } else if (r != 0) {
        snprintf(c->err, sizeof(c->err), "out of memory");
    }
    dbg_buf_free(&body);
    if (r != 0) {
        dbg_buf_free(&reply);
        return -1;
    }
    /* the records in order: from the cache or the reply */
    size_t off = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        uint64_t at;
        if (a->index.n && dbg_u64map_get(&a->index, addrs[i], &at)) {
            size_t len = rec_len(a->buf.p + at - 1, a->buf.len - (at - 1));
            r = dbg_buf_put(out, a->buf.p + at - 1, len);
            continue;
        }
        size_t len = rec_len(reply.p + off, reply.len - off);
        if (!len)
            goto malformed;
        r = dbg_buf_put(out, reply.p + off, len);
        off += len;
    }
    /* what the stub read ahead */
    if (r == 0 && !budget && off != reply.len)
        goto malformed;
    if (r == 0 && budget) {
        if (a->buf.len > AHEAD_MAX_BYTES) {
            dbg_u64map_free(&a->index);
            a->buf.len = 0;
        }
        for (;;) {
            if (reply.len - off < 8)
                goto malformed;
            uint64_t addr = dbg_rdptr(reply.p + off);
            off += 8;
            if (!addr)
                break;
            size_t len = rec_len(reply.p + off, reply.len - off);
            if (!len)
                goto malformed;
            if (!dbg_u64map_get(&a->index, addr, NULL)) {
                size_t at = a->buf.len;
                if (dbg_buf_put(&a->buf, reply.p + off, len) != 0 ||
                    dbg_u64map_put(&a->index, addr, at + 1) != 0) {
                    r = -1;
                    break;
                }
            }
            off += len;
        }
        if (r == 0 && off != reply.len)
            goto malformed;
    }
    if (r != 0)
        snprintf(c->err, sizeof(c->err), "out of memory");
    dbg_buf_free(&reply);
    return r;
malformed:
    snprintf(c->err, sizeof(c->err), "READ_CLOSURES: malformed reply");
    dbg_buf_free(&reply);
    return -1;
}

/* One DESCRIBE_INFOS record at *off into in: 1, or 0 if malformed. */
static int describe_rec(const dbg_buf *b, size_t *off, dbg_info *in)
{
    size_t o = *off, used;
    if (b->len - o < 1)
        return 0;
    int ok = b->p[o++];
    if (!ok) {
        if (b->len - o < 2 || b->len - o - 2 < dbg_rd16(b->p + o))
            return 0;
        o += 2 + (size_t)dbg_rd16(b->p + o);
        in->type = 0;
        *off = o;
        return 1;
    }
    if (b->len - o < 20)
        return 0;
    in->type = dbg_rd32(b->p + o);
    in->ptrs = dbg_rd32(b->p + o + 4);
    in->nptrs = dbg_rd32(b->p + o + 8);
    in->srt = dbg_rdptr(b->p + o + 12);
    o += 20;
    char *con = dbg_take_string(b->p + o, b->len - o, &used);
    if (!con)
        return 0;
    o += used;
    if (*con && dbg_type_is_constr(in->type))
        in->con = con;
    else
        free(con);
    if (b->len - o < 4)
        return 0;
    uint32_t nf = dbg_rd32(b->p + o);
    o += 4;
    if (nf != 0 && nf != DBG_SOURCE_FIELDS)
        return 0;
    for (uint32_t k = 0; k < nf; k++) {
        in->src[k] = dbg_take_string(b->p + o, b->len - o, &used);
        if (!in->src[k])
            return 0;
        o += used;
    }
    in->nsrc = (int)nf;
    *off = o;
    return 1;
}

/* DESCRIBE_INFOS: type, layout, SRT, constructor and source of a batch of
 * info tables in one request. */
static int stub_infos(void *src, const uint64_t *want, size_t nw, dbg_info *res)
{
    dbg_conn *c = src;
    dbg_buf body = {0}, out = {0};
    int r = -1;
    for (size_t start = 0; start < nw; start += 16384) {
        size_t k = nw - start < 16384 ? nw - start : 16384;
        body.len = 0;
        dbg_buf_put32(&body, (uint32_t)k);
        for (size_t i = 0; i < k; i++)
            dbg_buf_putptr(&body, want[start + i]);
        if (dbg_request_ok(c, DEBUG_STUB_CMD_DESCRIBE_INFOS, &body, &out) != 0)
            goto done;
        size_t off = 0;
        for (size_t i = 0; i < k; i++) {
            if (!describe_rec(&out, &off, &res[start + i])) {
                snprintf(c->err, sizeof(c->err),
                         "DESCRIBE_INFOS: malformed reply");
                goto done;
            }
        }
    }
    r = 0;
done:
    dbg_buf_free(&body);
    dbg_buf_free(&out);
    return r;
}

static int stub_stack_bitmap(void *src, uint64_t sp, uint32_t off, dbg_buf *bm)
{
    dbg_buf body = {0};
    dbg_buf_putptr(&body, sp);
    dbg_buf_put32(&body, off);
    int r = dbg_request_ok(src, DEBUG_STUB_CMD_STACK_BITMAP, &body, bm);
    dbg_buf_free(&body);
    return r;
}

static int stub_fun_bitmap(void *src, uint64_t fun, uint16_t n, dbg_buf *bm)
{
    dbg_buf body = {0};
    dbg_buf_putptr(&body, fun);
    dbg_buf_put16(&body, n);
    int r = dbg_request_ok(src, DEBUG_STUB_CMD_FUN_BITMAP, &body, bm);
    dbg_buf_free(&body);
    return r;
}

/* BLOCK_LIST: the list of block groups (BLOCKS' headers, without the
 * memory BLOCKS would send). */
static int stub_blocks(void *src, dbg_block **outp, size_t *n)
{
    dbg_conn *c = src;
    dbg_buf out = {0};
    if (dbg_request_ok(c, DEBUG_STUB_CMD_BLOCK_LIST, NULL, &out) != 0) {
        dbg_buf_free(&out);
        return -1;
    }
    size_t k = 0, cap = 0, off = 0;
    dbg_block *v = NULL;
    while (off + DEBUG_STUB_BLOCK_HEADER_LEN <= out.len) {
        uint32_t size = dbg_rd32(out.p + off + 10);
        if (k == cap) {
            cap = cap ? cap * 2 : 256;
            dbg_block *nv = realloc(v, cap * sizeof(*nv));
            if (!nv) {
                free(v);
                dbg_buf_free(&out);
                snprintf(c->err, sizeof(c->err), "out of memory");
                return -1;
            }
            v = nv;
        }
        memcpy(&v[k].flags, out.p + off, 2);
        v[k].start = dbg_rdptr(out.p + off + 2);
        v[k].size = size;
        k++;
        off += DEBUG_STUB_BLOCK_HEADER_LEN;
    }
    int bad = off != out.len;
    dbg_buf_free(&out);
    if (bad) {
        free(v);
        snprintf(c->err, sizeof(c->err), "BLOCK_LIST: malformed reply");
        return -1;
    }
    *outp = v;
    *n = k;
    return 0;
}

static const char *stub_error(void *src)
{
    return ((dbg_conn *)src)->err;
}

static int stub_dead(void *src)
{
    return ((dbg_conn *)src)->fd < 0;
}

const dbg_source_ops dbg_source_stub = {
    "stub",          stub_roots,  stub_closures, stub_infos, stub_stack_bitmap,
    stub_fun_bitmap, stub_blocks, stub_error,    stub_dead,
};
