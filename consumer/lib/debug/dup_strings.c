/* dup_strings: see rtscope/debug/dup_strings.h.
 *
 * Note [Finding strings]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * A String is a chain of (:) cells (ghc-prim:GHC.Types.:) whose heads are
 * characters (C#; the ASCII ones are the RTS's shared static closures)
 * and whose last tail is [] or something not yet evaluated. The walk
 * meets the cells, the characters and the indirections between them in
 * breadth-first order, not along the chains, so it only notes them (a
 * cell's head and tail, a character's value, an indirection's target);
 * dbg_strings_finish then finds where strings begin (a cell with a
 * character whose address is no other such cell's tail: the tail of
 * "hello" is "ello", which is not a string of its own) and decodes each
 * from there, up to DBG_STRING_MAX characters. Strings that share a tail
 * ("xs ++ ys" and "zs ++ ys") are each decoded whole, as a program
 * reading them would see them. A string is grouped by its text and
 * whether it ends in []: a string still being produced is not the same
 * value as a finished one. Its bytes are its cells' (the characters are
 * mostly shared already), and a copy of it would free them all: the
 * cells two strings share through a common tail are counted in both,
 * which ghc-debug's count does too. */
#include "rtscope/debug/dup_strings.h"

#include "dup_impl.h"
#include "rtscope/base/grow.h"

#include <stdlib.h>
#include <string.h>

#define UNTAG(p) ((p) & ~(uint64_t)7)
#define IND_HOPS 8 /* indirections followed between two cells at most */

enum kind { K_OTHER = 1, K_CONS, K_CHAR, K_NIL, K_IND };

void dbg_strings_init(dbg_strings *s, dbg_heap *h, size_t keep)
{
    memset(s, 0, sizeof(*s));
    s->h = h;
    s->keep = keep;
}

void dbg_strings_free(dbg_strings *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->groups[i].samp);
    free(s->groups);
    free(s->cells);
    hmap_free(&s->cellof);
    hmap_free(&s->chars);
    hmap_free(&s->inds);
    hmap_free(&s->nils);
    hmap_free(&s->kind);
    hmap_free(&s->index);
    memset(s, 0, sizeof(*s));
}

/* What closures of this info table are to strings. */
static enum kind kind_of(dbg_strings *s, dbg_info *in)
{
    uint64_t k;
    if (hmap_get(&s->kind, in->ptr, &k))
        return (enum kind)k;
    enum kind r = K_OTHER;
    if (in->type == GHC_IND || in->type == GHC_IND_STATIC ||
        in->type == GHC_BLACKHOLE) {
        r = K_IND;
    } else if (in->type >= GHC_CONSTR && in->type <= GHC_CONSTR_NOCAF) {
        const char *con = dbg_heap_con_descr(s->h, in);
        if (con && !strcmp(con, "ghc-prim:GHC.Types.:") && in->ptrs == 2)
            r = K_CONS;
        else if (con && !strcmp(con, "ghc-prim:GHC.Types.C#"))
            r = K_CHAR;
        else if (con && !strcmp(con, "ghc-prim:GHC.Types.[]"))
            r = K_NIL;
    }
    if (hmap_put(&s->kind, in->ptr, (uint64_t)r) != 0)
        s->nomem = 1;
    return r;
}

static int add_cell(dbg_strings *s, const dbg_closure *c)
{
    if (rt_grow((void **)&s->cells, &s->cellcap, s->ncells, sizeof(*s->cells),
                4096) != 0 ||
        hmap_put(&s->cellof, c->addr, s->ncells) != 0)
        return -1;
    s->cells[s->ncells++] = (dbg_string_cell){.addr = c->addr,
                                              .head = c->ptrs[0],
                                              .tail = c->ptrs[1],
                                              .size = c->size};
    return 0;
}

int dbg_strings_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    dbg_strings *s = ctx;
    (void)parent;
    if (!c->info)
        return 0;
    int r = 0;
    switch (kind_of(s, c->info)) {
    case K_CONS:
        if (c->nptrs == 2)
            r = add_cell(s, c);
        break;
    case K_CHAR:
        if (c->size >= 16) {
            uint64_t ch;
            memcpy(&ch, c->mem + 8, 8);
            r = hmap_put(&s->chars, c->addr, ch);
        }
        break;
    case K_NIL:
        r = hmap_put(&s->nils, c->addr, 1);
        break;
    case K_IND:
        if (c->nptrs >= 1)
            r = hmap_put(&s->inds, c->addr, c->ptrs[0]);
        break;
    default:
        break;
    }
    if (r != 0)
        s->nomem = 1;
    return s->nomem;
}

/* Where addr leads past indirections. */
static uint64_t resolve(const dbg_strings *s, uint64_t addr)
{
    uint64_t to;
    addr = UNTAG(addr);
    for (int k = 0; k < IND_HOPS && hmap_get(&s->inds, addr, &to); k++)
        addr = UNTAG(to);
    return addr;
}

/* The cell at addr (past indirections) if it holds a character: its
 * index, and the character. */
static int char_cell(const dbg_strings *s, uint64_t addr, size_t *at,
                     uint64_t *ch)
{
    uint64_t i;
    if (!hmap_get(&s->cellof, resolve(s, addr), &i))
        return 0;
    *at = (size_t)i;
    return hmap_get(&s->chars, resolve(s, s->cells[i].head), ch);
}

