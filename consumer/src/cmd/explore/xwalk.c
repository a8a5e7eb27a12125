/* The explorer's walks of the whole heap (search, analyses, retainers):
 * dbg_heap_walk with the screen told how far it got after each batch, and
 * stopped when the user cancels (Esc). */
#include "explore.h"

#include <stdio.h>
#include <time.h>

double xt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct xt_walker {
    dbg_visit_fn fn;
    void *ctx;
    const xt_progress *p;
    int cancelled;
} xt_walker;

static int walker_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    xt_walker *w = ctx;
    return w->cancelled ? 1 : w->fn(w->ctx, c, parent);
}

static void walker_progress(void *ctx, size_t visited, size_t queued)
{
    xt_walker *w = ctx;
    if (!w->cancelled && w->p && w->p->poll &&
        w->p->poll(w->p->ui, w->p->what, visited, queued))
        w->cancelled = 1;
}

int xt_walk(xt_tree *t, const uint64_t *roots, size_t nroots, dbg_visit_fn fn,
            void *ctx, const xt_progress *p)
{
    xt_walker w = {.fn = fn, .ctx = ctx, .p = p};
    dbg_heap *h = t->h;
    void (*old)(void *, size_t, size_t) = h->progress;
    void *oldctx = h->progress_ctx;
    h->progress = walker_progress;
    h->progress_ctx = &w;
    int r = dbg_heap_walk(h, roots, nroots, walker_visit, &w);
    h->progress = old;
    h->progress_ctx = oldctx;
    if (r != 0) {
        snprintf(t->err, sizeof(t->err), "%s", h->err);
        return -1;
    }
    return w.cancelled ? 1 : 0;
}
