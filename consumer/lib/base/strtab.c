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
    return k->t->len[id] == k->len && memcmp(k->t->s[id], k->s, k->len) == 0;
}

/* Room for one more string. */
static int strtab_room(strtab *t)
{
    size_t cap = t->cap;
    if (rt_grow((void **)&t->s, &cap, t->n, sizeof(*t->s), 256) != 0)
        return -1;
    size_t lcap = t->cap;
    if (rt_grow((void **)&t->len, &lcap, t->n, sizeof(*t->len), 256) != 0)
        return -1; /* s has grown: harmless */
    t->cap = cap < lcap ? cap : lcap;
    return 0;
}

int64_t strtab_id(strtab *t, const char *s, size_t len)
{
    uint64_t h = rtscope_strhash(s, len), id;
    strtab_key k = {t, s, len};
    if (hmap_find(&t->index, h, strtab_eq, &k, &id))
        return (int64_t)id;
    if (strtab_room(t) != 0 || hmap_reserve(&t->index, t->index.n + 1) != 0)
        return -1;
    t->s[t->n] = (char *)s;
    if (!t->borrowed) {
        if (!(t->s[t->n] = malloc(len + 1)))
            return -1;
        memcpy(t->s[t->n], s, len);
        t->s[t->n][len] = 0;
    }
    t->len[t->n] = len;
    hmap_add(&t->index, h, t->n); /* room reserved above */
    return (int64_t)t->n++;
}

int64_t strtab_id_str(strtab *t, const char *s)
{
    return strtab_id(t, s, strlen(s));
}

void strtab_free(strtab *t)
{
    if (!t->borrowed)
        for (size_t i = 0; i < t->n; i++)
            free(t->s[i]);
    free(t->s);
    free(t->len);
    hmap_free(&t->index);
    memset(t, 0, sizeof(*t));
}
