/* The explorer's search (`/`): a query of filters, each one also an
 * exclusion, all of which a closure must pass; one walk of the heap from
 * the roots; the closures found as a new view. See Note [Search queries].
 */
#define _GNU_SOURCE
#include "explore.h"

#include "groups.h"
#include "rtscope/base/grow.h"
#include "rtscope/base/hmap.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note [Search queries]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A query is words, each a filter a closure must pass (so they combine as
 * "and"); a word starting with ! (or -) excludes what it would match:
 *   addr:0x42a0 info:0x4c5e10   the closure, or its info table, at
 *   con:Bin  con=Bin            constructor name contains / is (as
 *                               dbg_con_matches: Bin, Data.Map.Internal.Bin)
 *   name:..  name=..            the info table's name as -hi names it
 *   module:.. module=..         its module (provenance, else constructor)
 *   src:File.hs:12              its source span contains
 *   type:THUNK  type=THUNK      closure type starts with / is
 *   size:64                     at least 64 bytes (!size:64: under 64)
 *   limit:500                   keep at most 500 results (default 100)
 * A bare 0x... is addr:, a bare word con:. Everything but the address and
 * size depends on the info table only, so a table's verdict is computed
 * once and kept (by info pointer) for the rest of the walk. */

#define XQ_LIMIT 100

enum xq_key {
    XQ_ADDR,
    XQ_INFO,
    XQ_CON,
    XQ_NAME,
    XQ_MODULE,
    XQ_SRC,
    XQ_TYPE,
    XQ_SIZE,
    XQ_NKEYS
};

static const char *const xq_names[XQ_NKEYS] = {
    "addr", "info", "con", "name", "module", "src", "type", "size"};

typedef struct xq_term {
    uint8_t key, neg, exact;
    uint64_t num;
    const char *text; /* into the query's copy */
} xq_term;

typedef struct xq_query {
    char *copy;
    xq_term *v;
    size_t n, cap;
    size_t limit;
} xq_query;

