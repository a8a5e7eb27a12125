/* What grew between two heaps: see rtscope/debug/heap_diff.h. */
#include "rtscope/debug/heap_diff.h"

#include <stdlib.h>
#include <string.h>

/* Note [Heap diff]
 * ~~~~~~~~~~~~~~~~
 * The two heaps are matched by name, not by address: the caller names an
 * info table without its address (its type and the name every -hi band
 * gets, its constructor, its module), so two snapshots of one binary
 * match whether or not it was loaded at the same address. Tables with the
 * same name are added together, in one heap as across the two. Growth is
 * B minus A, in closures and bytes, per group of each grouping, largest
 * first. A group of B is shown by the closure of it the walk of B reached
 * last (the farthest from the roots, on a growing structure typically
 * among the newest), whose retainer path through the parents it was first
 * reached from says what holds the growth. */

/* ---- one heap by info table ---------------------------------------------- */

/* Room for index i in both arrays, new entries zeroed. */
static int census_reserve(dbg_info_census *c, size_t i)
{
    if (i < c->cap)
        return 0;
    size_t nc = c->cap ? c->cap : 1024;
    while (nc <= i)
        nc *= 2;
    uint64_t *count = realloc(c->count, nc * sizeof(*count));
    if (count)
        c->count = count;
    uint64_t *bytes = realloc(c->bytes, nc * sizeof(*bytes));
    if (bytes)
        c->bytes = bytes;
    if (!count || !bytes)
        return -1;
    memset(c->count + c->cap, 0, (nc - c->cap) * sizeof(*c->count));
    memset(c->bytes + c->cap, 0, (nc - c->cap) * sizeof(*c->bytes));
    c->cap = nc;
    return 0;
}

int dbg_info_census_add(dbg_info_census *c, size_t info, uint64_t bytes)
{
    if (census_reserve(c, info) != 0)
        return -1;
    c->count[info]++;
    c->bytes[info] += bytes;
    return 0;
}

int dbg_info_census_visit(void *census, const dbg_closure *c, uint64_t parent)
{
    dbg_info_census *cs = census;
    (void)parent;
    if (dbg_info_census_add(cs, dbg_heap_info_index(cs->h, c->info), c->size) !=
        0)
        return cs->nomem = 1;
    return 0;
}

int dbg_info_census_of_graph(dbg_info_census *c, const dbg_graph *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (dbg_info_census_add(c, g->info[i], g->size[i]) != 0)
            return -1;
    return 0;
}

void dbg_info_census_free(dbg_info_census *c)
{
    free(c->count);
    free(c->bytes);
    c->count = c->bytes = NULL;
    c->cap = 0;
}

/* ---- the two heaps in groups ----------------------------------------------
 */

int64_t dbg_diff_growth(const dbg_diff_group *g)
{
    return (int64_t)g->bytes[1] - (int64_t)g->bytes[0];
}

int64_t dbg_diff_count_growth(const dbg_diff_group *g)
{
    return (int64_t)g->count[1] - (int64_t)g->count[0];
}

void dbg_heap_diff_init(dbg_heap_diff *d, int ngroupings)
{
    memset(d, 0, sizeof(*d));
    d->ngroupings = ngroupings < DBG_DIFF_GROUPINGS_MAX
                        ? ngroupings
                        : DBG_DIFF_GROUPINGS_MAX;
}

void dbg_heap_diff_free(dbg_heap_diff *d)
{
    for (int k = 0; k < DBG_DIFF_GROUPINGS_MAX; k++) {
        strtab_free(&d->names[k]);
        free(d->group[k]);
        free(d->gid[0][k]);
        free(d->gid[1][k]);
    }
    memset(d, 0, sizeof(*d));
}

/* The group named `name` in grouping k, made if new: its id, or -1 when
 * out of memory. */
