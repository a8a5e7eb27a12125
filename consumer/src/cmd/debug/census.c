/* rtscope debug census and thunks: closures and bytes per key (type,
 * constructor, info table, module, thunk source, or -hT band). */
#define _GNU_SOURCE
#include "census_table.h"
#include "debug.h"
#include "groups.h"

#include "cli.h"
#include "rtscope/debug/debug_blocks.h"
#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_heap.h"
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- census ----------------------------------------------------------- */

/* --heap-census: per block group, whether a census skipped it (a
 * Capability's current pinned block) and whether it was counted. */
#define CENSUS_GROUP_SEEN 1
#define CENSUS_GROUP_UNCENSUSED 2

typedef struct census_state {
    dbg_census c; /* the counts (lib/debug's census.h) */
    /* --heap-census: the heap's block groups, by address; what lies in
     * none of them is static; pinned groups count whole, once. */
    dbg_block *blocks;
    size_t nblocks;
    unsigned char *group; /* CENSUS_GROUP_* of blocks[i] */
    uint64_t static_count, static_bytes;
    uint64_t pinned_groups, pinned_bytes;
    uint64_t skipped_count, skipped_bytes;
} census_state;

/* The block groups of the paused heap (BLOCKS), sorted and checked. */
static int census_load_blocks(dbg_heap *h, census_state *s)
{
    char err[256];
    if (dbg_heap_blocks(h, &s->blocks, &s->nblocks) != 0)
        return debug_fail("%s", h->err);
    if (dbg_blocks_sort_check(s->blocks, s->nblocks, err, sizeof(err)) != 0)
        return debug_fail("BLOCKS: %s", err);
    s->group = calloc(s->nblocks + 1, 1);
    return s->group ? 0 : debug_fail("out of memory");
}

static int census_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    census_state *s = ctx;
    (void)parent;
    if (s->group) {
        long g = dbg_blocks_find(s->blocks, s->nblocks, c->addr);
        if (g < 0) { /* static: a heap census never counts it */
            s->static_count++;
            s->static_bytes += c->size;
            return 0;
        }
        if (s->group[g] & CENSUS_GROUP_UNCENSUSED) { /* a capability's */
            s->skipped_count++;
            s->skipped_bytes += c->size;
            return 0;
        }
        if (s->blocks[g].flags & DBG_BF_PINNED) { /* -hT: the whole group */
            if (!(s->group[g] & CENSUS_GROUP_SEEN)) {
                s->group[g] |= CENSUS_GROUP_SEEN;
                s->pinned_groups++;
                s->pinned_bytes += s->blocks[g].size;
            }
            return 0;
        }
    }
    return dbg_census_add(&s->c, c) != 0;
}

static int row_by_key(const void *a, const void *b)
{
    return strcmp(((const census_row *)a)->key, ((const census_row *)b)->key);
}

static int row_by_size(const void *a, const void *b)
{
    const census_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->key, y->key);
}

char *debug_census_key(dbg_heap *h, const dbg_census *c,
                       const dbg_census_entry *acc, enum census_by by)
{
    uint64_t infoptr = acc->info;
    if (by == BY_MODULE && acc->owner)
        return strdup(c->modules.s[acc->owner - 1]);
    dbg_info *in = dbg_heap_info(h, infoptr);
    char buf[1200];
    const char *type = in ? ghc_closure_type_name(in->type) : "UNKNOWN";
    if (by == BY_TYPE || !in) {
        snprintf(buf, sizeof(buf), "%s", type);
    } else if (by == BY_HEAP_BAND) { /* as ProfHeap.c names -hT bands */
        const char *con = dbg_heap_con_descr(h, in);
        snprintf(buf, sizeof(buf), "%s", con ? con : type);
    } else {
        const char *con = dbg_heap_con_descr(h, in);
        char disp[1024];
        if (con)
            dbg_con_display(con, disp, sizeof(disp));
        if (by == BY_CONSTRUCTOR) {
            snprintf(buf, sizeof(buf), "%s", con ? disp : type);
        } else if (by == BY_THUNK_SOURCE) {
            char *const *src = dbg_heap_source(h, in);
            if (src && src[5][0])
                snprintf(buf, sizeof(buf), "%s %s", src[4], src[5]);
            else if (debug_info_name(h, in, disp, sizeof(disp)))
                /* what names the table where it has no source: its
                 * binding (THUNK in base:GHC.Base.map), its symbol */
                snprintf(buf, sizeof(buf), "(no source) 0x%" PRIx64 " %s",
                         infoptr, disp);
            else /* nothing: its closure type */
                snprintf(buf, sizeof(buf), "(no source) 0x%" PRIx64 " %s",
                         infoptr, type);
        } else if (by == BY_MODULE) {
            if (!dbg_info_module(h, in, buf, sizeof(buf)))
                snprintf(buf, sizeof(buf), "%s %s",
                         dbg_info_is_rts(h, in) ? "(RTS)" : "(unknown)", type);
        } else { /* BY_INFO */
            debug_group_name(h, in, DEBUG_BY_INFO, 1, buf, sizeof(buf));
        }
    }
    return strdup(buf);
}

