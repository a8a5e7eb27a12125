/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Info table provenance (IPE): where an info table comes from.
 *
 * The names and the signature of lookupIPE are those of GHC 9.2
 * (includes/rts/IPE.h), so that code written against 9.2's API (the
 * ghc-debug stub, for example) works unchanged. GHC 9.0.2's compiler has no
 * -finfo-table-map, so rtscope's RTS derives the entries from the program's
 * own binary instead of from compiler-generated tables; see
 * Note [Info table provenance from the binary] in rts/IPEProvenance.c.
 *
 * Do not #include this file directly: #include "Rts.h" instead.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

typedef struct InfoProv_ {
    char *table_name;   /* symbol of the info table, e.g. Main_Leak_con_info */
    char *closure_desc; /* closure type, as a decimal string, e.g. "1" */
    char *ty_desc;      /* constructors: "package:Module"; else ""   */
    char *label;        /* e.g. "Leak", ":" or "sat_s3ki"             */
    char *module;       /* e.g. "Main", "GHC.Types"                   */
    char *srcloc;       /* "file:line:col-col" from DWARF, or ""      */
} InfoProv;

typedef struct InfoProvEnt_ {
    StgInfoTable *info; /* the info pointer, as in a closure's header */
    InfoProv prov;
} InfoProvEnt;

/* Look up (and cache) the provenance of the info table whose info pointer
 * is `info` (the value of a closure's header.info; with tables next to
 * code, the address of the info table's symbol). Returns NULL when nothing
 * at all is known about the table. The result lives until the RTS exits;
 * it must not be freed or modified. Thread-safe. */
InfoProvEnt *lookupIPE(StgInfoTable *info);
