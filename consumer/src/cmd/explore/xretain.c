/* The explorer's retainer path (`r`): one walk from the roots, breadth
 * first, that notes the closure each closure was first reached from, up to
 * the selected one; its path to a root then goes into the tree as a group
 * of its own (a new view), each closure under the one it retains. A shortest
 * path, as `rtscope debug retainers` gives. */
#include "explore.h"

#include "rtscope/base/hmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ret_walk {
    hmap parent; /* closure -> the closure it was first reached from */
    uint64_t target;
    int found, nomem;
} ret_walk;

static int ret_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    ret_walk *w = ctx;
    if (hmap_put(&w->parent, c->addr, parent) != 0) {
        w->nomem = 1;
        return 1;
    }
    if (c->addr == w->target) {
        w->found = 1;
        return 1;
    }
    return 0;
}

/* The new view: "Retainers of ADDR", the path under it, innermost the
 * root. Its heading, or XT_NONE (t->err). */
static uint32_t add_path(xt_tree *t, const ret_walk *w)
{
    char head[128];
    size_t len = 0;
    uint64_t a = w->target, p;
    while (a && hmap_get(&w->parent, a, &p) && len < 100000) {
        len++;
        a = p;
    }
    snprintf(head, sizeof(head), "Retainers of 0x%" PRIx64, w->target);
    if (xt_view_push(t, head) != 0)
        return XT_NONE;
    uint32_t g = xt_node_new(t, XT_GROUP, XT_NONE, 0, strdup(head));
    if (g == XT_NONE || xt_top_add(t, g) != 0)
        return XT_NONE;
    char n[64];
    snprintf(n, sizeof(n), "a path of %zu closures to a root", len);
    t->v[g].text = strdup(n);
    t->v[g].loaded = 1;
    uint32_t up = g;
    a = w->target;
    for (size_t k = 0; k < len; k++) {
        uint32_t c = xt_node_new(t, XT_CLOSURE, up, a,
                                 strdup(k == 0 ? "this" : "retained by"));
        if (c == XT_NONE)
            return XT_NONE;
        t->v[up].first = c;
        t->v[up].open = 1;
        if (up != g)
            t->v[up].loaded = 1; /* its child is its retainer, not a field */
        up = c;
        hmap_get(&w->parent, a, &a);
    }
    if (up != g) {
        free(t->v[up].label);
        t->v[up].label = strdup("the root");
    }
    return g;
}

int xt_retainers(xt_tree *t, const uint64_t *roots, size_t nroots,
                 uint64_t target, const xt_progress *p)
{
    ret_walk w = {.target = target};
    int r = xt_walk(t, roots, nroots, ret_visit, &w, p);
    if (r != 0 || w.nomem) {
        if (w.nomem)
            snprintf(t->err, sizeof(t->err), "out of memory");
        else if (r > 0)
            snprintf(t->err, sizeof(t->err), "cancelled");
        hmap_free(&w.parent);
        return r > 0 && !w.nomem ? 1 : -1;
    }
    if (!w.found) {
        snprintf(t->err, sizeof(t->err),
                 "0x%" PRIx64 " is not reachable from the roots", target);
        hmap_free(&w.parent);
        return 1;
    }
    uint32_t g = add_path(t, &w);
    hmap_free(&w.parent);
    if (g == XT_NONE) {
        snprintf(t->err, sizeof(t->err), "out of memory");
        return -1;
    }
    return xt_relist(t);
}
