/* strmap: 64-bit keys to owned strings, over the consumer's hash map (the
 * value is the string's pointer). */
#include "rtscope/model/strmap.h"
#include "rtscope/base/hmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct strmap {
    hmap index; /* key -> (uintptr_t) owned string */
};

strmap *strmap_new(void)
{
    return calloc(1, sizeof(strmap));
}

void strmap_free(strmap *m)
{
    if (!m)
        return;
    size_t pos = 0;
    uint64_t v;
    while (hmap_next(&m->index, &pos, NULL, &v))
        free((char *)(uintptr_t)v);
    hmap_free(&m->index);
    free(m);
}

int strmap_put(strmap *m, uint64_t key, const char *s, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = 0;
    uint64_t *slot = hmap_at(&m->index, key, NULL);
    if (!slot) {
        free(copy);
        return -1;
    }
    free((char *)(uintptr_t)*slot); /* 0 for a new key */
    *slot = (uint64_t)(uintptr_t)copy;
    return 0;
}

const char *strmap_get(const strmap *m, uint64_t key)
{
    uint64_t v;
    return hmap_get(&m->index, key, &v) ? (const char *)(uintptr_t)v : NULL;
}

size_t strmap_count(const strmap *m)
{
    return m->index.n;
}
