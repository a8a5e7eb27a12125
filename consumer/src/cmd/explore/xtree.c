/* The explorer's tree (explore.h): nodes in one array, children as
 * sibling chains made when a node is first opened, from a fresh read of
 * the closure (the heap is paused or a snapshot: it does not change while
 * explored). */
#include "explore.h"

#include "groups.h"
#include "rtscope/base/grow.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD 8
#define UNTAG(p) ((p) & ~(uint64_t)7)

/* ---- nodes -------------------------------------------------------------- */

static char *xt_strdup(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static char *xt_strdup(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return strdup(buf);
}

uint32_t xt_node_new(xt_tree *t, enum xt_kind kind, uint32_t parent,
                     uint64_t addr, char *label)
{
    if (t->n >= XT_NONE - 1 ||
        rt_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v), 1024) != 0) {
        free(label);
        snprintf(t->err, sizeof(t->err), "out of memory");
        return XT_NONE;
    }
    xt_node *x = &t->v[t->n];
    memset(x, 0, sizeof(*x));
    x->kind = (uint8_t)kind;
    x->addr = addr;
    x->parent = parent;
    x->first = x->next = XT_NONE;
    x->depth = parent == XT_NONE ? 0 : t->v[parent].depth + 1;
    x->label = label;
    return (uint32_t)t->n++;
}

void xt_free(xt_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].label);
        free(t->v[i].text);
    }
    free(t->v);
    for (size_t k = 0; k < t->nviews; k++)
        free(t->views[k].top);
    free(t->views);
    free(t->vis);
    free(t->samp);
    if (t->g) {
        dbg_graph_free(t->g);
        free(t->g);
    }
    if (t->dom) {
        dbg_domtree_free(t->dom);
        free(t->dom);
    }
    dbg_read_free(&t->rd);
    memset(t, 0, sizeof(*t));
}

/* ---- views -------------------------------------------------------------- */

int xt_view_push(xt_tree *t, const char *title)
{
    size_t at = t->nviews ? t->cur + 1 : 0;
    for (size_t k = at; k < t->nviews; k++) /* the views ahead: dropped */
        free(t->views[k].top);
    t->nviews = at;
    if (rt_grow((void **)&t->views, &t->viewcap, t->nviews, sizeof(*t->views),
                8) != 0) {
        snprintf(t->err, sizeof(t->err), "out of memory");
        return -1;
    }
    xt_view *w = &t->views[t->nviews++];
    memset(w, 0, sizeof(*w));
    snprintf(w->title, sizeof(w->title), "%s", title);
    t->cur = at;
    return xt_relist(t);
}

void xt_view_go(xt_tree *t, size_t k)
{
    if (k < t->nviews) {
        t->cur = k;
        xt_relist(t);
    }
}

int xt_top_add(xt_tree *t, uint32_t i)
{
    xt_view *w = &t->views[t->cur];
    if (rt_grow((void **)&w->top, &w->topcap, w->ntop, sizeof(*w->top), 16) !=
        0) {
        snprintf(t->err, sizeof(t->err), "out of memory");
        return -1;
    }
    w->top[w->ntop++] = i;
    return 0;
}

/* Node i (of parent) at the current view's top, or after parent's last
 * child (the parent made loaded): i, or XT_NONE (t->err). */
static uint32_t xt_place(xt_tree *t, uint32_t parent, uint32_t i)
{
    if (parent == XT_NONE)
        return xt_top_add(t, i) == 0 ? i : XT_NONE;
    uint32_t *at = &t->v[parent].first;
    while (*at != XT_NONE)
        at = &t->v[*at].next;
    *at = i;
    t->v[parent].loaded = 1;
    return i;
}

uint32_t xt_row_add(xt_tree *t, uint32_t parent, char *label,
                    const uint64_t *samples, size_t nsamples)
{
    uint32_t i = xt_node_new(t, XT_ROW, parent, 0, label);
    if (i == XT_NONE)
        return XT_NONE;
    int bad = nsamples > UINT32_MAX || t->nsamp + nsamples > UINT32_MAX;
    while (!bad && t->nsamp + nsamples > t->sampcap)
        bad = rt_grow((void **)&t->samp, &t->sampcap, t->sampcap,
                      sizeof(*t->samp), 256) != 0;
    if (bad) {
        snprintf(t->err, sizeof(t->err), "out of memory");
        return XT_NONE;
    }
    if (nsamples)
        memcpy(t->samp + t->nsamp, samples, nsamples * sizeof(*samples));
    t->v[i].soff = (uint32_t)t->nsamp;
    t->v[i].nsamp = (uint32_t)nsamples;
    t->v[i].loaded = nsamples == 0; /* nothing to expand */
    t->nsamp += nsamples;
    return xt_place(t, parent, i);
}

