/* debug_snap: recording, writing, loading and serving heap snapshots. See
 * debug_snap.h; the file format is documented in docs/debug.md ("Snapshot
 * format"). Integers of the header, the section table and the section
 * records are little-endian; heap words (addresses, closure memory) are in
 * the debuggee's byte order, which the header records. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_snap.h"

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

#define HDR_SIZE 64
#define MAX_SECTIONS 16
#define SECT_ENTRY ((size_t)40)
#define TABLE_END ((size_t)HDR_SIZE + MAX_SECTIONS * SECT_ENTRY)
#define WORD 8

enum snap_section {
    SECT_ROOTS = 1,
    SECT_INFOS = 2,
    SECT_CLOSURE_INDEX = 3,
    SECT_CLOSURE_DATA = 4,
    SECT_STACK_BITMAPS = 5,
    SECT_FUN_BITMAPS = 6,
    SECT_BLOCKS = 7,
    SECT_LAST = 7,
};

static const char *const sect_names[] = {
    "?", "ROOTS", "INFOS", "CLOSURE_INDEX", "CLOSURE_DATA", "STACK_BITMAPS",
    "FUN_BITMAPS", "BLOCKS",
};

static const char *sect_name(uint32_t id)
{
    return id >= 1 && id <= SECT_LAST ? sect_names[id] : "unknown";
}

static void snap_err(dbg_snap *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void snap_err(dbg_snap *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof(s->err), fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): va_start above */
    va_end(ap);
}

/* ---- little-endian integers and the checksum ---------------------------- */

