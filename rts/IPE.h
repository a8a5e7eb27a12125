/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Info table provenance on GHC 9.0.2: the RTS-internal side (heap
 * profiling by info table). The public API is includes/rts/IPE.h; the
 * entries and their events are rts/IPEBinary.h's, on every GHC.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "IPEBinary.h"

#include "BeginPrivate.h"

/* +RTS -hi: census bands are info tables.
 * See Note [-hi and RtsFlags.ProfFlags.doHeapProfile] in rts/IPE.c */
extern bool heapProfByInfoTable;

#include "EndPrivate.h"