uint32_t xt_note_add(xt_tree *t, uint32_t parent, const char *text)
{
    uint32_t i = xt_node_new(t, XT_NOTE, parent, 0, strdup(text));
    return i == XT_NONE ? XT_NONE : xt_place(t, parent, i);
}

/* ---- what a closure points to ------------------------------------------- */

/* One child of a node, before it is a node. */
typedef struct xt_kid {
    uint8_t kind;
    uint64_t addr;
    uint32_t word, end;
    uint32_t id;       /* XT_DOM */
    uint64_t retained; /* XT_DOM */
    char label[48];
} xt_kid;

typedef struct kidvec {
    xt_kid *v;
    size_t n, cap;
} kidvec;

static xt_kid *kid_push(kidvec *k, enum xt_kind kind, uint64_t addr)
{
    if (rt_grow((void **)&k->v, &k->cap, k->n, sizeof(*k->v), 64) != 0)
        return NULL;
    xt_kid *x = &k->v[k->n++];
    memset(x, 0, sizeof(*x));
    x->kind = (uint8_t)kind;
    x->addr = addr;
    return x;
}

static uint64_t word_of(const dbg_closure *c, size_t i)
{
    uint64_t w = 0;
    if ((i + 1) * WORD <= c->size)
        memcpy(&w, c->mem + i * WORD, WORD);
    return w;
}

/* Words before a closure's payload. */
static size_t payload_start(uint32_t type)
{
    if (ghc_type_is_thunk(type) || type == GHC_THUNK_SELECTOR ||
        type == GHC_AP || type == GHC_AP_STACK)
        return 2;
    if (ghc_type_is_array(type) && !ghc_type_is_small_array(type))
        return 3;
    if (ghc_type_is_small_array(type) || type == GHC_PAP)
        return 2;
    return 1;
}

/* A name for the field at word w of a closure of this type. */
/* The name of word w of a thread in this GHC's StgTSO, or NULL. */
static const char *tso_field(const dbg_tso_layout *l, size_t w)
{
    const struct {
        uint8_t at;
        const char *name;
    } f[] = {{l->link, "_link"},
             {l->global_link, "global_link"},
             {l->stackobj, "stackobj"},
             {l->block_info, "block_info"},
             {l->trec, "trec"},
             {l->label, "label"},
             {l->blocked_exceptions, "blocked_exceptions"},
             {l->bq, "bq"}};
    for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
        if (f[i].at && f[i].at == w)
            return f[i].name;
    return NULL;
}

static void field_name(const dbg_layout *l, uint32_t type, size_t w, char *out,
                       size_t len)
{
    size_t p = payload_start(type);
    const char *tso = type == GHC_TSO ? tso_field(&l->tso, w) : NULL;
    if (tso)
        snprintf(out, len, "%s", tso);
    else if (ghc_type_is_array(type))
        snprintf(out, len, "[%zu]", w - p);
    else if (type == GHC_MUT_VAR_CLEAN || type == GHC_MUT_VAR_DIRTY)
        snprintf(out, len, "value");
    else if (type == GHC_IND || type == GHC_IND_STATIC || type == GHC_BLACKHOLE)
        snprintf(out, len, "indirectee");
    else
        snprintf(out, len, "field %zu", w >= p ? w - p : w);
}

/* The pointer fields of a closure, each named by the word it is in; what
 * is in no word is the closure's static reference table. */
static int kids_of_fields(const dbg_layout *l, const dbg_read *r, kidvec *k)
{
    const dbg_closure *c = &r->c;
    size_t nw = c->size / WORD;
    uint8_t *used = calloc(nw ? nw : 1, 1);
    if (!used)
        return -1;
    size_t p = payload_start(c->info->type);
    for (size_t i = 0; i < c->nptrs; i++) {
        xt_kid *x = kid_push(k, XT_CLOSURE, c->ptrs[i]);
        if (!x) {
            free(used);
            return -1;
        }
        size_t w = p > 1 ? 1 : p;
        for (; w < nw; w++)
            if (!used[w] && UNTAG(word_of(c, w)) == c->ptrs[i])
                break;
        if (w < nw) {
            used[w] = 1;
            field_name(l, c->info->type, w, x->label, sizeof(x->label));
        } else {
            snprintf(x->label, sizeof(x->label), "srt");
        }
    }
    free(used);
    return 0;
}