static void le_put(unsigned char *p, uint64_t x, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t le_get(const unsigned char *p, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static int buf_le(dbg_buf *b, uint64_t x, int n)
{
    unsigned char t[8];
    le_put(t, x, n);
    return dbg_buf_put(b, t, (size_t)n);
}

/* The snapshot checksum: over the data taken as little-endian 64-bit words
 * (the last one zero-padded), h = (h ^ w) * FNV_PRIME, h ^= h >> 32 per
 * word from FNV's offset basis, then h ^= length and murmur3's 64-bit
 * finaliser. Word-wise so that a gigabyte is checked in a fraction of a
 * second; the shift carries every bit of a word into the low half. */
typedef struct snap_sum {
    uint64_t h, len;
    unsigned char tail[8];
    size_t ntail;
} snap_sum;

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t mixw(uint64_t h, uint64_t w)
{
    h = (h ^ w) * FNV_PRIME;
    return h ^ (h >> 32);
}

static void sum_init(snap_sum *c)
{
    memset(c, 0, sizeof(*c));
    c->h = FNV_OFFSET;
}

static void sum_add(snap_sum *c, const unsigned char *p, size_t n)
{
    c->len += n;
    while (c->ntail && n) {
        c->tail[c->ntail++] = *p++;
        n--;
        if (c->ntail == 8) {
            c->h = mixw(c->h, le_get(c->tail, 8));
            c->ntail = 0;
        }
    }
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* x86_64 and other little-endian hosts */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        c->h = mixw(c->h, w);
    }
    if (n) { /* here ntail is 0 */
        memcpy(c->tail, p, n);
        c->ntail = n;
    }
}

static uint64_t sum_end(snap_sum *c)
{
    if (c->ntail) {
        memset(c->tail + c->ntail, 0, 8 - c->ntail);
        c->h = mixw(c->h, le_get(c->tail, 8));
        c->ntail = 0;
    }
    uint64_t h = c->h ^ c->len;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static uint64_t sum_of(const unsigned char *p, size_t n)
{
    snap_sum c;
    sum_init(&c);
    sum_add(&c, p, n);
    return sum_end(&c);
}

static int host_little(void)
{
    uint16_t x = 1;
    unsigned char b;
    memcpy(&b, &x, 1);
    return b == 1;
}

/* ---- the in-memory snapshot ------------------------------------------- */

void dbg_snap_init(dbg_snap *s)
{
    memset(s, 0, sizeof(*s));
    s->ghc_version = DBG_SNAP_GHC;
}

static void info_free(dbg_snap_info *in)
{
    free(in->con);
    for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
        free(in->src[k]);
}

void dbg_snap_free(dbg_snap *s)
{
    for (size_t i = 0; i < s->ninfos; i++)
        info_free(&s->infos[i]);
    free(s->infos);
    free(s->roots);
    free(s->clo);
    free(s->stack);
    free(s->fun);
    free(s->blocks);
    dbg_buf_free(&s->mem);
    dbg_buf_free(&s->bits);
    dbg_u64map_free(&s->fun_index);
    memset(s, 0, sizeof(*s));
}

/* Grow an array of `size`-byte elements to hold n + 1. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 256;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}

int dbg_snap_add_closure(dbg_snap *s, uint64_t addr, const unsigned char *mem,
                         uint32_t size)
{
    if (grow((void **)&s->clo, &s->capclo, s->nclo, sizeof(*s->clo)) != 0)
        return -1;
    s->clo[s->nclo] = (dbg_snap_clo){.addr = addr, .off = s->mem.len,
                                     .size = size};
    if (dbg_buf_put(&s->mem, mem, size) != 0)
        return -1;
    s->nclo++;
    return 0;
}

static int add_bitmap(dbg_snap *s, dbg_snap_bm **v, size_t *n, size_t *cap,
                      uint64_t key, const unsigned char *bm, size_t len)
{
    if (len < 4 || len < 4 + (size_t)dbg_rd32(bm))
        return 0; /* not a bitmap: nothing to keep */
    uint32_t k = dbg_rd32(bm);
    if (grow((void **)v, cap, *n, sizeof(**v)) != 0)
        return -1;
    (*v)[*n] = (dbg_snap_bm){.key = key, .off = s->bits.len, .n = k};
    if (dbg_buf_put(&s->bits, bm + 4, k) != 0)
        return -1;
    (*n)++;
    return 0;
}

int dbg_snap_add_stack_bitmap(dbg_snap *s, uint64_t frame,
                              const unsigned char *bm, size_t len)
{
    return add_bitmap(s, &s->stack, &s->nstack, &s->capstack, frame, bm, len);
}

int dbg_snap_add_fun_bitmap(dbg_snap *s, uint64_t fun,
                            const unsigned char *bm, size_t len)
{
    uint64_t slot;
    if (len < 4)
        return 0;
    if (dbg_u64map_get(&s->fun_index, fun, &slot)) {
        /* the same function again (another PAP): keep the longest */
        if (dbg_rd32(bm) <= s->fun[slot - 1].n)
            return 0;
        size_t keep = s->nfun;
        if (add_bitmap(s, &s->fun, &s->nfun, &s->capfun, fun, bm, len) != 0)
            return -1;
        if (s->nfun > keep) {
            s->fun[slot - 1] = s->fun[keep];
            s->nfun = keep;
        }
        return 0;
    }
    size_t before = s->nfun;
    if (add_bitmap(s, &s->fun, &s->nfun, &s->capfun, fun, bm, len) != 0)
        return -1;
    if (s->nfun > before &&
        dbg_u64map_put(&s->fun_index, fun, s->nfun) != 0)
        return -1;
    return 0;
}

static char *dup_or_null(const char *x, int *bad)
{
    if (!x)
        return NULL;
    char *d = strdup(x);
    if (!d)
        *bad = 1;
    return d;
}

int dbg_snap_add_info(dbg_snap *s, const dbg_info *in, const char *con,
                      char *const *src)
{
    if (grow((void **)&s->infos, &s->capinfos, s->ninfos,
             sizeof(*s->infos)) != 0)
        return -1;
    dbg_snap_info *o = &s->infos[s->ninfos];
    memset(o, 0, sizeof(*o));
    o->ptr = in->ptr;
    o->srt = in->srt;
    o->type = in->type;
    o->ptrs = in->ptrs;
    o->nptrs = in->nptrs;
    int bad = 0;
    o->con = dup_or_null(con, &bad);
    if (src) {
        o->nsrc = DBG_SOURCE_FIELDS;
        for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
            o->src[k] = dup_or_null(src[k] ? src[k] : "", &bad);
    }
    s->ninfos++;
    return bad ? -1 : 0;
}

int dbg_snap_set_roots(dbg_snap *s, const uint64_t *roots, size_t n)
{
    free(s->roots);
    s->roots = malloc((n ? n : 1) * sizeof(*roots));
    if (!s->roots)
        return -1;
    if (n)
        memcpy(s->roots, roots, n * sizeof(*roots));
    s->nroots = n;
    return 0;
}

int dbg_snap_set_blocks(dbg_snap *s, const dbg_block *b, size_t n)
{
    free(s->blocks);
    s->blocks = malloc((n ? n : 1) * sizeof(*b));
    if (!s->blocks)
        return -1;
    if (n)
        memcpy(s->blocks, b, n * sizeof(*b));
    s->nblocks = n;
    s->have_blocks = 1;
    return 0;
}

static int cmp_clo(const void *a, const void *b)
{
    uint64_t x = ((const dbg_snap_clo *)a)->addr,
             y = ((const dbg_snap_clo *)b)->addr;
    return x < y ? -1 : x > y;
}

static int cmp_bm(const void *a, const void *b)
{
    uint64_t x = ((const dbg_snap_bm *)a)->key,
             y = ((const dbg_snap_bm *)b)->key;
    return x < y ? -1 : x > y;
}

static int cmp_info(const void *a, const void *b)
{
    uint64_t x = ((const dbg_snap_info *)a)->ptr,
             y = ((const dbg_snap_info *)b)->ptr;
    return x < y ? -1 : x > y;
}

int dbg_snap_finish(dbg_snap *s)
{
    if (s->nclo)
        qsort(s->clo, s->nclo, sizeof(*s->clo), cmp_clo);
    if (s->nstack)
        qsort(s->stack, s->nstack, sizeof(*s->stack), cmp_bm);
    if (s->nfun)
        qsort(s->fun, s->nfun, sizeof(*s->fun), cmp_bm);
    if (s->ninfos)
        qsort(s->infos, s->ninfos, sizeof(*s->infos), cmp_info);
    dbg_u64map_free(&s->fun_index);
    return 0;
}

uint64_t dbg_snap_live_bytes(const dbg_snap *s)
{
    uint64_t t = 0;
    for (size_t i = 0; i < s->nclo; i++)
        t += s->clo[i].size;
    return t;
}

/* ---- writing ---------------------------------------------------------- */

typedef struct snap_writer {
    FILE *f;
    ZSTD_CCtx *cc;
    unsigned char table[MAX_SECTIONS * SECT_ENTRY];
    int nsect;
    uint64_t pos; /* file offset */
    unsigned char *obuf;
    size_t ocap;
    /* the section being written */
    uint32_t id;
    uint64_t start, raw;
    snap_sum sum;
} snap_writer;

static int w_begin(snap_writer *w, dbg_snap *s, uint32_t id, uint64_t raw)
{
    ZSTD_CCtx_reset(w->cc, ZSTD_reset_session_only);
    if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w->cc, raw))) {
        snap_err(s, "zstd: cannot start section %s", sect_name(id));
        return -1;
    }
    w->id = id;
    w->start = w->pos;
    w->raw = 0;
    sum_init(&w->sum);
    return 0;
}

