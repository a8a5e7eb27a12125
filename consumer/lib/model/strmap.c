/* strmap: 64-bit keys to owned strings, over the consumer's hash map
 * (key -> index + 1 into the strings). */
#include "rtscope/model/strmap.h"
#include "rtscope/base/grow.h"
#include "rtscope/base/hmap.h"

#include <stdlib.h>
#include <string.h>

struct strmap {
    hmap index;
    char **vals;
    size_t n, cap;
};

strmap *strmap_new(void)
{
    return calloc(1, sizeof(strmap));
}

void strmap_free(strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        free(m->vals[i]);
    free(m->vals);
    hmap_free(&m->index);
    free(m);
}

/* Where key's string is, or NULL when it has none. */
static char **strmap_slot(const strmap *m, uint64_t key)
{
    uint64_t v;
    return hmap_get(&m->index, key, &v) ? &m->vals[v - 1] : NULL;
}

/* A new slot for key. */
static char **strmap_new_slot(strmap *m, uint64_t key)
{
    if (rt_grow((void **)&m->vals, &m->cap, m->n, sizeof(*m->vals), 64) != 0)
        return NULL;
    if (hmap_put(&m->index, key, m->n + 1) != 0)
        return NULL;
    m->vals[m->n] = NULL;
    return &m->vals[m->n++];
}

int strmap_put(strmap *m, uint64_t key, const char *s, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = 0;
    char **slot = strmap_slot(m, key);
    if (!slot && !(slot = strmap_new_slot(m, key))) {
        free(copy);
        return -1;
    }
    free(*slot);
    *slot = copy;
    return 0;
}

const char *strmap_get(const strmap *m, uint64_t key)
{
    char **slot = strmap_slot(m, key);
    return slot ? *slot : NULL;
}

size_t strmap_count(const strmap *m)
{
    return m->n;
}
