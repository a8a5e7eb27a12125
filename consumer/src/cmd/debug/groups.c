/* groups: naming and grouping info tables for dominators and diff. See
 * groups.h. */
#define _GNU_SOURCE
#include "groups.h"

#include "rtscope/model/ipe.h"
#include "rtscope/strhash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const debug_grouping_title[DEBUG_NGROUPINGS] = {
    "info table", "constructor", "module"};

int debug_info_name(dbg_heap *h, dbg_info *in, char *buf, size_t len)
{
    char *const *src = dbg_heap_source(h, in);
    if (src) {
        ipe_entry e = {.info = in->ptr,
                       .table_name = src[0],
                       .closure_desc = src[1],
                       .ty_desc = src[2],
                       .label = src[3],
                       .module = src[4],
                       .srcloc = src[5]};
        ipe_display_name(buf, len, &e);
        return 1;
    }
    const char *con = dbg_heap_con_descr(h, in);
    if (con) {
        dbg_con_display(con, buf, len);
        return 1;
    }
    return 0;
}

void debug_group_name(dbg_heap *h, dbg_info *in, enum debug_grouping k,
                      int with_addr, char *buf, size_t len)
{
    const char *type = ghc_closure_type_name(in->type);
    char addr[32] = "";
    if (with_addr)
        snprintf(addr, sizeof(addr), "0x%" PRIx64 " ", in->ptr);
    if (k == DEBUG_BY_INFO) {
        char name[1024];
        if (!debug_info_name(h, in, name, sizeof(name)))
            snprintf(name, sizeof(name), "-");
        snprintf(buf, len, "%s%s %s", addr, type, name);
    } else if (k == DEBUG_BY_CONSTRUCTOR) {
        const char *con = dbg_heap_con_descr(h, in);
        if (con)
            dbg_con_display(con, buf, len);
        else
            snprintf(buf, len, "%s", type);
    } else if (!dbg_info_module(h, in, buf, len)) {
        snprintf(buf, len, "%s %s",
                 dbg_info_is_rts(h, in) ? "(RTS)" : "(unknown)", type);
    }
}
