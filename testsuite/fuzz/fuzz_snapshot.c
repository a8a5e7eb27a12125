/* libFuzzer target: the debug snapshot loader (consumer/lib/debug/
 * debug_snap.c) and the heap walk, census keys, block list, and the
 * graph and its dominator tree (debug_graph.c) over whatever it accepts. The first byte picks the mode:
 *   0: the rest is a snapshot file, as read from disk (header, section
 *      table, zstd frames, checksums);
 *   1: the rest is sections, each u8 id, u16le length, raw bytes, packed
 *      into a valid file (dbg_snap_pack) so that mutations reach the
 *      record parsers and the closure decoding behind the checksums.
 * Seeds: testsuite/fuzz/snapseed.c. Built by `make -C consumer
 * fuzz-snapshot` and by the debug-snapshot-fuzz case. */
#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz {
    dbg_heap *h;
    size_t n;
} fz;

static int visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    fz *z = ctx;
    (void)parent;
    dbg_heap_con_descr(z->h, c->info);
    dbg_heap_source(z->h, c->info);
    for (size_t i = 0; i < c->nptrs; i++)
        z->n += c->ptrs[i] & 1;
    return ++z->n > 100000; /* bounded */
}

static void exercise(dbg_snap *s)
{
    dbg_heap h;
    dbg_heap_init_source(&h, &dbg_source_snap, s);
    uint64_t *roots;
    size_t n;
    if (dbg_heap_roots(&h, &roots, &n) == 0) {
        fz z = {.h = &h};
        dbg_heap_walk(&h, roots, n, visit, &z);
        free(roots);
    }
    dbg_block *b;
    if (dbg_heap_blocks(&h, &b, &n) == 0)
        free(b);
    /* the dominator tree of what the walk reaches: every closure's
     * retained size at most the heap, the virtual root's all of it */
    if (dbg_heap_roots(&h, &roots, &n) == 0) {
        dbg_graph g;
        if (dbg_graph_build(&h, roots, n, &g) == 0 &&
            dbg_graph_dominators(&g) == 0) {
            for (size_t i = 0; i <= g.n; i++)
                if (g.retained[i] > g.bytes)
                    abort();
            if (g.retained[g.n] != g.bytes)
                abort();
        }
        dbg_graph_free(&g);
        free(roots);
    }
    dbg_heap_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    dbg_snap s;
    if (data[0] == 0) {
        if (dbg_snap_load_mem(&s, data + 1, size - 1, 64u << 20) == 0) {
            exercise(&s);
            dbg_snap_free(&s);
        }
        return 0;
    }
    uint32_t ids[16];
    dbg_buf raws[16];
    int n = 0;
    size_t off = 1;
    memset(raws, 0, sizeof(raws));
    while (n < 16 && off + 3 <= size) {
        size_t len = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;
        ids[n] = data[off];
        off += 3;
        if (len > size - off)
            len = size - off;
        dbg_buf_put(&raws[n], data + off, len);
        off += len;
        n++;
    }
    dbg_buf file = {0};
    if (dbg_snap_pack(&file, ids, raws, n) == 0 &&
        dbg_snap_load_mem(&s, file.p, file.len, 64u << 20) == 0) {
        exercise(&s);
        dbg_snap_free(&s);
    }
    dbg_buf_free(&file);
    for (int i = 0; i < n; i++)
        dbg_buf_free(&raws[i]);
    return 0;
}
