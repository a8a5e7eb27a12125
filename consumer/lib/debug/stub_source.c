/* A live debug stub as a heap source: see rtscope/debug/stub_source.h.
 * Requests and replies as docs/debug-protocol.md describes them. */
#include "rtscope/debug/stub_source.h"
#include "heap_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Closures the stub read ahead (Note [Reading ahead] in
 * rts/DebugStubHeap.c): address -> their record in buf. Each is used
 * once (the walk reads a closure once); the whole cache is dropped when it
 * grows past AHEAD_MAX_BYTES, which costs requests, never correctness. */
#define AHEAD_BUDGET 4096
#define AHEAD_WHEN_FEWER 128 /* a narrow frontier: a wide one fills batches */
#define AHEAD_MAX_BYTES ((size_t)64 << 20)
typedef struct ahead_cache {
    hmap index; /* addr -> offset in buf + 1 */
    dbg_buf buf;
    ptrvec infos;  /* their info pointers, not yet handed to the walk */
    ptrvec handed; /* what ahead_infos handed out last */
} ahead_cache;

struct dbg_stub_source {
    dbg_conn *conn;
    ahead_cache ahead;
};

dbg_stub_source *dbg_stub_source_new(dbg_conn *conn)
{
    dbg_stub_source *s = calloc(1, sizeof(*s));
    if (s)
        s->conn = conn;
    return s;
}

void dbg_stub_source_free(dbg_stub_source *s)
{
    if (!s)
        return;
    hmap_free(&s->ahead.index);
    dbg_buf_free(&s->ahead.buf);
    free(s->ahead.infos.v);
    free(s->ahead.handed.v);
    free(s);
}

void dbg_stub_source_free_fn(void *s)
{
    dbg_stub_source_free(s);
}

