/* Info-table provenance: the table of EVENT_IPE entries by info-table
 * address, and the names rtscope gives -hi bands from it. Shared by the
 * sinks that name -hi bands (hp, html, diff). */
#ifndef RTSCOPE_IPE_H
#define RTSCOPE_IPE_H

#include "rtscope/eventlog.h"

#include <stddef.h>
#include <stdint.h>

/* One EVENT_IPE entry; strings owned by the table, NUL-terminated (an
 * embedded NUL cannot occur: the event's strings are NUL-terminated). */
typedef struct ipe_entry {
    uint64_t info;
    const char *table_name, *closure_desc, *ty_desc, *label, *module, *srcloc;
    char *name; /* the band name (ipe_display_name), unique in its table */
} ipe_entry;

typedef struct ipe_table ipe_table;

ipe_table *ipe_table_new(void);
void ipe_table_free(ipe_table *t);
/* Record an EL_IPE event (decoded) and name the table (ipe_display_name):
 * a name another table of `t` already has gets the address appended
 * (" [0x4c5e10]"), so no two tables share one. A later entry for an
 * address replaces the earlier one; the same entry posted again (a new
 * eventlog stream) keeps its name. Returns 0, or -1 when out of memory. */
int ipe_table_put(ipe_table *t, const el_event *ev);
/* The entry for an address, or NULL. */
const ipe_entry *ipe_table_get(const ipe_table *t, uint64_t info);
size_t ipe_table_count(const ipe_table *t);

/* -hi labels a band by its info-table address printed with %p ("0x4c5e10").
 * Returns 0 and sets *addr if `label` is such an address. */
int ipe_parse_address(el_str label, uint64_t *addr);

/* The band name of an entry of a table (e->name), malloc'd, or NULL. */
char *ipe_band_name(const ipe_entry *e);

/* The name rtscope shows for an info table, as a Haskell user reads it
 * (docs/hi.md, "Band names"):
 *   a constructor             containers:Data.Map.Internal.Bin
 *   a closure of a binding    THUNK in base:GHC.Show.showList__
 *   a top-level closure       FUN main:Main.go
 *   the RTS's own tables      stg_ARR_WORDS
 *   nothing known             THUNK 0x4c5e10
 * followed by " at SRCLOC" when there is a source span. The package comes
 * from the type field when it is "package:Module" of the table's module,
 * without version and ABI hash. Writes at most `size` bytes, NUL included
 * (cut short if needed). e->name is not read. */
void ipe_display_name(char *buf, size_t size, const ipe_entry *e);

/* The binding a table belongs to, "package:Module.binding" ("Module.binding"
 * when the type field gives no package, as for ipe_display_name), or ""
 * when the entry has no module or no label: a call-stack frame's function
 * (rtscope pprof's sampled stacks). Writes at most `size` bytes. */
void ipe_binding_name(char *buf, size_t size, const ipe_entry *e);

/* GHC's name for a closure type given as the decimal string of an IPE
 * event ("1" -> "CONSTR"); the string itself if it is not a known number. */
const char *ipe_closure_type_name(const char *decimal);

#endif
