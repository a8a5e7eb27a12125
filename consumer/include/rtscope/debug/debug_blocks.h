/* debug_blocks: helpers over the heap's block groups (dbg_block, from
 * dbg_heap_blocks: the stub's BLOCKS or a snapshot's block list): sort
 * and check them, find the group holding an address, count megablocks. */
#ifndef RTSCOPE_DEBUG_BLOCKS_H
#define RTSCOPE_DEBUG_BLOCKS_H

#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* GHC's block geometry (includes/rts/Constants.h) and bdescr flags
 * (includes/rts/storage/Block.h). */
#define DBG_BLOCK_SIZE 4096u
#define DBG_MBLOCK_SHIFT 20
#define DBG_BF_LARGE 2u
#define DBG_BF_PINNED 4u
#define DBG_BF_COMPACT 512u

/* Sort blocks[0..n) by start and check them: sizes nonzero multiples of
 * a block, starts block-aligned, no overlaps (a snapshot file could hold
 * anything). 0, or -1 with err set. */
int dbg_blocks_sort_check(dbg_block *blocks, size_t n, char *err,
                          size_t errlen);

/* The index of the group of blocks[0..n) (sorted) holding addr, or -1. */
long dbg_blocks_find(const dbg_block *blocks, size_t n, uint64_t addr);

/* Megablocks the groups (sorted) touch, each counted once. */
size_t dbg_blocks_mblocks(const dbg_block *blocks, size_t n);

#endif
