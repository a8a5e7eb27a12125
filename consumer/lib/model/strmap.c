#include "rtscope/model/strmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct strmap_slot {
    uint64_t key;
    char *val; /* NULL: empty slot */
} strmap_slot;

struct strmap {
    strmap_slot *slots;
    size_t cap, count;
};

strmap *strmap_new(void)
{
    return calloc(1, sizeof(strmap));
}

void strmap_free(strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].val);
    free(m->slots);
    free(m);
}

static size_t strmap_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static strmap_slot *strmap_find(const strmap *m, uint64_t key)
{
    size_t i = strmap_hash(key, m->cap);
    while (m->slots[i].val && m->slots[i].key != key)
        i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

static int strmap_grow(strmap *m)
{
    size_t nc = m->cap ? m->cap * 2 : 64;
    strmap old = *m;
    m->slots = calloc(nc, sizeof(strmap_slot));
    if (!m->slots) {
        *m = old;
        return -1;
    }
    m->cap = nc;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].val)
            *strmap_find(m, old.slots[i].key) = old.slots[i];
    free(old.slots);
    return 0;
}

int strmap_put(strmap *m, uint64_t key, const char *s, size_t len)
{
    if ((m->count + 1) * 2 > m->cap && strmap_grow(m) != 0)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = 0;
    strmap_slot *slot = strmap_find(m, key);
    if (slot->val)
        free(slot->val);
    else
        m->count++;
    slot->key = key;
    slot->val = copy;
    return 0;
}

const char *strmap_get(const strmap *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    return strmap_find(m, key)->val;
}

size_t strmap_count(const strmap *m)
{
    return m->count;
}
