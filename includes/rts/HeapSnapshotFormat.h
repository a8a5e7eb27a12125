/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The heap snapshot file format: the facts a writer and a reader share.
 * docs/debug.md ("Snapshot format") is the specification; this header is
 * the one place its numbers are written, included by the RTS (which writes
 * snapshots of its own heap: rts/HeapSnapshotWrite.c) and by rtscope's
 * consumer (consumer/lib/debug/snap*.c, which writes and reads them).
 *
 * Plain C: macros, enumerations and the checksum's two steps (static
 * inline, on uint64_t), no RTS types.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <stdint.h>

#define HEAP_SNAPSHOT_MAGIC        "\x89RTSNAP\n"
#define HEAP_SNAPSHOT_MAGIC_LEN    8
/* 2 adds PTR_MAPS; 1 is still read */
#define HEAP_SNAPSHOT_VERSION      2
/* The GHC the heap comes from, as the debug stub's VERSION: 902 (9.0.2)
 * or 906 (9.6.6); the reader picks its closure layouts by it. */

/* The header (HEAP_SNAPSHOT_HEADER_LEN bytes, little-endian integers). */
#define HEAP_SNAPSHOT_HEADER_LEN       64
#define HEAP_SNAPSHOT_OFF_VERSION      8    /* u32 */
#define HEAP_SNAPSHOT_OFF_GHC          12   /* u32 */
#define HEAP_SNAPSHOT_OFF_WORD         16   /* u8: word size in bytes */
#define HEAP_SNAPSHOT_OFF_ORDER        17   /* u8: 1 little-, 2 big-endian */
#define HEAP_SNAPSHOT_OFF_NSECT        18   /* u16 */
#define HEAP_SNAPSHOT_OFF_CHECKSUM     20   /* u32, see below */
#define HEAP_SNAPSHOT_OFF_TIME         24   /* u64: Unix seconds */
#define HEAP_SNAPSHOT_OFF_PID          32   /* u64 */
#define HEAP_SNAPSHOT_OFF_PROGRAM      40   /* program name, NUL-padded */
#define HEAP_SNAPSHOT_PROGRAM_LEN      24

#define HEAP_SNAPSHOT_ORDER_LITTLE     1
#define HEAP_SNAPSHOT_ORDER_BIG        2

/* The section table follows the header: HEAP_SNAPSHOT_MAX_SECTIONS entries
 * of HEAP_SNAPSHOT_SECT_ENTRY bytes (u32 id, u32 0, u64 offset, u64 stored
 * length, u64 content length, u64 snapshot checksum of the content); the
 * sections start at HEAP_SNAPSHOT_TABLE_END. The header checksum is the
 * low 32 bits of the snapshot checksum of bytes [0, TABLE_END) with its
 * own 4 bytes zero. */
#define HEAP_SNAPSHOT_MAX_SECTIONS     16
#define HEAP_SNAPSHOT_SECT_ENTRY       40
#define HEAP_SNAPSHOT_TABLE_END \
    (HEAP_SNAPSHOT_HEADER_LEN + HEAP_SNAPSHOT_MAX_SECTIONS * HEAP_SNAPSHOT_SECT_ENTRY)

enum HeapSnapshotSection {
    HEAP_SNAPSHOT_ROOTS          = 1,
    HEAP_SNAPSHOT_INFOS          = 2,
    HEAP_SNAPSHOT_CLOSURE_INDEX  = 3,
    HEAP_SNAPSHOT_CLOSURE_DATA   = 4,
    HEAP_SNAPSHOT_STACK_BITMAPS  = 5,
    HEAP_SNAPSHOT_FUN_BITMAPS    = 6,
    HEAP_SNAPSHOT_BLOCKS         = 7,   /* optional */
    HEAP_SNAPSHOT_PTR_MAPS       = 8,   /* version 2 */
};
#define HEAP_SNAPSHOT_SECT_LAST HEAP_SNAPSHOT_PTR_MAPS

/* INFOS record flags */
#define HEAP_SNAPSHOT_INFO_CON         1   /* a constructor description */
#define HEAP_SNAPSHOT_INFO_SOURCE      2   /* six source-information strings */
#define HEAP_SNAPSHOT_SOURCE_FIELDS    6

/* The snapshot checksum: the bytes as little-endian 64-bit words (the last
 * zero-padded); from h = SEED, per word h = (h ^ w) * PRIME; h ^= h >> 32;
 * then h ^= length and murmur3's finaliser with FIN1 and FIN2
 * (h ^= h >> 33; h *= FIN1; h ^= h >> 33; h *= FIN2; h ^= h >> 33). */
#define HEAP_SNAPSHOT_SUM_SEED   0xcbf29ce484222325ULL
#define HEAP_SNAPSHOT_SUM_PRIME  0x100000001b3ULL
#define HEAP_SNAPSHOT_SUM_FIN1   0xff51afd7ed558ccdULL
#define HEAP_SNAPSHOT_SUM_FIN2   0xc4ceb9fe1a85ec53ULL

/* One word into the checksum h. */
static inline uint64_t
heap_snapshot_sum_mix (uint64_t h, uint64_t w)
{
    h = (h ^ w) * HEAP_SNAPSHOT_SUM_PRIME;
    return h ^ (h >> 32);
}

/* The checksum of len bytes whose words made h. */
static inline uint64_t
heap_snapshot_sum_end (uint64_t h, uint64_t len)
{
    h ^= len;
    h ^= h >> 33;
    h *= HEAP_SNAPSHOT_SUM_FIN1;
    h ^= h >> 33;
    h *= HEAP_SNAPSHOT_SUM_FIN2;
    h ^= h >> 33;
    return h;
}

/* CLOSURE_INDEX's numbers are LEB128 varints: x into t (at most 10 bytes),
 * its length. */
static inline unsigned
heap_snapshot_varint (unsigned char t[10], uint64_t x)
{
    unsigned n = 0;
    do {
        t[n] = (unsigned char) (x & 0x7f);
        x >>= 7;
        if (x) t[n] |= 0x80;
        n++;
    } while (x);
    return n;
}

/* Sections are zstd frames. A writer without a compressor (the RTS) stores
 * each as one frame of raw blocks: the frame header (magic, descriptor
 * HEAP_SNAPSHOT_ZSTD_RAW_DESC: an 8-byte content size, single segment, no
 * checksum; then the content size), then blocks of at most
 * HEAP_SNAPSHOT_ZSTD_RAW_BLOCK bytes, each after a 3-byte header
 * (last-block bit, type 0 = raw, size << 3). */
#define HEAP_SNAPSHOT_ZSTD_MAGIC       0xFD2FB528u
#define HEAP_SNAPSHOT_ZSTD_RAW_DESC    0xE0
#define HEAP_SNAPSHOT_ZSTD_RAW_HEAD    13   /* magic, descriptor, size */
#define HEAP_SNAPSHOT_ZSTD_RAW_BLOCK   131072   /* 128 KiB */
