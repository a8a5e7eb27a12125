/* Event-type table: what the eventlog header declares, one entry per type
 * number (see Note [Event-type table layout] in typetab_impl.h).
 * Descriptions are copied once. */
#include "rtscope/eventlog.h"

#include "typetab_impl.h"

#include <stdlib.h>
#include <string.h>

/* Bound on the total description text we keep, so that a hostile header
 * cannot make the table grow without limit. Longer text is truncated. */
#define TYPETAB_DESC_MAX_TOTAL (1u << 20)
#define TYPETAB_DESC_MAX_ONE 256u

el_typetab *el_typetab_new(void)
{
    return calloc(1, sizeof(el_typetab));
}

void el_typetab_free(el_typetab *tab)
{
    if (!tab)
        return;
    for (unsigned i = 0; i < tab->count; i++)
        free(tab->entries[i].desc);
    free(tab->entries);
    free(tab->index);
    free(tab);
}

static unsigned typetab_slot(uint16_t num, unsigned mask)
{
    return ((unsigned)num * 40503u) & mask;
}

const typetab_entry *typetab_find(const el_typetab *tab, uint16_t num)
{
    if (!tab->index_cap)
        return NULL;
    unsigned mask = tab->index_cap - 1;
    for (unsigned j = typetab_slot(num, mask);; j = (j + 1) & mask) {
        uint32_t v = tab->index[j];
        if (!v)
            return NULL;
        if (tab->entries[v - 1].num == num)
            return &tab->entries[v - 1];
    }
}

int el_typetab_lookup(const el_typetab *tab, uint16_t num, uint16_t *size)
{
    return typetab_lookup_inline(tab, num, size);
}

const char *el_typetab_desc(const el_typetab *tab, uint16_t num)
{
    const typetab_entry *e = typetab_find(tab, num);
    return e ? e->desc : NULL;
}

unsigned el_typetab_count(const el_typetab *tab)
{
    return tab->count;
}

uint16_t el_typetab_nth(const el_typetab *tab, unsigned i)
{
    return i < tab->count ? tab->entries[i].num : 0;
}

/* Make room for one more entry in `entries` and in the index (kept at most
 * half full). */
static el_status typetab_grow(el_typetab *tab)
{
    if (tab->count == tab->cap) {
        unsigned nc = tab->cap ? tab->cap * 2 : 64;
        typetab_entry *ne = realloc(tab->entries, nc * sizeof(*ne));
        if (!ne)
            return EL_ERR_NOMEM;
        tab->entries = ne;
        tab->cap = nc;
    }
    if ((tab->count + 1) * 2 > tab->index_cap) {
        unsigned nc = tab->index_cap ? tab->index_cap * 2 : 128;
        uint32_t *ni = calloc(nc, sizeof(*ni));
        if (!ni)
            return EL_ERR_NOMEM;
        for (unsigned i = 0; i < tab->count; i++) {
            unsigned j = typetab_slot(tab->entries[i].num, nc - 1);
            while (ni[j])
                j = (j + 1) & (nc - 1);
            ni[j] = i + 1;
        }
        free(tab->index);
        tab->index = ni;
        tab->index_cap = nc;
    }
    return EL_OK;
}

el_status el_typetab_declare(el_typetab *tab, uint16_t num, uint16_t size,
                             const char *desc, size_t desc_len)
{
    if (desc_len > TYPETAB_DESC_MAX_ONE)
        desc_len = TYPETAB_DESC_MAX_ONE;
    if (tab->desc_total + desc_len > TYPETAB_DESC_MAX_TOTAL)
        desc_len = 0;
    char *copy = malloc(desc_len + 1);
    if (!copy)
        return EL_ERR_NOMEM;
    if (desc_len)
        memcpy(copy, desc, desc_len);
    copy[desc_len] = '\0';
    tab->desc_total += desc_len;
    typetab_entry *e = (typetab_entry *)typetab_find(tab, num);
    if (e) {
        /* A repeated declaration replaces the earlier one. */
        free(e->desc);
    } else {
        if (typetab_grow(tab) != EL_OK) {
            free(copy);
            return EL_ERR_NOMEM;
        }
        unsigned mask = tab->index_cap - 1;
        unsigned j = typetab_slot(num, mask);
        while (tab->index[j])
            j = (j + 1) & mask;
        e = &tab->entries[tab->count++];
        tab->index[j] = tab->count;
        e->num = num;
    }
    e->size = size;
    e->desc = copy;
    if (num < TYPETAB_DIRECT)
        tab->lo[num] = TYPETAB_DECLARED | size;
    return EL_OK;
}
