/* Loading a snapshot file, verified section by section (debug_snap.h). */
#define _GNU_SOURCE
#include "snap_impl.h"

#include "rtscope/base/safestr.h"

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
    /* the program's own text: See rtscope/base/safestr.h */
    char *x = rt_str_escape_ctl(r->p + r->pos, (size_t)l);
    if (!x) {
        r->bad = 1;
        return NULL;
    }
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
        snap_err(s,
                 "offset %zu: truncated snapshot (the header needs %d "
                 "bytes)",
                 len, HDR_SIZE);
        return -1;
    }
    uint32_t version = (uint32_t)le_get(p + HEAP_SNAPSHOT_OFF_VERSION, 4);
    if (version < 1 || version > DBG_SNAP_VERSION) {
        snap_err(s,
                 "offset 8: snapshot format version %u; this rtscope "
                 "reads versions 1 to %d",
                 version, DBG_SNAP_VERSION);
        return -1;
    }
    if (len < TABLE_END) {
        snap_err(s,
                 "offset %zu: truncated snapshot (the header and section "
                 "table need %zu bytes)",
                 len, TABLE_END);
        return -1;
    }
    unsigned char head[TABLE_END];
    memcpy(head, p, TABLE_END);
    memset(head + HEAP_SNAPSHOT_OFF_CHECKSUM, 0, 4);
    if ((sum_of(head, TABLE_END) & 0xffffffffu) !=
        le_get(p + HEAP_SNAPSHOT_OFF_CHECKSUM, 4)) {
        snap_err(s, "offset 20: header checksum mismatch (corrupt "
                    "snapshot)");
        return -1;
    }
    s->ghc_version = (uint32_t)le_get(p + HEAP_SNAPSHOT_OFF_GHC, 4);
    if (!dbg_layout_for(s->ghc_version)) {
        snap_err(s,
                 "offset 12: a snapshot of a heap of GHC version %u; "
                 "rtscope debug reads the heaps of GHC %s",
                 s->ghc_version, dbg_layout_known());
        return -1;
    }
    if (p[HEAP_SNAPSHOT_OFF_WORD] != WORD) {
        snap_err(s,
                 "offset 16: a snapshot with %u-byte words; rtscope debug "
                 "reads 8-byte words (x86_64)",
                 p[HEAP_SNAPSHOT_OFF_WORD]);
        return -1;
    }
    if (p[HEAP_SNAPSHOT_OFF_ORDER] != (host_little()
                                           ? HEAP_SNAPSHOT_ORDER_LITTLE
                                           : HEAP_SNAPSHOT_ORDER_BIG)) {
        snap_err(s, "offset 17: a snapshot of a %s heap; this machine is %s",
                 p[HEAP_SNAPSHOT_OFF_ORDER] == HEAP_SNAPSHOT_ORDER_LITTLE
                     ? "little-endian"
                 : p[HEAP_SNAPSHOT_OFF_ORDER] == HEAP_SNAPSHOT_ORDER_BIG
                     ? "big-endian"
                     : "unknown-order",
                 host_little() ? "little-endian" : "big-endian");
        return -1;
    }
    unsigned n = (unsigned)le_get(p + HEAP_SNAPSHOT_OFF_NSECT, 2);
    if (n > MAX_SECTIONS) {
        snap_err(s, "offset 18: %u sections (at most %d)", n, MAX_SECTIONS);
        return -1;
    }
    s->created = le_get(p + HEAP_SNAPSHOT_OFF_TIME, 8);
    s->pid = le_get(p + HEAP_SNAPSHOT_OFF_PID, 8);
    memcpy(s->program, p + HEAP_SNAPSHOT_OFF_PROGRAM,
           HEAP_SNAPSHOT_PROGRAM_LEN);
    s->program[HEAP_SNAPSHOT_PROGRAM_LEN] = '\0';
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
            snap_err(s,
                     "offset %" PRIu64 ": section %s: truncated snapshot "
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
        snap_err(s,
                 "offset %" PRIu64 ": section %s: not one zstd frame "
                 "(corrupt snapshot)",
                 x->off, sect_name(x->id));
        return -1;
    }
    if (content != x->raw) {
        snap_err(s,
                 "offset %" PRIu64 ": section %s: %llu bytes "
                 "uncompressed, the section table says %" PRIu64
                 " (corrupt snapshot)",
                 x->off, sect_name(x->id), content, x->raw);
        return -1;
    }
    if (x->raw > *budget || x->raw > SIZE_MAX - 1) {
        snap_err(s,
                 "offset %" PRIu64 ": section %s: %" PRIu64
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
        snap_err(s,
                 "offset %" PRIu64 ": section %s: checksum mismatch "
                 "(corrupt snapshot)",
                 x->off, sect_name(x->id));
        return -1;
    }
    return 0;
}

