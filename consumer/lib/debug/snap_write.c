/* Writing a snapshot file (debug_snap.h; format in docs/debug.md). */
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

/* ---- writing ---------------------------------------------------------- */

typedef struct snap_writer {
    FILE *f;
    const char *path; /* the file being written, for errors */
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
            snap_err(s, "%s: %s", w->path, strerror(errno));
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
static int w_section(snap_writer *w, dbg_snap *s, uint32_t id, const dbg_buf *b)
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
        r |=
            dbg_buf_put8(b, (uint8_t)((in->con ? 1 : 0) |
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
    return dbg_buf_put(b, t, heap_snapshot_varint(t, x));
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
    b.len = 0;
    if (build_bitmaps(s, s->maps, s->nmaps, &b) != 0)
        goto oom;
    if (w_section(w, s, SECT_PTR_MAPS, &b) != 0)
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
    // NOLINTNEXTLINE(bugprone-not-null-terminated-result): the file's bytes
    memcpy(h, DBG_SNAP_MAGIC, DBG_SNAP_MAGIC_LEN);
    le_put(h + HEAP_SNAPSHOT_OFF_VERSION, DBG_SNAP_VERSION, 4);
    le_put(h + HEAP_SNAPSHOT_OFF_GHC, s->ghc_version, 4);
    h[HEAP_SNAPSHOT_OFF_WORD] = WORD;
    h[HEAP_SNAPSHOT_OFF_ORDER] =
        host_little() ? HEAP_SNAPSHOT_ORDER_LITTLE : HEAP_SNAPSHOT_ORDER_BIG;
    le_put(h + HEAP_SNAPSHOT_OFF_NSECT, (uint64_t)nsect, 2);
    le_put(h + HEAP_SNAPSHOT_OFF_TIME, s->created, 8);
    le_put(h + HEAP_SNAPSHOT_OFF_PID, s->pid, 8);
    memcpy(h + HEAP_SNAPSHOT_OFF_PROGRAM, s->program,
           strnlen(s->program, HEAP_SNAPSHOT_PROGRAM_LEN));
}

int dbg_snap_check_path(dbg_snap *s, const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0) { /* standard output elsewhere: refused
                                     here, not taken as a file named "-" */
        snap_err(s, "-: a snapshot is written to a file, not to standard "
                    "output");
        return -1;
    }
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
    w.path = tmp;
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
    /* compress on two threads while this one feeds (a libzstd built
     * without threads refuses, and one thread does it all) */
    ZSTD_CCtx_setParameter(w.cc, ZSTD_c_nbWorkers, 2);
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
    le_put(head + HEAP_SNAPSHOT_OFF_CHECKSUM,
           sum_of(head, TABLE_END) & 0xffffffffu, 4);
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

int dbg_snap_pack(dbg_buf *out, const uint32_t *ids, const dbg_buf *raws, int n)
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
        size_t zn = ZSTD_compress(
            z, bound, raws[i].p ? raws[i].p : (const unsigned char *)"",
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
        le_put(e + 32,
               sum_of(raws[i].p ? raws[i].p : (const unsigned char *)"",
                      raws[i].len),
               8);
        int r = dbg_buf_put(out, z, zn);
        free(z);
        if (r != 0)
            return -1;
    }
    unsigned char h0[HDR_SIZE];
    make_header(&s, n, h0);
    memcpy(head, h0, HDR_SIZE);
    le_put(head + HEAP_SNAPSHOT_OFF_CHECKSUM,
           sum_of(head, TABLE_END) & 0xffffffffu, 4);
    memcpy(out->p, head, TABLE_END);
    return 0;
}
