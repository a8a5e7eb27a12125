#include "Rts.h"
#include <stdio.h>
#include <stdlib.h>

/* The label of the info table named ADDR in the -hi profile. Bands name
 * the table itself (get_itbl(p)); lookupIPE takes the info pointer as it
 * appears in a closure's header, which with tables next to code is the
 * address just past the table. */
const char *labelOf (const char *addr)
{
    const StgInfoTable *itbl = (const StgInfoTable *) strtoull(addr, NULL, 16);
#if defined(TABLES_NEXT_TO_CODE)
    InfoProvEnt *ipe = lookupIPE((StgInfoTable *) (itbl + 1));
#else
    InfoProvEnt *ipe = lookupIPE((StgInfoTable *) itbl);
#endif
    return ipe == NULL ? "?" : ipe->prov.label;
}
