/* Canonical summary (rtscope stats --canonical).
 *
 *   rtscope-canonical 1
 *   event NUM COUNT                 every type seen, except block markers
 *   sample I TS                     heap samples in time order, from 0
 *   value I LABEL BYTES             that sample's values, sorted
 *   marker TS TEXT                  user markers, sorted by (TS, TEXT)
 *   ipe 0xADDR NAME\tDESC\tTYPE\tLABEL\tMODULE\tSRCLOC   sorted by address
 *
 * Event counts and samples stream; markers and IPE entries are kept until
 * the end to be sorted (they are metadata, not bulk data). */
#define _POSIX_C_SOURCE 200809L
#include "canonical.h"

#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct canon_line {
    uint64_t key;
    uint64_t seq; /* arrival order */
    char *text;
} canon_line;

typedef struct canon_lines {
    canon_line *v;
    size_t n, cap;
} canon_lines;

struct canonical {
    FILE *out;
    FILE *samples; /* sample lines, printed after the counts */
    uint64_t counts[65536];
    int in_sample;
    long sample_index;
    long next_sample;
    uint64_t seq;
    canon_lines values;
    canon_lines markers;
    canon_lines ipes;
    int nomem;
};

canonical *canonical_new(FILE *out)
{
    canonical *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->out = out;
    c->samples = tmpfile();
    if (!c->samples) {
        free(c);
        return NULL;
    }
    return c;
}

static void canon_lines_clear(canon_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].text);
    l->n = 0;
}

void canonical_free(canonical *c)
{
    if (!c)
        return;
    canon_lines_clear(&c->values);
    canon_lines_clear(&c->markers);
    canon_lines_clear(&c->ipes);
    if (c->samples)
        fclose(c->samples);
    free(c->values.v);
    free(c->markers.v);
    free(c->ipes.v);
    free(c);
}

/* Render with cli_put_str's escaping into a fresh string. */
static char *canon_render(const char *prefix, const el_str *parts, int nparts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs(prefix, f);
    for (int i = 0; i < nparts; i++) {
        if (i)
            fputc('\t', f);
        cli_put_str(f, parts[i]);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int canon_lines_add(canonical *c, canon_lines *l, uint64_t key,
                           char *text)
{
    if (!text) {
        c->nomem = 1;
        return -1;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        canon_line *nv = realloc(l->v, nc * sizeof(*nv));
        if (!nv) {
            free(text);
            c->nomem = 1;
            return -1;
        }
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n].key = key;
    l->v[l->n].seq = c->seq++;
    l->v[l->n].text = text;
    l->n++;
    return 0;
}

static int canon_line_cmp(const void *a, const void *b)
{
    const canon_line *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return strcmp(x->text, y->text);
}

static int canon_seq_cmp(const void *a, const void *b)
{
    const canon_line *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Values are "LABEL BYTES": sort by label bytes, then by number. */
static int canon_value_cmp(const void *a, const void *b)
{
    const canon_line *x = a, *y = b;
    int c = strcmp(x->text, y->text);
    if (c)
        return c;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void canon_flush_sample(canonical *c)
{
    if (c->values.n)
        qsort(c->values.v, c->values.n, sizeof(canon_line), canon_value_cmp);
    for (size_t i = 0; i < c->values.n; i++)
        fprintf(c->samples, "value %ld %s %" PRIu64 "\n", c->sample_index,
                c->values.v[i].text, c->values.v[i].key);
    canon_lines_clear(&c->values);
}

static void canon_add_value(canonical *c, char *label, uint64_t bytes)
{
    if (!c->in_sample) {
        /* A value outside any sample: GhcEventsCheck files it under -1. */
        c->sample_index = -1;
        c->in_sample = 1;
        fprintf(c->samples, "sample -1 0\n");
    }
    canon_lines_add(c, &c->values, bytes, label);
}

int canonical_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    canonical *c = ctx;
    (void)types;
    if (ev->type != EL_BLOCK_MARKER)
        c->counts[ev->type]++;
    switch (ev->type) {
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        if (c->in_sample)
            canon_flush_sample(c);
        c->sample_index = c->next_sample++;
        c->in_sample = 1;
        fprintf(c->samples, "sample %ld %" PRIu64 "\n", c->sample_index,
                ev->ts);
        break;
    case EL_HEAP_PROF_SAMPLE_END:
        if (c->in_sample)
            canon_flush_sample(c);
        c->in_sample = 0;
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        canon_add_value(c, canon_render("", &ev->u.sample_string.label, 1),
                        ev->u.sample_string.residency);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE: {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            c->nomem = 1;
            break;
        }
        fputs("ccs:", f);
        for (unsigned i = 0; i < el_ccs_depth(ev); i++)
            fprintf(f, i ? ",%" PRIu32 : "%" PRIu32, el_ccs_id(ev, i));
        fclose(f);
        canon_add_value(c, buf, ev->u.sample_cc.residency);
        break;
    }
    case EL_USER_MARKER:
        canon_lines_add(c, &c->markers, ev->ts,
                        canon_render("", &ev->u.msg.text, 1));
        break;
    case EL_IPE: {
        el_str parts[6] = {ev->u.ipe.table_name, ev->u.ipe.closure_desc,
                           ev->u.ipe.ty_desc,    ev->u.ipe.label,
                           ev->u.ipe.module,     ev->u.ipe.srcloc};
        canon_lines_add(c, &c->ipes, ev->u.ipe.info,
                        canon_render("", parts, 6));
        break;
    }
    default:
        break;
    }
    return c->nomem;
}

int canonical_finish(canonical *c)
{
    char buf[65536];
    size_t n;
    if (c->in_sample)
        canon_flush_sample(c);
    c->in_sample = 0;
    fputs("rtscope-canonical 1\n", c->out);
    for (unsigned t = 0; t < 65536; t++)
        if (c->counts[t])
            fprintf(c->out, "event %u %" PRIu64 "\n", t, c->counts[t]);
    rewind(c->samples);
    while ((n = fread(buf, 1, sizeof(buf), c->samples)) > 0)
        fwrite(buf, 1, n, c->out);
    if (c->markers.n)
        qsort(c->markers.v, c->markers.n, sizeof(canon_line), canon_line_cmp);
    for (size_t i = 0; i < c->markers.n; i++)
        fprintf(c->out, "marker %" PRIu64 " %s\n", c->markers.v[i].key,
                c->markers.v[i].text);
    /* One entry per address; the last one read wins, as in a map. */
    if (c->ipes.n)
        qsort(c->ipes.v, c->ipes.n, sizeof(canon_line), canon_seq_cmp);
    for (size_t i = 0; i < c->ipes.n; i++) {
        if (i + 1 < c->ipes.n && c->ipes.v[i + 1].key == c->ipes.v[i].key)
            continue;
        fprintf(c->out, "ipe 0x%" PRIx64 " %s\n", c->ipes.v[i].key,
                c->ipes.v[i].text);
    }
    return c->nomem || ferror(c->samples) ? -1 : 0;
}
