/* debug_blocks: block-group helpers. See debug_blocks.h. */
#include "rtscope/debug/debug_blocks.h"

#include <stdio.h>
#include <stdlib.h>

static int block_cmp(const void *a, const void *b)
{
    const dbg_block *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int dbg_blocks_sort_check(dbg_block *v, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].size == 0 || v[i].size % DBG_BLOCK_SIZE != 0 ||
            v[i].start % DBG_BLOCK_SIZE != 0 ||
            v[i].start > UINT64_MAX - v[i].size) {
            snprintf(err, errlen, "block list: bad group at 0x%llx, %llu bytes",
                     (unsigned long long)v[i].start,
                     (unsigned long long)v[i].size);
            return -1;
        }
    }
    if (n)
        qsort(v, n, sizeof(*v), block_cmp);
    for (size_t i = 1; i < n; i++) {
        if (v[i].start < v[i - 1].start + v[i - 1].size) {
            snprintf(err, errlen,
                     "block list: groups at 0x%llx and 0x%llx overlap",
                     (unsigned long long)v[i - 1].start,
                     (unsigned long long)v[i].start);
            return -1;
        }
    }
    return 0;
}

long dbg_blocks_find(const dbg_block *blocks, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr < blocks[mid].start)
            hi = mid;
        else if (addr - blocks[mid].start >= blocks[mid].size)
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
        uint64_t end =
            (blocks[i].start + blocks[i].size - 1) >> DBG_MBLOCK_SHIFT;
        if (last != UINT64_MAX && first <= last)
            first = last + 1;
        if (first <= end) {
            count += (size_t)(end - first + 1);
            last = end;
        }
    }
    return count;
}