static int64_t diff_group_id(dbg_heap_diff *d, int k, const char *name)
{
    int64_t id = strtab_id_str(&d->names[k], name);
    if (id < 0 || (size_t)id < d->cap[k])
        return id;
    size_t nc = d->cap[k] ? d->cap[k] * 2 : 1024;
    while (nc <= (size_t)id)
        nc *= 2;
    dbg_diff_group *ng = realloc(d->group[k], nc * sizeof(*ng));
    if (!ng)
        return -1;
    memset(ng + d->cap[k], 0, (nc - d->cap[k]) * sizeof(*ng));
    d->group[k] = ng;
    d->cap[k] = nc;
    return id;
}

/* The groups of one side's info tables, every entry DBG_DIFF_NONE. */
static int diff_gid_alloc(dbg_heap_diff *d, int side, size_t n)
{
    d->ninfos[side] = n;
    for (int k = 0; k < d->ngroupings; k++) {
        d->gid[side][k] = malloc((n ? n : 1) * sizeof(uint32_t));
        if (!d->gid[side][k])
            return -1;
        memset(d->gid[side][k], 0xff, n * sizeof(uint32_t));
    }
    return 0;
}

int dbg_heap_diff_add(dbg_heap_diff *d, int side, const dbg_info_census *c,
                      dbg_diff_name_fn name, void *ctx)
{
    if (diff_gid_alloc(d, side, c->cap) != 0)
        return -1;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->count[i])
            continue;
        for (int k = 0; k < d->ngroupings; k++) {
            char buf[DBG_DIFF_NAME_MAX];
            name(ctx, i, k, buf, sizeof(buf));
            int64_t id = diff_group_id(d, k, buf);
            if (id < 0)
                return -1;
            d->gid[side][k][i] = (uint32_t)id;
            d->group[k][id].count[side] += c->count[i];
            d->group[k][id].bytes[side] += c->bytes[i];
        }
        d->count[side] += c->count[i];
        d->bytes[side] += c->bytes[i];
    }
    return 0;
}

/* A group as qsort orders it: by growth, largest first, then by id. */
typedef struct diff_key {
    int64_t growth;
    uint32_t id;
} diff_key;

static int by_growth(const void *x, const void *y)
{
    const diff_key *a = x, *b = y;
    if (a->growth != b->growth)
        return a->growth < b->growth ? 1 : -1;
    return a->id < b->id ? -1 : a->id > b->id;
}

int dbg_heap_diff_rank(const dbg_heap_diff *d, int k, dbg_diff_rank *r)
{
    size_t n = d->names[k].n;
    memset(r, 0, sizeof(*r));
    diff_key *key = malloc((n ? n : 1) * sizeof(*key));
    r->order = malloc((n ? n : 1) * sizeof(*r->order));
    if (!key || !r->order) {
        free(key);
        dbg_diff_rank_free(r);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        key[i] = (diff_key){.growth = dbg_diff_growth(&d->group[k][i]),
                            .id = (uint32_t)i};
        r->grew += key[i].growth > 0;
        if (key[i].growth < 0) {
            r->shrank++;
            r->shrunk -= key[i].growth;
        }
    }
    qsort(key, n, sizeof(*key), by_growth);
    for (size_t i = 0; i < n; i++)
        r->order[i] = key[i].id;
    r->n = n;
    free(key);
    return 0;
}

void dbg_diff_rank_free(dbg_diff_rank *r)
{
    free(r->order);
    memset(r, 0, sizeof(*r));
}

uint32_t dbg_heap_diff_last_in_b(const dbg_heap_diff *d, int k, uint32_t gid,
                                 const dbg_graph *g)
{
    const uint32_t *of = d->gid[1][k];
    if (!of)
        return DBG_GRAPH_NONE;
    for (size_t i = g->n; i-- > 0;)
        if (g->info[i] < d->ninfos[1] && of[g->info[i]] == gid)
            return (uint32_t)i;
    return DBG_GRAPH_NONE;
}
