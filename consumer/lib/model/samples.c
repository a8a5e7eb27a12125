/* Sampled call stacks; see samples.h.
 *
 * Note [Sampled stacks]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A sample event names its stack by info-table addresses, innermost
 * first; the IPE entries that name them come before the first sample that
 * uses them (Note [IPE events: once per stream, before first use] in
 * rts/IPEBinary.c), but a consumer cannot count on it: a stream cut short,
 * a table the RTS could not describe. So stacks are added up by their raw
 * addresses while the events stream past, and named only at the end
 * (samples_finish), when every IPE entry the stream had is known; a frame
 * never described keeps its address as its name.
 *
 * The RTS's own frames (update frames, stg_ret_*, catch frames: tables
 * named stg_ or of package rts) say how the RTS got somewhere, not where
 * the program is, so they are dropped at the end too; two stacks that
 * differed only in them become one and add up. A stack made only of them
 * keeps its innermost frame, so that every sample keeps a site.
 *
 * The objects an allocation sample stands for are estimated as pprof's
 * alloc_objects are in Go's heap profiles: the sample stands for
 * weight_bytes of allocation, made of objects of the sampled one's size,
 * so weight_bytes / size objects. A sample whose size is unknown (0) adds
 * no objects and is counted as unsized.
 */
#include "rtscope/model/samples.h"
#include "rtscope/strhash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

samples *samples_new(void)
{
    samples *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->ipe = ipe_table_new();
    if (!s->ipe) {
        free(s);
        return NULL;
    }
    return s;
}

void samples_free(samples *s)
{
    if (!s)
        return;
    ipe_table_free(s->ipe);
    free(s->stacks);
    free(s->arena);
    hmap_free(&s->index);
    free(s);
}

void samples_wanted(uint8_t *wanted)
{
    wanted[EL_IPE] = 1;
    wanted[EL_USER_BINARY_MSG] = 1;
}

static uint64_t samples_hash(samples_kind k, const uint64_t *frames,
                             uint32_t depth)
{
    return rtscope_strhash((const char *)frames, (size_t)depth * 8) ^
           ((uint64_t)k + 1) * 0x9e3779b97f4a7c15ull;
}

/* What samples_find looks for. */
typedef struct samples_key {
    const samples *s;
    samples_kind kind;
    const uint64_t *frames;
    uint32_t depth;
} samples_key;

static int samples_eq(const void *ctx, uint64_t v)
{
    const samples_key *k = ctx;
    const samples_stack *st = &k->s->stacks[v];
    return st->kind == k->kind && st->depth == k->depth &&
           (k->depth == 0 || memcmp(samples_frames(k->s, st), k->frames,
                                    (size_t)k->depth * 8) == 0);
}

static int samples_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

/* The stack (kind, frames), added with nothing in it if new; NULL when out
 * of memory. `frames` must not point into s->arena. */
