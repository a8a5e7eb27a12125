/* debug_snap: heap snapshots. A snapshot holds what a walk of the paused
 * heap read and nothing else: the roots, every reachable closure, the
 * info tables (with SRTs, constructor descriptions and source
 * information), the stack-frame and function-argument bitmaps the walk
 * asked for, and the list of block groups. It is recorded during a live
 * walk (rec_source.h), written as a versioned, zstd-compressed file
 * (format in docs/debug.md, "Snapshot format"), loaded back with every
 * length and checksum verified, and served as a dbg_source_ops so every
 * command runs on it as on a live stub. */
#ifndef RTSCOPE_DEBUG_SNAP_H
#define RTSCOPE_DEBUG_SNAP_H

#include "rtscope/base/hmap.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* The format's numbers, shared with the RTS's own snapshot writer. Format 2
 * adds the pointer maps of stacks and applications; format 1 (stack and
 * argument bitmaps only) is still read. */
#include "rts/HeapSnapshotFormat.h"

#define DBG_SNAP_MAGIC HEAP_SNAPSHOT_MAGIC
#define DBG_SNAP_MAGIC_LEN HEAP_SNAPSHOT_MAGIC_LEN
#define DBG_SNAP_VERSION HEAP_SNAPSHOT_VERSION

typedef struct dbg_snap_clo {
    uint64_t addr;
    uint64_t off; /* into mem */
    uint32_t size;
} dbg_snap_clo;

typedef struct dbg_snap_bm {
    uint64_t key; /* frame address, or function closure */
    uint64_t off; /* into bits: n bytes of 0/1 */
    uint32_t n;
} dbg_snap_bm;

typedef struct dbg_snap_info {
    uint64_t ptr, srt;
    uint32_t type, ptrs, nptrs;
    char *con; /* NULL if none */
    char *src[DBG_SOURCE_FIELDS];
    int nsrc; /* 0 or 6 */
} dbg_snap_info;

typedef struct dbg_snap {
    uint32_t ghc_version;
    uint64_t created, pid;
    char program[25];
    uint64_t *roots;
    size_t nroots;
    dbg_snap_clo *clo;
    size_t nclo, capclo;
    dbg_buf mem;
    dbg_snap_info *infos;
    size_t ninfos, capinfos;
    dbg_snap_bm *stack, *fun;
    size_t nstack, capstack, nfun, capfun;
    dbg_snap_bm *maps; /* pointer maps, by closure address (format 2) */
    size_t nmaps, capmaps;
    hmap fun_index; /* while recording: fun -> index + 1 */
    dbg_buf bits;
    dbg_block *blocks;
    size_t nblocks;
    int have_blocks;
    char err[512];
} dbg_snap;

void dbg_snap_init(dbg_snap *s);
void dbg_snap_free(dbg_snap *s);

/* Recording (all return 0, or -1 when out of memory). */
int dbg_snap_add_closure(dbg_snap *s, uint64_t addr, const unsigned char *mem,
                         uint32_t size);
/* bm is a STACK_BITMAP / FUN_BITMAP reply: u32be n, n bytes. */
int dbg_snap_add_stack_bitmap(dbg_snap *s, uint64_t frame,
                              const unsigned char *bm, size_t len);
int dbg_snap_add_fun_bitmap(dbg_snap *s, uint64_t fun, const unsigned char *bm,
                            size_t len);
/* The pointer map of the closure at addr: n bytes, DEBUG_STUB_WORD_*. */
int dbg_snap_add_ptrmap(dbg_snap *s, uint64_t addr, const unsigned char *map,
                        uint32_t n);
/* Copies the info table, its constructor description and source. */
int dbg_snap_add_info(dbg_snap *s, const dbg_info *in, const char *con,
                      char *const *src);
int dbg_snap_set_roots(dbg_snap *s, const uint64_t *roots, size_t n);
int dbg_snap_set_blocks(dbg_snap *s, const dbg_block *b, size_t n);
/* Sort what was recorded (before writing or serving it). */
int dbg_snap_finish(dbg_snap *s);

/* 0 if PATH can take a snapshot (absent, or a regular file); else -1 with
 * s->err: the file is written beside PATH and renamed over it, which would
 * replace a device (/dev/null, as root), a FIFO or a directory. */
int dbg_snap_check_path(dbg_snap *s, const char *path);

/* Write to path (through path.tmp, renamed when complete; refused as by
 * dbg_snap_check_path). *file_bytes gets the file's size. Returns 0, or -1
 * with s->err set. */
int dbg_snap_write(dbg_snap *s, const char *path, int level,
                   uint64_t *file_bytes);

/* Assemble a snapshot file in out from n raw (uncompressed) sections:
 * ids[i] and raws[i] (section ids and record formats in docs/debug.md).
 * For tests and the fuzzer, which make records the writer would not.
 * Returns 0 or -1. */
int dbg_snap_pack(dbg_buf *out, const uint32_t *ids, const dbg_buf *raws,
                  int n);

/* Does this buffer start with the snapshot magic? */
int dbg_snap_is_snapshot(const unsigned char *p, size_t len);
/* Does the file at path start with the snapshot magic? */
int dbg_snap_file_is_snapshot(const char *path);

/* Load from memory. max_raw bounds the decompressed size of all sections
 * together (0: no bound). Returns 0, or -1 with s->err set to
 * "offset N: what is wrong". */
int dbg_snap_load_mem(dbg_snap *s, const unsigned char *p, size_t len,
                      uint64_t max_raw);
int dbg_snap_load_file(dbg_snap *s, const char *path);

/* Bytes of heap the snapshot holds (sum of closure sizes). */
uint64_t dbg_snap_live_bytes(const dbg_snap *s);

/* A loaded or finished snapshot as a heap source (src = the dbg_snap). */
extern const dbg_source_ops dbg_source_snap;

#endif