static int w_feed(snap_writer *w, dbg_snap *s, const void *p, size_t n,
                  ZSTD_EndDirective end)
{
    ZSTD_inBuffer in = {p, n, 0};
    sum_add(&w->sum, p, n);
    w->raw += n;
    for (;;) {
        ZSTD_outBuffer out = {w->obuf, w->ocap, 0};
        size_t r = ZSTD_compressStream2(w->cc, &out, &in, end);
        if (ZSTD_isError(r)) {
            snap_err(s, "zstd: %s", ZSTD_getErrorName(r));
            return -1;
        }
        if (out.pos && fwrite(w->obuf, 1, out.pos, w->f) != out.pos) {
            snap_err(s, "write: %s", strerror(errno));
            return -1;
        }
        w->pos += out.pos;
        if (end == ZSTD_e_end ? r == 0 : in.pos == in.size)
            return 0;
    }
}

static int w_end(snap_writer *w, dbg_snap *s)
{
    if (w_feed(w, s, "", 0, ZSTD_e_end) != 0)
        return -1;
    unsigned char *e = w->table + SECT_ENTRY * (size_t)w->nsect++;
    le_put(e, w->id, 4);
    le_put(e + 4, 0, 4);
    le_put(e + 8, w->start, 8);
    le_put(e + 16, w->pos - w->start, 8);
    le_put(e + 24, w->raw, 8);
    le_put(e + 32, sum_end(&w->sum), 8);
    return 0;
}

/* A section built in memory. */
static int w_section(snap_writer *w, dbg_snap *s, uint32_t id,
                     const dbg_buf *b)
{
    if (w_begin(w, s, id, b->len) != 0 ||
        w_feed(w, s, b->p ? b->p : (const unsigned char *)"", b->len,
               ZSTD_e_continue) != 0)
        return -1;
    return w_end(w, s);
}

static int put_str(dbg_buf *b, const char *x)
{
    size_t l = strlen(x);
    return buf_le(b, l, 4) | dbg_buf_put(b, x, l);
}

static int build_infos(const dbg_snap *s, dbg_buf *b)
{
    int r = 0;
    for (size_t i = 0; i < s->ninfos; i++) {
        const dbg_snap_info *in = &s->infos[i];
        r |= buf_le(b, in->ptr, 8) | buf_le(b, in->type, 4) |
             buf_le(b, in->ptrs, 4) | buf_le(b, in->nptrs, 4) |
             buf_le(b, in->srt, 8);
        r |= dbg_buf_put8(b, (uint8_t)((in->con ? 1 : 0) |
                                       (in->nsrc == DBG_SOURCE_FIELDS ? 2 : 0)));
        if (in->con)
            r |= put_str(b, in->con);
        if (in->nsrc == DBG_SOURCE_FIELDS)
            for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
                r |= put_str(b, in->src[k]);
    }
    return r ? -1 : 0;
}

static int put_varint(dbg_buf *b, uint64_t x)
{
    unsigned char t[10];
    int n = 0;
    do {
        t[n] = (unsigned char)(x & 0x7f);
        x >>= 7;
        if (x)
            t[n] |= 0x80;
        n++;
    } while (x);
    return dbg_buf_put(b, t, (size_t)n);
}

static int build_bitmaps(const dbg_snap *s, const dbg_snap_bm *v, size_t n,
                         dbg_buf *b)
{
    int r = 0;
    for (size_t i = 0; i < n; i++)
        r |= buf_le(b, v[i].key, 8) | buf_le(b, v[i].n, 4) |
             dbg_buf_put(b, s->bits.p + v[i].off, v[i].n);
    return r ? -1 : 0;
}

