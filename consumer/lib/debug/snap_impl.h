/* Internals of the snapshot code (snap.c: the format's primitives and the
 * in-memory snapshot; snap_write.c; snap_load.c; snap_source.c). */
#ifndef RTSCOPE_SNAP_IMPL_H
#define RTSCOPE_SNAP_IMPL_H

#include "rtscope/base/grow.h"
#include "rtscope/debug/debug_snap.h"

#include <stddef.h>
#include <stdint.h>

/* the format's numbers: includes/rts/HeapSnapshotFormat.h */
#define HDR_SIZE HEAP_SNAPSHOT_HEADER_LEN
#define MAX_SECTIONS HEAP_SNAPSHOT_MAX_SECTIONS
#define SECT_ENTRY ((size_t)HEAP_SNAPSHOT_SECT_ENTRY)
#define TABLE_END ((size_t)HEAP_SNAPSHOT_TABLE_END)
#define WORD 8

enum snap_section {
    SECT_ROOTS = HEAP_SNAPSHOT_ROOTS,
    SECT_INFOS = HEAP_SNAPSHOT_INFOS,
    SECT_CLOSURE_INDEX = HEAP_SNAPSHOT_CLOSURE_INDEX,
    SECT_CLOSURE_DATA = HEAP_SNAPSHOT_CLOSURE_DATA,
    SECT_STACK_BITMAPS = HEAP_SNAPSHOT_STACK_BITMAPS,
    SECT_FUN_BITMAPS = HEAP_SNAPSHOT_FUN_BITMAPS,
    SECT_BLOCKS = HEAP_SNAPSHOT_BLOCKS,
    SECT_PTR_MAPS = HEAP_SNAPSHOT_PTR_MAPS,
    SECT_LAST = HEAP_SNAPSHOT_SECT_LAST,
};

typedef struct snap_sum {
    uint64_t h, len;
    unsigned char tail[8];
    size_t ntail;
} snap_sum;

void snap_err(dbg_snap *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *sect_name(uint32_t id);
int buf_le(dbg_buf *b, uint64_t x, int n);
int host_little(void);
uint64_t le_get(const unsigned char *p, int n);
uint64_t sum_end(snap_sum *c);
uint64_t sum_of(const unsigned char *p, size_t n);
void le_put(unsigned char *p, uint64_t x, int n);
void sum_add(snap_sum *c, const unsigned char *p, size_t n);
void sum_init(snap_sum *c);
/* strdup(x), NULL for NULL; *bad set when out of memory. */
char *dup_or_null(const char *x, int *bad);

#endif
