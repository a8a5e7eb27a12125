/* rtscope debug gml: the type-points-from graph of a paused heap, in GML
 * (Graph Modelling Language), for graph tools (networkx, igraph, Gephi,
 * yEd). A node per constructor (main:Main:Leak) or, for other closures,
 * per closure type (THUNK, ARR_WORDS), with the number of reachable
 * closures and their bytes; a directed edge A -> B counts the pointer
 * fields of A closures that point to B closures (SRT pointers of
 * functions, thunks and frames included).
 *
 * GML strings are ASCII without '"': '"' and '&' are written as &quot;
 * and &amp;, other characters as &#N; (networkx's reader decodes these).
 * Integers above 2^31-1 (GML's integer range) are written as reals. */
#define _GNU_SOURCE
#include "cli.h"
#include "debug.h"
#include "session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gml_info {
    uint64_t info;
    uint64_t count, bytes;
    uint32_t node;
    char *key;
} gml_info;

typedef struct gml_ref {
    uint32_t from; /* info slot */
    uint64_t to;   /* address */
} gml_ref;

typedef struct gml_state {
    hmap slot_of_info; /* info ptr -> slot + 1 */
    hmap slot_of_addr; /* closure -> slot + 1 */
    gml_info *infos;
    size_t ninfos, capinfos;
    gml_ref *refs;
    size_t nrefs, caprefs;
    int nomem;
} gml_state;

static int gml_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    gml_state *s = ctx;
    uint64_t slot;
    (void)parent;
    if (!hmap_get(&s->slot_of_info, c->info->ptr, &slot)) {
        if (s->ninfos == s->capinfos) {
            size_t nc = s->capinfos ? s->capinfos * 2 : 256;
            gml_info *ni = realloc(s->infos, nc * sizeof(*ni));
            if (!ni)
                return s->nomem = 1;
            s->infos = ni;
            s->capinfos = nc;
        }
        s->infos[s->ninfos] = (gml_info){.info = c->info->ptr};
        slot = ++s->ninfos;
        if (hmap_put(&s->slot_of_info, c->info->ptr, slot) != 0)
            return s->nomem = 1;
    }
    s->infos[slot - 1].count++;
    s->infos[slot - 1].bytes += c->size;
    if (hmap_put(&s->slot_of_addr, c->addr, slot) != 0)
        return s->nomem = 1;
    for (size_t i = 0; i < c->nptrs; i++) {
        if (s->nrefs == s->caprefs) {
            size_t nc = s->caprefs ? s->caprefs * 2 : 4096;
            gml_ref *nr = realloc(s->refs, nc * sizeof(*nr));
            if (!nr)
                return s->nomem = 1;
            s->refs = nr;
            s->caprefs = nc;
        }
        s->refs[s->nrefs++] =
            (gml_ref){.from = (uint32_t)(slot - 1), .to = c->ptrs[i]};
    }
    return 0;
}

typedef struct gml_edge {
    uint32_t from, to;
    uint64_t count;
} gml_edge;

static int edge_cmp(const void *a, const void *b)
{
    const gml_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* info slots in the order of their keys */
typedef struct gml_order {
    const char *key;
    size_t slot;
} gml_order;

static int order_by_key(const void *a, const void *b)
{
    const gml_order *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->slot > y->slot) - (x->slot < y->slot);
}

/* A GML string: ASCII, no '"'; UTF-8 decoded to &#N; entities. */
static void gml_put_string(FILE *f, const char *str)
{
    const unsigned char *p = (const unsigned char *)str;
    fputc('"', f);
    while (*p) {
        unsigned c = *p;
        if (c == '"') {
            fputs("&quot;", f);
            p++;
        } else if (c == '&') {
            fputs("&amp;", f);
            p++;
        } else if (c >= 0x20 && c < 0x7f) {
            fputc((int)c, f);
            p++;
        } else {
            unsigned cp = 0xfffd;
            int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
            if (len > 1) {
                cp = c & (0x7fu >> len);
                for (int i = 1; i < len; i++) {
                    if ((p[i] & 0xc0) != 0x80) {
                        cp = 0xfffd;
                        len = i;
                        break;
                    }
                    cp = (cp << 6) | (p[i] & 0x3f);
                }
            } else if (c < 0x80) {
                cp = c; /* control character */
            }
            fprintf(f, "&#%u;", cp);
            p += len;
        }
    }
    fputc('"', f);
}

static void gml_put_int(FILE *f, uint64_t v)
{
    if (v <= 2147483647u)
        fprintf(f, "%" PRIu64, v);
    else
        fprintf(f, "%.1f", (double)v);
}

