/* v8snap: a heap export written as a V8 heap snapshot. See v8snap.h.
 *
 * Note [The heap as a V8 heap snapshot]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A .heapsnapshot is one JSON object: "snapshot" (meta: the fields of a
 * node and of an edge and the names of their types; the node and edge
 * counts), "nodes" (a flat array, node_fields numbers a node), "edges"
 * (edge_fields numbers an edge; a node's edges follow each other, in node
 * order, its edge_count of them; to_node is the index of the target's
 * first field in "nodes", i.e. its number times the node field count),
 * then "strings", which names and edge names index. Node 0 is the root.
 * DevTools and memlab read it so; V8 writes the same.
 *
 * The heap maps onto it as follows:
 *
 *   - node type: the closure type (CONSTR_2_0, THUNK_1_0, ARR_WORDS,
 *     STACK...; node_types lists them), "synthetic" for the root and the
 *     groups of roots;
 *   - name: the name every -hi band gets for the closure's info table
 *     (docs/hi.md "Band names"; `debug census --by info` shows it after
 *     the address and type), "-" when nothing is known of the table;
 *   - id: 2n + 1 for node n (V8's objects have odd ids; they are
 *     numbers here, not addresses, which would not fit DevTools' 32-bit
 *     arrays); self_size: the closure's exact size in bytes;
 *   - edges: a closure's pointer fields in the order the GC follows them;
 *     a position (a constructor's field, a free variable, an array
 *     element) is an "element" edge with its index, anything else an
 *     "internal" edge named by debug_heap.h's dbg_field_describe ("srt",
 *     "frame 2 slot 1", "frame 0 srt", "indirectee", "key"...);
 *   - the root "(GC roots)" has an "internal" edge per group of roots
 *     (heap_export.h), named by its title, and each group an "element"
 *     edge per root.
 *
 * Every edge is strong: the walk and `debug dominators` follow a weak
 * pointer's key like any field, and so do DevTools' and memlab's
 * dominators here, which keeps their retained sizes equal to rtscope's.
 * The writer streams: strings are the only table it keeps (one per info
 * table and per distinct edge name, written last).
 */
#define _GNU_SOURCE
#include "v8snap.h"

#include "groups.h"
#include "rtscope/base/grow.h"
#include "rtscope/base/strtab.h"
#include "rtscope/out/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NODE_FIELDS 7
/* node type 0; a closure of closure type t is type 1 + t */
#define TYPE_SYNTHETIC 0
/* edge types, as edge_types lists them */
enum { EDGE_ELEMENT = 1, EDGE_INTERNAL = 3 };

typedef struct v8w {
    FILE *f;
    dbg_heap *h;
    strtab strings;
    int64_t *name_of_info; /* string id + 1 of each info table's name */
    size_t nnames;
    size_t node; /* nodes written */
    int first;   /* the next number opens the array */
    int nomem;
} v8w;

/* Write v as a decimal number. */
static void put_u64(FILE *f, uint64_t v)
{
    char buf[24];
    char *p = buf + sizeof(buf);
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

/* One node's or edge's numbers, on a line of its own after the first. */
static void put_row(v8w *w, const uint64_t *v, size_t n)
{
    if (!w->first)
        fputs(",\n", w->f);
    w->first = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            putc(',', w->f);
        put_u64(w->f, v[i]);
    }
}

static uint64_t string_id(v8w *w, const char *s)
{
    int64_t id = strtab_id_str(&w->strings, s);
    if (id < 0) {
        w->nomem = 1;
        return 0;
    }
    return (uint64_t)id;
}

/* The string of an info table's name (cached by the table's number). */
static uint64_t info_name_id(v8w *w, dbg_info *in)
{
    size_t i = dbg_heap_info_index(w->h, in);
    if (i >= w->nnames) {
        size_t need = dbg_heap_ninfos(w->h);
        int64_t *nv =
            i < need ? realloc(w->name_of_info, need * sizeof(*nv)) : NULL;
        if (!nv) {
            w->nomem = 1;
            return 0;
        }
        memset(nv + w->nnames, 0, (need - w->nnames) * sizeof(*nv));
        w->name_of_info = nv;
        w->nnames = need;
    }
    if (!w->name_of_info[i]) {
        char name[1024];
        if (!debug_info_name(w->h, in, name, sizeof(name)))
            snprintf(name, sizeof(name), "-");
        w->name_of_info[i] = (int64_t)string_id(w, name) + 1;
    }
    return (uint64_t)(w->name_of_info[i] - 1);
}