static int write_sections(snap_writer *w, dbg_snap *s)
{
    dbg_buf b = {0};
    int r = -1;
    for (size_t i = 0; i < s->nroots; i++)
        if (dbg_buf_putptr(&b, s->roots[i]) != 0)
            goto oom;
    if (w_section(w, s, SECT_ROOTS, &b) != 0)
        goto done;
    b.len = 0;
    if (build_infos(s, &b) != 0)
        goto oom;
    if (w_section(w, s, SECT_INFOS, &b) != 0)
        goto done;
    /* closures by address: deltas and sizes as varints, then the memory */
    b.len = 0;
    uint64_t prev = 0, data = 0;
    for (size_t i = 0; i < s->nclo; i++) {
        if (put_varint(&b, s->clo[i].addr - prev) != 0 ||
            put_varint(&b, s->clo[i].size) != 0)
            goto oom;
        prev = s->clo[i].addr;
        data += s->clo[i].size;
    }
    if (w_section(w, s, SECT_CLOSURE_INDEX, &b) != 0)
        goto done;
    if (w_begin(w, s, SECT_CLOSURE_DATA, data) != 0)
        goto done;
    for (size_t i = 0; i < s->nclo; i++)
        if (w_feed(w, s, s->mem.p + s->clo[i].off, s->clo[i].size,
                   ZSTD_e_continue) != 0)
            goto done;
    if (w_end(w, s) != 0)
        goto done;
    b.len = 0;
    if (build_bitmaps(s, s->stack, s->nstack, &b) != 0)
        goto oom;
    if (w_section(w, s, SECT_STACK_BITMAPS, &b) != 0)
        goto done;
    b.len = 0;
    if (build_bitmaps(s, s->fun, s->nfun, &b) != 0)
        goto oom;
    if (w_section(w, s, SECT_FUN_BITMAPS, &b) != 0)
        goto done;
    if (s->have_blocks) {
        b.len = 0;
        for (size_t i = 0; i < s->nblocks; i++)
            if (buf_le(&b, s->blocks[i].flags, 2) != 0 ||
                dbg_buf_putptr(&b, s->blocks[i].start) != 0 ||
                buf_le(&b, s->blocks[i].size, 4) != 0)
                goto oom;
        if (w_section(w, s, SECT_BLOCKS, &b) != 0)
            goto done;
    }
    r = 0;
    goto done;
oom:
    snap_err(s, "out of memory");
done:
    dbg_buf_free(&b);
    return r;
}

static void make_header(const dbg_snap *s, int nsect, unsigned char *h)
{
    memset(h, 0, HDR_SIZE);
    memcpy(h, DBG_SNAP_MAGIC, DBG_SNAP_MAGIC_LEN); /* NOLINT(bugprone-not-null-terminated-result): 8 bytes, no NUL in the file */
    le_put(h + 8, DBG_SNAP_VERSION, 4);
    le_put(h + 12, s->ghc_version, 4);
    h[16] = WORD;
    h[17] = host_little() ? 1 : 2;
    le_put(h + 18, (uint64_t)nsect, 2);
    le_put(h + 24, s->created, 8);
    le_put(h + 32, s->pid, 8);
    memcpy(h + 40, s->program, strnlen(s->program, 24));
}

int dbg_snap_check_path(dbg_snap *s, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snap_err(s, "%s: not a regular file (a snapshot is written to a file)",
                 path);
        return -1;
    }
    return 0;
}

