/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Writing a heap snapshot file; see HeapSnapshotWrite.h. The format is
 * specified in docs/debug.md ("Snapshot format"), its numbers in
 * includes/rts/HeapSnapshotFormat.h.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "rts/HeapSnapshotFormat.h"
#include "DebugStubVerify.h"
#include "DebugStubLayout.h"
#include "HeapSnapshot.h"
#include "HeapSnapshotWrite.h"
#include "HeapSnapshotZstd.h"
#include "IPEBinary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Note [Stored sections]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The format's sections are zstd frames, compressed with the system's
 * libzstd where it can be loaded (Note [Compressed sections] in
 * HeapSnapshotZstd.c), else each one frame of raw blocks, which any zstd
 * decoder reads too: either way the frame header gives the content size,
 * as the format requires, and no content checksum (the section table's
 * own checksum covers the content). Raw, a snapshot is about as large as
 * the heap it holds.
 *
 * Every section's content length is known before it is written (a first
 * pass over what the walk reached builds the index, a few bytes a
 * closure, and counts the rest), so the closures' memory streams through
 * one buffer: the writer never holds more than the walk's sets, the info
 * table records, the index and a megabyte.
 * The header and section table are written last, at offset 0.
 */

#define OUT_BUF (1u << 20)

typedef struct {
    StgWord64 h, len;
    unsigned char tail[8];
    unsigned ntail;
} SnapSum;

typedef struct {
    int fd;
    int err;                        // first errno, 0 if none
    unsigned char *buf;
    size_t n;                       // bytes in buf
    StgWord64 pos;                  // file offset of buf[0] + n
    unsigned char table[HEAP_SNAPSHOT_MAX_SECTIONS * HEAP_SNAPSHOT_SECT_ENTRY];
    unsigned nsect;
    // the section being written
    uint32_t id;
    StgWord64 start, left, block_left;
    SnapSum sum;
    SnapZstd *z;                    // the compressor, or NULL: raw blocks
    unsigned char *zin;             // its input, gathered: a closure at a
    size_t nzin;                    // time is too little for a call
} SnapOut;

#define ZIN_BUF (256u << 10)

static void
putLe (unsigned char *p, StgWord64 x, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char) (x >> (8 * i));
}

static StgWord64
getLe64 (const unsigned char *p)
{
    StgWord64 x = 0;
#if defined(WORDS_BIGENDIAN)
    for (int i = 7; i >= 0; i--) x = (x << 8) | p[i];
#else
    memcpy(&x, p, sizeof(x));
#endif
    return x;
}

/* -----------------------------------------------------------------------------
   The snapshot checksum (HeapSnapshotFormat.h)
   -------------------------------------------------------------------------- */

static void
sumInit (SnapSum *c)
{
    memset(c, 0, sizeof(*c));
    c->h = HEAP_SNAPSHOT_SUM_SEED;
}

static void
sumAdd (SnapSum *c, const unsigned char *p, size_t n)
{
    c->len += n;
    while (c->ntail != 0 && n != 0) {
        c->tail[c->ntail++] = *p++;
        n--;
        if (c->ntail == 8) {
            c->h = heap_snapshot_sum_mix(c->h, getLe64(c->tail));
            c->ntail = 0;
        }
    }
    for (; n >= 8; p += 8, n -= 8) c->h = heap_snapshot_sum_mix(c->h, getLe64(p));
    if (n != 0) memcpy(c->tail, p, n);
    c->ntail += (unsigned) n;
}

static StgWord64
sumEnd (SnapSum *c)
{
    if (c->ntail != 0) {
        memset(c->tail + c->ntail, 0, 8 - c->ntail);
        c->h = heap_snapshot_sum_mix(c->h, getLe64(c->tail));
    }
    return heap_snapshot_sum_end(c->h, c->len);
}

/* -----------------------------------------------------------------------------
   Output
   -------------------------------------------------------------------------- */