static int gml_write(FILE *f, dbg_heap *h, gml_state *s, size_t *nnodes,
                     size_t *nedges)
{
    gml_order *order = malloc((s->ninfos ? s->ninfos : 1) * sizeof(*order));
    gml_edge *edges = NULL;
    hmap edge_of = {0};
    size_t ne = 0, cape = 0, nn = 0;
    int r = -1;
    if (!order)
        return -1;
    for (size_t i = 0; i < s->ninfos; i++) {
        gml_info *g = &s->infos[i];
        dbg_info *in = dbg_heap_info(h, g->info);
        const char *con = in ? dbg_heap_con_descr(h, in) : NULL;
        char buf[1024];
        if (con)
            dbg_con_display(con, buf, sizeof(buf));
        else
            snprintf(buf, sizeof(buf), "%s",
                     in ? ghc_closure_type_name(in->type) : "UNKNOWN");
        g->key = strdup(buf);
        if (!g->key)
            goto done;
        order[i] = (gml_order){.key = g->key, .slot = i};
    }
    qsort(order, s->ninfos, sizeof(*order), order_by_key);
    fprintf(f, "graph [\n  comment \"rtscope debug gml: type-points-from "
               "graph of a paused heap\"\n  directed 1\n");
    for (size_t i = 0; i < s->ninfos;) {
        size_t j = i;
        uint64_t count = 0, bytes = 0;
        while (j < s->ninfos && strcmp(order[j].key, order[i].key) == 0) {
            gml_info *g = &s->infos[order[j].slot];
            g->node = (uint32_t)nn;
            count += g->count;
            bytes += g->bytes;
            j++;
        }
        dbg_info *in = dbg_heap_info(h, s->infos[order[i].slot].info);
        int is_con = in && dbg_heap_con_descr(h, in) != NULL;
        fprintf(f, "  node [\n    id %zu\n    label ", nn);
        gml_put_string(f, order[i].key);
        fprintf(f, "\n    kind \"%s\"\n    count ",
                is_con ? "constructor" : "closure type");
        gml_put_int(f, count);
        fprintf(f, "\n    bytes ");
        gml_put_int(f, bytes);
        fprintf(f, "\n  ]\n");
        nn++;
        i = j;
    }
    /* edges: pointer targets by address -> node pairs */
    for (size_t i = 0; i < s->nrefs; i++) {
        uint64_t to_slot;
        if (!hmap_get(&s->slot_of_addr, s->refs[i].to, &to_slot))
            continue; /* not read (unreadable) */
        uint32_t a = s->infos[s->refs[i].from].node;
        uint32_t b = s->infos[to_slot - 1].node;
        uint64_t key = (((uint64_t)a << 32) | b) + 1, k;
        if (edges && hmap_get(&edge_of, key, &k)) {
            edges[k].count++;
            continue;
        }
        if (ne == cape) {
            size_t nc = cape ? cape * 2 : 64;
            gml_edge *nv = realloc(edges, nc * sizeof(*nv));
            if (!nv)
                goto done;
            edges = nv;
            cape = nc;
        }
        edges[ne] = (gml_edge){.from = a, .to = b, .count = 1};
        if (hmap_put(&edge_of, key, ne) != 0)
            goto done;
        ne++;
    }
    if (ne)
        qsort(edges, ne, sizeof(*edges), edge_cmp);
    for (size_t i = 0; i < ne; i++) {
        fprintf(f,
                "  edge [\n    source %" PRIu32 "\n    target %" PRIu32
                "\n    count ",
                edges[i].from, edges[i].to);
        gml_put_int(f, edges[i].count);
        fprintf(f, "\n  ]\n");
    }
    fprintf(f, "]\n");
    *nnodes = nn;
    *nedges = ne;
    r = 0;
done:
    free(order);
    free(edges);
    hmap_free(&edge_of);
    return r;
}

static int debug_gml(const char *target, const char *out, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    gml_state s = {0};
    FILE *f = NULL;
    r = debug_session_walk(&ss, gc, gml_visit, &s, 0);
    if (r)
        goto done;
    if (s.nomem) {
        r = debug_fail("out of memory");
        goto done;
    }
    f = cli_open_output(out);
    if (!f) {
        r = CLI_EXIT_DATA;
        goto done;
    }
    size_t nn = 0, ne = 0;
    if (gml_write(f, &ss.heap, &s, &nn, &ne) != 0) {
        cli_close_output(f, out);
        r = debug_fail("out of memory");
        goto done;
    }
    if (cli_close_output(f, out) != 0) {
        r = CLI_EXIT_DATA;
        goto done;
    }
    if (strcmp(out, "-") != 0)
        fprintf(stderr, "rtscope debug: %s: %zu nodes, %zu edges\n", out, nn,
                ne);
    debug_warn_unreadable(&ss.heap, "the graph lacks them");
done:
    debug_session_close(&ss);
    for (size_t i = 0; i < s.ninfos; i++)
        free(s.infos[i].key);
    free(s.infos);
    free(s.refs);
    hmap_free(&s.slot_of_info);
    hmap_free(&s.slot_of_addr);
    return r;
}

/* What `debug gml` is given. */
typedef struct gml_args {
    const char *out;
} gml_args;

static const opt gml_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(gml_args, out),
     .help = "the output file (- for standard output)"},
    OPT_END,
};

int debug_gml_run(int argc, char **argv)
{
    gml_args ga = {NULL};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_gml, argc, argv, &ga, 1, &a);
    if (r >= 0)
        return r;
    if (!ga.out)
        return debug_usage_error(&debug_cmd_gml, "gml needs -o FILE");
    return debug_gml(a.target[0], ga.out, a.gc);
}

static const char debug_gml_help[] =
    "  gml         write the type-points-from graph in GML: a node per\n"
    "              constructor or closure type (count, bytes), an edge A -> B\n"
    "              with the number of pointers from A closures to B closures\n";

static const char debug_gml_example[] =
    "              e.g.  node [ id 111 label \"main:Main:Kept\"\n"
    "                      kind \"constructor\" count 1200 bytes 28800 ]\n"
    "                    edge [ source 111 target 92 count 1200 ]  (-> PS)\n";

const debug_command debug_cmd_gml = {
    .name = "gml",
    .synopsis = "rtscope debug gml TARGET -o FILE [--no-gc|--fork]\n",
    .help = debug_gml_help,
    .opts = gml_opts,
    .example = debug_gml_example,
    .no_gc = 1,
    .run = debug_gml_run,
};
