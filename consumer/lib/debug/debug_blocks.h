/* debug_blocks: the heap's block groups as the stub lists them (BLOCKS,
 * docs/debug-protocol.md): start, size and flags of each, sorted by
 * address, and a lookup of the group holding an address. */
#ifndef RTSCOPE_DEBUG_BLOCKS_H
#define RTSCOPE_DEBUG_BLOCKS_H

#include "debug_client.h"

#include <stddef.h>
#include <stdint.h>

/* GHC's block geometry (includes/rts/Constants.h) and bdescr flags
 * (includes/rts/storage/Block.h). */
#define DBG_BLOCK_SIZE 4096u
#define DBG_MBLOCK_SHIFT 20
#define DBG_BF_LARGE 2u
#define DBG_BF_PINNED 4u
#define DBG_BF_COMPACT 512u

typedef struct dbg_block {
    uint64_t start;  /* address of the first block */
    uint64_t size;   /* bytes, a multiple of DBG_BLOCK_SIZE */
    uint16_t flags;  /* bdescr flags */
} dbg_block;

/* BLOCKS (paused only): every block group, sorted by start, into *out
 * (caller frees). The groups' memory is skipped. 0 or -1 (c->err). */
int dbg_blocks_read(dbg_conn *c, dbg_block **out, size_t *n);

/* Parse a BLOCKS payload; 0, or -1 if it is malformed (err set). */
int dbg_blocks_parse(const unsigned char *p, size_t len, dbg_block **out,
                     size_t *n, char *err, size_t errlen);

/* The index of the group of blocks[0..n) (sorted) holding addr, or -1. */
long dbg_blocks_find(const dbg_block *blocks, size_t n, uint64_t addr);

/* Megablocks the groups touch (each counted once). */
size_t dbg_blocks_mblocks(const dbg_block *blocks, size_t n);

#endif