static void
outFlush (SnapOut *o)
{
    size_t done = 0;
    while (o->err == 0 && done < o->n) {
        ssize_t r = write(o->fd, o->buf + done, o->n - done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) o->err = r < 0 ? errno : EIO;
        else done += (size_t) r;
    }
    o->n = 0;
}

static void
outBytes (SnapOut *o, const void *p, size_t n)
{
    const unsigned char *b = p;
    o->pos += n;
    while (n > 0 && o->err == 0) {
        size_t k = OUT_BUF - o->n < n ? OUT_BUF - o->n : n;
        memcpy(o->buf + o->n, b, k);
        o->n += k;
        b += k;
        n -= k;
        if (o->n == OUT_BUF) outFlush(o);
    }
}

static void
outZstd (void *ctx, const void *p, size_t n)
{
    outBytes(ctx, p, n);
}

// What sectPut gathered, to the compressor (end: the section's last).
static void
zinFlush (SnapOut *o, bool end)
{
    const char *why = NULL;
    if (!snapZstdPut(o->z, o->zin, o->nzin, end, outZstd, o, &why)
        && o->err == 0) {
        o->err = EIO;
    }
    o->nzin = 0;
}

// Begin section id of `raw` content bytes: a zstd frame, compressed or of
// raw blocks.
static void
sectBegin (SnapOut *o, uint32_t id, StgWord64 raw)
{
    unsigned char h[HEAP_SNAPSHOT_ZSTD_RAW_HEAD];
    o->id = id;
    o->start = o->pos;
    o->left = raw;
    o->block_left = 0;
    sumInit(&o->sum);
    if (o->z != NULL) {
        const char *why = NULL;
        if (!snapZstdBegin(o->z, raw, &why) && o->err == 0) o->err = EIO;
        return;
    }
    putLe(h, HEAP_SNAPSHOT_ZSTD_MAGIC, 4);
    h[4] = HEAP_SNAPSHOT_ZSTD_RAW_DESC;
    putLe(h + 5, raw, 8);
    outBytes(o, h, sizeof(h));
    if (raw == 0) {
        unsigned char b[3];
        putLe(b, 1, 3);                 // the last block, raw, empty
        outBytes(o, b, 3);
    }
}

// Content of the section begun (at most what it announced).
static void
sectPut (SnapOut *o, const void *p, size_t n)
{
    const unsigned char *b = p;
    if (n > o->left) {
        if (o->err == 0) o->err = EINVAL;   // a bug: more than announced
        return;
    }
    sumAdd(&o->sum, b, n);
    if (o->z != NULL) {
        o->left -= n;
        while (n > 0) {
            size_t k = ZIN_BUF - o->nzin < n ? ZIN_BUF - o->nzin : n;
            memcpy(o->zin + o->nzin, b, k);
            o->nzin += k;
            b += k;
            n -= k;
            if (o->nzin == ZIN_BUF) zinFlush(o, false);
        }
        return;
    }
    while (n > 0) {
        if (o->block_left == 0) {
            StgWord64 size = o->left < HEAP_SNAPSHOT_ZSTD_RAW_BLOCK
                ? o->left : HEAP_SNAPSHOT_ZSTD_RAW_BLOCK;
            unsigned char h[3];
            putLe(h, (size << 3) | (size == o->left ? 1 : 0), 3);
            outBytes(o, h, 3);
            o->block_left = size;
        }
        size_t k = o->block_left < n ? (size_t) o->block_left : n;
        outBytes(o, b, k);
        b += k;
        n -= k;
        o->block_left -= k;
        o->left -= k;
    }
}

static void
sectEnd (SnapOut *o, StgWord64 raw)
{
    if (o->left != 0 && o->err == 0) o->err = EINVAL;   // a bug: less
    if (o->z != NULL) zinFlush(o, true);
    unsigned char *e = o->table + (size_t) HEAP_SNAPSHOT_SECT_ENTRY * o->nsect++;
    putLe(e, o->id, 4);
    putLe(e + 4, 0, 4);
    putLe(e + 8, o->start, 8);
    putLe(e + 16, o->pos - o->start, 8);
    putLe(e + 24, raw, 8);
    putLe(e + 32, sumEnd(&o->sum), 8);
}

