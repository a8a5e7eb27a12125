/* addr_rank: ranks of addresses. See addr_rank.h. */
#include "addr_rank.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_SHIFT RANK_PAGE_SHIFT
#define PAGE_WORDS ((size_t)1 << (PAGE_SHIFT - 3 - 6)) /* uint64_t a page */

static rpage *rank_page(rankset *s, uint64_t a, int create)
{
    uint64_t key = (a >> PAGE_SHIFT) + 1, v;
    if (s->last && key == s->last_key)
        return s->last;
    if (hmap_get(&s->index, key, &v)) {
        s->last = &s->pages[v - 1];
    } else {
        if (!create)
            return NULL;
        if (s->n == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 64;
            rpage *np = realloc(s->pages, nc * sizeof(*np));
            if (!np)
                return NULL;
            s->pages = np;
            s->cap = nc;
        }
        rpage *p = &s->pages[s->n];
        memset(p, 0, sizeof(*p));
        p->key = key;
        p->bits = calloc(PAGE_WORDS, sizeof(*p->bits));
        if (!p->bits || hmap_put(&s->index, key, s->n + 1) != 0) {
            free(p->bits);
            return NULL;
        }
        s->n++;
        s->last = p;
    }
    s->last_key = key;
    return s->last;
}

int rank_add_slow(rankset *s, uint64_t a)
{
    rpage *p = rank_page(s, a, 1);
    if (!p)
        return -1;
    uint64_t w = (a & (((uint64_t)1 << PAGE_SHIFT) - 1)) >> 3;
    uint64_t bit = (uint64_t)1 << (w & 63);
    if (p->bits[w >> 6] & bit)
        return 0;
    p->bits[w >> 6] |= bit;
    return 1;
}

static int page_order(const void *a, const void *b)
{
    uint64_t x = ((const rpage *)a)->key, y = ((const rpage *)b)->key;
    return x < y ? -1 : x > y;
}

int rank_finish(rankset *s)
{
    /* ranks in address order: the pages by address first */
    if (s->n)
        qsort(s->pages, s->n, sizeof(*s->pages), page_order);
    hmap_free(&s->index);
    for (size_t i = 0; i < s->n; i++)
        if (hmap_put(&s->index, s->pages[i].key, i + 1) != 0)
            return -1;
    uint32_t base = 0;
    for (size_t i = 0; i < s->n; i++) {
        rpage *p = &s->pages[i];
        p->pre = malloc(PAGE_WORDS * sizeof(*p->pre));
        if (!p->pre)
            return -1;
        p->base = base;
        uint32_t c = 0;
        for (size_t w = 0; w < PAGE_WORDS; w++) {
            p->pre[w] = c;
            c += (uint32_t)__builtin_popcountll(p->bits[w]);
        }
        base += c;
    }
    s->total = base;
    s->last = NULL;
    return 0;
}

/* The rank of a, or NONE when a is not in the set. */
uint32_t rank_of(rankset *s, uint64_t a)
{
    rpage *p = rank_page(s, a, 0);
    if (!p || (a & 7))
        return RANK_NONE;
    uint64_t w = (a & (((uint64_t)1 << PAGE_SHIFT) - 1)) >> 3;
    uint64_t word = p->bits[w >> 6], bit = (uint64_t)1 << (w & 63);
    if (!(word & bit))
        return RANK_NONE;
    return p->base + p->pre[w >> 6] +
           (uint32_t)__builtin_popcountll(word & (bit - 1));
}

void rank_free(rankset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->pages[i].bits);
        free(s->pages[i].pre);
    }
    free(s->pages);
    hmap_free(&s->index);
    memset(s, 0, sizeof(*s));
}

size_t rank_list(const rankset *s, rank_cursor *c, uint64_t *out, size_t max)
{
    size_t n = 0;
    if (!c->started) {
        c->started = 1;
        c->left = s->n ? s->pages[0].bits[0] : 0;
    }
    while (n < max && c->page < s->n) {
        if (!c->left) {
            if (++c->word == PAGE_WORDS) {
                c->word = 0;
                if (++c->page == s->n)
                    break;
            }
            c->left = s->pages[c->page].bits[c->word];
            continue;
        }
        unsigned b = (unsigned)__builtin_ctzll(c->left);
        c->left &= c->left - 1;
        uint64_t base = (s->pages[c->page].key - 1) << PAGE_SHIFT;
        out[n++] = base | (((uint64_t)c->word * 64 + b) << 3);
    }
    return n;
}
