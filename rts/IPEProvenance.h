/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Provenance of info tables read from the loaded binaries: an index of
 * their ELF symbols and GHC's DWARF, built once per object with elfutils'
 * libelf and libdw.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* What the binaries say about one info pointer. Strings are allocated with
 * stgMallocBytes and owned by the caller; any of them may be NULL. */
typedef struct ProvenanceResult_ {
    char *table_name;   /* symbol (or DWARF linkage name) at the address   */
    char *binding;      /* no symbol of its own: the symbol of the top-level
                           binding whose code holds the table
                           (See Note [The binding that holds a table])      */
    char *neighbour;    /* a frame's table in code of no binding we can
                           tell (see the Note), between two bindings of one
                           module: one of them, for the module only        */
    char *binder;       /* DWARF: the Haskell binder of the code (-g)      */
    char *module;       /* Haskell module of the compile unit (DWARF)      */
    char *srcloc;       /* "file:line:col-col" (DWARF source note)         */
} ProvenanceResult;

/* Start indexing the loaded objects in the background, so that the first
 * lookup (in a heap census, with every capability stopped) finds the index
 * built. Idempotent; lookups work without it (they build the index
 * themselves). See Note [The provenance index]. */
void provenanceStart(void);

/* Look up the info pointer `addr`. `frame`: the table is a stack frame's
 * (a return point inside a procedure) rather than a closure's (which starts
 * one). Never fails: what cannot be found is left NULL (see
 * Note [Provenance degrades, never fails]). Not thread-safe: the caller
 * serialises (rts/IPEBinary.c holds its lock). */
void provenanceLookup(StgWord addr, bool frame, ProvenanceResult *out);

/* Drop the index (at exit, or to force a rescan of loaded objects). */
void provenanceFree(void);

#include "EndPrivate.h"
