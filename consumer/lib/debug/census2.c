/* census2: see rtscope/debug/census2.h.
 *
 * Note [Two-level keys]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A closure's key is its info table and the info tables of its pointers'
 * targets in field order (the graph's pointers: the fields, and an SRT
 * where the closure has one), as ghc-debug's census2LevelClosureType
 * keys them. An array's elements would make a key as long as the array,
 * and as many keys as arrays, so the key holds the targets as runs of one
 * table (`Bin x2`), DBG_CENSUS2_RUNS of them at most, then how many
 * pointers follow: a boxed array of Ints is `I# x1000` whatever its
 * length, but two arrays of 1000 and 2000 Ints are two keys, as in
 * ghc-debug. Pointers to what could not be read are not in the graph and
 * not in the key. */
#include "rtscope/debug/census2.h"

#include "dup_impl.h" /* hash2 */
#include "rtscope/base/grow.h"

#include <stdlib.h>
#include <string.h>

void dbg_census2_free(dbg_census2 *c)
{
    for (size_t i = 0; c->rows && i < c->n; i++)
        free(c->rows[i].samp);
    free(c->rows);
    free(c->runs);
    hmap_free(&c->index);
    memset(c, 0, sizeof(*c));
}

/* Closure v's key: its runs into key[], how many; the pointers after
 * them in *rest. */
static uint32_t key_of(const dbg_graph *g, uint32_t v, dbg_census2_run *key,
                       uint32_t *rest)
{
    uint32_t n = 0;
    *rest = 0;
    for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
        uint32_t in = g->info[g->succ[e]];
        if (n && key[n - 1].info == in)
            key[n - 1].n++;
        else if (n < DBG_CENSUS2_RUNS)
            key[n++] = (dbg_census2_run){in, 1};
        else
            (*rest)++;
    }
    return n;
}

typedef struct key_ctx {
    const dbg_census2 *c;
    uint32_t info, nruns, rest;
    const dbg_census2_run *runs;
} key_ctx;

static int key_eq(const void *ctx, uint64_t i)
{
    const key_ctx *k = ctx;
    const dbg_census2_row *r = &k->c->rows[i];
    return r->info == k->info && r->nruns == k->nruns && r->rest == k->rest &&
           !memcmp(k->c->runs + r->run, k->runs, k->nruns * sizeof(*k->runs));
}

/* The row of closure v's key, added if new; NULL when out of memory. */
static dbg_census2_row *row_of(dbg_census2 *c, const dbg_graph *g, uint32_t v)
{
    dbg_census2_run key[DBG_CENSUS2_RUNS];
    uint32_t rest, n = key_of(g, v, key, &rest);
    hash2 h = hash2_start();
    hash2_word(&h, g->info[v]);
    hash2_word(&h, rest);
    for (uint32_t k = 0; k < n; k++)
        hash2_word(&h, (uint64_t)key[k].info << 32 | key[k].n);
    key_ctx kc = {c, g->info[v], n, rest, key};
    uint64_t i;
    if (hmap_find(&c->index, h.a, key_eq, &kc, &i))
        return &c->rows[i];
    if (rt_grow((void **)&c->rows, &c->cap, c->n, sizeof(*c->rows), 256) != 0 ||
        hmap_add(&c->index, h.a, c->n) != 0)
        return NULL;
    while (c->nruns + n > c->runcap)
        if (rt_grow((void **)&c->runs, &c->runcap, c->runcap, sizeof(*c->runs),
                    256) != 0)
            return NULL;
    memcpy(c->runs + c->nruns, key, n * sizeof(*key));
    c->rows[c->n] = (dbg_census2_row){.info = g->info[v],
                                      .run = (uint32_t)c->nruns,
                                      .nruns = n,
                                      .rest = rest};
    c->nruns += n;
    return &c->rows[c->n++];
}

/* Rows by their table's bytes, most first, a table's rows together; then
 * by their own bytes; then in the order they were met. */
static int by_bytes(const void *a, const void *b)
{
    const dbg_census2_row *x = a, *y = b;
    if (x->table_bytes != y->table_bytes)
        return x->table_bytes < y->table_bytes ? 1 : -1;
    if (x->info != y->info)
        return x->info < y->info ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->run < y->run ? -1 : x->run > y->run;
}

int dbg_census2_make(dbg_census2 *c, const dbg_graph *g, size_t keep)
{
    memset(c, 0, sizeof(*c));
    c->keep = keep;
    uint32_t ninfo = 0;
    for (size_t v = 0; v < g->n; v++) {
        dbg_census2_row *r = row_of(c, g, (uint32_t)v);
        if (!r || (keep && !r->samp && !(r->samp = malloc(keep * 4))))
            goto nomem;
        if (r->nsamp < keep)
            r->samp[r->nsamp++] = (uint32_t)v;
        r->count++;
        r->bytes += g->size[v];
        if (g->info[v] >= ninfo)
            ninfo = g->info[v] + 1;
    }
    hmap_free(&c->index);
    uint64_t *tables = calloc(ninfo ? ninfo : 1, sizeof(*tables));
    if (!tables)
        goto nomem;
    for (size_t i = 0; i < c->n; i++)
        tables[c->rows[i].info] += c->rows[i].bytes;
    for (size_t i = 0; i < c->n; i++)
        c->rows[i].table_bytes = tables[c->rows[i].info];
    free(tables);
    if (c->n)
        qsort(c->rows, c->n, sizeof(*c->rows), by_bytes);
    return 0;
nomem:
    dbg_census2_free(c);
    return -1;
}