/* Walk the string from cell `at`: each character to fn (may be NULL);
 * its length, bytes and ending. */
typedef struct decoded {
    uint64_t length, bytes;
    int ends;
} decoded;

static decoded decode(const dbg_strings *s, size_t at,
                      void (*fn)(void *, uint64_t), void *ctx)
{
    decoded d = {0, 0, 0};
    uint64_t ch;
    size_t i = at;
    if (!char_cell(s, s->cells[at].addr, &i, &ch))
        return d;
    for (;;) {
        if (fn)
            fn(ctx, ch);
        d.length++;
        d.bytes += s->cells[i].size;
        uint64_t tail = s->cells[i].tail;
        if (d.length >= DBG_STRING_MAX || !char_cell(s, tail, &i, &ch)) {
            d.ends = hmap_get(&s->nils, resolve(s, tail), NULL);
            return d;
        }
    }
}

static void hash_char(void *ctx, uint64_t ch)
{
    hash2_word(ctx, ch);
}

/* Count the string beginning at cell `at` in its group. */
static int add_string(dbg_strings *s, size_t at)
{
    hash2 h = hash2_start();
    decoded d = decode(s, at, hash_char, &h);
    hash2_word(&h, d.length);
    hash2_word(&h, (uint64_t)d.ends);
    uint64_t gi;
    dup_key k = {s->groups, sizeof(*s->groups), h.b};
    if (!hmap_find(&s->index, h.a, dup_key_eq, &k, &gi)) {
        if (rt_grow((void **)&s->groups, &s->cap, s->n, sizeof(*s->groups),
                    1024) != 0 ||
            hmap_add(&s->index, h.a, s->n) != 0)
            return -1;
        gi = s->n++;
        s->groups[gi] = (dbg_string_group){.h1 = h.a,
                                           .h2 = h.b,
                                           .example = s->cells[at].addr,
                                           .length = d.length,
                                           .bytes = d.bytes,
                                           .ends = d.ends};
    }
    dbg_string_group *g = &s->groups[gi];
    if (s->keep && g->count == 1) {
        if (!(g->samp = malloc(s->keep * sizeof(*g->samp))))
            return -1;
        g->samp[g->nsamp++] = g->example;
    }
    if (g->samp && g->nsamp < s->keep)
        g->samp[g->nsamp++] = s->cells[at].addr;
    g->count++;
    s->strings++;
    s->bytes += d.bytes;
    return 0;
}

static int by_wasted(const void *a, const void *b)
{
    const dbg_string_group *x = a, *y = b;
    return dup_order(dbg_string_wasted(x), x->count, x->example,
                     dbg_string_wasted(y), y->count, y->example);
}

int dbg_strings_finish(dbg_strings *s)
{
    uint64_t ch;
    size_t j;
    for (size_t i = 0; i < s->ncells; i++) /* Note [Finding strings] */
        if (char_cell(s, s->cells[i].addr, &j, &ch) &&
            char_cell(s, s->cells[i].tail, &j, &ch))
            s->cells[j].inner = 1;
    for (size_t i = 0; i < s->ncells; i++)
        if (!s->cells[i].inner && char_cell(s, s->cells[i].addr, &j, &ch) &&
            add_string(s, i) != 0)
            return s->nomem = 1, -1;
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->groups[i].count < 2)
            continue;
        s->dup_strings += s->groups[i].count - 1;
        s->dup_bytes += dbg_string_wasted(&s->groups[i]);
        s->groups[m++] = s->groups[i];
    }
    s->n = m;
    hmap_free(&s->index);
    if (m)
        qsort(s->groups, m, sizeof(*s->groups), by_wasted);
    return 0;
}

typedef struct text_out {
    char *buf;
    size_t len, n;
    int full;
} text_out;

/* One character as UTF-8 (a bad code point as U+FFFD). */
static void put_char(void *ctx, uint64_t ch)
{
    text_out *o = ctx;
    unsigned char u[4];
    size_t k;
    if (ch > 0x10ffff || (ch >= 0xd800 && ch <= 0xdfff))
        ch = 0xfffd;
    if (ch < 0x80) {
        u[0] = (unsigned char)ch, k = 1;
    } else if (ch < 0x800) {
        u[0] = (unsigned char)(0xc0 | ch >> 6), k = 2;
    } else if (ch < 0x10000) {
        u[0] = (unsigned char)(0xe0 | ch >> 12), k = 3;
    } else {
        u[0] = (unsigned char)(0xf0 | ch >> 18), k = 4;
    }
    for (size_t b = k; b-- > 1; ch >>= 6)
        u[b] = (unsigned char)(0x80 | (ch & 0x3f));
    if (o->full || o->n + k + 1 > o->len) {
        o->full = 1;
        return;
    }
    memcpy(o->buf + o->n, u, k);
    o->n += k;
}

size_t dbg_strings_text(const dbg_strings *s, uint64_t addr, char *buf,
                        size_t len)
{
    uint64_t i;
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (!hmap_get(&s->cellof, UNTAG(addr), &i))
        return 0;
    text_out o = {buf, len, 0, 0};
    decoded d = decode(s, (size_t)i, put_char, &o);
    buf[o.n] = '\0';
    return (size_t)d.length;
}
