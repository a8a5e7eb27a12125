/* Band names for every sink; see bands.h. */
#include "rtscope/model/bands.h"

#include "rtscope/model/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bands {
    uint32_t breakdown;
    ipe_table *ipe; /* -hi: info-table address -> provenance */
    strmap *ccs;    /* cost-centre id -> label */
};

bands *bands_new(void)
{
    bands *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->ipe = ipe_table_new();
    b->ccs = strmap_new();
    if (!b->ipe || !b->ccs) {
        bands_free(b);
        return NULL;
    }
    return b;
}

void bands_free(bands *b)
{
    if (!b)
        return;
    ipe_table_free(b->ipe);
    strmap_free(b->ccs);
    free(b);
}

int bands_take(bands *b, const el_event *ev)
{
    switch (ev->type) {
    case EL_HEAP_PROF_BEGIN:
        b->breakdown = ev->u.heap_prof_begin.breakdown;
        return 0;
    case EL_IPE:
        return ipe_table_put(b->ipe, ev) != 0 ? -1 : 0;
    case EL_HEAP_PROF_COST_CENTRE:
        return strmap_put(b->ccs, ev->u.cost_centre.id,
                          ev->u.cost_centre.label.ptr,
                          ev->u.cost_centre.label.len) != 0
                   ? -1
                   : 0;
    default:
        return 0;
    }
}

uint32_t bands_breakdown(const bands *b)
{
    return b->breakdown;
}

const ipe_table *bands_ipe_table(const bands *b)
{
    return b->ipe;
}

const ipe_entry *bands_ipe(const bands *b, el_str label)
{
    uint64_t addr;
    if (b->breakdown != EL_BREAKDOWN_INFO_TABLE ||
        ipe_parse_address(label, &addr) != 0)
        return NULL;
    return ipe_table_get(b->ipe, addr);
}

char *bands_label_name(const bands *b, el_str label)
{
    const ipe_entry *e = bands_ipe(b, label);
    if (e)
        return ipe_band_name(e);
    char *s = malloc(label.len + 1);
    if (!s)
        return NULL;
    memcpy(s, label.ptr, label.len);
    s[label.len] = 0;
    return s;
}

const char *bands_cc_label(const bands *b, uint32_t id)
{
    return strmap_get(b->ccs, id);
}

static int bands_append(char **buf, size_t *cap, size_t *len, const char *s,
                        size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*len + n + 1) * 2;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    return 0;
}

int bands_ccs_name(const bands *b, const el_event *ev, char **buf, size_t *cap,
                   size_t *len)
{
    unsigned depth = el_ccs_depth(ev);
    *len = 0;
    if (depth == 0)
        return bands_append(buf, cap, len, "MAIN", 4);
    for (unsigned i = 0; i < depth; i++) {
        uint32_t id = el_ccs_id(ev, i);
        char tmp[24];
        const char *name = strmap_get(b->ccs, id);
        if (!name) {
            snprintf(tmp, sizeof(tmp), "cc%u", (unsigned)id);
            name = tmp;
        }
        if ((i && bands_append(buf, cap, len, "/", 1) != 0) ||
            bands_append(buf, cap, len, name, strlen(name)) != 0)
            return -1;
    }
    return 0;
}