// A section held in memory.
static void
sectWhole (SnapOut *o, uint32_t id, const void *p, size_t n)
{
    sectBegin(o, id, n);
    sectPut(o, p, n);
    sectEnd(o, n);
}

/* -----------------------------------------------------------------------------
   A growable record buffer, for INFOS and ROOTS
   -------------------------------------------------------------------------- */

typedef struct {
    unsigned char *p;
    size_t n, cap;
    bool oom;
} Rec;

static void
recPut (Rec *r, const void *p, size_t n)
{
    if (r->oom) return;
    if (r->n + n > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->n + n) cap *= 2;
        unsigned char *np = realloc(r->p, cap);
        if (np == NULL) { r->oom = true; return; }
        r->p = np;
        r->cap = cap;
    }
    memcpy(r->p + r->n, p, n);
    r->n += n;
}

static void
recLe (Rec *r, StgWord64 x, int n)
{
    unsigned char b[8];
    putLe(b, x, n);
    recPut(r, b, (size_t) n);
}

static void
recString (Rec *r, const char *s, size_t n)
{
    recLe(r, n, 4);
    recPut(r, s, n);
}

// One INFOS record: as the debug stub's DESCRIBE_INFOS describes it.
static void
recInfo (Rec *r, StgWord p)
{
    const char *why = NULL;
    const StgInfoTable *info = stubInfoTable(p, sizeof(StgInfoTable), &why);
    StgWord srt = 0;
    if (info != NULL && !stubSrtOf(p, &srt, &why)) info = NULL;
    bool con = info != NULL && info->type >= CONSTR && info->type <= CONSTR_NOCAF;
    const StgInfoTable *ci;
    if (con && !stubConInfo(p, &ci, &why)) info = NULL;
    long len = -1;
    StgWord desc = 0;
    if (info != NULL && con) {
        desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
        len = stubStaticStrlen(desc);
    }
    // a table that cannot be read: type 0, as the stub's failure reads
    recLe(r, p, 8);
    recLe(r, info ? info->type : 0, 4);
    recLe(r, info ? info->layout.payload.ptrs : 0, 4);
    recLe(r, info ? info->layout.payload.nptrs : 0, 4);
    recLe(r, srt, 8);
    const InfoProvEnt *e = info != NULL && !(con && len < 0)
        ? lookupIPE((StgInfoTable *) p) : NULL;
    uint8_t flags = (con && len >= 0 ? HEAP_SNAPSHOT_INFO_CON : 0) |
                    (e != NULL ? HEAP_SNAPSHOT_INFO_SOURCE : 0);
    recPut(r, &flags, 1);
    if (flags & HEAP_SNAPSHOT_INFO_CON) recString(r, (const char *) desc, (size_t) len);
    if (e != NULL) {
        char loc[1024];
        const char *f[HEAP_SNAPSHOT_SOURCE_FIELDS] = {
            e->prov.table_name, e->prov.closure_desc, e->prov.ty_desc,
            e->prov.label, e->prov.module, ipeSrcLoc(&e->prov, loc, sizeof(loc)) };
        for (int i = 0; i < HEAP_SNAPSHOT_SOURCE_FIELDS; i++) {
            recString(r, f[i] ? f[i] : "", f[i] ? strlen(f[i]) : 0);
        }
    }
}

/* -----------------------------------------------------------------------------
   The closures: index, memory, pointer maps
   -------------------------------------------------------------------------- */

typedef struct {
    SnapOut *o;
    StgWord64 prev;
    StgWord64 count, data_bytes, map_bytes;
    Rec index;                  // CLOSURE_INDEX, built in the first pass
    StgWord *mapped;            // the closures with a pointer map, in order
    size_t nmapped, capmapped;
    bool oom;
} ClosurePass;