static int parse_num(const char *s, uint64_t *out)
{
    char *end;
    if (!*s)
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* One word of the query into q. 0, or -1 with err set. */
static int parse_word(xq_query *q, char *w, char *err, size_t errlen)
{
    xq_term t = {0};
    if (*w == '!' || *w == '-') {
        t.neg = 1;
        w++;
    }
    size_t klen = strcspn(w, ":=");
    const char *val = w[klen] ? w + klen + 1 : NULL;
    t.exact = w[klen] == '=';
    int key = -1;
    for (int k = 0; val && k < XQ_NKEYS; k++)
        if (strlen(xq_names[k]) == klen && strncmp(w, xq_names[k], klen) == 0)
            key = k;
    if (val && klen == 5 && strncmp(w, "limit", 5) == 0) {
        uint64_t n;
        if (parse_num(val, &n) != 0 || n == 0 || n > 10000000) {
            snprintf(err, errlen, "limit:%s: a number from 1", val);
            return -1;
        }
        q->limit = (size_t)n;
        return 0;
    }
    if (!val) { /* a bare word: an address or a constructor */
        key = strncmp(w, "0x", 2) == 0 ? XQ_ADDR : XQ_CON;
        val = w;
    } else if (key < 0) {
        snprintf(err, errlen,
                 "%.*s: not a filter (addr info con name module src type "
                 "size limit)",
                 (int)klen, w);
        return -1;
    }
    t.key = (uint8_t)key;
    t.text = val;
    if ((key == XQ_ADDR || key == XQ_INFO || key == XQ_SIZE) &&
        parse_num(val, &t.num) != 0) {
        snprintf(err, errlen, "%s: %s is not a number", xq_names[key], val);
        return -1;
    }
    if (!*val) {
        snprintf(err, errlen, "%s: nothing to match", xq_names[key]);
        return -1;
    }
    if (key == XQ_ADDR)
        t.num &= ~(uint64_t)7;
    if (rt_grow((void **)&q->v, &q->cap, q->n, sizeof(*q->v), 8) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    q->v[q->n++] = t;
    return 0;
}

static void query_free(xq_query *q)
{
    free(q->copy);
    free(q->v);
}

static int query_parse(xq_query *q, const char *s, char *err, size_t errlen)
{
    memset(q, 0, sizeof(*q));
    q->limit = XQ_LIMIT;
    q->copy = strdup(s);
    if (!q->copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (char *save = NULL, *w = strtok_r(q->copy, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save))
        if (parse_word(q, w, err, errlen) != 0)
            return -1;
    if (q->n == 0) {
        snprintf(err, errlen, "an empty search: give a filter, e.g. con:Bin");
        return -1;
    }
    return 0;
}

/* ---- matching ------------------------------------------------------------ */

static int text_match(const char *have, const xq_term *t)
{
    return have && (t->exact ? strcmp(have, t->text) == 0
                             : strstr(have, t->text) != NULL);
}

/* Does term t hold of info table in (t an info-table term)? */
static int info_term(dbg_heap *h, dbg_info *in, const xq_term *t)
{
    char buf[1024];
    const char *con;
    char *const *src;
    switch (t->key) {
    case XQ_INFO:
        return in->ptr == t->num;
    case XQ_CON:
        con = dbg_heap_con_descr(h, in);
        return t->exact ? con && dbg_con_matches(con, t->text)
                        : text_match(con, t);
    case XQ_NAME:
        if (!debug_info_name(h, in, buf, sizeof(buf)))
            snprintf(buf, sizeof(buf), "%s", ghc_closure_type_name(in->type));
        return text_match(buf, t);
    case XQ_MODULE:
        return dbg_info_module(h, in, buf, sizeof(buf)) && text_match(buf, t);
    case XQ_SRC:
        src = dbg_heap_source(h, in);
        return src && src[5][0] && strstr(src[5], t->text) != NULL;
    case XQ_TYPE:
        con = ghc_closure_type_name(in->type);
        return t->exact ? strcmp(con, t->text) == 0
                        : strncmp(con, t->text, strlen(t->text)) == 0;
    default:
        return 1;
    }
}

typedef struct xq_walk {
    const xq_query *q;
    dbg_heap *h;
    hmap verdict; /* info ptr -> 1 + whether its terms hold */
    uint64_t *found;
    size_t nfound, cap;
    uint64_t matches, bytes, walked;
    int nomem;
} xq_walk;

static int info_verdict(xq_walk *w, dbg_info *in)
{
    uint64_t v;
    if (hmap_get(&w->verdict, in->ptr, &v))
        return (int)v - 1;
    int ok = 1;
    for (size_t k = 0; ok && k < w->q->n; k++) {
        const xq_term *t = &w->q->v[k];
        if (t->key != XQ_ADDR && t->key != XQ_SIZE)
            ok = info_term(w->h, in, t) != t->neg;
    }
    if (hmap_put(&w->verdict, in->ptr, (uint64_t)ok + 1) != 0)
        w->nomem = 1;
    return ok;
}

static int search_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    xq_walk *w = ctx;
    (void)parent;
    w->walked++;
    for (size_t k = 0; k < w->q->n; k++) {
        const xq_term *t = &w->q->v[k];
        if (t->key == XQ_ADDR && (c->addr == t->num) == t->neg)
            return 0;
        if (t->key == XQ_SIZE && (c->size >= t->num) == t->neg)
            return 0;
    }
    if (!info_verdict(w, c->info))
        return w->nomem;
    w->matches++;
    w->bytes += c->size;
    if (w->nfound < w->q->limit) {
        if (rt_grow((void **)&w->found, &w->cap, w->nfound, sizeof(*w->found),
                    64) != 0)
            return w->nomem = 1;
        w->found[w->nfound++] = c->addr;
    }
    return 0;
}

/* ---- the view ------------------------------------------------------------ */

/* The results under a heading, as a new view. 0, or -1 (t->err). */
static int search_view(xt_tree *t, const char *query, const xq_walk *w)
{
    char title[160], head[300];
    snprintf(title, sizeof(title), "Search %.140s", query);
    if (w->matches > w->nfound)
        snprintf(head, sizeof(head),
                 "%" PRIu64 " closures, %" PRIu64 " bytes (the first %zu "
                 "shown; limit:N shows more)",
                 w->matches, w->bytes, w->nfound);
    else if (w->matches)
        snprintf(head, sizeof(head), "%" PRIu64 " closure%s, %" PRIu64 " bytes",
                 w->matches, w->matches == 1 ? "" : "s", w->bytes);
    else
        snprintf(head, sizeof(head), "no closure matches (of %" PRIu64 ")",
                 w->walked);
    if (xt_view_push(t, title) != 0)
        return -1;
    uint32_t g = xt_row_add(t, XT_NONE, strdup(query), w->found, w->nfound);
    if (g == XT_NONE)
        return -1;
    t->v[g].text = strdup(head);
    if (w->nfound && xt_open(t, g) != 0)
        return -1;
    return xt_relist(t);
}

int xt_search(xt_tree *t, const uint64_t *roots, size_t nroots,
              const char *query, const xt_progress *p)
{
    xq_query q;
    if (query_parse(&q, query, t->err, sizeof(t->err)) != 0) {
        query_free(&q);
        return -1;
    }
    xq_walk w = {.q = &q, .h = t->h};
    int r = xt_walk(t, roots, nroots, search_visit, &w, p);
    if (r == 0 && w.nomem) {
        snprintf(t->err, sizeof(t->err), "out of memory");
        r = -1;
    }
    if (r > 0)
        snprintf(t->err, sizeof(t->err), "search cancelled");
    if (r == 0)
        r = search_view(t, query, &w);
    free(w.found);
    hmap_free(&w.verdict);
    query_free(&q);
    return r;
}
