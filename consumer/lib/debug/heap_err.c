/* A heap's errors (dbg_heap.err) and the closures it could not read
 * (dbg_heap.unread): heap_impl.h. */
#include "heap_impl.h"

#include <stdarg.h>
#include <stdio.h>

void heap_err(dbg_heap *h, const char *msg)
{
    snprintf(h->err, sizeof(h->err), "%s", msg);
}

void heap_note_unreadable(dbg_heap *h, uint64_t addr, uint64_t parent,
                          const char *fmt, ...)
{
    h->unreadable++;
    if (h->nunread >= DBG_UNREADABLE_KEPT)
        return;
    dbg_unreadable *u = &h->unread[h->nunread++];
    u->addr = addr;
    u->parent = parent;
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(u->why, sizeof(u->why), fmt, ap);
    va_end(ap);
}

int heap_src_fail(dbg_heap *h)
{
    const char *e = h->ops->error(h->src);
    heap_err(h, e && *e ? e : "heap source failed");
    return -1;
}
