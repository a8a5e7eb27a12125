/* debug_blocks: BLOCKS replies. See debug_blocks.h. */
#include "debug_blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int block_cmp(const void *a, const void *b)
{
    const dbg_block *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int dbg_blocks_parse(const unsigned char *p, size_t len, dbg_block **out,
                     size_t *n, char *err, size_t errlen)
{
    size_t cap = 0, k = 0, off = 0;
    dbg_block *v = NULL;
    *out = NULL;
    *n = 0;
    while (off < len) {
        if (len - off < 14) {
            snprintf(err, errlen, "BLOCKS: truncated entry at byte %zu", off);
            goto bad;
        }
        dbg_block b;
        memcpy(&b.flags, p + off, 2);
        b.start = dbg_rdptr(p + off + 2);
        b.size = dbg_rd32(p + off + 10);
        off += 14;
        if (b.size == 0 || b.size % DBG_BLOCK_SIZE != 0 ||
            b.start % DBG_BLOCK_SIZE != 0 || b.size > len - off) {
            snprintf(err, errlen, "BLOCKS: bad group at 0x%llx, %llu bytes",
                     (unsigned long long)b.start, (unsigned long long)b.size);
            goto bad;
        }
        off += b.size;
        if (k == cap) {
            size_t nc = cap ? cap * 2 : 256;
            dbg_block *nv = realloc(v, nc * sizeof(*nv));
            if (!nv) {
                snprintf(err, errlen, "BLOCKS: out of memory");
                goto bad;
            }
            v = nv;
            cap = nc;
        }
        v[k++] = b;
    }
    if (k)
        qsort(v, k, sizeof(*v), block_cmp);
    for (size_t i = 1; i < k; i++) {
        if (v[i].start < v[i - 1].start + v[i - 1].size) {
            snprintf(err, errlen, "BLOCKS: groups at 0x%llx and 0x%llx overlap",
                     (unsigned long long)v[i - 1].start,
                     (unsigned long long)v[i].start);
            goto bad;
        }
    }
    *out = v;
    *n = k;
    return 0;
bad:
    free(v);
    return -1;
}

int dbg_blocks_read(dbg_conn *c, dbg_block **out, size_t *n)
{
    dbg_buf reply = {0};
    *out = NULL;
    *n = 0;
    if (dbg_request_ok(c, DBG_CMD_BLOCKS, NULL, &reply) != 0) {
        dbg_buf_free(&reply);
        return -1;
    }
    int r = dbg_blocks_parse(reply.p, reply.len, out, n, c->err,
                             sizeof(c->err));
    dbg_buf_free(&reply);
    return r;
}

long dbg_blocks_find(const dbg_block *blocks, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr < blocks[mid].start)
            hi = mid;
        else if (addr >= blocks[mid].start + blocks[mid].size)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

size_t dbg_blocks_mblocks(const dbg_block *blocks, size_t n)
{
    size_t count = 0;
    uint64_t last = UINT64_MAX; /* last megablock counted */
    for (size_t i = 0; i < n; i++) {
        uint64_t first = blocks[i].start >> DBG_MBLOCK_SHIFT;
        uint64_t end = (blocks[i].start + blocks[i].size - 1) >> DBG_MBLOCK_SHIFT;
        if (last != UINT64_MAX && first <= last)
            first = last + 1;
        if (first <= end) {
            count += (size_t)(end - first + 1);
            last = end;
        }
    }
    return count;
}
