/* census: see rtscope/debug/census.h. */
#include "rtscope/debug/census.h"

#include "rtscope/base/grow.h"

#include <stdlib.h>
#include <string.h>

/* Note [Census by module]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * The RTS's own closures (ARR_WORDS, arrays, generic thunks stg_ap_N_upd,
 * PAPs, MVars...) belong to no module, yet on a real heap they are a third
 * of the bytes: the arrays of every Text, ByteString, Vector and HashMap.
 * --by module counts such a closure under the module of the nearest
 * closure above it in the walk's tree that has one (the Text constructor
 * that holds the array, the Vector that holds the boxed array that holds
 * the elements), the owner passed down the walk (dbg_closure.down), and
 * says how many bytes it counted so. RTS closures with no such owner (the
 * threads, their stacks, what only a stack holds) are "(RTS) TYPE"; only a
 * table nothing at all is known about is "(unknown) TYPE". */
#define CENSUS_MAX_MODULES ((1u << 16) - 1)
#define CENSUS_OWNER_SHIFT 47

void dbg_census_init(dbg_census *c, dbg_heap *h, size_t keep)
{
    memset(c, 0, sizeof(*c));
    c->h = h;
    c->keep = keep;
}

void dbg_census_free(dbg_census *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->e[i].samp);
    free(c->e);
    hmap_free(&c->index);
    hmap_free(&c->modof);
    strtab_free(&c->modules);
}

/* The module id + 1 of the info table's module, 0 if it has none (or
 * past CENSUS_MAX_MODULES modules). */
static uint32_t module_of(dbg_census *c, dbg_info *in)
{
    uint64_t v;
    if (hmap_get(&c->modof, in->ptr, &v))
        return (uint32_t)v;
    char mod[1024];
    uint32_t id = 0;
    if (dbg_info_module(c->h, in, mod, sizeof(mod))) {
        int64_t k = strtab_id_str(&c->modules, mod);
        if (k < 0)
            return c->nomem = 1, 0;
        if (k < CENSUS_MAX_MODULES)
            id = (uint32_t)k + 1;
    }
    if (hmap_put(&c->modof, in->ptr, id) != 0)
        c->nomem = 1;
    return id;
}

/* The entry of (info, owner), added if new; NULL when out of memory. */
static dbg_census_entry *entry_of(dbg_census *c, uint64_t info, uint32_t owner)
{
    uint64_t key = info | (uint64_t)owner << CENSUS_OWNER_SHIFT, slot;
    if (hmap_get(&c->index, key, &slot))
        return &c->e[slot - 1];
    if (rt_grow((void **)&c->e, &c->cap, c->n, sizeof(*c->e), 256) != 0 ||
        hmap_put(&c->index, key, c->n + 1) != 0)
        return NULL;
    c->e[c->n] = (dbg_census_entry){.info = info, .owner = owner};
    return &c->e[c->n++];
}

int dbg_census_add(dbg_census *c, const dbg_closure *cl)
{
    uint32_t type = cl->info->type;
    if (c->thunks_only && !(type >= GHC_THUNK && type <= GHC_THUNK_SELECTOR))
        return 0;
    uint32_t owner = 0;
    if (c->by_module) { /* Note [Census by module] */
        uint32_t own = module_of(c, cl->info);
        if (own) {
            *cl->down = own;
        } else if (cl->tag) {
            owner = cl->tag;
            c->held_bytes += cl->size;
        }
    }
    dbg_census_entry *e = entry_of(c, cl->info->ptr, owner);
    if (!e)
        return c->nomem = 1, -1;
    e->count++;
    e->bytes += cl->size;
    if (e->nsamp < c->keep) {
        if (!e->samp && !(e->samp = malloc(c->keep * sizeof(*e->samp))))
            return c->nomem = 1, -1;
        e->samp[e->nsamp++] = cl->addr;
    }
    return c->nomem ? -1 : 0;
}

int dbg_census_visit(void *ctx, const dbg_closure *cl, uint64_t parent)
{
    (void)parent;
    return dbg_census_add(ctx, cl) != 0;
}
