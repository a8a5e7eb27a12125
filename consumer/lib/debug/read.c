/* One closure read on its own (debug_heap.h: dbg_heap_read): what a
 * heap browser asks when the user expands a node. The same requests and
 * decoding as the walk's, for one address. */
#include "heap_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fetch the info tables of the closure and of its stack frames. */
static int read_infos(dbg_heap *h, const clo_rec *rec)
{
    ptrvec infos = {0};
    int r = clo_rec_infos(rec, &infos);
    if (r == 0)
        r = info_cache_fetch(h, infos.v, infos.n);
    else
        heap_err(h, "out of memory");
    free(infos.v);
    return r;
}

int dbg_heap_read(dbg_heap *h, uint64_t addr, dbg_read *r)
{
    addr = UNTAG(addr);
    r->buf.len = 0;
    r->why[0] = '\0';
    memset(&r->c, 0, sizeof(r->c));
    r->map = NULL;
    r->nmap = 0;
    if (h->ops->closures(h->src, &addr, 1, &r->buf) != 0)
        return heap_src_fail(h);
    size_t off = 0;
    clo_rec rec;
    if (!clo_rec_next(&r->buf, &off, &rec)) {
        heap_err(h, "malformed closures reply");
        return -1;
    }
    if (!rec.size) {
        snprintf(r->why, sizeof(r->why), "%.*s", (int)rec.whylen, rec.why);
        return 1;
    }
    if (rec.size < WORD) {
        snprintf(r->why, sizeof(r->why), "a closure of %u bytes", rec.size);
        return 1;
    }
    if (read_infos(h, &rec) != 0)
        return -1;
    uint64_t iptr = dbg_rdptr(rec.mem);
    dbg_info *in = info_cache_lookup(h, iptr);
    if (!in || !in->type) {
        snprintf(r->why, sizeof(r->why),
                 "its info table 0x%" PRIx64 " is not valid", iptr);
        return 1;
    }
    ptrvec p = {r->ptrv, 0, r->ptrcap};
    size_t before = h->unreadable, kept = h->nunread;
    decode_closure(h, (decode_at){addr, 0}, in, &rec, &p);
    r->ptrv = p.v;
    r->ptrcap = p.cap;
    if (h->ops->dead(h->src))
        return heap_src_fail(h);
    if (h->unreadable > before) {
        /* what decode noted (a frame it could not read) is this
         * closure's, not a walk's: said in r->why, not counted */
        snprintf(r->why, sizeof(r->why), "%s",
                 h->nunread > kept ? h->unread[kept].why
                                   : "part of it could not be read");
        h->unreadable = before;
        h->nunread = kept;
    }
    r->c = (dbg_closure){.addr = addr,
                         .info = info_cache_lookup(h, iptr),
                         .size = rec.size,
                         .mem = rec.mem,
                         .ptrs = p.v,
                         .nptrs = p.n};
    r->map = rec.map;
    r->nmap = rec.nmap;
    return 0;
}

void dbg_read_free(dbg_read *r)
{
    dbg_buf_free(&r->buf);
    free(r->ptrv);
    memset(r, 0, sizeof(*r));
}
