/* strtab: see rtscope/base/strtab.h. */
#include "rtscope/base/strtab.h"
#include "rtscope/base/grow.h"
#include "rtscope/strhash.h"

#include <stdlib.h>
#include <string.h>

typedef struct strtab_key {
    const strtab *t;
    const char *s;
    size_t len;
} strtab_key;

static int strtab_eq(const void *ctx, uint64_t id)
{
    const strtab_key *k = ctx;
    const char *c = k->t->s[id];
    return strncmp(c, k->s, k->len) == 0 && c[k->len] == 0;
}

int64_t strtab_id(strtab *t, const char *s, size_t len)
{
    uint64_t h = rtscope_strhash(s, len), id;
    strtab_key k = {t, s, len};
    if (hmap_find(&t->index, h, strtab_eq, &k, &id))
        return (int64_t)id;
    if (rt_grow((void **)&t->s, &t->cap, t->n, sizeof(*t->s), 256) != 0)
        return -1;
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, s, len);
    c[len] = 0;
    if (hmap_add(&t->index, h, t->n) != 0) {
        free(c);
        return -1;
    }
    t->s[t->n] = c;
    return (int64_t)t->n++;
}

int64_t strtab_id_str(strtab *t, const char *s)
{
    return strtab_id(t, s, strlen(s));
}

void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    hmap_free(&t->index);
    memset(t, 0, sizeof(*t));
}