int dbg_snap_write(dbg_snap *s, const char *path, int level,
                   uint64_t *file_bytes)
{
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
        snap_err(s, "%s: path too long", path);
        return -1;
    }
    /* written beside PATH and renamed over it: never half a file */
    if (dbg_snap_check_path(s, path) != 0)
        return -1;
    snap_writer w;
    memset(&w, 0, sizeof(w));
    w.f = fopen(tmp, "wb");
    if (!w.f) {
        snap_err(s, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    w.cc = ZSTD_createCCtx();
    w.ocap = ZSTD_CStreamOutSize();
    w.obuf = malloc(w.ocap);
    int r = -1;
    if (!w.cc || !w.obuf) {
        snap_err(s, "out of memory");
        goto done;
    }
    ZSTD_CCtx_setParameter(w.cc, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(w.cc, ZSTD_c_checksumFlag, 1);
    if (!s->created)
        s->created = (uint64_t)time(NULL);
    static const unsigned char zero[TABLE_END];
    if (fwrite(zero, 1, TABLE_END, w.f) != TABLE_END) {
        snap_err(s, "%s: %s", tmp, strerror(errno));
        goto done;
    }
    w.pos = TABLE_END;
    if (write_sections(&w, s) != 0)
        goto done;
    unsigned char head[TABLE_END];
    make_header(s, w.nsect, head);
    memcpy(head + HDR_SIZE, w.table, sizeof(w.table));
    le_put(head + 20, sum_of(head, TABLE_END) & 0xffffffffu, 4);
    if (fseek(w.f, 0, SEEK_SET) != 0 ||
        fwrite(head, 1, TABLE_END, w.f) != TABLE_END || fflush(w.f) != 0) {
        snap_err(s, "%s: %s", tmp, strerror(errno));
        goto done;
    }
    r = 0;
done:
    if (w.f && fclose(w.f) != 0 && r == 0) {
        snap_err(s, "%s: %s", tmp, strerror(errno));
        r = -1;
    }
    ZSTD_freeCCtx(w.cc);
    free(w.obuf);
    if (r == 0 && rename(tmp, path) != 0) {
        snap_err(s, "%s: %s", path, strerror(errno));
        r = -1;
    }
    if (r != 0)
        unlink(tmp);
    else if (file_bytes)
        *file_bytes = w.pos;
    return r;
}

int dbg_snap_pack(dbg_buf *out, const uint32_t *ids, const dbg_buf *raws,
                  int n)
{
    if (n < 0 || n > MAX_SECTIONS)
        return -1;
    dbg_snap s;
    dbg_snap_init(&s);
    unsigned char head[TABLE_END];
    memset(head, 0, sizeof(head));
    out->len = 0;
    if (dbg_buf_put(out, head, TABLE_END) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        size_t bound = ZSTD_compressBound(raws[i].len);
        unsigned char *z = malloc(bound);
        if (!z)
            return -1;
        size_t zn = ZSTD_compress(z, bound, raws[i].p ? raws[i].p
                                                      : (const unsigned char *)"",
                                  raws[i].len, 1);
        if (ZSTD_isError(zn)) {
            free(z);
            return -1;
        }
        unsigned char *e = head + HDR_SIZE + SECT_ENTRY * (size_t)i;
        le_put(e, ids[i], 4);
        le_put(e + 8, out->len, 8);
        le_put(e + 16, zn, 8);
        le_put(e + 24, raws[i].len, 8);
        le_put(e + 32, sum_of(raws[i].p ? raws[i].p : (const unsigned char *)"",
                              raws[i].len), 8);
        int r = dbg_buf_put(out, z, zn);
        free(z);
        if (r != 0)
            return -1;
    }
    unsigned char h0[HDR_SIZE];
    make_header(&s, n, h0);
    memcpy(head, h0, HDR_SIZE);
    le_put(head + 20, sum_of(head, TABLE_END) & 0xffffffffu, 4);
    memcpy(out->p, head, TABLE_END);
    return 0;
}

/* ---- loading ---------------------------------------------------------- */

int dbg_snap_is_snapshot(const unsigned char *p, size_t len)
{
    return len >= DBG_SNAP_MAGIC_LEN &&
           memcmp(p, DBG_SNAP_MAGIC, DBG_SNAP_MAGIC_LEN) == 0;
}

int dbg_snap_file_is_snapshot(const char *path)
{
    unsigned char m[DBG_SNAP_MAGIC_LEN];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(m, 1, sizeof(m), f);
    fclose(f);
    return dbg_snap_is_snapshot(m, n);
}

/* A cursor over a decompressed section. */
typedef struct rd {
    const unsigned char *p;
    size_t len, pos;
    int bad;
} rd;

static uint64_t rd_le(rd *r, int n)
{
    if (r->bad || r->len - r->pos < (size_t)n) {
        r->bad = 1;
        return 0;
    }
    uint64_t x = le_get(r->p + r->pos, n);
    r->pos += (size_t)n;
    return x;
}

static uint64_t rd_varint(rd *r)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->bad || r->pos >= r->len) {
            r->bad = 1;
            return 0;
        }
        unsigned char c = r->p[r->pos++];
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return x;
    }
    r->bad = 1;
    return 0;
}

static char *rd_str(rd *r)
{
    uint64_t l = rd_le(r, 4);
    if (r->bad || l > r->len - r->pos) {
        r->bad = 1;
        return NULL;
    }
    char *x = malloc((size_t)l + 1);
    if (!x) {
        r->bad = 1;
        return NULL;
    }
    memcpy(x, r->p + r->pos, (size_t)l);
    x[l] = '\0';
    r->pos += (size_t)l;
    return x;
}

typedef struct sect {
    uint32_t id;
    uint64_t off, clen, raw, sum;
    size_t entry; /* file offset of its table entry */
    unsigned char *data;
} sect;

static int load_header(dbg_snap *s, const unsigned char *p, size_t len,
                       sect *sects, int *nsect)
{
    if (!dbg_snap_is_snapshot(p, len)) {
        snap_err(s, "offset 0: not an rtscope snapshot (no snapshot magic)");
        return -1;
    }
    if (len < HDR_SIZE) {
        snap_err(s, "offset %zu: truncated snapshot (the header needs %d "
                    "bytes)", len, HDR_SIZE);
        return -1;
    }
    uint32_t version = (uint32_t)le_get(p + 8, 4);
    if (version != DBG_SNAP_VERSION) {
        snap_err(s, "offset 8: snapshot format version %u; this rtscope "
                    "reads version %d", version, DBG_SNAP_VERSION);
        return -1;
    }
    if (len < TABLE_END) {
        snap_err(s, "offset %zu: truncated snapshot (the header and section "
                    "table need %zu bytes)", len, TABLE_END);
        return -1;
    }
    unsigned char head[TABLE_END];
    memcpy(head, p, TABLE_END);
    memset(head + 20, 0, 4);
    if ((sum_of(head, TABLE_END) & 0xffffffffu) != le_get(p + 20, 4)) {
        snap_err(s, "offset 20: header checksum mismatch (corrupt "
                    "snapshot)");
        return -1;
    }
    s->ghc_version = (uint32_t)le_get(p + 12, 4);
    if (s->ghc_version != DBG_SNAP_GHC) {
        snap_err(s, "offset 12: a snapshot of a heap of GHC version %u; "
                    "rtscope debug reads GHC 9.0.2 heaps (%d)",
                 s->ghc_version, DBG_SNAP_GHC);
        return -1;
    }
    if (p[16] != WORD) {
        snap_err(s, "offset 16: a snapshot with %u-byte words; rtscope debug "
                    "reads 8-byte words (x86_64)", p[16]);
        return -1;
    }
    if (p[17] != (host_little() ? 1 : 2)) {
        snap_err(s, "offset 17: a snapshot of a %s heap; this machine is %s",
                 p[17] == 1 ? "little-endian" : p[17] == 2 ? "big-endian"
                                                           : "unknown-order",
                 host_little() ? "little-endian" : "big-endian");
        return -1;
    }
    unsigned n = (unsigned)le_get(p + 18, 2);
    if (n > MAX_SECTIONS) {
        snap_err(s, "offset 18: %u sections (at most %d)", n, MAX_SECTIONS);
        return -1;
    }
    s->created = le_get(p + 24, 8);
    s->pid = le_get(p + 32, 8);
    memcpy(s->program, p + 40, 24);
    s->program[24] = '\0';
    for (unsigned i = 0; i < n; i++) {
        const unsigned char *e = p + HDR_SIZE + SECT_ENTRY * i;
        sect *x = &sects[i];
        memset(x, 0, sizeof(*x));
        x->entry = HDR_SIZE + SECT_ENTRY * i;
        x->id = (uint32_t)le_get(e, 4);
        x->off = le_get(e + 8, 8);
        x->clen = le_get(e + 16, 8);
        x->raw = le_get(e + 24, 8);
        x->sum = le_get(e + 32, 8);
        if (x->off < TABLE_END || x->off > len || x->clen > len - x->off) {
            snap_err(s, "offset %" PRIu64 ": section %s: truncated snapshot "
                        "(it needs bytes %" PRIu64 "-%" PRIu64
                        ", the file has %zu)",
                     x->off, sect_name(x->id), x->off, x->off + x->clen, len);
            return -1;
        }
        for (unsigned j = 0; j < i; j++)
            if (sects[j].id == x->id) {
                snap_err(s, "offset %zu: section %s twice", x->entry,
                         sect_name(x->id));
                return -1;
            }
    }
    *nsect = (int)n;
    return 0;
}

