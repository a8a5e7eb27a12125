/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Compressing heap snapshots with the system's libzstd; see
 * HeapSnapshotZstd.h.
 *
 * ---------------------------------------------------------------------------*/

#include "Rts.h"

#include "HeapSnapshotZstd.h"

#include <dlfcn.h>
#include <stdlib.h>

/* Note [Compressed sections]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A snapshot's sections are zstd frames (Note [Stored sections] in
 * HeapSnapshotWrite.c). Raw blocks make the file as large as the heap:
 * 4 GB on the disk of a 4 GB service that dies of heap overflow, maybe the
 * very disk it is short of. Compressed at zstd's level -1 (the first of
 * its fast levels) they are about a sixth of it: on a 380 MB heap, level
 * -1 compressed 386 MB/s on this project's 2-core machine and gave 0.16 of
 * the raw size, level 1 187 MB/s and 0.15. The faster level keeps the
 * compressor ahead of the walk (about 120 MB/s there), so compressing
 * costs the writer no time.
 *
 * The RTS links no compressor (every program would carry it, and need
 * libzstd-dev to link). It loads the system's libzstd.so.1 (Debian's
 * libzstd1, which apt and dpkg need, so it is there) with dlopen(), once,
 * in the program before it forks its first writer: the writer is a child
 * of a program that may have many threads, where dlopen() could wait for
 * a loader lock that a thread held at the fork. Only the functions below
 * are looked up, and their declarations are restated here from zstd's
 * stable API (zstd.h, "stable" since 1.4.0), so that the RTS builds
 * without zstd's headers too. The writer compresses in two threads of
 * its own (ZSTD_c_nbWorkers = 2), beside the walk, so it writes about as
 * fast as it writes raw blocks. With one worker the walk waited for it:
 * on a 380 MB heap the walk's thread ran 3.3 s and the worker 1.9 s of a
 * 5.05 s write, the sum of the two. Without libzstd (or if it
 * fails), or with +RTS --heap-snapshot-raw, the writer writes raw blocks,
 * which every reader takes too.
 */

#define ZSTD_LEVEL (-1)
#define ZSTD_C_COMPRESSION_LEVEL 100   // ZSTD_c_compressionLevel
#define ZSTD_C_NB_WORKERS 400          // ZSTD_c_nbWorkers
#define ZSTD_E_CONTINUE 0              // ZSTD_e_continue
#define ZSTD_E_END 2                   // ZSTD_e_end
#define ZSTD_RESET_SESSION_ONLY 1      // ZSTD_reset_session_only

typedef struct { const void *src; size_t size; size_t pos; } ZInBuf;
typedef struct { void *dst; size_t size; size_t pos; } ZOutBuf;

static struct {
    bool tried, ok;
    void *(*createCCtx) (void);
    size_t (*freeCCtx) (void *);
    size_t (*setParameter) (void *, int, int);
    size_t (*setPledgedSrcSize) (void *, unsigned long long);
    size_t (*reset) (void *, int);
    size_t (*compressStream2) (void *, ZOutBuf *, ZInBuf *, int);
    unsigned (*isError) (size_t);
    const char *(*getErrorName) (size_t);
    size_t (*outSize) (void);
} zl;

bool
snapZstdLoad (void)
{
    if (zl.tried) return zl.ok;
    zl.tried = true;
    void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return false;
#define SYM(f, n) (*(void **) &zl.f = dlsym(h, n)) != NULL
    zl.ok = SYM(createCCtx, "ZSTD_createCCtx")
        && SYM(freeCCtx, "ZSTD_freeCCtx")
        && SYM(setParameter, "ZSTD_CCtx_setParameter")
        && SYM(setPledgedSrcSize, "ZSTD_CCtx_setPledgedSrcSize")
        && SYM(reset, "ZSTD_CCtx_reset")
        && SYM(compressStream2, "ZSTD_compressStream2")
        && SYM(isError, "ZSTD_isError")
        && SYM(getErrorName, "ZSTD_getErrorName")
        && SYM(outSize, "ZSTD_CStreamOutSize");
#undef SYM
    return zl.ok;
}

struct SnapZstd_ {
    void *cctx;
    unsigned char *out;
    size_t out_size;
};

SnapZstd *
snapZstdNew (void)
{
    if (!zl.ok) return NULL;
    SnapZstd *z = calloc(1, sizeof(*z));
    if (z == NULL) return NULL;
    z->cctx = zl.createCCtx();
    z->out_size = zl.outSize();
    z->out = malloc(z->out_size);
    if (z->cctx == NULL || z->out == NULL
        || zl.isError(zl.setParameter(z->cctx, ZSTD_C_COMPRESSION_LEVEL,
                                      ZSTD_LEVEL))) {
        snapZstdFree(z);
        return NULL;
    }
    // worker threads if this libzstd has them (else it compresses inline)
    (void) zl.setParameter(z->cctx, ZSTD_C_NB_WORKERS, 2);
    return z;
}

void
snapZstdFree (SnapZstd *z)
{
    if (z == NULL) return;
    if (z->cctx != NULL) zl.freeCCtx(z->cctx);
    free(z->out);
    free(z);
}

static bool
zfail (size_t r, const char **why)
{
    if (!zl.isError(r)) return false;
    *why = zl.getErrorName(r);
    return true;
}

bool
snapZstdBegin (SnapZstd *z, StgWord64 raw, const char **why)
{
    // the frame header gives the content size, as the format requires
    return !zfail(zl.reset(z->cctx, ZSTD_RESET_SESSION_ONLY), why)
        && !zfail(zl.setPledgedSrcSize(z->cctx, raw), why);
}

bool
snapZstdPut (SnapZstd *z, const void *p, size_t n, bool end,
             SnapZstdOut out, void *ctx, const char **why)
{
    ZInBuf in = { p, n, 0 };
    for (;;) {
        ZOutBuf o = { z->out, z->out_size, 0 };
        size_t left = zl.compressStream2(z->cctx, &o, &in,
                                         end ? ZSTD_E_END : ZSTD_E_CONTINUE);
        if (zfail(left, why)) return false;
        if (o.pos > 0) out(ctx, z->out, o.pos);
        if (end ? left == 0 : in.pos == in.size) return true;
    }
}
