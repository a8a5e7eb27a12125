/* The event-type table's representation, shared by typetab.c and the
 * decoder's hot path (internal). */
#ifndef RTSCOPE_TYPETAB_IMPL_H
#define RTSCOPE_TYPETAB_IMPL_H

#include "rtscope/eventlog.h"

#include <stddef.h>
#include <stdint.h>

typedef struct typetab_entry {
    uint16_t num;
    char *desc;
} typetab_entry;

struct el_typetab {
    uint8_t declared[65536];
    uint16_t size[65536];
    typetab_entry *entries; /* declared types, in header order */
    unsigned count, cap;
    size_t desc_total;
};

static inline int typetab_lookup_inline(const el_typetab *tab, uint16_t num,
                                        uint16_t *size)
{
    if (!tab->declared[num])
        return -1;
    *size = tab->size[num];
    return 0;
}

#endif