static samples_stack *samples_stack_of(samples *s, samples_kind kind,
                                       const uint64_t *frames, uint32_t depth)
{
    uint64_t h = samples_hash(kind, frames, depth), v;
    samples_key key = {s, kind, frames, depth};
    if (hmap_find(&s->index, h, samples_eq, &key, &v))
        return &s->stacks[v];
    if (samples_grow((void **)&s->stacks, &s->stacks_cap, s->nstacks + 1,
                     sizeof(*s->stacks)) != 0 ||
        samples_grow((void **)&s->arena, &s->arena_cap, s->narena + depth,
                     sizeof(*s->arena)) != 0 ||
        hmap_add(&s->index, h, s->nstacks) != 0)
        return NULL;
    samples_stack *st = &s->stacks[s->nstacks++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    st->depth = depth;
    st->at = s->narena;
    if (depth)
        memcpy(s->arena + s->narena, frames, (size_t)depth * 8);
    s->narena += depth;
    return st;
}

static void samples_sum_add(samples_sum *to, const samples_sum *x)
{
    to->count += x->count;
    to->weight += x->weight;
    to->late += x->late;
    to->truncated += x->truncated;
    to->objects += x->objects;
    to->unsized += x->unsized;
}

/* One sample: a binary message of that kind (el_sample_kind_of). */
static int samples_take_sample(samples *s, const el_event *ev,
                               el_sample_kind kind)
{
    samples_kind k = kind == EL_TIME_SAMPLE ? SAMPLES_TIME : SAMPLES_ALLOC;
    uint32_t depth = ev->u.binary.stack.depth;
    uint64_t stackbuf[64] = {0}, *frames = stackbuf;
    if (depth > 64 && !(frames = malloc((size_t)depth * 8)))
        return -1;
    depth = (uint32_t)el_sample_frames(ev, frames, depth);
    samples_stack *st = samples_stack_of(s, k, frames, depth);
    if (frames != stackbuf)
        free(frames);
    if (!st)
        return -1;
    samples_sum x = {.count = 1, .weight = ev->u.binary.stack.weight};
    x.late = (ev->u.binary.stack.flags & EL_SAMPLE_LATE) != 0;
    x.truncated = (ev->u.binary.stack.flags & EL_SAMPLE_TRUNCATED) != 0;
    if (k == SAMPLES_ALLOC) {
        uint32_t size = ev->u.binary.stack.size;
        if (size)
            x.objects = (double)x.weight / (double)size;
        else
            x.unsized = 1;
    }
    samples_sum_add(&st->sum, &x);
    if (!s->total[k].count)
        s->first_weight[k] = x.weight;
    samples_sum_add(&s->total[k], &x);
    if (ev->ts > s->last_ts)
        s->last_ts = ev->ts;
    return 0;
}

int samples_take(samples *s, const el_event *ev)
{
    if (s->finished || !ev->known)
        return 0;
    int rc = 0;
    switch (ev->type) {
    case EL_IPE:
        rc = ipe_table_put(s->ipe, ev);
        break;
    case EL_USER_BINARY_MSG: {
        el_sample_kind kind = el_sample_kind_of(ev);
        if (kind != EL_SAMPLE_NONE) /* else another tool's message */
            rc = samples_take_sample(s, ev, kind);
        break;
    }
    default:
        break;
    }
    if (rc != 0)
        s->nomem = 1;
    return rc;
}

int samples_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    (void)types;
    return samples_take(ctx, ev) != 0;
}

const ipe_entry *samples_ipe(const samples *s, uint64_t info)
{
    return ipe_table_get(s->ipe, info);
}

int samples_frame_is_rts(const ipe_entry *e)
{
    if (!e)
        return 0;
    if (strncmp(e->table_name, "stg_", 4) == 0 ||
        strncmp(e->label, "stg_", 4) == 0)
        return 1;
    /* "rts:Module" or "rts-1.0.2:Module" */
    return strncmp(e->ty_desc, "rts", 3) == 0 &&
           (e->ty_desc[3] == ':' ||
            (e->ty_desc[3] == '-' && e->ty_desc[4] >= '0' &&
             e->ty_desc[4] <= '9'));
}

void samples_frame_name(const samples *s, uint64_t info, char *buf, size_t size)
{
    const ipe_entry *e = samples_ipe(s, info);
    if (e)
        snprintf(buf, size, "%s", e->name);
    else if (info == 0) /* an empty stack's site (samples_sites) */
        snprintf(buf, size, "(no stack)");
    else
        snprintf(buf, size, "0x%" PRIx64, info);
}

void samples_function_name(const samples *s, uint64_t info, char *buf,
                           size_t size)
{
    const ipe_entry *e = samples_ipe(s, info);
    if (e)
        ipe_binding_name(buf, size, e);
    if (!e || !buf[0])
        samples_frame_name(s, info, buf, size);
}

/* Frames f[0..depth) without the RTS's (samples_frame_is_rts), the
 * innermost kept when nothing else is, into out; returns how many. */
