#include "ipe.h"

#include <stdlib.h>
#include <string.h>

typedef struct ipe_slot {
    uint64_t info;
    ipe_entry *entry; /* NULL: empty */
} ipe_slot;

struct ipe_table {
    ipe_slot *slots;
    size_t cap, count;
};

ipe_table *ipe_table_new(void)
{
    return calloc(1, sizeof(ipe_table));
}

void ipe_table_free(ipe_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].entry);
    free(t->slots);
    free(t);
}

static size_t ipe_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static ipe_slot *ipe_find(const ipe_table *t, uint64_t info)
{
    size_t i = ipe_hash(info, t->cap);
    while (t->slots[i].entry && t->slots[i].info != info)
        i = (i + 1) & (t->cap - 1);
    return &t->slots[i];
}

static int ipe_grow(ipe_table *t)
{
    size_t nc = t->cap ? t->cap * 2 : 256;
    ipe_slot *old = t->slots;
    size_t oc = t->cap;
    t->slots = calloc(nc, sizeof(ipe_slot));
    if (!t->slots) {
        t->slots = old;
        return -1;
    }
    t->cap = nc;
    for (size_t i = 0; i < oc; i++)
        if (old[i].entry)
            *ipe_find(t, old[i].info) = old[i];
    free(old);
    return 0;
}

/* One allocation: the entry, then its six strings. */
static ipe_entry *ipe_entry_new(const el_event *ev)
{
    const el_str f[6] = {ev->u.ipe.table_name, ev->u.ipe.closure_desc,
                         ev->u.ipe.ty_desc,    ev->u.ipe.label,
                         ev->u.ipe.module,     ev->u.ipe.srcloc};
    size_t total = sizeof(ipe_entry);
    for (int i = 0; i < 6; i++)
        total += f[i].len + 1;
    ipe_entry *e = malloc(total);
    if (!e)
        return NULL;
    char *p = (char *)(e + 1);
    const char *s[6];
    for (int i = 0; i < 6; i++) {
        memcpy(p, f[i].ptr, f[i].len);
        p[f[i].len] = 0;
        s[i] = p;
        p += f[i].len + 1;
    }
    e->info = ev->u.ipe.info;
    e->table_name = s[0];
    e->closure_desc = s[1];
    e->ty_desc = s[2];
    e->label = s[3];
    e->module = s[4];
    e->srcloc = s[5];
    return e;
}

int ipe_table_put(ipe_table *t, const el_event *ev)
{
    if ((t->count + 1) * 2 > t->cap && ipe_grow(t) != 0)
        return -1;
    ipe_entry *e = ipe_entry_new(ev);
    if (!e)
        return -1;
    ipe_slot *slot = ipe_find(t, e->info);
    if (slot->entry)
        free(slot->entry);
    else
        t->count++;
    slot->info = e->info;
    slot->entry = e;
    return 0;
}

const ipe_entry *ipe_table_get(const ipe_table *t, uint64_t info)
{
    if (!t->cap)
        return NULL;
    return ipe_find(t, info)->entry;
}

size_t ipe_table_count(const ipe_table *t)
{
    return t->count;
}

int ipe_parse_address(el_str label, uint64_t *addr)
{
    if (label.len < 3 || label.len > 18 || label.ptr[0] != '0' ||
        (label.ptr[1] != 'x' && label.ptr[1] != 'X'))
        return -1;
    uint64_t v = 0;
    for (size_t i = 2; i < label.len; i++) {
        char c = label.ptr[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        v = v << 4 | d;
    }
    *addr = v;
    return 0;
}

char *ipe_band_name(const ipe_entry *e)
{
    const char *name = e->table_name[0] ? e->table_name : e->label;
    size_t nl = strlen(name), sl = strlen(e->srcloc);
    char *buf = malloc(nl + sl + 2);
    if (!buf)
        return NULL;
    memcpy(buf, name, nl);
    if (sl) {
        buf[nl] = '@';
        memcpy(buf + nl + 1, e->srcloc, sl + 1);
    } else {
        buf[nl] = 0;
    }
    return buf;
}

/* rts/storage/ClosureTypes.h of GHC 9.0.2 (and 9.2). */
static const char *const ipe_closure_types[] = {
    "INVALID_OBJECT",
    "CONSTR",
    "CONSTR_1_0",
    "CONSTR_0_1",
    "CONSTR_2_0",
    "CONSTR_1_1",
    "CONSTR_0_2",
    "CONSTR_NOCAF",
    "FUN",
    "FUN_1_0",
    "FUN_0_1",
    "FUN_2_0",
    "FUN_1_1",
    "FUN_0_2",
    "FUN_STATIC",
    "THUNK",
    "THUNK_1_0",
    "THUNK_0_1",
    "THUNK_2_0",
    "THUNK_1_1",
    "THUNK_0_2",
    "THUNK_STATIC",
    "THUNK_SELECTOR",
    "BCO",
    "AP",
    "PAP",
    "AP_STACK",
    "IND",
    "IND_STATIC",
    "RET_BCO",
    "RET_SMALL",
    "RET_BIG",
    "RET_FUN",
    "UPDATE_FRAME",
    "CATCH_FRAME",
    "UNDERFLOW_FRAME",
    "STOP_FRAME",
    "BLOCKING_QUEUE",
    "BLACKHOLE",
    "MVAR_CLEAN",
    "MVAR_DIRTY",
    "TVAR",
    "ARR_WORDS",
    "MUT_ARR_PTRS_CLEAN",
    "MUT_ARR_PTRS_DIRTY",
    "MUT_ARR_PTRS_FROZEN_DIRTY",
    "MUT_ARR_PTRS_FROZEN_CLEAN",
    "MUT_VAR_CLEAN",
    "MUT_VAR_DIRTY",
    "WEAK",
    "PRIM",
    "MUT_PRIM",
    "TSO",
    "STACK",
    "TREC_CHUNK",
    "ATOMICALLY_FRAME",
    "CATCH_RETRY_FRAME",
    "CATCH_STM_FRAME",
    "WHITEHOLE",
    "SMALL_MUT_ARR_PTRS_CLEAN",
    "SMALL_MUT_ARR_PTRS_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN",
    "COMPACT_NFDATA",
};

const char *ipe_closure_type_name(const char *decimal)
{
    unsigned v = 0;
    const char *p = decimal;
    if (!*p)
        return decimal;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > 1000)
            return decimal;
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (v < sizeof(ipe_closure_types) / sizeof(ipe_closure_types[0]))
        return ipe_closure_types[v];
    return decimal;
}