// The first pass: the index, the counts, the closures with pointer maps.
static bool
indexCb (void *user, StgWord p, StgWord size)
{
    ClosurePass *c = user;
    unsigned char t[20];
    unsigned n = heap_snapshot_varint(t, p - c->prev);
    n += heap_snapshot_varint(t + n, size * sizeof(StgWord));
    recPut(&c->index, t, n);
    c->prev = p;
    c->count++;
    c->data_bytes += size * sizeof(StgWord);
    if (stubNeedsPointerMap(get_itbl((StgClosure *) p)->type)) {
        if (c->nmapped == c->capmapped) {
            size_t cap = c->capmapped ? 2 * c->capmapped : 256;
            StgWord *m = realloc(c->mapped, cap * sizeof(StgWord));
            if (m == NULL) { c->oom = true; return false; }
            c->mapped = m;
            c->capmapped = cap;
        }
        c->mapped[c->nmapped++] = p;
        c->map_bytes += 12 + size;
    }
    return !c->index.oom;
}

static bool
dataCb (void *user, StgWord p, StgWord size)
{
    ClosurePass *c = user;
    sectPut(c->o, (const void *) p, size * sizeof(StgWord));
    return c->o->err == 0;
}

// PTR_MAPS: each pointer map, as the walk computed it (the same heap).
static void
writeMaps (SnapOut *o, const ClosurePass *c)
{
    uint8_t *map = NULL;
    StgWord mapcap = 0;
    sectBegin(o, HEAP_SNAPSHOT_PTR_MAPS, c->map_bytes);
    for (size_t i = 0; i < c->nmapped && o->err == 0; i++) {
        StgWord p = c->mapped[i];
        StgWord size = closure_sizeW((StgClosure *) p);
        if (size > mapcap) {
            uint8_t *m = realloc(map, size);
            if (m == NULL) { o->err = ENOMEM; break; }
            map = m;
            mapcap = size;
        }
        char buf[160];
        (void) stubPointerMap(p, size, map, buf, sizeof(buf));
        unsigned char h[12];
        putLe(h, p, 8);
        putLe(h + 8, size, 4);
        sectPut(o, h, sizeof(h));
        sectPut(o, map, size);
    }
    sectEnd(o, c->map_bytes);
    free(map);
}

static void
writeClosures (SnapOut *o, const SnapWalk *w, SnapWriteStats *st)
{
    ClosurePass c = { .o = o };
    snapForEachClosure(w, indexCb, &c);
    if ((c.oom || c.index.oom) && o->err == 0) o->err = ENOMEM;
    st->closures = c.count;
    st->heap_bytes = c.data_bytes;
    if (o->err == 0) {
        sectWhole(o, HEAP_SNAPSHOT_CLOSURE_INDEX, c.index.p, c.index.n);
        sectBegin(o, HEAP_SNAPSHOT_CLOSURE_DATA, c.data_bytes);
        snapForEachClosure(w, dataCb, &c);
        sectEnd(o, c.data_bytes);
        sectWhole(o, HEAP_SNAPSHOT_STACK_BITMAPS, "", 0);
        sectWhole(o, HEAP_SNAPSHOT_FUN_BITMAPS, "", 0);
        writeMaps(o, &c);
    }
    free(c.index.p);
    free(c.mapped);
}

/* -----------------------------------------------------------------------------
   The file
   -------------------------------------------------------------------------- */

static void
blockCb (void *user, const StubRegion *r)
{
    Rec *rec = user;
    recLe(rec, r->bd->flags, 2);
    StgWord start = r->start;
    recPut(rec, &start, sizeof(start));         // a heap word: host order
    recLe(rec, r->end - r->start, 4);
}