static void census_state_free(census_state *s)
{
    dbg_census_free(&s->c);
    free(s->blocks);
    free(s->group);
}

int debug_census_each_info(const char *target, int gc, debug_census_info_fn fn,
                           void *ctx)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    census_state s = {0};
    dbg_census_init(&s.c, &ss.heap, 0);
    r = debug_session_walk(&ss, gc, census_visit, &s, 0);
    if (r == 0 && s.c.nomem)
        r = debug_fail("out of memory");
    for (size_t i = 0; r == 0 && i < s.c.n; i++)
        r = fn(ctx, &ss.heap, s.c.e[i].info, s.c.e[i].count, s.c.e[i].bytes);
    if (r == 0)
        debug_warn_unreadable(&ss.heap, "counts may be low");
    debug_session_close(&ss);
    census_state_free(&s);
    return r;
}

/* --heap-census: pause right after the program's own census, then read the
 * block groups, to tell heap from static, find the pinned groups and those
 * the census skipped. *census_ns: the census's time. */
static int census_heap_pause(debug_session *ss, census_state *s,
                             const char *target, uint64_t *census_ns)
{
    uint64_t *skipped = NULL;
    size_t nskipped = 0;
    if (ss->is_snapshot)
        return debug_fail("%s: --heap-census needs a live program: it "
                          "pauses right after the program's own census",
                          target);
    if (dbg_pause_census(&ss->conn, census_ns, &skipped, &nskipped) != 0) {
        int was_paused = strstr(ss->conn.err, "ALREADY_PAUSED") != NULL;
        return debug_fail("%s", was_paused
                                    ? "--heap-census: the program is paused "
                                      "already; it must run to take its "
                                      "census (resume it)"
                                    : ss->conn.err);
    }
    ss->resume_after = 1;
    int r = census_load_blocks(&ss->heap, s);
    for (size_t i = 0; r == 0 && i < nskipped; i++) {
        long g = dbg_blocks_find(s->blocks, s->nblocks, skipped[i]);
        if (g >= 0)
            s->group[g] |= CENSUS_GROUP_UNCENSUSED;
    }
    free(skipped);
    return r;
}

void census_table_free(census_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->rows[i].key);
        free(t->rows[i].samp);
    }
    free(t->rows);
}

/* Row b into row a (same key): counts added, samples up to keep. */
static void row_merge(census_row *a, census_row *b, size_t keep)
{
    a->count += b->count;
    a->bytes += b->bytes;
    while (b->nsamp && a->nsamp < keep && a->samp)
        a->samp[a->nsamp++] = b->samp[--b->nsamp];
    free(b->key);
    free(b->samp);
}

/* Row i of the table from entry e, its samples copied. 0 or -1. */
static int row_of(census_row *row, dbg_heap *h, const dbg_census *c,
                  const dbg_census_entry *e, enum census_by by)
{
    row->key = debug_census_key(h, c, e, by);
    row->count = e->count;
    row->bytes = e->bytes;
    if (c->keep && e->nsamp) {
        row->samp = malloc(c->keep * sizeof(*row->samp));
        if (!row->samp)
            return -1;
        memcpy(row->samp, e->samp, e->nsamp * sizeof(*row->samp));
        row->nsamp = e->nsamp;
    }
    return row->key ? 0 : -1;
}

