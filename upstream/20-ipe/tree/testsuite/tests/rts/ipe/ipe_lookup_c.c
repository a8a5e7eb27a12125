#include "Rts.h"
#include <stdio.h>

extern StgInfoTable ghczmprim_GHCziTypes_ZC_con_info;

void lookupCons (void)
{
    InfoProvEnt *ipe = lookupIPE(&ghczmprim_GHCziTypes_ZC_con_info);
    if (ipe == NULL) {
        printf("no provenance for (:)\n");
    } else {
        printf("label: %s\nmodule: %s\nclosure type: %s\n",
               ipe->prov.label, ipe->prov.module, ipe->prov.closure_desc);
    }
    fflush(stdout);
}
