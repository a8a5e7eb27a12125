/* The in-memory snapshot and the format's primitives (integers, the
 * checksum). See debug_snap.h; the file format is documented in docs/debug.md
 * ("Snapshot format"). Integers of the header, the section table and the
 * section records are little-endian; heap words (addresses, closure memory) are
 * in the debuggee's byte order, which the header records. */
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

static const char *const sect_names[] = {
    "?",
    "ROOTS",
    "INFOS",
    "CLOSURE_INDEX",
    "CLOSURE_DATA",
    "STACK_BITMAPS",
    "FUN_BITMAPS",
    "BLOCKS",
    "PTR_MAPS",
};

const char *sect_name(uint32_t id)
{
    return id >= 1 && id <= SECT_LAST ? sect_names[id] : "unknown";
}

void snap_err(dbg_snap *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(s->err, sizeof(s->err), fmt, ap);
    va_end(ap);
}

/* ---- little-endian integers and the checksum ---------------------------- */

void le_put(unsigned char *p, uint64_t x, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(x >> (8 * i));
}

uint64_t le_get(const unsigned char *p, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

int buf_le(dbg_buf *b, uint64_t x, int n)
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

#define FNV_OFFSET HEAP_SNAPSHOT_SUM_SEED

static uint64_t mixw(uint64_t h, uint64_t w)
{
    return heap_snapshot_sum_mix(h, w);
}

void sum_init(snap_sum *c)
{
    memset(c, 0, sizeof(*c));
    c->h = FNV_OFFSET;
}

void sum_add(snap_sum *c, const unsigned char *p, size_t n)
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

uint64_t sum_end(snap_sum *c)
{
    if (c->ntail) {
        memset(c->tail + c->ntail, 0, 8 - c->ntail);
        c->h = mixw(c->h, le_get(c->tail, 8));
        c->ntail = 0;
    }
    return heap_snapshot_sum_end(c->h, c->len);
}

uint64_t sum_of(const unsigned char *p, size_t n)
{
    snap_sum c;
    sum_init(&c);
    sum_add(&c, p, n);
    return sum_end(&c);
}

int host_little(void)
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
    /* the recorder sets the heap's own (dbg_heap.layout) */
    s->ghc_version = dbg_layout_default()->ghc;
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
    free(s->maps);
    free(s->blocks);
    dbg_buf_free(&s->mem);
    dbg_buf_free(&s->bits);
    hmap_free(&s->fun_index);
    memset(s, 0, sizeof(*s));
}

int dbg_snap_add_closure(dbg_snap *s, uint64_t addr, const unsigned char *mem,
                         uint32_t size)
{
    if (rt_grow((void **)&s->clo, &s->capclo, s->nclo, sizeof(*s->clo), 256) !=
        0)
        return -1;
    s->clo[s->nclo] =
        (dbg_snap_clo){.addr = addr, .off = s->mem.len, .size = size};
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
    if (rt_grow((void **)v, cap, *n, sizeof(**v), 256) != 0)
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

int dbg_snap_add_ptrmap(dbg_snap *s, uint64_t addr, const unsigned char *map,
                        uint32_t n)
{
    if (rt_grow((void **)&s->maps, &s->capmaps, s->nmaps, sizeof(*s->maps),
                256) != 0)
        return -1;
    s->maps[s->nmaps] = (dbg_snap_bm){.key = addr, .off = s->bits.len, .n = n};
    if (dbg_buf_put(&s->bits, map, n) != 0)
        return -1;
    s->nmaps++;
    return 0;
}

int dbg_snap_add_fun_bitmap(dbg_snap *s, uint64_t fun, const unsigned char *bm,
                            size_t len)
{
    uint64_t slot;
    if (len < 4)
        return 0;
    if (hmap_get(&s->fun_index, fun, &slot)) {
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
    if (s->nfun > before && hmap_put(&s->fun_index, fun, s->nfun) != 0)
        return -1;
    return 0;
}

char *dup_or_null(const char *x, int *bad)
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
    if (rt_grow((void **)&s->infos, &s->capinfos, s->ninfos, sizeof(*s->infos),
                256) != 0)
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

/* Closures by address, in place: an MSD radix sort (American flag sort)
 * on the bytes in which the addresses differ, insertion sort for small
 * buckets. A heap of 38 million closures took qsort 3-4 s of the
 * snapshot; this takes a fraction of it, with no second array. */
static void clo_insertion(dbg_snap_clo *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        dbg_snap_clo x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].addr > x.addr; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void clo_radix(dbg_snap_clo *v, size_t n, int shift)
{
    if (n <= 32 || shift < 0) {
        clo_insertion(v, n);
        return;
    }
    size_t count[256] = {0}, next[256], end[256];
    for (size_t i = 0; i < n; i++)
        count[(v[i].addr >> shift) & 0xff]++;
    size_t at = 0;
    for (int b = 0; b < 256; b++) {
        next[b] = at;
        at += count[b];
        end[b] = at;
    }
    for (int b = 0; b < 256; b++) {
        while (next[b] < end[b]) {
            dbg_snap_clo x = v[next[b]];
            int d = (int)((x.addr >> shift) & 0xff);
            while (d != b) { /* cycle x to its bucket */
                dbg_snap_clo y = v[next[d]];
                v[next[d]++] = x;
                x = y;
                d = (int)((x.addr >> shift) & 0xff);
            }
            v[next[b]++] = x;
        }
    }
    size_t from = 0;
    for (int b = 0; b < 256; b++) {
        if (count[b] > 1)
            clo_radix(v + from, count[b], shift - 8);
        from += count[b];
    }
}

static void sort_closures(dbg_snap_clo *v, size_t n)
{
    uint64_t diff = 0;
    for (size_t i = 1; i < n; i++)
        diff |= v[i].addr ^ v[0].addr;
    int shift = 56; /* the highest byte in which addresses differ */
    while (shift > 0 && !((diff >> shift) & 0xff))
        shift -= 8;
    clo_radix(v, n, shift);
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
        sort_closures(s->clo, s->nclo);
    if (s->nstack)
        qsort(s->stack, s->nstack, sizeof(*s->stack), cmp_bm);
    if (s->nfun)
        qsort(s->fun, s->nfun, sizeof(*s->fun), cmp_bm);
    if (s->nmaps)
        qsort(s->maps, s->nmaps, sizeof(*s->maps), cmp_bm);
    if (s->ninfos)
        qsort(s->infos, s->ninfos, sizeof(*s->infos), cmp_info);
    hmap_free(&s->fun_index);
    return 0;
}

uint64_t dbg_snap_live_bytes(const dbg_snap *s)
{
    uint64_t t = 0;
    for (size_t i = 0; i < s->nclo; i++)
        t += s->clo[i].size;
    return t;
}
