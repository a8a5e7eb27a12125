#include "rtscope/model/ipe.h"
#include "rtscope/strhash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ipe_slot {
    uint64_t info;
    ipe_entry *entry; /* NULL: empty */
} ipe_slot;

/* The names given so far, so that no two tables get one name. */
typedef struct ipe_name_slot {
    const char *name; /* an entry's name; NULL: empty */
} ipe_name_slot;

struct ipe_table {
    ipe_slot *slots;
    size_t cap, count;
    ipe_name_slot *names;
    size_t names_cap, names_count;
    /* the replaced entries: their names stay taken (and in use by sinks
     * that copied them), so they are kept until the table goes */
    ipe_entry **old;
    size_t nold, old_cap;
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
    for (size_t i = 0; i < t->nold; i++)
        free(t->old[i]);
    free(t->old);
    free(t->slots);
    free(t->names);
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

static uint64_t ipe_name_hash(const char *s)
{
    return rtscope_strhash(s, strlen(s));
}

static ipe_name_slot *ipe_name_find(const ipe_table *t, const char *name)
{
    size_t i = (size_t)ipe_name_hash(name) & (t->names_cap - 1);
    while (t->names[i].name && strcmp(t->names[i].name, name) != 0)
        i = (i + 1) & (t->names_cap - 1);
    return &t->names[i];
}

static int ipe_name_grow(ipe_table *t)
{
    size_t nc = t->names_cap ? t->names_cap * 2 : 256;
    ipe_name_slot *old = t->names;
    size_t oc = t->names_cap;
    t->names = calloc(nc, sizeof(ipe_name_slot));
    if (!t->names) {
        t->names = old;
        return -1;
    }
    t->names_cap = nc;
    for (size_t i = 0; i < oc; i++)
        if (old[i].name)
            *ipe_name_find(t, old[i].name) = old[i];
    free(old);
    return 0;
}

/* One allocation: the entry, its six strings, then its name (at most the
 * display name plus " [0x" 16 hex digits "]"). */
static ipe_entry *ipe_entry_new(const el_event *ev)
{
    const el_str f[6] = {ev->u.ipe.table_name, ev->u.ipe.closure_desc,
                         ev->u.ipe.ty_desc,    ev->u.ipe.label,
                         ev->u.ipe.module,     ev->u.ipe.srcloc};
    /* the name: the strings, separators, a kind, an address, the suffix */
    size_t total = sizeof(ipe_entry), name_cap = 128;
    for (int i = 0; i < 6; i++) {
        total += f[i].len + 1;
        name_cap += f[i].len;
    }
    ipe_entry *e = malloc(total + name_cap);
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
    e->name = p;
    ipe_display_name(p, name_cap - 32, e);
    return e;
}

static int ipe_same(const ipe_entry *a, const ipe_entry *b)
{
    return strcmp(a->table_name, b->table_name) == 0 &&
           strcmp(a->closure_desc, b->closure_desc) == 0 &&
           strcmp(a->ty_desc, b->ty_desc) == 0 &&
           strcmp(a->label, b->label) == 0 &&
           strcmp(a->module, b->module) == 0 &&
           strcmp(a->srcloc, b->srcloc) == 0;
}

int ipe_table_put(ipe_table *t, const el_event *ev)
{
    if ((t->count + 1) * 2 > t->cap && ipe_grow(t) != 0)
        return -1;
    if ((t->names_count + 1) * 2 > t->names_cap && ipe_name_grow(t) != 0)
        return -1;
    ipe_entry *e = ipe_entry_new(ev);
    if (!e)
        return -1;
    ipe_slot *slot = ipe_find(t, e->info);
    if (slot->entry && ipe_same(slot->entry, e)) {
        /* posted again (a new eventlog stream): keep its name */
        free(e);
        return 0;
    }
    /* never two tables with one name: a later one gets its address */
    ipe_name_slot *ns = ipe_name_find(t, e->name);
    if (ns->name) {
        char *end = e->name + strlen(e->name);
        sprintf(end, " [0x%" PRIx64 "]", e->info);
        ns = ipe_name_find(t, e->name);
    }
    if (!ns->name) {
        ns->name = e->name;
        t->names_count++;
    }
    if (slot->entry) {
        if (t->nold == t->old_cap) {
            size_t nc = t->old_cap ? 2 * t->old_cap : 16;
            ipe_entry **no = realloc(t->old, nc * sizeof(ipe_entry *));
            if (!no) {
                free(e);
                return -1;
            }
            t->old = no;
            t->old_cap = nc;
        }
        t->old[t->nold++] = slot->entry;
    } else {
        t->count++;
    }
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
    return strdup(e->name);
}

static int ipe_closure_number(const char *decimal)
{
    int v = 0;
    if (!*decimal)
        return -1;
    for (const char *p = decimal; *p; p++) {
        if (*p < '0' || *p > '9' || v > 1000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* A package without its version and ABI hash: "containers-0.6.4.1" and
 * "pandoc-2.17.1.1-bBC0rtgHvLLxePeF98Kfh" lose everything from the first
 * "-" followed by a digit; "ghc-prim" keeps its "-prim". */
static size_t ipe_package_len(const char *pkg, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (pkg[i] == '-' && pkg[i + 1] >= '0' && pkg[i + 1] <= '9')
            return i;
    return n;
}

/* Is a table name a top-level Haskell symbol (Module_f_info,
 * pkg_Module_f_info) rather than a local one (s3ki_info, sat_s3ki_info)? */
static int ipe_toplevel_symbol(const char *sym)
{
    const char *us = strchr(sym, '_');
    if (!us || us == sym)
        return 0;
    if (sym[0] >= 'A' && sym[0] <= 'Z')
        return 1;
    return sym[0] >= 'a' && sym[0] <= 'z' && us[1] >= 'A' && us[1] <= 'Z';
}

static void ipe_append(char *buf, size_t size, size_t *n, const char *s,
                       size_t len)
{
    if (*n >= size)
        return;
    size_t room = size - 1 - *n;
    if (len > room)
        len = room;
    memcpy(buf + *n, s, len);
    *n += len;
    buf[*n] = 0;
}

#define IPE_PUT(s) ipe_append(buf, size, &n, (s), strlen(s))

void ipe_display_name(char *buf, size_t size, const ipe_entry *e)
{
    size_t n = 0;
    if (size == 0)
        return;
    buf[0] = 0;
    int ct = ipe_closure_number(e->closure_desc);
    const char *kind = ct >= 8 && ct <= 14    ? "FUN"
                       : ct >= 15 && ct <= 22 ? "THUNK"
                       : ct >= 0 ? ipe_closure_type_name(e->closure_desc)
                       : e->closure_desc[0] ? e->closure_desc
                                            : "?";
    int con = ct >= 1 && ct <= 7;
    /* the RTS's own tables: their label is their name (stg_ARR_WORDS) */
    if (strncmp(e->table_name, "stg_", 4) == 0 ||
        strncmp(e->label, "stg_", 4) == 0) {
        IPE_PUT(e->label[0] ? e->label : e->table_name);
        return;
    }
    if (e->module[0] || e->label[0]) {
        if (!con) {
            IPE_PUT(kind);
            IPE_PUT(e->table_name[0] && ipe_toplevel_symbol(e->table_name)
                        ? " "
                        : " in ");
        }
        /* the package, when the type field is "package:Module" of the
         * table's own module (rtscope's RTS writes it so) */
        const char *colon = strchr(e->ty_desc, ':');
        if (colon && colon > e->ty_desc && e->module[0] &&
            strcmp(colon + 1, e->module) == 0) {
            ipe_append(
                buf, size, &n, e->ty_desc,
                ipe_package_len(e->ty_desc, (size_t)(colon - e->ty_desc)));
            IPE_PUT(":");
        }
        IPE_PUT(e->module);
        if (e->module[0] && e->label[0])
            IPE_PUT(".");
        IPE_PUT(e->label);
    } else {
        char addr[32];
        snprintf(addr, sizeof(addr), "0x%" PRIx64, e->info);
        IPE_PUT(kind);
        IPE_PUT(" ");
        IPE_PUT(addr);
    }
    if (e->srcloc[0]) {
        IPE_PUT(" at ");
        IPE_PUT(e->srcloc);
    }
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
    int v = ipe_closure_number(decimal);
    if (v >= 0 &&
        (size_t)v < sizeof(ipe_closure_types) / sizeof(ipe_closure_types[0]))
        return ipe_closure_types[v];
    return decimal;
}
