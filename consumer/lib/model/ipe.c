#include "rtscope/model/ipe.h"
#include "rtscope/base/closure_types.h"
#include "rtscope/base/hmap.h"
#include "rtscope/strhash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ipe_table {
    hmap entries; /* info pointer -> ipe_entry * */
    /* The names given so far, so that no two tables get one name: name
     * hash -> the entry whose name it is */
    hmap names;
    /* the replaced entries: their names stay taken (and in use by sinks
     * that copied them), so they are kept until the table goes */
    ipe_entry **old;
    size_t nold, old_cap;
};

ipe_table *ipe_table_new(void)
{
    return calloc(1, sizeof(ipe_table));
}

static ipe_entry *entry_of(uint64_t v)
{
    return (ipe_entry *)(uintptr_t)v;
}

void ipe_table_free(ipe_table *t)
{
    if (!t)
        return;
    size_t pos = 0;
    uint64_t v;
    while (hmap_next(&t->entries, &pos, NULL, &v))
        free(entry_of(v));
    for (size_t i = 0; i < t->nold; i++)
        free(t->old[i]);
    free(t->old);
    hmap_free(&t->entries);
    hmap_free(&t->names);
    free(t);
}

static int name_eq(const void *ctx, uint64_t v)
{
    return strcmp(entry_of(v)->name, ctx) == 0;
}

static int name_taken(const ipe_table *t, const char *name)
{
    return hmap_find(&t->names, rtscope_strhash(name, strlen(name)), name_eq,
                     name, NULL);
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
    if (hmap_reserve(&t->names, t->names.n + 1) != 0)
        return -1;
    ipe_entry *e = ipe_entry_new(ev);
    if (!e)
        return -1;
    uint64_t *slot = hmap_at(&t->entries, e->info, NULL);
    if (!slot) {
        free(e);
        return -1;
    }
    ipe_entry *had = entry_of(*slot);
    if (had && ipe_same(had, e)) {
        /* posted again (a new eventlog stream): keep its name */
        free(e);
        return 0;
    }
    if (had) {
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
        t->old[t->nold++] = had;
    }
    /* never two tables with one name: a later one gets its address */
    if (name_taken(t, e->name)) {
        char *end = e->name + strlen(e->name);
        sprintf(end, " [0x%" PRIx64 "]", e->info);
    }
    if (!name_taken(t, e->name)) /* room reserved above */
        hmap_add(&t->names, rtscope_strhash(e->name, strlen(e->name)),
                 (uint64_t)(uintptr_t)e);
    *slot = (uint64_t)(uintptr_t)e;
    return 0;
}

const ipe_entry *ipe_table_get(const ipe_table *t, uint64_t info)
{
    uint64_t v;
    return hmap_get(&t->entries, info, &v) ? entry_of(v) : NULL;
}

size_t ipe_table_count(const ipe_table *t)
{
    return t->entries.n;
}

/* A hex digit's value plus one, 0 for any other byte: a table, not
 * comparisons, since every -hi sample's label is parsed (the digits and
 * letters of an address mix, which branches mispredict). */
static const uint8_t ipe_hex1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int ipe_parse_address(el_str label, uint64_t *addr)
{
    if (label.len < 3 || label.len > 18 || label.ptr[0] != '0' ||
        (label.ptr[1] != 'x' && label.ptr[1] != 'X'))
        return -1;
    uint64_t v = 0;
    unsigned bad = 0;
    for (size_t i = 2; i < label.len; i++) {
        unsigned d = ipe_hex1[(unsigned char)label.ptr[i]];
        bad |= d == 0;
        v = v << 4 | ((d - 1) & 15);
    }
    if (bad)
        return -1;
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

/* "package:", when the type field is "package:Module" of the table's own
 * module (rtscope's RTS writes it so), without version and ABI hash. */
static void ipe_put_package(char *buf, size_t size, size_t *n,
                            const ipe_entry *e)
{
    const char *colon = strchr(e->ty_desc, ':');
    if (colon && colon > e->ty_desc && e->module[0] &&
        strcmp(colon + 1, e->module) == 0) {
        ipe_append(buf, size, n, e->ty_desc,
                   ipe_package_len(e->ty_desc, (size_t)(colon - e->ty_desc)));
        ipe_append(buf, size, n, ":", 1);
    }
}

void ipe_binding_name(char *buf, size_t size, const ipe_entry *e)
{
    size_t n = 0;
    if (size == 0)
        return;
    buf[0] = 0;
    if (!e->module[0] || !e->label[0])
        return;
    ipe_put_package(buf, size, &n, e);
    IPE_PUT(e->module);
    IPE_PUT(".");
    IPE_PUT(e->label);
}

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
        ipe_put_package(buf, size, &n, e);
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

const char *ipe_closure_type_name(const char *decimal)
{
    int v = ipe_closure_number(decimal);
    if (v >= 0 && v < GHC_N_CLOSURE_TYPES)
        return ghc_closure_type_name((uint32_t)v);
    return decimal;
}