static void
writeHeader (SnapOut *o, pid_t pid, StgWord64 when)
{
    unsigned char h[HEAP_SNAPSHOT_TABLE_END];
    memset(h, 0, sizeof(h));
    memcpy(h, HEAP_SNAPSHOT_MAGIC, HEAP_SNAPSHOT_MAGIC_LEN);
    putLe(h + HEAP_SNAPSHOT_OFF_VERSION, HEAP_SNAPSHOT_VERSION, 4);
    putLe(h + HEAP_SNAPSHOT_OFF_GHC, RTSCOPE_GHC_VERSION_MAJOR, 4);
    h[HEAP_SNAPSHOT_OFF_WORD] = sizeof(StgWord);
#if defined(WORDS_BIGENDIAN)
    h[HEAP_SNAPSHOT_OFF_ORDER] = HEAP_SNAPSHOT_ORDER_BIG;
#else
    h[HEAP_SNAPSHOT_OFF_ORDER] = HEAP_SNAPSHOT_ORDER_LITTLE;
#endif
    putLe(h + HEAP_SNAPSHOT_OFF_NSECT, o->nsect, 2);
    putLe(h + HEAP_SNAPSHOT_OFF_TIME, when, 8);
    putLe(h + HEAP_SNAPSHOT_OFF_PID, (StgWord64) pid, 8);
    const char *prog = prog_name != NULL ? prog_name : "";
    memcpy(h + HEAP_SNAPSHOT_OFF_PROGRAM, prog,
           strnlen(prog, HEAP_SNAPSHOT_PROGRAM_LEN));
    memcpy(h + HEAP_SNAPSHOT_HEADER_LEN, o->table, sizeof(o->table));
    SnapSum c;
    sumInit(&c);
    sumAdd(&c, h, sizeof(h));
    putLe(h + HEAP_SNAPSHOT_OFF_CHECKSUM, sumEnd(&c) & 0xffffffffu, 4);
    size_t done = 0;
    while (o->err == 0 && done < sizeof(h)) {
        ssize_t r = pwrite(o->fd, h + done, sizeof(h) - done, (off_t) done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) o->err = r < 0 ? errno : EIO;
        else done += (size_t) r;
    }
}

int
snapWriteFile (int fd, const SnapWalk *w, pid_t pid, StgWord64 when,
               SnapWriteStats *st)
{
    SnapOut o = { .fd = fd };
    Rec r = { 0 };
    memset(st, 0, sizeof(*st));
    o.buf = malloc(OUT_BUF);
    if (o.buf == NULL) return ENOMEM;
    o.z = heap_snapshot_config.raw ? NULL : snapZstdNew();
    o.zin = o.z != NULL ? malloc(ZIN_BUF) : NULL;
    if (o.zin == NULL) {                        // raw blocks, then
        snapZstdFree(o.z);
        o.z = NULL;
    }
    unsigned char zero[HEAP_SNAPSHOT_TABLE_END] = { 0 };
    outBytes(&o, zero, sizeof(zero));           // the header goes here last

    size_t n;
    const StgWord *roots = snapRoots(w, &n);
    sectWhole(&o, HEAP_SNAPSHOT_ROOTS, roots, n * sizeof(StgWord));   // host order
    const StgWord *infos = snapInfos(w, &n);
    for (size_t i = 0; i < n; i++) recInfo(&r, infos[i]);
    if (r.oom && o.err == 0) o.err = ENOMEM;
    sectWhole(&o, HEAP_SNAPSHOT_INFOS, r.p, r.n);
    writeClosures(&o, w, st);
    r.n = 0;
    stubForEachBlock(blockCb, &r);
    if (r.oom && o.err == 0) o.err = ENOMEM;
    sectWhole(&o, HEAP_SNAPSHOT_BLOCKS, r.p, r.n);
    outFlush(&o);
    writeHeader(&o, pid, when);
    st->file_bytes = o.pos;
    st->unreadable = snapUnreadable(w);
    free(r.p);
    free(o.buf);
    snapZstdFree(o.z);
    free(o.zin);
    return o.err;
}
