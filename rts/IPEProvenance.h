/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Provenance of info tables read from the loaded binaries (ELF symbols and
 * GHC's DWARF), with elfutils' libdw/libdwfl.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* What the binaries say about one address. Strings are allocated with
 * stgMallocBytes and owned by the caller; any of them may be NULL. */
typedef struct ProvenanceResult_ {
    char *table_name;   /* symbol (or DWARF linkage name) at the address */
    char *module;       /* Haskell module of the compile unit (DWARF)   */
    char *srcloc;       /* "file:line:col-col" (DWARF source note)      */
} ProvenanceResult;

/* Look up the info pointer `addr`. Never fails: what cannot be found is
 * left NULL (see Note [Provenance degrades, never fails]). Not
 * thread-safe: the caller serialises (rts/IPE.c holds its lock). */
void provenanceLookup(StgWord addr, ProvenanceResult *out);

/* Drop the readers (at exit, or to force a rescan of loaded objects). */
void provenanceFree(void);

#include "EndPrivate.h"
