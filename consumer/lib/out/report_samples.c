/* The sampled call stacks in a report's data: the "samples" member (see
 * docs/html.md, "Sampled call stacks: flame graph and sites").
 *
 * Note [A bounded call tree]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The page draws a flame graph from the call tree of each kind
 * (samples_tree_build: stacks merged from the root, frames named by their
 * function as pprof --stacks names them). A program with deep or varied
 * stacks has tens of thousands of nodes, most of them too thin to see, so
 * the data keeps a node only when its weight is at least
 * REPORT_SAMPLES_MIN_SHARE of the kind's total and it is among the
 * REPORT_SAMPLES_MAX_NODES heaviest; the children a kept node loses are
 * merged into one "other" child of it (their weight, samples and how many
 * they were), so every node's weight is still the sum of what the page
 * shows under it plus its own. A child weighs no more than its parent, so
 * the kept nodes are a tree (every kept node's parent is kept). The data
 * of a kind is so at most about 2 x REPORT_SAMPLES_MAX_NODES rows,
 * whatever the eventlog. Nodes are written in preorder, children heaviest
 * first (the flame graph's left to right), "other" last.
 *
 * The sites are samples_sites', named as rtscope stats names them
 * (samples_frame_name), the REPORT_SAMPLES_SITES heaviest, so the page's
 * table and stats print the same rows.
 */
#include "report_impl.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const samples_tree *rs_sort_tree;

static int rs_child_order(const void *a, const void *b)
{
    const samples_node *x = &rs_sort_tree->nodes[*(const uint32_t *)a],
                       *y = &rs_sort_tree->nodes[*(const uint32_t *)b];
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(rs_sort_tree->names.s[x->name],
                  rs_sort_tree->names.s[y->name]);
}

static int rs_weight_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* Which nodes stay (Note [A bounded call tree]); the number kept. */
static size_t rs_choose(const samples_tree *t, unsigned char *keep, int *nomem)
{
    uint64_t total = t->nodes[0].weight;
    size_t n = 0;
    keep[0] = 1;
    for (size_t i = 1; i < t->n; i++) {
        keep[i] = (double)t->nodes[i].weight >=
                      (double)total * REPORT_SAMPLES_MIN_SHARE &&
                  t->nodes[i].weight > 0;
        n += keep[i];
    }
    if (n < REPORT_SAMPLES_MAX_NODES)
        return n + 1;
    uint64_t *w = malloc(n * sizeof(*w));
    if (!w) {
        *nomem = 1;
        return 0;
    }
    size_t k = 0;
    for (size_t i = 1; i < t->n; i++)
        if (keep[i])
            w[k++] = t->nodes[i].weight;
    qsort(w, k, sizeof(*w), rs_weight_desc);
    /* strictly heavier than the MAX_NODES-th: fewer than MAX_NODES */
    uint64_t cut = w[REPORT_SAMPLES_MAX_NODES - 1];
    free(w);
    n = 0;
    for (size_t i = 1; i < t->n; i++) {
        keep[i] = keep[i] && t->nodes[i].weight > cut;
        n += keep[i];
    }
    return n + 1;
}

long report_samples_rows(const samples_tree *t, report_samples_row **rows)
{
    size_t n = t->n;
    unsigned char *keep = calloc(n, 1);
    uint32_t *first = calloc(n + 1, sizeof(uint32_t));
    uint32_t *ord = malloc((n ? n : 1) * sizeof(uint32_t));
    /* the DFS: (tree node, row) pairs; a kept node's "other" is pushed
     * below its children as node UINT32_MAX */
    uint32_t *stack = malloc(4 * (n + 1) * sizeof(uint32_t));
    report_samples_row *out = NULL;
    long r = -1;
    int nomem = 0;
    if (!keep || !first || !ord || !stack)
        goto out;
    size_t nkept = rs_choose(t, keep, &nomem);
    if (nomem)
        goto out;
    /* at most one "other" per kept node */
    out = malloc(2 * nkept * sizeof(*out));
    if (!out)
        goto out;
    /* children lists (every child's parent comes before it) */
    for (size_t i = 1; i < n; i++)
        first[t->nodes[i].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        first[i + 1] += first[i];
    uint32_t *fill = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!fill)
        goto out;
    memcpy(fill, first, n * sizeof(uint32_t));
    for (size_t i = 1; i < n; i++)
        ord[fill[t->nodes[i].parent]++] = (uint32_t)i;
    free(fill);
    rs_sort_tree = t;
    for (size_t i = 0; i < n; i++)
        if (keep[i] && first[i + 1] - first[i] > 1)
            qsort(ord + first[i], first[i + 1] - first[i], sizeof(uint32_t),
                  rs_child_order);
    size_t sp = 0, nr = 0;
    stack[sp++] = 0;
    stack[sp++] = UINT32_MAX; /* the root has no parent row */
    while (sp) {
        uint32_t prow = stack[--sp], node = stack[--sp];
        if (node >= n) { /* an "other": node = n + its kept parent */
            uint32_t p = node - (uint32_t)n;
            report_samples_row o = {-1, (long)prow, 0, 0, 0};
            for (uint32_t c = first[p]; c < first[p + 1]; c++)
                if (!keep[ord[c]]) {
                    o.weight += t->nodes[ord[c]].weight;
                    o.count += t->nodes[ord[c]].count;
                    o.other++;
                }
            out[nr++] = o;
            continue;
        }
        const samples_node *x = &t->nodes[node];
        report_samples_row row = {node ? x->name : -1,
                                  prow == UINT32_MAX ? -1 : (long)prow,
                                  x->weight, x->count, 0};
        uint32_t me = (uint32_t)nr;
        out[nr++] = row;
        /* pushed in reverse: "other" last, the heaviest child first */
        int lost = 0;
        for (uint32_t c = first[node]; c < first[node + 1]; c++)
            lost |= !keep[ord[c]];
        if (lost) {
            stack[sp++] = (uint32_t)n + node;
            stack[sp++] = me;
        }
        for (uint32_t c = first[node + 1]; c-- > first[node];)
            if (keep[ord[c]]) {
                stack[sp++] = ord[c];
                stack[sp++] = me;
            }
    }
    *rows = out;
    out = NULL;
    r = (long)nr;
out:
    free(keep);
    free(first);
    free(ord);
    free(stack);
    free(out);
    return r;
}