static uint32_t samples_keep(const samples *s, const uint64_t *f,
                             uint32_t depth, uint64_t *out)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < depth; j++)
        if (!samples_frame_is_rts(samples_ipe(s, f[j])))
            out[n++] = f[j];
    if (n == 0 && depth) /* only the RTS: its innermost frame */
        out[n++] = f[0];
    return n;
}

uint32_t samples_kept_frames(const samples *s, const samples_stack *st,
                             uint64_t *out)
{
    return samples_keep(s, samples_frames(s, st), st->depth, out);
}

static int samples_order(const void *a, const void *b)
{
    const samples_stack *x = a, *y = b;
    if (x->kind != y->kind) /* allocation first */
        return x->kind == SAMPLES_ALLOC ? -1 : 1;
    if (x->sum.weight != y->sum.weight)
        return x->sum.weight > y->sum.weight ? -1 : 1;
    if (x->sum.count != y->sum.count)
        return x->sum.count > y->sum.count ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

int samples_finish(samples *s)
{
    if (s->finished)
        return s->nomem ? -1 : 0;
    s->finished = 1;
    if (s->nomem)
        return -1;
    /* the raw stacks become the input; s is rebuilt from them */
    samples_stack *raw = s->stacks;
    uint64_t *raw_arena = s->arena;
    size_t nraw = s->nstacks;
    s->stacks = NULL;
    s->arena = NULL;
    s->nstacks = s->stacks_cap = s->narena = s->arena_cap = 0;
    hmap_free(&s->index);
    uint64_t *kept = NULL;
    size_t kept_cap = 0;
    int rc = 0;
    for (size_t i = 0; i < nraw && rc == 0; i++) {
        const samples_stack *r = &raw[i];
        const uint64_t *f = raw_arena + r->at;
        if (samples_grow((void **)&kept, &kept_cap, r->depth + 1,
                         sizeof(*kept)) != 0) {
            rc = -1;
            break;
        }
        uint32_t n = samples_keep(s, f, r->depth, kept);
        s->rts_frames += (uint64_t)(r->depth - n) * r->sum.count;
        samples_stack *st = samples_stack_of(s, r->kind, kept, n);
        if (!st)
            rc = -1;
        else
            samples_sum_add(&st->sum, &r->sum);
    }
    free(kept);
    free(raw);
    free(raw_arena);
    hmap_free(&s->index); /* the order changes: the index is done with */
    if (rc == 0 && s->nstacks > 1)
        qsort(s->stacks, s->nstacks, sizeof(*s->stacks), samples_order);
    if (rc != 0)
        s->nomem = 1;
    return rc;
}

static int samples_site_order(const void *a, const void *b)
{
    const samples_site *x = a, *y = b;
    if (x->sum.weight != y->sum.weight)
        return x->sum.weight > y->sum.weight ? -1 : 1;
    if (x->sum.count != y->sum.count)
        return x->sum.count > y->sum.count ? -1 : 1;
    return x->info < y->info ? -1 : x->info > y->info;
}

long samples_sites(const samples *s, samples_kind k, samples_site **out)
{
    *out = NULL;
    hmap by_leaf;
    memset(&by_leaf, 0, sizeof(by_leaf));
    samples_site *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < s->nstacks; i++) {
        const samples_stack *st = &s->stacks[i];
        if (st->kind != k)
            continue;
        /* an empty stack (the RTS walked nothing) is the site 0; before
         * samples_finish, the innermost frame it would keep */
        uint64_t leaf = 0;
        if (st->depth && s->finished) {
            leaf = samples_frames(s, st)[0];
        } else if (st->depth) {
            const uint64_t *f = samples_frames(s, st);
            uint32_t j = 0;
            while (j < st->depth && samples_frame_is_rts(samples_ipe(s, f[j])))
                j++;
            leaf = f[j < st->depth ? j : 0];
        }
        uint64_t idx;
        if (!hmap_get(&by_leaf, leaf, &idx)) {
            if (samples_grow((void **)&v, &cap, n + 1, sizeof(*v)) != 0 ||
                hmap_put(&by_leaf, leaf, n) != 0) {
                hmap_free(&by_leaf);
                free(v);
                return -1;
            }
            memset(&v[n], 0, sizeof(v[n]));
            v[n].info = leaf;
            idx = n++;
        }
        if (v)
            samples_sum_add(&v[idx].sum, &st->sum);
    }
    hmap_free(&by_leaf);
    if (n > 1)
        qsort(v, n, sizeof(*v), samples_site_order);
    *out = v;
    return (long)n;
}