static int parse_infos(dbg_snap *s, rd *r)
{
    while (r->pos < r->len && !r->bad) {
        if (rt_grow((void **)&s->infos, &s->capinfos, s->ninfos,
                    sizeof(*s->infos), 256) != 0)
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
        if (rt_grow((void **)v, cap, *n, sizeof(**v), 256) != 0)
            return -1;
        if (*n && key <= (*v)[*n - 1].key)
            return -1;
        (*v)[*n] =
            (dbg_snap_bm){.key = key, .off = s->bits.len, .n = (uint32_t)k};
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
            size > 0xffffffffu || addr + d < addr || size > data->raw - off)
            return -1;
        addr += d; /* strictly increasing: each closure once */
        if (rt_grow((void **)&s->clo, &s->capclo, s->nclo, sizeof(*s->clo),
                    256) != 0)
            return -1;
        s->clo[s->nclo++] =
            (dbg_snap_clo){.addr = addr, .off = off, .size = (uint32_t)size};
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

/* A section whose records do not parse. Returns -1. */
static int sect_malformed(dbg_snap *s, const sect *x)
{
    snap_err(s,
             "offset %" PRIu64 ": section %s: malformed records (corrupt "
             "snapshot)",
             x->off, sect_name(x->id));
    return -1;
}

/* A reader of a loaded section's bytes. */
static rd sect_reader(const sect *x)
{
    return (rd){x->data, (size_t)x->raw, 0, 0};
}

/* The sections by id (NULL: not in the file), each id once; every
 * section the loader needs must be there. 0, or -1 with s->err set. */
static int sections_by_id(dbg_snap *s, sect *sects, int nsect, sect **by_id)
{
    static const uint32_t need[] = {SECT_ROOTS,         SECT_INFOS,
                                    SECT_CLOSURE_INDEX, SECT_CLOSURE_DATA,
                                    SECT_STACK_BITMAPS, SECT_FUN_BITMAPS};
    by_id[0] = NULL;
    for (uint32_t id = 1; id <= SECT_LAST; id++)
        by_id[id] = find_sect(sects, nsect, id);
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        if (!by_id[need[i]]) {
            snap_err(s, "offset %d: no %s section (corrupt snapshot)", HDR_SIZE,
                     sect_name(need[i]));
            return -1;
        }
    return 0;
}

/* ROOTS: one word a root. */
static int load_roots(dbg_snap *s, const sect *x)
{
    if (x->raw % WORD)
        return sect_malformed(s, x);
    s->nroots = (size_t)x->raw / WORD;
    s->roots = malloc((s->nroots ? s->nroots : 1) * sizeof(*s->roots));
    if (!s->roots) {
        snap_err(s, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < s->nroots; i++)
        s->roots[i] = dbg_rdptr(x->data + WORD * i);
    return 0;
}

/* BLOCKS: 14 bytes a block group (flags, start, size). */
static int load_blocks(dbg_snap *s, const sect *x)
{
    if (x->raw % 14)
        return sect_malformed(s, x);
    s->nblocks = (size_t)x->raw / 14;
    s->blocks = malloc((s->nblocks ? s->nblocks : 1) * sizeof(*s->blocks));
    if (!s->blocks) {
        snap_err(s, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < s->nblocks; i++) {
        const unsigned char *e = x->data + 14 * i;
        s->blocks[i].flags = (uint16_t)le_get(e, 2);
        s->blocks[i].start = dbg_rdptr(e + 2);
        s->blocks[i].size = (uint32_t)le_get(e + 10, 4);
    }
    s->have_blocks = 1;
    return 0;
}

/* Bitmaps (STACK_BITMAPS, FUN_BITMAPS, PTR_MAPS) into v. */
static int load_bitmaps(dbg_snap *s, const sect *x, dbg_snap_bm **v, size_t *n,
                        size_t *cap)
{
    rd r = sect_reader(x);
    return parse_bitmaps(s, &r, v, n, cap) != 0 ? sect_malformed(s, x) : 0;
}

/* The records of the loaded sections (by_id: the sections by id, those
 * the loader needs there), into s: 0, or -1 with s->err set. */
static int load_records(dbg_snap *s, sect *const *by_id)
{
    if (load_roots(s, by_id[SECT_ROOTS]) != 0)
        return -1;
    const sect *x = by_id[SECT_INFOS];
    rd r = sect_reader(x);
    if (parse_infos(s, &r) != 0)
        return sect_malformed(s, x);
    x = by_id[SECT_CLOSURE_INDEX];
    r = sect_reader(x);
    if (parse_closures(s, &r, by_id[SECT_CLOSURE_DATA]) != 0)
        return sect_malformed(s, x);
    by_id[SECT_CLOSURE_DATA]->data = NULL; /* now owned by s->mem */
    if (load_bitmaps(s, by_id[SECT_STACK_BITMAPS], &s->stack, &s->nstack,
                     &s->capstack) != 0 ||
        load_bitmaps(s, by_id[SECT_FUN_BITMAPS], &s->fun, &s->nfun,
                     &s->capfun) != 0)
        return -1;
    x = by_id[SECT_PTR_MAPS];
    if (x && load_bitmaps(s, x, &s->maps, &s->nmaps, &s->capmaps) != 0)
        return -1;
    x = by_id[SECT_BLOCKS];
    return x ? load_blocks(s, x) : 0;
}

int dbg_snap_load_mem(dbg_snap *s, const unsigned char *p, size_t len,
                      uint64_t max_raw)
{
    sect sects[MAX_SECTIONS], *by_id[SECT_LAST + 1];
    int nsect = 0, r = 0;
    dbg_snap_init(s);
    if (load_header(s, p, len, sects, &nsect) != 0 ||
        sections_by_id(s, sects, nsect, by_id) != 0)
        return -1;
    rt_str_blank_ctl(s->program); /* the program's text: see safestr.h */
    uint64_t budget = max_raw ? max_raw : UINT64_MAX;
    for (int i = 0; i < nsect && !r; i++)
        if (sects[i].id >= 1 && sects[i].id <= SECT_LAST)
            r = load_section(s, p, &sects[i], &budget);
    if (!r)
        r = load_records(s, by_id);
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