int census_table_make(census_table *t, dbg_heap *h, const dbg_census *c,
                      enum census_by by, uint64_t pinned_groups,
                      uint64_t pinned_bytes)
{
    t->rows = calloc(c->n + 1, sizeof(*t->rows));
    if (!t->rows)
        return debug_fail("out of memory");
    for (size_t i = 0; i < c->n; i++)
        if (row_of(&t->rows[t->n++], h, c, &c->e[i], by) != 0)
            return debug_fail("out of memory");
    if (pinned_groups) { /* -hT's pinned blocks: ARR_WORDS, see above */
        char *k = strdup("ARR_WORDS");
        if (!k)
            return debug_fail("out of memory");
        t->rows[t->n++] = (census_row){k, pinned_groups, pinned_bytes, 0, 0};
    }
    qsort(t->rows, t->n, sizeof(*t->rows), row_by_key);
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (m > 0 && strcmp(t->rows[m - 1].key, t->rows[i].key) == 0)
            row_merge(&t->rows[m - 1], &t->rows[i], c->keep);
        else
            t->rows[m++] = t->rows[i];
    }
    t->n = m;
    qsort(t->rows, t->n, sizeof(*t->rows), row_by_size);
    return 0;
}

static void census_print(const census_table *t, const census_state *s,
                         enum census_by by, uint64_t census_ns, size_t nroots)
{
    uint64_t tc = 0, tb = 0;
    if (census_ns)
        printf("heap census: the program's last heap sample before "
               "%" PRIu64 " ns (eventlog time)\n",
               census_ns);
    printf("%10s %12s  %s\n", "count", "bytes",
           by == BY_HEAP_BAND      ? "band"
           : by == BY_TYPE         ? "type"
           : by == BY_INFO         ? "info"
           : by == BY_MODULE       ? "module"
           : by == BY_THUNK_SOURCE ? "thunk source"
                                   : "constructor");
    for (size_t i = 0; i < t->n; i++) {
        printf("%10" PRIu64 " %12" PRIu64 "  %s\n", t->rows[i].count,
               t->rows[i].bytes, t->rows[i].key);
        tc += t->rows[i].count;
        tb += t->rows[i].bytes;
    }
    printf("total: %" PRIu64 " closures, %" PRIu64 " bytes, from %zu roots\n",
           tc, tb, nroots);
    if (by == BY_HEAP_BAND)
        printf("static: %" PRIu64 " closures, %" PRIu64 " bytes (outside the "
               "heap; no heap census counts them)\n"
               "pinned: %" PRIu64 " block groups, %" PRIu64 " bytes (counted "
               "whole, as ARR_WORDS)\n"
               "uncensused: %" PRIu64 " closures, %" PRIu64 " bytes (in the "
               "capabilities' current pinned blocks, which no heap census "
               "counts)\n",
               s->static_count, s->static_bytes, s->pinned_groups,
               s->pinned_bytes, s->skipped_count, s->skipped_bytes);
    if (by == BY_MODULE && s->c.held_bytes)
        printf("RTS closures (arrays, generic thunks, applications...) held "
               "by a module's closures are counted under that module: "
               "%" PRIu64 " bytes\n",
               s->c.held_bytes);
}

/* by BY_HEAP_BAND: -hT's bands, of the heap as it is (a snapshot, a
 * pause), or (pause_census) at a pause right after the program's census. */
static int debug_census(const char *target, enum census_by by, int gc,
                        int pause_census)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    dbg_heap *h = &ss.heap;
    census_state s = {0};
    dbg_census_init(&s.c, h, 0);
    s.c.thunks_only = by == BY_THUNK_SOURCE;
    s.c.by_module = by == BY_MODULE;
    census_table t = {NULL, 0};
    uint64_t census_ns = 0;
    if (pause_census) {
        r = census_heap_pause(&ss, &s, target, &census_ns);
        gc = -1; /* paused: the walk only reads the roots */
    } else if (by == BY_HEAP_BAND) {
        /* the block list, like the walk, is read with the program paused */
        r = debug_session_pause(&ss, gc);
        gc = -1;
        if (r == 0)
            r = census_load_blocks(h, &s);
    }
    if (r == 0)
        r = debug_session_walk(&ss, gc, census_visit, &s, 0);
    if (r == 0 && s.c.nomem)
        r = debug_fail("out of memory");
    if (r == 0)
        r = census_table_make(&t, h, &s.c, by, s.pinned_groups, s.pinned_bytes);
    if (r == 0) {
        census_print(&t, &s, by, census_ns, ss.nroots);
        debug_warn_unreadable(h, "counts may be low");
    }
    debug_session_close(&ss);
    census_table_free(&t);
    census_state_free(&s);
    return r;
}

