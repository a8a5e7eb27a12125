/* The event-type table's representation, shared by typetab.c and the
 * decoder's hot path (internal). */
#ifndef RTSCOPE_TYPETAB_IMPL_H
#define RTSCOPE_TYPETAB_IMPL_H

#include "rtscope/eventlog.h"

#include <stddef.h>
#include <stdint.h>

/* Types below this number (every type GHC defines) are looked up in a
 * direct array; the rest through a hash index. */
#define TYPETAB_DIRECT 256u
/* lo[] entries: 0 for an undeclared type, else this bit plus the size. */
#define TYPETAB_DECLARED 0x10000u

typedef struct typetab_entry {
    uint16_t num;
    uint16_t size;
    char *desc;
} typetab_entry;

/* Note [Event-type table layout]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The decoder looks a type up for every event, so the common case (types
 * below 256) is one load from a 1 KiB array that stays in L1 cache. Types
 * from 256 up, which only other writers use, go through an open-addressing
 * index over `entries`. The table is small to create: a decoder (and a
 * fuzz run) does not pay for clearing a 64 Ki-entry array. The index is
 * this library's own, not the consumer's hash map (rtscope/base/hmap.h):
 * librtscope-eventlog is installed on its own (pkg-config
 * rtscope-eventlog) and links no other rtscope library; the merge's index
 * of capabilities (merge.c) is kept the same way for the same reason. */
struct el_typetab {
    uint32_t lo[TYPETAB_DIRECT];
    typetab_entry *entries; /* declared types, in header order */
    unsigned count, cap;
    uint32_t *index; /* entry number + 1, 0 = free; index_cap slots */
    unsigned index_cap;
    size_t desc_total;
};

/* Slow path of typetab_lookup_inline: the hash index. */
const typetab_entry *typetab_find(const el_typetab *tab, uint16_t num);

static inline int typetab_lookup_inline(const el_typetab *tab, uint16_t num,
                                        uint16_t *size)
{
    if (num < TYPETAB_DIRECT) {
        uint32_t v = tab->lo[num];
        if (!v)
            return -1;
        *size = (uint16_t)v;
        return 0;
    }
    const typetab_entry *e = typetab_find(tab, num);
    if (!e)
        return -1;
    *size = e->size;
    return 0;
}

#endif