static int stub_roots(void *src, uint64_t **out, size_t *n)
{
    dbg_conn *c = ((dbg_stub_source *)src)->conn;
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

/* A new walk: what was read ahead in another pause may have moved. */
static void stub_walk_begins(void *src)
{
    dbg_stub_source *s = src;
    hmap_free(&s->ahead.index);
    s->ahead.buf.len = 0;
    s->ahead.infos.n = 0;
}

static const uint64_t *stub_ahead_infos(void *src, size_t *n)
{
    ahead_cache *a = &((dbg_stub_source *)src)->ahead;
    ptrvec t = a->handed; /* swap: the pending ones are handed out */
    a->handed = a->infos;
    a->infos = t;
    a->infos.n = 0;
    *n = a->handed.n;
    return a->handed.v;
}

/* READ_CLOSURES of the closures among addrs not read ahead, into reply;
 * *budget gets the read-ahead asked for (0: none). 0, or -1 with c->err. */
static int ask_closures(dbg_conn *c, const ahead_cache *a,
                        const uint64_t *addrs, size_t n, dbg_buf *reply,
                        uint32_t *budget)
{
    dbg_buf body = {0};
    int r = dbg_buf_put32(&body, 0);
    uint32_t ask = 0;
    *budget = 0;
    for (size_t i = 0; i < n && r == 0; i++)
        if (!hmap_get(&a->index, addrs[i], NULL)) {
            r = dbg_buf_putptr(&body, addrs[i]);
            ask++;
        }
    if (r == 0 && ask) {
        body.p[0] = (unsigned char)(ask >> 24);
        body.p[1] = (unsigned char)(ask >> 16);
        body.p[2] = (unsigned char)(ask >> 8);
        body.p[3] = (unsigned char)ask;
        *budget = ask < AHEAD_WHEN_FEWER ? AHEAD_BUDGET : 0;
        if (*budget)
            r = dbg_buf_put32(&body, *budget);
    }
    if (r != 0) {
        snprintf(c->err, sizeof(c->err), "out of memory");
    } else if (ask) {
        r = dbg_request_ok(c, DEBUG_STUB_CMD_READ_CLOSURES, &body, reply);
    }
    dbg_buf_free(&body);
    return r;
}

/* Keep the closures read ahead, which follow the asked ones in reply from
 * off: (u64 address, record) pairs up to address 0. 0, -1 when out of
 * memory, -2 when malformed. */
static int keep_ahead(ahead_cache *a, const dbg_buf *reply, size_t off)
{
    if (a->buf.len > AHEAD_MAX_BYTES) {
        hmap_free(&a->index); /* a small table again: misses stay in cache */
        a->buf.len = 0;
    }
    for (;;) {
        if (reply->len - off < 8)
            return -2;
        uint64_t addr = dbg_rdptr(reply->p + off);
        off += 8;
        if (!addr)
            break;
        size_t len = clo_rec_len(reply->p + off, reply->len - off);
        if (!len)
            return -2;
        if (!hmap_get(&a->index, addr, NULL)) {
            size_t at = a->buf.len, o = off;
            clo_rec r;
            if (dbg_buf_put(&a->buf, reply->p + off, len) != 0 ||
                hmap_put(&a->index, addr, at + 1) != 0 ||
                (clo_rec_next(reply, &o, &r) && clo_rec_infos(&r, &a->infos)))
                return -1;
        }
        off += len;
    }
    return off == reply->len ? 0 : -2;
}

/* READ_CLOSURES for the closures not read ahead, with a read-ahead budget;
 * the records of all of them, in order, into out. */
static int stub_closures(void *src, const uint64_t *addrs, size_t n,
                         dbg_buf *out)
{
    dbg_stub_source *s = src;
    dbg_conn *c = s->conn;
    ahead_cache *a = &s->ahead;
    dbg_buf reply = {0};
    uint32_t budget;
    if (ask_closures(c, a, addrs, n, &reply, &budget) != 0) {
        dbg_buf_free(&reply);
        return -1;
    }
    /* the records in order: from the cache or the reply */
    int r = 0;
    size_t off = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        uint64_t at;
        if (hmap_get(&a->index, addrs[i], &at)) {
            size_t len = clo_rec_len(a->buf.p + at - 1, a->buf.len - (at - 1));
            r = dbg_buf_put(out, a->buf.p + at - 1, len);
            continue;
        }
        size_t len = clo_rec_len(reply.p + off, reply.len - off);
        if (!len) {
            r = -2;
            break;
        }
        r = dbg_buf_put(out, reply.p + off, len);
        off += len;
    }
    if (r == 0)
        r = budget ? keep_ahead(a, &reply, off) : off == reply.len ? 0 : -2;
    dbg_buf_free(&reply);
    if (r == -2)
        snprintf(c->err, sizeof(c->err), "READ_CLOSURES: malformed reply");
    else if (r != 0)
        snprintf(c->err, sizeof(c->err), "out of memory");
    return r ? -1 : 0;
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
    if (*con && ghc_type_is_constr(in->type))
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
    dbg_conn *c = ((dbg_stub_source *)src)->conn;
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
    int r = dbg_request_ok(((dbg_stub_source *)src)->conn,
                           DEBUG_STUB_CMD_STACK_BITMAP, &body, bm);
    dbg_buf_free(&body);
    return r;
}

static int stub_fun_bitmap(void *src, uint64_t fun, uint16_t n, dbg_buf *bm)
{
    dbg_buf body = {0};
    dbg_buf_putptr(&body, fun);
    dbg_buf_put16(&body, n);
    int r = dbg_request_ok(((dbg_stub_source *)src)->conn,
                           DEBUG_STUB_CMD_FUN_BITMAP, &body, bm);
    dbg_buf_free(&body);
    return r;
}

/* BLOCK_LIST: the list of block groups (BLOCKS' headers, without the
 * memory BLOCKS would send). */
static int stub_blocks(void *src, dbg_block **outp, size_t *n)
{
    dbg_conn *c = ((dbg_stub_source *)src)->conn;
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
    return ((dbg_stub_source *)src)->conn->err;
}

static int stub_dead(void *src)
{
    return ((dbg_stub_source *)src)->conn->fd < 0;
}

const dbg_source_ops dbg_source_stub = {
    .name = "stub",
    .roots = stub_roots,
    .closures = stub_closures,
    .infos = stub_infos,
    .stack_bitmap = stub_stack_bitmap,
    .fun_bitmap = stub_fun_bitmap,
    .blocks = stub_blocks,
    .error = stub_error,
    .dead = stub_dead,
    .walk_begins = stub_walk_begins,
    .ahead_infos = stub_ahead_infos,
};
