/* groups: how the heap analyses (dominators, diff) name and group info
 * tables: by info table (address, type and the name every -hi band
 * gets), by constructor (ghc-debug's display, or the closure type), and
 * by module (the provenance's or the constructor's; "(RTS) TYPE" for the
 * RTS's own tables, "(unknown) TYPE" for a table nothing is known of). */
#ifndef RTSCOPE_CMD_DEBUG_GROUPS_H
#define RTSCOPE_CMD_DEBUG_GROUPS_H

#include "rtscope/base/strtab.h"
#include "rtscope/debug/debug_heap.h"

#include <stddef.h>
#include <stdint.h>

enum debug_grouping {
    DEBUG_BY_INFO,
    DEBUG_BY_CONSTRUCTOR,
    DEBUG_BY_MODULE,
    DEBUG_NGROUPINGS
};

/* "info table", "constructor", "module" */
extern const char *const debug_grouping_title[DEBUG_NGROUPINGS];

/* The name of an info table as every -hi band is named (docs/hi.md, "Band
 * names": from its provenance), or else its constructor's display, into
 * buf; 0 (buf untouched) when neither is known. */
int debug_info_name(dbg_heap *h, dbg_info *in, char *buf, size_t len);

/* The name of the info table's group in a grouping, into buf. With
 * with_addr 0, an info table is named without its address (to match the
 * tables of two heaps of one program). */
void debug_group_name(dbg_heap *h, dbg_info *in, enum debug_grouping k,
                      int with_addr, char *buf, size_t len);

#endif
