/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Info table provenance (IPE) on GHC 9.0.2, which has none: GHC 9.2's
 * lookupIPE, answered from the program's own binary (rts/IPEBinary.c),
 * and the flag of heap profiling by info table (+RTS -hi). GHC 9.4 and
 * later have this file upstream; rtscope's series for them hook
 * rts/IPEBinary.c into theirs instead.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "IPE.h"

/* Note [-hi and RtsFlags.ProfFlags.doHeapProfile]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC 9.2 adds HEAP_BY_INFO_TABLE to the values of
 * RtsFlags.ProfFlags.doHeapProfile. We cannot: base's GHC.RTS.Flags, as
 * compiled by Debian for 9.0.2, reads that field and maps it to its
 * DoHeapProfile type with a toEnum that knows the 9.0.2 values only, so
 * getRTSFlags (and getProfFlags) would throw in any program run with -hi.
 *
 * So -hi sets doHeapProfile to HEAP_BY_CLOSURE_TYPE (what -hT sets) and
 * the separate flag heapProfByInfoTable. Everything that asks "is heap
 * profiling on?" (the profiling timer, the scheduler, the stats) works
 * unchanged, getRTSFlags reports HeapByClosureType, the closest value 9.0.2
 * can express, and the census follows -hT's path, asking
 * heapProfByInfoTable only where the two differ: the band of a closure
 * (its info table, get_itbl(p), instead of its closure type or
 * constructor), the label of a band (the table's address, "%p", as GHC 9.2
 * writes it), the breakdown in EVENT_HEAP_PROF_BEGIN
 * (HEAP_PROF_BREAKDOWN_INFO_TABLE, 8) and the EVENT_IPE events.
 */

bool heapProfByInfoTable = false;

InfoProvEnt *
lookupIPE(StgInfoTable *info)
{
    return lookupIPEFromBinary(info);
}
