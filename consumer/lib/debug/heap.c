/* The heap of a paused debuggee as commands see it (debug_heap.h): made
 * on a heap source, freed with its info cache (info_cache.c). Its errors
 * are heap_err.c's, decoding decode.c's, the walk walk.c's. */
#include "heap_impl.h"
#include "rtscope/debug/stub_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dbg_heap_init_source(dbg_heap *h, const dbg_source_ops *ops, void *src)
{
    memset(h, 0, sizeof(*h));
    h->layout = dbg_layout_default();
    h->ops = ops;
    h->src = src;
}

int dbg_heap_init(dbg_heap *h, dbg_conn *conn)
{
    dbg_stub_source *s = dbg_stub_source_new(conn);
    dbg_heap_init_source(h, &dbg_source_stub, s);
    h->conn = conn;
    if (!s) {
        heap_err(h, "out of memory");
        return -1;
    }
    h->src_free = dbg_stub_source_free_fn;
    return 0;
}

void dbg_heap_free(dbg_heap *h)
{
    if (h->cache) {
        info_cache_free(h->cache);
        free(h->cache);
    }
    if (h->src_free)
        h->src_free(h->src);
    memset(h, 0, sizeof(*h));
}

int dbg_heap_roots(dbg_heap *h, uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return h->ops->roots(h->src, out, n) == 0 ? 0 : heap_src_fail(h);
}

int dbg_heap_blocks(dbg_heap *h, dbg_block **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return h->ops->blocks(h->src, out, n) == 0 ? 0 : heap_src_fail(h);
}