static void rs_u64_col(FILE *f, const char *name,
                       const report_samples_row *rows, long n, size_t off)
{
    fprintf(f, ",\"%s\":[", name);
    for (long i = 0; i < n; i++)
        fprintf(f, "%s%" PRIu64, i ? "," : "",
                *(const uint64_t *)((const char *)&rows[i] + off));
    putc(']', f);
}

/* One kind: {"unit", totals, "nodes", "tree", "sites"}. */
static void rs_kind(report_out *o, const samples *s, samples_kind k,
                    samples_tree *t)
{
    FILE *f = o->f;
    const samples_sum *sum = &s->total[k];
    if (samples_tree_build(s, k, t) != 0) {
        o->nomem = 1;
        fputs("null", f);
        return;
    }
    report_samples_row *rows = NULL;
    long nr = report_samples_rows(t, &rows);
    samples_site *sites = NULL;
    long ns = samples_sites(s, k, &sites);
    if (nr < 0 || ns < 0) {
        o->nomem = 1;
        free(rows);
        free(sites);
        fputs("null", f);
        return;
    }
    fprintf(f,
            "{\"unit\":\"%s\",\"samples\":%" PRIu64 ",\"weight\":%" PRIu64
            ",\"late\":%" PRIu64 ",\"truncated\":%" PRIu64,
            k == SAMPLES_ALLOC ? "bytes" : "ns", sum->count, sum->weight,
            sum->late, sum->truncated);
    if (k == SAMPLES_ALLOC)
        fprintf(f, ",\"objects\":%.0f", sum->objects);
    fprintf(f, ",\"nodes\":%zu,\"min_share\":%g,\"max_nodes\":%d", t->n - 1,
            REPORT_SAMPLES_MIN_SHARE, REPORT_SAMPLES_MAX_NODES);
    fputs(",\"tree\":{\"name\":[", f);
    for (long i = 0; i < nr; i++) {
        long id = -1;
        if (rows[i].name >= 0)
            id = report_dict_id(o, t->names.s[rows[i].name],
                                t->names.len[rows[i].name]);
        fprintf(f, "%s%ld", i ? "," : "", id);
    }
    fputs("],\"parent\":[", f);
    for (long i = 0; i < nr; i++)
        fprintf(f, "%s%ld", i ? "," : "", rows[i].parent);
    putc(']', f);
    rs_u64_col(f, "weight", rows, nr, offsetof(report_samples_row, weight));
    rs_u64_col(f, "samples", rows, nr, offsetof(report_samples_row, count));
    rs_u64_col(f, "other", rows, nr, offsetof(report_samples_row, other));
    long shown = ns < REPORT_SAMPLES_SITES ? ns : REPORT_SAMPLES_SITES;
    fprintf(f, "},\"sites\":{\"n\":%ld,\"name\":[", ns);
    char name[1024];
    for (long i = 0; i < shown; i++) {
        samples_frame_name(s, sites[i].info, name, sizeof(name));
        /* kept with the tree's names: the dictionary borrows them */
        int64_t id = strtab_id_str(&t->names, name);
        if (id < 0) {
            o->nomem = 1;
            id = 0;
        }
        fprintf(f, "%s%ld", i ? "," : "",
                report_dict_id(o, t->names.s[id], t->names.len[id]));
    }
    fputs("],\"weight\":[", f);
    for (long i = 0; i < shown; i++)
        fprintf(f, "%s%" PRIu64, i ? "," : "", sites[i].sum.weight);
    fputs("],\"samples\":[", f);
    for (long i = 0; i < shown; i++)
        fprintf(f, "%s%" PRIu64, i ? "," : "", sites[i].sum.count);
    fputs("]}}", f);
    free(rows);
    free(sites);
}

void report_samples(report_out *o, const samples *s, samples_tree keep[2])
{
    memset(keep, 0, 2 * sizeof(*keep));
    if (!s || (!samples_any(s, SAMPLES_ALLOC) && !samples_any(s, SAMPLES_TIME)))
        return;
    FILE *f = o->f;
    fputs(",\"samples\":{\"alloc\":", f);
    if (samples_any(s, SAMPLES_ALLOC))
        rs_kind(o, s, SAMPLES_ALLOC, &keep[0]);
    else
        fputs("null", f);
    fputs(",\"time\":", f);
    if (samples_any(s, SAMPLES_TIME))
        rs_kind(o, s, SAMPLES_TIME, &keep[1]);
    else
        fputs("null", f);
    putc('}', f);
}
