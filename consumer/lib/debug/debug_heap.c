/* debug_heap: info tables, closure decoding and the heap walk. See
 * debug_heap.h. Layouts are GHC 9.0's (includes/rts/storage/Closures.h),
 * x86_64, non-profiled: a one-word header, thunks one extra word. */
#define _GNU_SOURCE
#include "debug_heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD ((size_t)8)
#define UNTAG(p) ((p) & ~(uint64_t)7)
#define WALK_BATCH 2048

static const char *const type_names[DBG_N_CLOSURE_TYPES] = {
    "INVALID_OBJECT", "CONSTR", "CONSTR_1_0", "CONSTR_0_1", "CONSTR_2_0",
    "CONSTR_1_1", "CONSTR_0_2", "CONSTR_NOCAF", "FUN", "FUN_1_0", "FUN_0_1",
    "FUN_2_0", "FUN_1_1", "FUN_0_2", "FUN_STATIC", "THUNK", "THUNK_1_0",
    "THUNK_0_1", "THUNK_2_0", "THUNK_1_1", "THUNK_0_2", "THUNK_STATIC",
    "THUNK_SELECTOR", "BCO", "AP", "PAP", "AP_STACK", "IND", "IND_STATIC",
    "RET_BCO", "RET_SMALL", "RET_BIG", "RET_FUN", "UPDATE_FRAME",
    "CATCH_FRAME", "UNDERFLOW_FRAME", "STOP_FRAME", "BLOCKING_QUEUE",
    "BLACKHOLE", "MVAR_CLEAN", "MVAR_DIRTY", "TVAR", "ARR_WORDS",
    "MUT_ARR_PTRS_CLEAN", "MUT_ARR_PTRS_DIRTY", "MUT_ARR_PTRS_FROZEN_DIRTY",
    "MUT_ARR_PTRS_FROZEN_CLEAN", "MUT_VAR_CLEAN", "MUT_VAR_DIRTY", "WEAK",
    "PRIM", "MUT_PRIM", "TSO", "STACK", "TREC_CHUNK", "ATOMICALLY_FRAME",
    "CATCH_RETRY_FRAME", "CATCH_STM_FRAME", "WHITEHOLE",
    "SMALL_MUT_ARR_PTRS_CLEAN", "SMALL_MUT_ARR_PTRS_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY", "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN",
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

static int type_is_fun(uint32_t t) { return t >= DBG_FUN && t <= DBG_FUN_STATIC; }
static int type_is_thunk(uint32_t t)
{
    return t >= DBG_THUNK && t <= DBG_THUNK_SELECTOR;
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

/* ---- info tables ------------------------------------------------------ */

void dbg_heap_init(dbg_heap *h, dbg_conn *conn)
{
    memset(h, 0, sizeof(*h));
    h->conn = conn;
}

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

static dbg_info *info_lookup(dbg_heap *h, uint64_t ptr)
{
    uint64_t v;
    return dbg_u64map_get(&h->info_index, ptr, &v) ? &h->infos[v - 1] : NULL;
}

/* Fetch the info tables (and SRTs) of the pointers not yet cached. */
static int fetch_infos(dbg_heap *h, const uint64_t *ptrs, size_t n)
{
    dbg_buf body = {0}, out = {0};
    uint64_t *want = malloc((n ? n : 1) * sizeof(*want));
    size_t nw = 0;
    int r = -1;
    if (!want)
        return -1;
    dbg_u64map seen = {0};
    for (size_t i = 0; i < n; i++) {
        if (!ptrs[i] || info_lookup(h, ptrs[i]) ||
            dbg_u64map_get(&seen, ptrs[i], NULL))
            continue;
        dbg_u64map_put(&seen, ptrs[i], 1);
        want[nw++] = ptrs[i];
    }
    dbg_u64map_free(&seen);
    for (size_t start = 0; start < nw; start += 4096) {
        size_t k = nw - start < 4096 ? nw - start : 4096;
        body.len = 0;
        dbg_buf_put16(&body, (uint16_t)k);
        for (size_t i = 0; i < k; i++)
            dbg_buf_putptr(&body, want[start + i]);
        if (dbg_request_ok(h->conn, DBG_CMD_INFO_TABLES, &body, &out) != 0)
            goto done;
        if (out.len < k * 20) {
            snprintf(h->conn->err, sizeof(h->conn->err),
                     "INFO_TABLES: short reply");
            goto done;
        }
        if (h->ninfos + k > h->capinfos) {
            size_t nc = (h->ninfos + k) * 2;
            dbg_info *ni = realloc(h->infos, nc * sizeof(*ni));
            if (!ni)
                goto done;
            h->infos = ni;
            h->capinfos = nc;
        }
        if (!h->infos)
            goto done;
        for (size_t i = 0; i < k; i++) {
            const unsigned char *p = out.p + 20 * i + 4;
            dbg_info *in = &h->infos[h->ninfos];
            memset(in, 0, sizeof(*in));
            in->ptr = want[start + i];
            memcpy(&in->ptrs, p, 4);
            memcpy(&in->nptrs, p + 4, 4);
            memcpy(&in->type, p + 8, 4);
            h->ninfos++;
            dbg_u64map_put(&h->info_index, in->ptr, h->ninfos);
        }
        /* SRTs of functions, thunks and frames */
        body.len = 0;
        size_t ns = 0;
        dbg_buf_put16(&body, 0);
        for (size_t i = 0; i < k; i++) {
            dbg_info *in = &h->infos[h->ninfos - k + i];
            if (type_is_fun(in->type) || type_is_thunk(in->type) ||
                type_is_frame(in->type)) {
                dbg_buf_putptr(&body, in->ptr);
                ns++;
            } else {
                in->srt_known = 1;
            }
        }
        if (ns) {
            uint16_t be = (uint16_t)((ns >> 8) | (ns << 8));
            memcpy(body.p, &be, 2);
            if (dbg_request_ok(h->conn, DBG_CMD_SRT, &body, &out) == 0 &&
                out.len >= ns * 8) {
                size_t j = 0;
                for (size_t i = 0; i < k; i++) {
                    dbg_info *in = &h->infos[h->ninfos - k + i];
                    if (in->srt_known)
                        continue;
                    in->srt = dbg_rdptr(out.p + 8 * j++);
                    in->srt_known = 1;
                }
            }
        }
    }
    r = 0;
done:
    free(want);
    dbg_buf_free(&body);
    dbg_buf_free(&out);
    return r;
}

dbg_info *dbg_heap_info(dbg_heap *h, uint64_t ptr)
{
    dbg_info *in = info_lookup(h, ptr);
    if (in)
        return in;
    if (fetch_infos(h, &ptr, 1) != 0)
        return NULL;
    return info_lookup(h, ptr);
}

const char *dbg_heap_con_descr(dbg_heap *h, dbg_info *info)
{
    if (!dbg_type_is_constr(info->type))
        return NULL;
    if (!info->con_tried) {
        info->con_tried = 1;
        if (dbg_con_descr(h->conn, info->ptr, &info->con) != 0)
            info->con = NULL;
    }
    return info->con;
}

char *const *dbg_heap_source(dbg_heap *h, dbg_info *info)
{
    if (!info->src_tried) {
        info->src_tried = 1;
        if (dbg_source_info(h->conn, info->ptr, info->src, &info->nsrc) != 0)
            info->nsrc = 0;
    }
    return info->nsrc == DBG_SOURCE_FIELDS ? info->src : NULL;
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

static void push_words(ptrvec *out, const unsigned char *mem, uint32_t size,
                       size_t first, size_t count)
{
    for (size_t i = first; i < first + count && (i + 1) * WORD <= size; i++)
        pv_push(out, dbg_rdptr(mem + i * WORD));
}

/* Pointers among n payload words at word index `first`, per the argument
 * bitmap of the function `fun` (FUN_BITMAP). */
static void push_fun_args(dbg_heap *h, uint64_t fun, const unsigned char *mem,
                          uint32_t size, size_t first, uint32_t n,
                          ptrvec *out)
{
    if (n == 0)
        return;
    dbg_buf body = {0}, bm = {0};
    dbg_buf_putptr(&body, UNTAG(fun));
    dbg_buf_put16(&body, (uint16_t)n);
    if (dbg_request_ok(h->conn, DBG_CMD_FUN_BITMAP, &body, &bm) == 0 &&
        bm.len >= 4 + (size_t)n) {
        for (uint32_t i = 0; i < n; i++)
            if (bm.p[4 + i])
                pv_push(out, word_at(mem, size, first + i));
    } else {
        h->unreadable++;
    }
    dbg_buf_free(&body);
    dbg_buf_free(&bm);
}

/* The pointers of a STACK object: frame by frame from sp, with the bitmaps
 * the stub reads from the frames' info tables. */
static void decode_stack(dbg_heap *h, uint64_t addr, const unsigned char *mem,
                         uint32_t size, ptrvec *out)
{
    uint64_t sp = word_at(mem, size, 2);
    uint32_t stack_words;
    memcpy(&stack_words, mem + WORD, 4);
    uint64_t end = 3 * WORD + (uint64_t)stack_words * WORD;
    if (end > size || sp < addr + 3 * WORD || sp >= addr + end)
        return;
    uint64_t off = sp - addr;
    dbg_buf body = {0}, bm = {0};
    while (off < end) {
        uint64_t finfo = dbg_rdptr(mem + off);
        dbg_info *fi = dbg_heap_info(h, finfo);
        if (!fi) {
            h->unreadable++;
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
        size_t payload = 1, extra = 0;
        if (fi->type == DBG_RET_FUN) {
            pv_push(out, word_at(mem, size, off / WORD + 2));
            payload = 3;
            extra = 0;
        } else if (!type_is_frame(fi->type)) {
            h->unreadable++;
            break;
        }
        body.len = 0;
        dbg_buf_putptr(&body, sp);
        dbg_buf_put32(&body, (uint32_t)(off - (sp - addr)));
        if (dbg_request_ok(h->conn, DBG_CMD_STACK_BITMAP, &body, &bm) != 0 ||
            bm.len < 4 || bm.len < 4 + (size_t)dbg_rd32(bm.p)) {
            h->unreadable++;
            break;
        }
        uint32_t n = dbg_rd32(bm.p);
        for (uint32_t i = 0; i < n; i++)
            if (bm.p[4 + i])
                pv_push(out, word_at(mem, size, off / WORD + payload + i));
        off += (payload + n + extra) * WORD;
    }
    dbg_buf_free(&body);
    dbg_buf_free(&bm);
}

static void decode(dbg_heap *h, uint64_t addr, dbg_info *in,
                   const unsigned char *mem, uint32_t size, ptrvec *out)
{
    uint32_t t = in->type;
    out->n = 0;
    if (in->srt)
        pv_push(out, in->srt);
    if (dbg_type_is_constr(t) || type_is_fun(t) || t == DBG_PRIM ||
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
            uint32_t nargs;
            memcpy(&nargs, mem + 2 * WORD + 4, 4);
            uint64_t fun = word_at(mem, size, 3);
            pv_push(out, fun);
            push_fun_args(h, fun, mem, size, 4, nargs, out);
            break;
        }
        case DBG_PAP: {
            uint32_t nargs;
            memcpy(&nargs, mem + WORD + 4, 4);
            uint64_t fun = word_at(mem, size, 2);
            pv_push(out, fun);
            push_fun_args(h, fun, mem, size, 3, nargs, out);
            break;
        }
        case DBG_AP_STACK:
            push_words(out, mem, size, 3, 1);
            h->unreadable++; /* its stack chunk is not followed */
            break;
        case DBG_IND: case DBG_IND_STATIC: case DBG_BLACKHOLE:
        case DBG_MUT_VAR_CLEAN: case DBG_MUT_VAR_DIRTY:
            push_words(out, mem, size, 1, 1);
            break;
        case DBG_BCO: case DBG_MVAR_CLEAN: case DBG_MVAR_DIRTY:
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
            decode_stack(h, addr, mem, size, out);
            break;
        default:
            if (t >= DBG_MUT_ARR_PTRS_CLEAN && t <= DBG_MUT_ARR_PTRS_FROZEN_CLEAN)
                push_words(out, mem, size, 3, (size_t)word_at(mem, size, 1));
            else if (t >= DBG_SMALL_MUT_ARR_PTRS_CLEAN &&
                     t <= DBG_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN)
                push_words(out, mem, size, 2, (size_t)word_at(mem, size, 1));
            break; /* ARR_WORDS, WHITEHOLE, ...: no pointers */
        }
    }
}

/* ---- the walk --------------------------------------------------------- */

typedef struct qent {
    uint64_t addr, parent;
} qent;

/* CLOSURES for a batch; on a refused address, one at a time, dropping the
 * unreadable ones. Fills out with (size, memory) records and keep[] with
 * 1 for each closure present. */
static int fetch_closures(dbg_heap *h, const qent *q, size_t n, dbg_buf *out,
                          unsigned char *keep)
{
    dbg_buf body = {0};
    dbg_buf_put16(&body, (uint16_t)n);
    for (size_t i = 0; i < n; i++)
        dbg_buf_putptr(&body, q[i].addr);
    int st = dbg_request(h->conn, DBG_CMD_CLOSURES, &body, out);
    if (st == DBG_OKAY) {
        memset(keep, 1, n);
        dbg_buf_free(&body);
        return 0;
    }
    if (st != DBG_BAD_COMMAND || h->conn->reason != 3) {
        dbg_buf_free(&body);
        return -1;
    }
    dbg_buf one = {0};
    out->len = 0;
    for (size_t i = 0; i < n; i++) {
        body.len = 0;
        dbg_buf_put16(&body, 1);
        dbg_buf_putptr(&body, q[i].addr);
        st = dbg_request(h->conn, DBG_CMD_CLOSURES, &body, &one);
        keep[i] = st == DBG_OKAY;
        if (st == DBG_OKAY)
            dbg_buf_put(out, one.p, one.len);
        else if (st == DBG_BAD_COMMAND)
            h->unreadable++;
        else {
            dbg_buf_free(&one);
            dbg_buf_free(&body);
            return -1;
        }
    }
    dbg_buf_free(&one);
    dbg_buf_free(&body);
    return 0;
}

int dbg_heap_walk(dbg_heap *h, const uint64_t *roots, size_t nroots,
                  dbg_visit_fn fn, void *ctx)
{
    dbg_u64map seen = {0};
    qent *q = NULL;
    size_t qn = 0, qcap = 0, qhead = 0;
    dbg_buf out = {0};
    ptrvec ptrs = {0};
    uint64_t *infos = malloc(WALK_BATCH * sizeof(*infos));
    unsigned char *keep = malloc(WALK_BATCH);
    qent *batch = malloc(WALK_BATCH * sizeof(*batch));
    int r = -1, stop = 0;
    if (!infos || !keep || !batch)
        goto done;

#define ENQUEUE(a, par)                                                       \
    do {                                                                      \
        uint64_t a_ = UNTAG(a);                                               \
        if (a_ && !dbg_u64map_get(&seen, a_, NULL)) {                         \
            if (dbg_u64map_put(&seen, a_, 1) != 0)                            \
                goto done;                                                    \
            if (qn == qcap) {                                                 \
                size_t nc_ = qcap ? qcap * 2 : 4096;                          \
                qent *nq_ = realloc(q, nc_ * sizeof(*nq_));                   \
                if (!nq_)                                                     \
                    goto done;                                                \
                q = nq_;                                                      \
                qcap = nc_;                                                   \
            }                                                                 \
            q[qn].addr = a_;                                                  \
            q[qn].parent = (par);                                             \
            qn++;                                                             \
        }                                                                     \
    } while (0)

    for (size_t i = 0; i < nroots; i++)
        ENQUEUE(roots[i], 0);

    while (qhead < qn && !stop) {
        size_t n = qn - qhead < WALK_BATCH ? qn - qhead : WALK_BATCH;
        memcpy(batch, q + qhead, n * sizeof(*batch));
        qhead += n;
        if (fetch_closures(h, batch, n, &out, keep) != 0)
            goto done;
        /* info tables of the whole batch at once */
        size_t off = 0, ni = 0;
        for (size_t i = 0; i < n; i++) {
            if (!keep[i])
                continue;
            if (off + 4 > out.len)
                break;
            uint32_t sz = dbg_rd32(out.p + off);
            if (sz >= WORD && off + 4 + sz <= out.len)
                infos[ni++] = dbg_rdptr(out.p + off + 4);
            off += 4 + (size_t)sz;
        }
        if (fetch_infos(h, infos, ni) != 0)
            goto done;
        off = 0;
        for (size_t i = 0; i < n && !stop; i++) {
            if (!keep[i])
                continue;
            if (off + 4 > out.len)
                break;
            uint32_t sz = dbg_rd32(out.p + off);
            const unsigned char *mem = out.p + off + 4;
            off += 4 + (size_t)sz;
            if (sz < WORD || off > out.len) {
                h->unreadable++;
                continue;
            }
            uint64_t iptr = dbg_rdptr(mem);
            dbg_info *in = info_lookup(h, iptr);
            if (!in) {
                h->unreadable++;
                continue;
            }
            /* decode may issue requests that reuse nothing of `out` */
            decode(h, batch[i].addr, in, mem, sz, &ptrs);
            if (h->conn->fd < 0)
                goto done;
            in = info_lookup(h, iptr); /* decode may grow the cache */
            dbg_closure c = {.addr = batch[i].addr, .info = in, .size = sz,
                             .ptrs = ptrs.v, .nptrs = ptrs.n};
            if (fn(ctx, &c, batch[i].parent)) {
                stop = 1;
                break;
            }
            for (size_t k = 0; k < ptrs.n; k++)
                ENQUEUE(ptrs.v[k], batch[i].addr);
        }
        if (h->progress)
            h->progress(h->progress_ctx, qhead, qn - qhead);
    }
    r = 0;
#undef ENQUEUE
done:
    dbg_u64map_free(&seen);
    free(q);
    free(ptrs.v);
    free(infos);
    free(keep);
    free(batch);
    dbg_buf_free(&out);
    return r;
}