static int write_node(void *ctx, const dbg_export_node *n)
{
    v8w *w = ctx;
    uint64_t row[NODE_FIELDS] = {
        TYPE_SYNTHETIC, 0, 2 * w->node + 1, 0, n->nedges, 0, 0};
    if (n->kind == DBG_XN_CLOSURE) {
        row[0] = 1 + (uint64_t)(n->c->info->type < GHC_N_CLOSURE_TYPES
                                    ? n->c->info->type
                                    : 0);
        row[1] = info_name_id(w, n->c->info);
        row[3] = n->c->size;
    } else {
        row[1] = string_id(w, n->title);
    }
    put_row(w, row, NODE_FIELDS);
    w->node++;
    return w->nomem;
}

static int write_edge(void *ctx, const dbg_export_edge *e)
{
    v8w *w = ctx;
    uint64_t row[3] = {EDGE_ELEMENT, e->index, (uint64_t)e->to * NODE_FIELDS};
    if (e->from == DBG_XN_ROOT) {
        row[0] = EDGE_INTERNAL;
        row[1] = string_id(w, e->title);
    } else if (e->from == DBG_XN_CLOSURE) {
        char name[96];
        uint32_t index = 0;
        if (dbg_field_describe(e->field, name, sizeof(name), &index)) {
            row[1] = index;
        } else {
            row[0] = EDGE_INTERNAL;
            row[1] = string_id(w, name);
        }
    }
    put_row(w, row, 3);
    return w->nomem;
}

/* "snapshot": the meta data and the counts. */
static void write_meta(v8w *w, size_t nnodes, size_t nedges)
{
    FILE *f = w->f;
    fputs("{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\","
          "\"self_size\",\"edge_count\",\"trace_node_id\",\"detachedness\"],\n"
          "\"node_types\":[[\"synthetic\"",
          f);
    for (uint32_t t = 0; t < GHC_N_CLOSURE_TYPES; t++)
        fprintf(f, ",\"%s\"", ghc_closure_type_name(t));
    fputs("],\"string\",\"number\",\"number\",\"number\",\"number\","
          "\"number\"],\n"
          "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\n"
          "\"edge_types\":[[\"context\",\"element\",\"property\","
          "\"internal\",\"hidden\",\"shortcut\",\"weak\"],"
          "\"string_or_number\",\"node\"],\n"
          "\"trace_function_info_fields\":[\"function_id\",\"name\","
          "\"script_name\",\"script_id\",\"line\",\"column\"],\n"
          "\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\","
          "\"size\",\"children\"],\n"
          "\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\n"
          "\"location_fields\":[\"object_index\",\"script_id\",\"line\","
          "\"column\"]},\n",
          f);
    fprintf(f,
            "\"node_count\":%zu,\"edge_count\":%zu,"
            "\"trace_function_count\":0},\n",
            nnodes, nedges);
}

static void write_strings(v8w *w)
{
    fputs("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n"
          "\"samples\":[],\n\"locations\":[],\n\"strings\":[",
          w->f);
    for (size_t i = 0; i < w->strings.n; i++) {
        fputs(i ? ",\n" : "", w->f);
        report_json_str(w->f, w->strings.s[i], w->strings.len[i]);
    }
    fputs("]}\n", w->f);
}

int v8snap_write(FILE *f, dbg_heap *h, dbg_export *x)
{
    v8w w = {.f = f, .h = h, .first = 1};
    int r = -1;
    string_id(&w, ""); /* string 0: the empty name, as V8's */
    write_meta(&w, dbg_export_nnodes(x), dbg_export_nedges(x));
    fputs("\"nodes\":[", f);
    int k = dbg_export_nodes(x, write_node, &w);
    if (k != 0)
        goto done;
    fputs("],\n\"edges\":[", f);
    w.first = 1;
    k = dbg_export_edges(x, write_edge, &w);
    if (k != 0)
        goto done;
    write_strings(&w);
    r = w.nomem ? -1 : 0;
done:
    if (w.nomem)
        snprintf(h->err, sizeof(h->err), "out of memory");
    strtab_free(&w.strings);
    free(w.name_of_info);
    return r;
}