/* A stack's frames (where its pointer map says a frame begins). */
static int kids_of_stack(const dbg_read *r, kidvec *k)
{
    size_t last = XT_NONE, nf = 0;
    for (uint32_t w = 0; w < r->nmap; w++) {
        if (r->map[w] != DEBUG_STUB_WORD_FRAME)
            continue;
        if (last != XT_NONE)
            k->v[last].end = w;
        xt_kid *x = kid_push(k, XT_FRAME, word_of(&r->c, w));
        if (!x)
            return -1;
        x->word = w;
        x->end = r->nmap;
        snprintf(x->label, sizeof(x->label), "frame %zu", nf++);
        last = k->n - 1;
    }
    return 0;
}

/* A frame's pointers: the pointer words between it and the next frame,
 * and its static reference table. */
static int kids_of_frame(xt_tree *t, const xt_node *f, const dbg_read *r,
                         kidvec *k)
{
    for (uint32_t w = f->word + 1; w < f->frame_end && w < r->nmap; w++) {
        if (r->map[w] != DEBUG_STUB_WORD_PTR || !UNTAG(word_of(&r->c, w)))
            continue;
        xt_kid *x = kid_push(k, XT_CLOSURE, UNTAG(word_of(&r->c, w)));
        if (!x)
            return -1;
        snprintf(x->label, sizeof(x->label), "slot %u", w - f->word - 1);
    }
    dbg_info *in = dbg_heap_info(t->h, f->addr);
    if (in && in->srt) {
        xt_kid *x = kid_push(k, XT_CLOSURE, in->srt);
        if (!x)
            return -1;
        snprintf(x->label, sizeof(x->label), "srt");
    }
    return 0;
}

/* An analysis row's samples. */
static int kids_of_row(const xt_tree *t, const xt_node *x, kidvec *k)
{
    for (uint32_t j = 0; j < x->nsamp; j++)
        if (!kid_push(k, XT_CLOSURE, t->samp[x->soff + j]))
            return -1;
    return 0;
}