/* What `debug census` is given. */
typedef struct census_args {
    int by; /* an enum census_by, in the order of census_by_names */
    int by_given, heap_census;
} census_args;

static const char *const census_by_names[] = {"type",   "constructor", "info",
                                              "module", "band",        NULL};
#define CENSUS_BY_BAND 4 /* census_by_names' "band" */
static const char *const census_by_help[] = {
    "closure type (CONSTR_2_0, THUNK, ...)",
    "constructor (main:Main:Leak), other closures by\n"
    "type (the default)",
    "info table, with its name",
    "the module of the info table's source (-g) or of\n"
    "the constructor",
    "as a -hT heap census names its bands\n"
    "(constructor descriptions, else closure types):\n"
    "heap objects only (static closures counted apart),\n"
    "each pinned block group whole as ARR_WORDS",
};

static const opt census_opts[] = {
    {.name = "by",
     .kind = OPT_CHOICE,
     .argname = "KEY",
     .value = OPT_AT(census_args, by),
     .given = OPT_AT(census_args, by_given),
     .choices = census_by_names,
     .choice_help = census_by_help},
    {.name = "heap-census",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(census_args, heap_census),
     .help = "count as the RTS's -hT census does, at a pause\n"
             "right after a census the program takes (it needs\n"
             "+RTS -hT, or another heap profile): -hT's bands,\n"
             "heap objects only (static closures are counted\n"
             "apart), each pinned block group whole as\n"
             "ARR_WORDS (as 9.0 does; 9.6 counts the objects\n"
             "in it); gives the time of the pause: the\n"
             "census is the last eventlog heap sample before it"},
    OPT_END,
};

int debug_census_run(int argc, char **argv)
{
    census_args ca = {.by = BY_CONSTRUCTOR};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_census, argc, argv, &ca, 1, &a);
    if (r >= 0)
        return r;
    if (ca.heap_census && (a.gc_given || ca.by_given))
        return debug_usage_error(&debug_cmd_census,
                                 "--heap-census has its own pause and bands: "
                                 "no --no-gc, --fork or --by");
    enum census_by by = ca.heap_census || ca.by == CENSUS_BY_BAND
                            ? BY_HEAP_BAND
                            : (enum census_by)ca.by;
    return debug_census(a.target[0], by, a.gc, ca.heap_census);
}

int debug_thunks_run(int argc, char **argv)
{
    debug_args a;
    int r = debug_parse_args(&debug_cmd_thunks, argc, argv, NULL, 1, &a);
    return r >= 0 ? r : debug_census(a.target[0], BY_THUNK_SOURCE, a.gc, 0);
}

static const char debug_census_help[] =
    "  census      pause (right after a major GC), walk the heap from the GC\n"
    "              roots and the saved objects, resume; print closures and\n"
    "              bytes per key, largest first:\n";

const debug_command debug_cmd_census = {
    .name = "census",
    .synopsis = "rtscope debug census TARGET "
                "[--by type|constructor|info|module|band] "
                "[--no-gc|--fork]\n"
                "       rtscope debug census TARGET --heap-census\n",
    .help = debug_census_help,
    .opts = census_opts,
    .no_gc = 1,
    .run = debug_census_run,
};

static const char debug_thunks_help[] =
    "  thunks      a census of the thunks only, by source location\n"
    "              (module and span, when the program was built with -g)\n";

const debug_command debug_cmd_thunks = {
    .name = "thunks",
    .synopsis = "rtscope debug thunks TARGET [--no-gc|--fork]\n",
    .help = debug_thunks_help,
    .no_gc = 1,
    .run = debug_thunks_run,
};