static int load_section(dbg_snap *s, const unsigned char *p, sect *x,
                        uint64_t *budget)
{
    const unsigned char *z = p + x->off;
    unsigned long long content = ZSTD_getFrameContentSize(z, x->clen);
    size_t fsize = ZSTD_findFrameCompressedSize(z, x->clen);
    if (content == ZSTD_CONTENTSIZE_ERROR ||
        content == ZSTD_CONTENTSIZE_UNKNOWN || ZSTD_isError(fsize) ||
        fsize != x->clen) {
        snap_err(s, "offset %" PRIu64 ": section %s: not one zstd frame "
                    "(corrupt snapshot)", x->off, sect_name(x->id));
        return -1;
    }
    if (content != x->raw) {
        snap_err(s, "offset %" PRIu64 ": section %s: %llu bytes "
                    "uncompressed, the section table says %" PRIu64
                    " (corrupt snapshot)", x->off, sect_name(x->id), content,
                 x->raw);
        return -1;
    }
    if (x->raw > *budget || x->raw > SIZE_MAX - 1) {
        snap_err(s, "offset %" PRIu64 ": section %s: %" PRIu64
                    " bytes uncompressed is more than allowed",
                 x->off, sect_name(x->id), x->raw);
        return -1;
    }
    *budget -= x->raw;
    x->data = malloc((size_t)x->raw + 1);
    if (!x->data) {
        snap_err(s, "section %s: out of memory (%" PRIu64 " bytes)",
                 sect_name(x->id), x->raw);
        return -1;
    }
    size_t got = ZSTD_decompress(x->data, (size_t)x->raw, z, x->clen);
    if (ZSTD_isError(got) || got != x->raw) {
        snap_err(s, "offset %" PRIu64 ": section %s: %s (corrupt snapshot)",
                 x->off, sect_name(x->id),
                 ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short data");
        return -1;
    }
    if (sum_of(x->data, (size_t)x->raw) != x->sum) {
        snap_err(s, "offset %" PRIu64 ": section %s: checksum mismatch "
                    "(corrupt snapshot)", x->off, sect_name(x->id));
        return -1;
    }
    return 0;
}

static int parse_infos(dbg_snap *s, rd *r)
{
    while (r->pos < r->len && !r->bad) {
        if (grow((void **)&s->infos, &s->capinfos, s->ninfos,
                 sizeof(*s->infos)) != 0)
            return -1;
        dbg_snap_info *in = &s->infos[s->ninfos];
        memset(in, 0, sizeof(*in));
        in->ptr = rd_le(r, 8);
        in->type = (uint32_t)rd_le(r, 4);
        in->ptrs = (uint32_t)rd_le(r, 4);
        in->nptrs = (uint32_t)rd_le(r, 4);
        in->srt = rd_le(r, 8);
        uint64_t fl = rd_le(r, 1);
        s->ninfos++;
        if (fl & ~(uint64_t)3)
            r->bad = 1;
        if (fl & 1)
            in->con = rd_str(r);
        if (fl & 2) {
            in->nsrc = DBG_SOURCE_FIELDS;
            for (int k = 0; k < DBG_SOURCE_FIELDS && !r->bad; k++)
                in->src[k] = rd_str(r);
            if (r->bad)
                in->nsrc = 0;
        }
        if (s->ninfos > 1 && in->ptr <= in[-1].ptr)
            r->bad = 1; /* sorted, each once */
    }
    return r->bad ? -1 : 0;
}

static int parse_bitmaps(dbg_snap *s, rd *r, dbg_snap_bm **v, size_t *n,
                         size_t *cap)
{
    while (r->pos < r->len && !r->bad) {
        uint64_t key = rd_le(r, 8);
        uint64_t k = rd_le(r, 4);
        if (r->bad || k > r->len - r->pos)
            return -1;
        if (grow((void **)v, cap, *n, sizeof(**v)) != 0)
            return -1;
        if (*n && key <= (*v)[*n - 1].key)
            return -1;
        (*v)[*n] = (dbg_snap_bm){.key = key, .off = s->bits.len,
                                 .n = (uint32_t)k};
        if (dbg_buf_put(&s->bits, r->p + r->pos, (size_t)k) != 0)
            return -1;
        r->pos += (size_t)k;
        (*n)++;
    }
    return r->bad ? -1 : 0;
}

static int parse_closures(dbg_snap *s, rd *idx, const sect *data)
{
    uint64_t addr = 0, off = 0;
    while (idx->pos < idx->len && !idx->bad) {
        uint64_t d = rd_varint(idx), size = rd_varint(idx);
        if (idx->bad || (s->nclo && d == 0) || size < WORD ||
            size > 0xffffffffu || addr + d < addr ||
            size > data->raw - off)
            return -1;
        addr += d; /* strictly increasing: each closure once */
        if (grow((void **)&s->clo, &s->capclo, s->nclo, sizeof(*s->clo)) != 0)
            return -1;
        s->clo[s->nclo++] = (dbg_snap_clo){.addr = addr, .off = off,
                                           .size = (uint32_t)size};
        off += size;
    }
    if (idx->bad || off != data->raw)
        return -1;
    /* the section's buffer becomes the closure memory */
    s->mem.p = data->data;
    s->mem.len = s->mem.cap = (size_t)data->raw;
    return 0;
}

static sect *find_sect(sect *v, int n, uint32_t id)
{
    for (int i = 0; i < n; i++)
        if (v[i].id == id)
            return &v[i];
    return NULL;
}

int dbg_snap_load_mem(dbg_snap *s, const unsigned char *p, size_t len,
                      uint64_t max_raw)
{
    sect sects[MAX_SECTIONS];
    int nsect = 0, r = -1;
    dbg_snap_init(s);
    if (load_header(s, p, len, sects, &nsect) != 0)
        return -1;
    static const uint32_t need[] = {SECT_ROOTS, SECT_INFOS,
                                    SECT_CLOSURE_INDEX, SECT_CLOSURE_DATA,
                                    SECT_STACK_BITMAPS, SECT_FUN_BITMAPS};
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        if (!find_sect(sects, nsect, need[i])) {
            snap_err(s, "offset %d: no %s section (corrupt snapshot)",
                     HDR_SIZE, sect_name(need[i]));
            return -1;
        }
    uint64_t budget = max_raw ? max_raw : UINT64_MAX;
    for (int i = 0; i < nsect; i++)
        if (sects[i].id >= 1 && sects[i].id <= SECT_LAST &&
            load_section(s, p, &sects[i], &budget) != 0)
            goto done;
    const char *what = NULL;
    sect *x = find_sect(sects, nsect, SECT_ROOTS);
    if (x->raw % WORD) {
        what = "ROOTS";
        goto bad;
    }
    s->nroots = (size_t)x->raw / WORD;
    s->roots = malloc((s->nroots ? s->nroots : 1) * sizeof(*s->roots));
    if (!s->roots)
        goto oom;
    for (size_t i = 0; i < s->nroots; i++)
        s->roots[i] = dbg_rdptr(x->data + WORD * i);
    x = find_sect(sects, nsect, SECT_INFOS);
    rd rr = {x->data, (size_t)x->raw, 0, 0};
    if (parse_infos(s, &rr) != 0) {
        what = "INFOS";
        goto bad;
    }
    x = find_sect(sects, nsect, SECT_CLOSURE_INDEX);
    rr = (rd){x->data, (size_t)x->raw, 0, 0};
    sect *data = find_sect(sects, nsect, SECT_CLOSURE_DATA);
    if (parse_closures(s, &rr, data) != 0) {
        what = "CLOSURE_INDEX";
        goto bad;
    }
    data->data = NULL; /* now owned by s->mem */
    x = find_sect(sects, nsect, SECT_STACK_BITMAPS);
    rr = (rd){x->data, (size_t)x->raw, 0, 0};
    if (parse_bitmaps(s, &rr, &s->stack, &s->nstack, &s->capstack) != 0) {
        what = "STACK_BITMAPS";
        goto bad;
    }
    x = find_sect(sects, nsect, SECT_FUN_BITMAPS);
    rr = (rd){x->data, (size_t)x->raw, 0, 0};
    if (parse_bitmaps(s, &rr, &s->fun, &s->nfun, &s->capfun) != 0) {
        what = "FUN_BITMAPS";
        goto bad;
    }
    x = find_sect(sects, nsect, SECT_BLOCKS);
    if (x) {
        if (x->raw % 14) {
            what = "BLOCKS";
            goto bad;
        }
        s->nblocks = (size_t)x->raw / 14;
        s->blocks = malloc((s->nblocks ? s->nblocks : 1) * sizeof(*s->blocks));
        if (!s->blocks)
            goto oom;
        for (size_t i = 0; i < s->nblocks; i++) {
            const unsigned char *e = x->data + 14 * i;
            s->blocks[i].flags = (uint16_t)le_get(e, 2);
            s->blocks[i].start = dbg_rdptr(e + 2);
            s->blocks[i].size = (uint32_t)le_get(e + 10, 4);
        }
        s->have_blocks = 1;
    }
    r = 0;
    goto done;
bad:
    x = find_sect(sects, nsect,
                  strcmp(what, "ROOTS") == 0           ? SECT_ROOTS
                  : strcmp(what, "INFOS") == 0         ? SECT_INFOS
                  : strcmp(what, "CLOSURE_INDEX") == 0 ? SECT_CLOSURE_INDEX
                  : strcmp(what, "STACK_BITMAPS") == 0 ? SECT_STACK_BITMAPS
                  : strcmp(what, "FUN_BITMAPS") == 0   ? SECT_FUN_BITMAPS
                                                       : SECT_BLOCKS);
    snap_err(s, "offset %" PRIu64 ": section %s: malformed records (corrupt "
                "snapshot)", x ? x->off : 0, what);
    goto done;
oom:
    snap_err(s, "out of memory");
done:
    for (int i = 0; i < nsect; i++)
        free(sects[i].data);
    if (r != 0) {
        char keep[sizeof(s->err)];
        memcpy(keep, s->err, sizeof(keep));
        dbg_snap_free(s);
        memcpy(s->err, keep, sizeof(keep));
    }
    return r;
}

int dbg_snap_load_file(dbg_snap *s, const char *path)
{
    dbg_snap_init(s);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snap_err(s, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        snap_err(s, "not a regular file");
        return -1;
    }
    size_t len = (size_t)st.st_size;
    unsigned char *p = malloc(len ? len : 1);
    if (!p) {
        fclose(f);
        snap_err(s, "out of memory");
        return -1;
    }
    size_t got = fread(p, 1, len, f);
    fclose(f);
    int r = dbg_snap_load_mem(s, p, got, 0);
    free(p);
    return r;
}

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

static const dbg_snap_bm *find_bm(const dbg_snap_bm *v, size_t n,
                                  uint64_t key)
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
                         dbg_buf *out, unsigned char *keep,
                         size_t *unreadable)
{
    dbg_snap *s = src;
    out->len = 0;
    for (size_t i = 0; i < n; i++) {
        const dbg_snap_clo *c = find_clo(s, addrs[i]);
        keep[i] = c != NULL;
        if (!c) {
            (*unreadable)++;
            continue;
        }
        if (dbg_buf_put32(out, c->size) != 0 ||
            dbg_buf_put(out, s->mem.p + c->off, c->size) != 0) {
            snap_err(s, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int snap_infos(void *src, const uint64_t *ptrs, size_t n,
                      dbg_info *out)
{
    dbg_snap *s = src;
    for (size_t i = 0; i < n; i++) {
        const dbg_snap_info *in = find_info(s, ptrs[i]);
        if (!in) {
            snap_err(s, "info table 0x%" PRIx64 " is not in the snapshot "
                        "(corrupt snapshot)", ptrs[i]);
            return -1;
        }
        out[i].type = in->type;
        out[i].ptrs = in->ptrs;
        out[i].nptrs = in->nptrs;
        out[i].srt = in->srt;
    }
    return 0;
}

static int snap_con_descr(void *src, uint64_t info, char **out)
{
    dbg_snap *s = src;
    const dbg_snap_info *in = find_info(s, info);
    *out = NULL;
    if (!in || !in->con) {
        snap_err(s, "no constructor description for 0x%" PRIx64, info);
        return -1;
    }
    *out = strdup(in->con);
    return *out ? 0 : -1;
}

static int snap_source_info(void *src, uint64_t info, char *fields[6],
                            int *nfields)
{
    dbg_snap *s = src;
    const dbg_snap_info *in = find_info(s, info);
    *nfields = 0;
    for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
        fields[k] = NULL;
    if (!in || in->nsrc != DBG_SOURCE_FIELDS)
        return 0;
    for (int k = 0; k < DBG_SOURCE_FIELDS; k++) {
        fields[k] = strdup(in->src[k] ? in->src[k] : "");
        if (!fields[k]) {
            dbg_source_info_free(fields);
            return -1;
        }
    }
    *nfields = DBG_SOURCE_FIELDS;
    return 0;
}

static int bm_reply(dbg_snap *s, const dbg_snap_bm *b, uint32_t n,
                    dbg_buf *bm)
{
    bm->len = 0;
    if (dbg_buf_put32(bm, n) != 0 ||
        dbg_buf_put(bm, s->bits.p + b->off, n) != 0) {
        snap_err(s, "out of memory");
        return -1;
    }
    return 0;
}

static int snap_stack_bitmap(void *src, uint64_t sp, uint32_t off,
                             dbg_buf *bm)
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
    "snapshot", snap_roots, snap_closures, snap_infos, snap_con_descr,
    snap_source_info, snap_stack_bitmap, snap_fun_bitmap, snap_blocks,
    snap_error, snap_dead,
};