static int by_retained(const void *a, const void *b)
{
    const xt_kid *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained < y->retained ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* What a closure of the dominator tree dominates, largest first (id
 * t->g->n: the roots' virtual root). */
static int kids_of_dom(const xt_tree *t, uint32_t id, kidvec *k)
{
    const dbg_domtree *d = t->dom;
    for (uint32_t j = d->coff[id]; j < d->coff[id + 1]; j++) {
        uint32_t c = d->child[j];
        xt_kid *x = kid_push(k, XT_DOM, t->g->addr[c]);
        if (!x)
            return -1;
        x->id = c;
        x->retained = t->g->retained[c];
    }
    if (k->n > 1)
        qsort(k->v, k->n, sizeof(*k->v), by_retained);
    return 0;
}

/* The children of node i, from a fresh read of its closure (a frame's:
 * of its stack), an analysis row's samples or the dominator tree. 0, 1
 * when there are none to show, -1 (t->err). */
static int kids_of(xt_tree *t, uint32_t i, kidvec *k)
{
    xt_node *x = &t->v[i];
    if (x->kind == XT_ROW || x->kind == XT_DOM) {
        int r =
            x->kind == XT_ROW ? kids_of_row(t, x, k) : kids_of_dom(t, x->id, k);
        if (r != 0)
            snprintf(t->err, sizeof(t->err), "out of memory");
        return r;
    }
    uint64_t addr = x->kind == XT_FRAME ? t->v[x->parent].addr : x->addr;
    int r = dbg_heap_read(t->h, addr, &t->rd);
    if (r < 0) {
        snprintf(t->err, sizeof(t->err), "%s", t->h->err);
        return -1;
    }
    if (r > 0)
        return 1;
    if (x->kind == XT_FRAME)
        r = kids_of_frame(t, x, &t->rd, k);
    else if (t->rd.c.info->type == GHC_STACK && t->rd.map)
        r = kids_of_stack(&t->rd, k);
    else
        r = kids_of_fields(t->h->layout, &t->rd, k);
    if (r != 0)
        snprintf(t->err, sizeof(t->err), "out of memory");
    return r;
}

/* Make children from .. from + XT_PAGE of k under parent, chained after
 * node `after` (XT_NONE: as the first child); a "more" row if some are
 * left. The last node made, or XT_NONE (t->err) when out of memory. */
/* Chain node c after prev (XT_NONE: as parent's first child). */
static void chain(xt_tree *t, uint32_t parent, uint32_t prev, uint32_t c)
{
    if (prev == XT_NONE)
        t->v[parent].first = c;
    else
        t->v[prev].next = c;
}

static uint32_t make_page(xt_tree *t, uint32_t parent, uint32_t after,
                          const kidvec *k, size_t from)
{
    uint32_t prev = after;
    if (!k->v || from >= k->n)
        return prev; /* no children from there */
    size_t end = k->n - from > XT_PAGE ? from + XT_PAGE : k->n;
    for (size_t j = from; j < end; j++) {
        const xt_kid *d = &k->v[j];
        uint32_t c = xt_node_new(t, (enum xt_kind)d->kind, parent, d->addr,
                                 d->label[0] ? strdup(d->label) : NULL);
        if (c == XT_NONE)
            return XT_NONE;
        t->v[c].word = d->word;
        t->v[c].frame_end = d->end;
        t->v[c].id = d->id;
        t->v[c].retained = d->retained;
        chain(t, parent, prev, c);
        prev = c;
    }
    if (end < k->n) {
        uint32_t c = xt_node_new(t, XT_MORE, parent, 0,
                                 xt_strdup("%zu more", k->n - end));
        if (c == XT_NONE)
            return XT_NONE;
        t->v[c].from = (uint32_t)end;
        chain(t, parent, prev, c);
        prev = c;
    }
    return prev;
}

/* ---- opening and closing ------------------------------------------------- */

/* The "more" row i: the next page of its parent's children in its place. */
static int open_more(xt_tree *t, uint32_t i)
{
    uint32_t parent = t->v[i].parent, from = t->v[i].from;
    kidvec k = {0};
    int r = kids_of(t, parent, &k);
    if (r != 0) {
        free(k.v);
        return r < 0 ? -1 : 0;
    }
    /* the row before the "more" row */
    uint32_t prev = XT_NONE;
    for (uint32_t c = t->v[parent].first; c != i && c != XT_NONE;
         c = t->v[c].next)
        prev = c;
    uint32_t last = make_page(t, parent, prev, &k, from);
    free(k.v);
    if (last == XT_NONE)
        return -1;
    t->v[i].kind = XT_NOTE; /* unreachable now: no longer in the chain */
    return xt_relist(t);
}

int xt_open(xt_tree *t, uint32_t i)
{
    xt_node *x = &t->v[i];
    if (x->kind == XT_MORE)
        return open_more(t, i);
    if (x->kind == XT_NOTE)
        return 0;
    if (!x->loaded && x->kind != XT_GROUP) {
        kidvec k = {0};
        int r = kids_of(t, i, &k);
        if (r < 0) {
            free(k.v);
            return -1;
        }
        if (r == 0 && k.n > 0 && make_page(t, i, XT_NONE, &k, 0) == XT_NONE) {
            free(k.v);
            return -1;
        }
        free(k.v);
        t->v[i].loaded = 1;
    }
    t->v[i].open = t->v[i].first != XT_NONE;
    return xt_relist(t);
}

void xt_close(xt_tree *t, uint32_t i)
{
    t->v[i].open = 0;
    xt_relist(t);
}

int xt_relist(xt_tree *t)
{
    t->nvis = 0;
    if (!t->nviews)
        return 0;
    const xt_view *w = &t->views[t->cur];
    /* depth-first, iteratively: a stack of the nodes still to list */
    uint32_t *st = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = w->ntop; k-- > 0;) {
        if (rt_grow((void **)&st, &cap, n, sizeof(*st), 64) != 0)
            goto nomem;
        st[n++] = w->top[k];
    }
    while (n > 0) {
        uint32_t i = st[--n];
        if (rt_grow((void **)&t->vis, &t->viscap, t->nvis, sizeof(*t->vis),
                    256) != 0)
            goto nomem;
        t->vis[t->nvis++] = i;
        if (!t->v[i].open)
            continue;
        size_t mark = n;
        for (uint32_t c = t->v[i].first; c != XT_NONE; c = t->v[c].next) {
            if (rt_grow((void **)&st, &cap, n, sizeof(*st), 64) != 0)
                goto nomem;
            st[n++] = c;
        }
        /* children were pushed in order: reverse them to pop in order */
        for (size_t a = mark, b = n; a + 1 < b; a++, b--) {
            uint32_t tmp = st[a];
            st[a] = st[b - 1];
            st[b - 1] = tmp;
        }
    }
    free(st);
    return 0;
nomem:
    free(st);
    snprintf(t->err, sizeof(t->err), "out of memory");
    return -1;
}
