/* The info tables of a heap, fetched from its source in batches and kept
 * for the heap's life (debug_heap.h: dbg_heap_info and the names users
 * read: constructor, source information, module). */
#include "heap_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void info_results_free(dbg_info *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(in[i].con);
        for (int k = 0; k < DBG_SOURCE_FIELDS; k++)
            free(in[i].src[k]);
    }
}

void info_cache_free(dbg_info_cache *c)
{
    info_results_free(c->infos, c->n);
    free(c->infos);
    hmap_free(&c->index);
    memset(c, 0, sizeof(*c));
}

/* The pointers of ptrs[0..n) neither cached nor 0, each once, into a
 * malloc'd array (*nw of them); NULL when out of memory. */
static uint64_t *uncached(dbg_heap *h, const uint64_t *ptrs, size_t n,
                          size_t *nw)
{
    uint64_t *want = malloc((n ? n : 1) * sizeof(*want));
    hmap seen = {0};
    *nw = 0;
    for (size_t i = 0; want && i < n; i++) {
        if (!ptrs[i] || info_cache_lookup(h, ptrs[i]))
            continue;
        int added;
        if (!hmap_at(&seen, ptrs[i], &added)) {
            free(want);
            want = NULL;
        } else if (added) {
            want[(*nw)++] = ptrs[i];
        }
    }
    hmap_free(&seen);
    return want;
}

/* Room in the cache for nw more. */
static int cache_room(dbg_info_cache *c, size_t nw)
{
    if (c->n + nw <= c->cap)
        return 0;
    size_t nc = (c->n + nw) * 2;
    dbg_info *ni = realloc(c->infos, nc * sizeof(*ni));
    if (!ni)
        return -1;
    c->infos = ni;
    c->cap = nc;
    return 0;
}

int info_cache_fetch(dbg_heap *h, const uint64_t *ptrs, size_t n)
{
    if (!h->cache && !(h->cache = calloc(1, sizeof(*h->cache)))) {
        heap_err(h, "out of memory");
        return -1;
    }
    dbg_info_cache *c = h->cache;
    size_t nw;
    uint64_t *want = uncached(h, ptrs, n, &nw);
    if (!want || (nw && cache_room(c, nw) != 0)) {
        free(want);
        heap_err(h, "out of memory");
        return -1;
    }
    if (nw == 0 || !c->infos) { /* infos: room was made for nw > 0 */
        free(want);
        return 0;
    }
    dbg_info *fresh = c->infos + c->n;
    for (size_t i = 0; i < nw; i++) {
        memset(&fresh[i], 0, sizeof(fresh[i]));
        fresh[i].ptr = want[i];
    }
    int r = h->ops->infos(h->src, want, nw, fresh);
    free(want);
    if (r != 0) { /* what a failed source filled in before it failed */
        info_results_free(fresh, nw);
        return heap_src_fail(h);
    }
    for (size_t i = 0; i < nw; i++) {
        fresh[i].srt_known = 1;
        fresh[i].con_tried = 1;
        fresh[i].src_tried = 1;
        c->n++;
        if (hmap_put(&c->index, fresh[i].ptr, c->n) != 0) {
            heap_err(h, "out of memory");
            return -1;
        }
    }
    return 0;
}

dbg_info *dbg_heap_info(dbg_heap *h, uint64_t ptr)
{
    dbg_info *in = info_cache_lookup(h, ptr);
    if (in)
        return in;
    if (info_cache_fetch(h, &ptr, 1) != 0)
        return NULL;
    in = info_cache_lookup(h, ptr);
    if (!in)
        heap_err(h, "no such info table");
    return in;
}

size_t dbg_heap_ninfos(const dbg_heap *h)
{
    return h->cache ? h->cache->n : 0;
}

dbg_info *dbg_heap_info_at(const dbg_heap *h, size_t i)
{
    return h->cache && i < h->cache->n ? &h->cache->infos[i] : NULL;
}

size_t dbg_heap_info_index(const dbg_heap *h, const dbg_info *info)
{
    return (size_t)(info - h->cache->infos);
}

const char *dbg_heap_con_descr(dbg_heap *h, dbg_info *info)
{
    (void)h; /* fetched with the info table */
    return ghc_type_is_constr(info->type) ? info->con : NULL;
}

char *const *dbg_heap_source(dbg_heap *h, dbg_info *info)
{
    (void)h;
    return info->nsrc == DBG_SOURCE_FIELDS ? info->src : NULL;
}

int dbg_info_module(dbg_heap *h, dbg_info *info, char *out, size_t outlen)
{
    char *const *src = dbg_heap_source(h, info);
    if (src && src[4][0]) {
        snprintf(out, outlen, "%s", src[4]);
        return 1;
    }
    const char *con = dbg_heap_con_descr(h, info);
    if (!con)
        return 0;
    char disp[1024];
    dbg_con_display(con, disp, sizeof(disp));
    const char *colon = strchr(disp, ':');
    const char *last = colon ? strrchr(disp, ':') : NULL;
    if (!colon || last <= colon)
        return 0;
    snprintf(out, outlen, "%.*s", (int)(last - colon - 1), colon + 1);
    return 1;
}

int dbg_info_is_rts(dbg_heap *h, dbg_info *info)
{
    char *const *src = dbg_heap_source(h, info);
    return src && strncmp(src[0], "stg_", 4) == 0 && !src[4][0];
}
