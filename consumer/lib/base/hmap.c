/* hmap: see rtscope/base/hmap.h. */
#include "rtscope/base/hmap.h"

#include <stdlib.h>
#include <string.h>

#define HMAP_MIN_CAP 16

/* murmur3's 64-bit finaliser, halved: addresses differ in their middle
 * bits and strings' hashes are mixed already; one multiply spreads both. */
static size_t hmap_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

/* A hash as a stored key: 0 marks an empty slot, so hash 0 is kept as 1
 * (eq tells such entries apart like any others of one hash). */
static uint64_t hmap_hash_key(uint64_t hash)
{
    return hash ? hash : 1;
}

static int hmap_resize(hmap *m, size_t cap)
{
    uint64_t *nk = calloc(cap, sizeof(*nk)), *nv = malloc(cap * sizeof(*nv));
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = hmap_mix(m->keys[i]) & (cap - 1);
        while (nk[j])
            j = (j + 1) & (cap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = cap;
    return 0;
}

int hmap_reserve(hmap *m, size_t n)
{
    if (n <= m->cap / 2)
        return 0;
    size_t cap = m->cap ? m->cap : HMAP_MIN_CAP;
    while (n > cap / 2) {
        if (cap > SIZE_MAX / 2 / sizeof(uint64_t))
            return -1;
        cap *= 2;
    }
    return hmap_resize(m, cap);
}

/* The slot of key, or the empty slot where it would go (m->cap > 0). */
static size_t hmap_slot_of(const hmap *m, uint64_t key)
{
    size_t j = hmap_mix(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    return j;
}

uint64_t *hmap_at(hmap *m, uint64_t key, int *added)
{
    if (added)
        *added = 0;
    if (!key) {
        if (!m->has_zero) {
            m->has_zero = 1;
            m->zero_val = 0;
            m->n++;
            if (added)
                *added = 1;
        }
        return &m->zero_val;
    }
    if (hmap_reserve(m, m->n + 1) != 0)
        return NULL;
    size_t j = hmap_slot_of(m, key);
    if (!m->keys[j]) {
        m->keys[j] = key;
        m->vals[j] = 0;
        m->n++;
        if (added)
            *added = 1;
    }
    return &m->vals[j];
}

int hmap_put(hmap *m, uint64_t key, uint64_t val)
{
    uint64_t *v = hmap_at(m, key, NULL);
    if (!v)
        return -1;
    *v = val;
    return 0;
}

int hmap_lookup(const hmap *m, uint64_t key, uint64_t *val)
{
    if (!key) {
        if (m->has_zero && val)
            *val = m->zero_val;
        return m->has_zero;
    }
    if (!m->cap)
        return 0;
    size_t j = hmap_slot_of(m, key);
    if (!m->keys[j])
        return 0;
    if (val)
        *val = m->vals[j];
    return 1;
}

int hmap_find(const hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx,
              uint64_t *val)
{
    if (!m->cap)
        return 0;
    uint64_t key = hmap_hash_key(hash);
    for (size_t j = hmap_mix(key) & (m->cap - 1); m->keys[j];
         j = (j + 1) & (m->cap - 1)) {
        if (m->keys[j] == key && eq(ctx, m->vals[j])) {
            if (val)
                *val = m->vals[j];
            return 1;
        }
    }
    return 0;
}

int hmap_add(hmap *m, uint64_t hash, uint64_t val)
{
    if (hmap_reserve(m, m->n + 1) != 0)
        return -1;
    uint64_t key = hmap_hash_key(hash);
    size_t j = hmap_mix(key) & (m->cap - 1);
    while (m->keys[j])
        j = (j + 1) & (m->cap - 1);
    m->keys[j] = key;
    m->vals[j] = val;
    m->n++;
    return 0;
}

/* *pos: 0 is key 0's entry, i + 1 slot i. */
int hmap_next(const hmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
    if (*pos == 0) {
        *pos = 1;
        if (m->has_zero) {
            if (key)
                *key = 0;
            if (val)
                *val = m->zero_val;
            return 1;
        }
    }
    for (size_t i = *pos - 1; i < m->cap; i++) {
        if (m->keys[i]) {
            if (key)
                *key = m->keys[i];
            if (val)
                *val = m->vals[i];
            *pos = i + 2;
            return 1;
        }
    }
    *pos = m->cap + 1;
    return 0;
}

void hmap_free(hmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}