/* ---- the call tree ------------------------------------------------------ */

/* What samples_tree_child looks for. */
typedef struct samples_tree_key {
    const samples_tree *t;
    uint32_t parent;
    int64_t name;
} samples_tree_key;

static int samples_tree_eq(const void *ctx, uint64_t v)
{
    const samples_tree_key *k = ctx;
    const samples_node *x = &k->t->nodes[v];
    return x->parent == k->parent && x->name == k->name;
}

/* The child `name` of node `parent`, added if new; -1 when out of memory. */
static long samples_tree_child(samples_tree *t, uint32_t parent, int64_t name)
{
    uint64_t h = ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^
                 ((uint64_t)name * 0xc2b2ae3d27d4eb4full + 1),
             v;
    samples_tree_key key = {t, parent, name};
    if (hmap_find(&t->index, h, samples_tree_eq, &key, &v))
        return (long)v;
    if (t->n >= UINT32_MAX - 1 ||
        samples_grow((void **)&t->nodes, &t->cap, t->n + 1,
                     sizeof(*t->nodes)) != 0 ||
        hmap_add(&t->index, h, t->n) != 0)
        return -1;
    samples_node *x = &t->nodes[t->n];
    memset(x, 0, sizeof(*x));
    x->name = name;
    x->parent = parent;
    x->depth = t->nodes[parent].depth + 1;
    return (long)t->n++;
}

int samples_tree_build(const samples *s, samples_kind k, samples_tree *t)
{
    memset(t, 0, sizeof(*t));
    uint64_t *kept = NULL;
    size_t kept_cap = 0;
    hmap fn; /* frame address -> name id */
    memset(&fn, 0, sizeof(fn));
    char name[1024];
    int rc = -1;
    if (samples_grow((void **)&t->nodes, &t->cap, 1, sizeof(*t->nodes)) != 0)
        goto out;
    memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
    t->nodes[0].name = -1;
    t->nodes[0].parent = UINT32_MAX;
    t->n = 1;
    for (size_t i = 0; i < s->nstacks; i++) {
        const samples_stack *st = &s->stacks[i];
        if (st->kind != k)
            continue;
        if (samples_grow((void **)&kept, &kept_cap, (size_t)st->depth + 1,
                         sizeof(*kept)) != 0)
            goto out;
        uint32_t n = samples_kept_frames(s, st, kept);
        if (n == 0) /* "(no stack)" */
            kept[n++] = 0;
        t->nodes[0].weight += st->sum.weight;
        t->nodes[0].count += st->sum.count;
        uint32_t at = 0;
        for (uint32_t j = n; j-- > 0;) { /* outermost first */
            uint64_t id;
            if (!hmap_get(&fn, kept[j], &id)) {
                samples_function_name(s, kept[j], name, sizeof(name));
                int64_t x = strtab_id_str(&t->names, name);
                if (x < 0 || hmap_put(&fn, kept[j], (uint64_t)x) != 0)
                    goto out;
                id = (uint64_t)x;
            }
            long c = samples_tree_child(t, at, (int64_t)id);
            if (c < 0)
                goto out;
            at = (uint32_t)c;
            t->nodes[at].weight += st->sum.weight;
            t->nodes[at].count += st->sum.count;
        }
    }
    rc = 0;
out:
    free(kept);
    hmap_free(&fn);
    hmap_free(&t->index);
    if (rc != 0)
        samples_tree_free(t);
    return rc;
}

void samples_tree_free(samples_tree *t)
{
    free(t->nodes);
    strtab_free(&t->names);
    hmap_free(&t->index);
    memset(t, 0, sizeof(*t));
}
