/* The explorer's top: the roots of the heap, grouped (xt_build). */
#include "explore.h"

#include "rtscope/base/grow.h"
#include "rtscope/debug/heap_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the roots ---------------------------------------------------------- */

/* The groups and their titles are lib/debug's (heap_export.h), so that
 * the explorer and a .heapsnapshot group the roots alike. */

/* The group heading and its roots (a chain under it). */
static int add_group(xt_tree *t, enum dbg_root_group g, const uint64_t *addrs,
                     size_t n)
{
    uint32_t gi =
        xt_node_new(t, XT_GROUP, XT_NONE, 0, strdup(dbg_root_group_title[g]));
    if (gi == XT_NONE || xt_top_add(t, gi) != 0)
        return -1;
    char text[64];
    snprintf(text, sizeof(text), "%zu", n);
    t->v[gi].text = strdup(text);
    t->v[gi].loaded = 1;
    uint32_t prev = XT_NONE;
    for (size_t k = 0; k < n; k++) {
        uint32_t c = xt_node_new(t, XT_CLOSURE, gi, addrs[k], NULL);
        if (c == XT_NONE)
            return -1;
        if (prev == XT_NONE)
            t->v[gi].first = c;
        else
            t->v[prev].next = c;
        prev = c;
    }
    return 0;
}

/* The closure type of a root, 0 when it cannot be read. */
static int root_type(xt_tree *t, uint64_t addr, uint32_t *type)
{
    int r = dbg_heap_read(t->h, addr, &t->rd);
    if (r < 0) {
        snprintf(t->err, sizeof(t->err), "%s", t->h->err);
        return -1;
    }
    *type = r == 0 ? t->rd.c.info->type : 0;
    return 0;
}

int xt_build(xt_tree *t, dbg_heap *h, const uint64_t *roots, size_t nroots,
             size_t nsaved)
{
    memset(t, 0, sizeof(*t));
    t->h = h;
    if (xt_view_push(t, "Roots") != 0)
        return -1;
    size_t ngc = nroots - nsaved;
    uint64_t *by = malloc((nroots ? nroots : 1) * sizeof(*by));
    uint8_t *grp = malloc(ngc ? ngc : 1);
    int r = -1;
    if (!by || !grp) {
        snprintf(t->err, sizeof(t->err), "out of memory");
        goto done;
    }
    for (size_t i = 0; i < ngc; i++) {
        uint32_t type;
        if (root_type(t, roots[i], &type) != 0)
            goto done;
        grp[i] = (uint8_t)dbg_root_group_of(type);
    }
    if (nsaved && add_group(t, DBG_RG_SAVED, roots + ngc, nsaved) != 0)
        goto done;
    for (int g = DBG_RG_THREADS; g < DBG_RG_N; g++) {
        size_t n = 0;
        for (size_t i = 0; i < ngc; i++)
            if (grp[i] == g)
                by[n++] = roots[i] & ~(uint64_t)7;
        if (n && add_group(t, (enum dbg_root_group)g, by, n) != 0)
            goto done;
    }
    if (nsaved && t->views[0].ntop)
        t->v[t->views[0].top[0]].open = 1; /* the saved objects first, open */
    r = xt_relist(t);
done:
    if (r != 0 && !t->err[0])
        snprintf(t->err, sizeof(t->err), "out of memory");
    free(by);
    free(grp);
    return r;
}
