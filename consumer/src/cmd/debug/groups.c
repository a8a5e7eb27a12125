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
    const char *type = dbg_closure_type_name(in->type);
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

static uint64_t name_hash(const char *s)
{
    uint64_t x = rtscope_strhash(s, strlen(s));
    return x ? x : 1; /* 0 marks an empty slot */
}

long debug_names_id(debug_names *t, const char *name)
{
    uint64_t key = name_hash(name), v;
    while (dbg_u64map_get(&t->ids, key, &v) &&
           strcmp(t->names[v - 1], name) != 0)
        key = key + 1 ? key + 1 : 1;
    if (dbg_u64map_get(&t->ids, key, &v))
        return (long)v - 1;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        char **nn = realloc(t->names, nc * sizeof(*nn));
        if (!nn)
            return -1;
        t->names = nn;
        t->cap = nc;
    }
    t->names[t->n] = strdup(name);
    if (!t->names[t->n] || dbg_u64map_put(&t->ids, key, t->n + 1) != 0) {
        free(t->names[t->n]);
        return -1;
    }
    return (long)t->n++;
}

void debug_names_free(debug_names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    dbg_u64map_free(&t->ids);
    memset(t, 0, sizeof(*t));
}
