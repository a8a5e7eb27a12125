/* The explorer's writes to files: the payload of an ARR_WORDS (w). */
#define _GNU_SOURCE
#include "explore.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int xt_payload_of(xt_tree *t, uint32_t i, uint64_t *addr)
{
    const xt_node *x = &t->v[i];
    if (x->kind == XT_ROW && x->nsamp)
        *addr = t->samp[x->soff]; /* an analysis' row: its first closure */
    else if (x->kind == XT_CLOSURE || x->kind == XT_DOM)
        *addr = x->addr;
    else
        return snprintf(t->err, sizeof(t->err),
                        "w: select an ARR_WORDS closure"),
               1;
    int r = dbg_heap_read(t->h, *addr, &t->rd);
    if (r != 0) {
        snprintf(t->err, sizeof(t->err), "%s",
                 r < 0 ? t->h->err : "w: the closure cannot be read");
        return r < 0 ? -1 : 1;
    }
    uint32_t type = t->rd.c.info->type;
    if (type != GHC_ARR_WORDS)
        return snprintf(t->err, sizeof(t->err),
                        "w: 0x%" PRIx64 " is a %s, not an ARR_WORDS", *addr,
                        ghc_closure_type_name(type)),
               1;
    return 0;
}

int xt_payload_write(xt_tree *t, uint64_t addr, const char *path,
                     uint64_t *bytes)
{
    int r = dbg_heap_read(t->h, addr, &t->rd);
    if (r != 0) {
        snprintf(t->err, sizeof(t->err), "%s",
                 r < 0 ? t->h->err : "the closure cannot be read");
        return -1;
    }
    const dbg_closure *c = &t->rd.c;
    uint64_t n = 0;
    if (c->size >= 16)
        memcpy(&n, c->mem + 8, 8);
    if (c->size < 16 || n > c->size - 16) {
        snprintf(t->err, sizeof(t->err), "0x%" PRIx64 ": a bad ARR_WORDS",
                 addr);
        return -1;
    }
    FILE *f = fopen(path, "wb");
    int bad = !f;
    if (f) {
        bad = fwrite(c->mem + 16, 1, n, f) != n;
        bad |= fclose(f) != 0;
    }
    if (bad) {
        snprintf(t->err, sizeof(t->err), "%.300s: %s", path, strerror(errno));
        if (f)
            unlink(path);
        return -1;
    }
    *bytes = n;
    return 0;
}
