/* Event-type table: what the eventlog header declares, one entry per type
 * number. Fixed-size arrays indexed by the 16-bit type number keep lookups
 * branch-free on the hot path; descriptions are copied once. */
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
    free(tab);
}

int el_typetab_lookup(const el_typetab *tab, uint16_t num, uint16_t *size)
{
    return typetab_lookup_inline(tab, num, size);
}

static typetab_entry *typetab_find(const el_typetab *tab, uint16_t num)
{
    for (unsigned i = 0; i < tab->count; i++)
        if (tab->entries[i].num == num)
            return &tab->entries[i];
    return NULL;
}

const char *el_typetab_desc(const el_typetab *tab, uint16_t num)
{
    const typetab_entry *e = tab->declared[num] ? typetab_find(tab, num) : NULL;
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
    typetab_entry *e = tab->declared[num] ? typetab_find(tab, num) : NULL;
    if (e) {
        /* A repeated declaration replaces the earlier one. */
        free(e->desc);
    } else {
        if (tab->count == tab->cap) {
            unsigned nc = tab->cap ? tab->cap * 2 : 256;
            typetab_entry *ne = realloc(tab->entries, nc * sizeof(*ne));
            if (!ne) {
                free(copy);
                return EL_ERR_NOMEM;
            }
            tab->entries = ne;
            tab->cap = nc;
        }
        e = &tab->entries[tab->count++];
        e->num = num;
        tab->declared[num] = 1;
    }
    tab->size[num] = size;
    e->desc = copy;
    return EL_OK;
}
