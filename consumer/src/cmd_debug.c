/* rtscope debug: a heap-debugger client of the debug stub inside the RTS
 * (docs/debug.md). The protocol and the closure decoding live in
 * lib/debug, the open/pause/walk/release sequence in debug_session.c; this
 * file is the command line: list, pause, resume, census, retainers, thunks,
 * snapshot. Every inspection runs on a live program or a snapshot file. */
#define _GNU_SOURCE
#include "cli.h"
#include "cmd_debug.h"
#include "ipe.h"
#include "debug_blocks.h"
#include "debug_client.h"
#include "debug_heap.h"
#include "debug_session.h"
#include "debug_snap.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static const char debug_usage[] =
    "usage: rtscope debug list\n"
    "       rtscope debug pause TARGET\n"
    "       rtscope debug resume TARGET\n"
    "       rtscope debug census TARGET [--by type|constructor|info|module] [--no-gc]\n"
    "       rtscope debug census TARGET --heap-census\n"
    "       rtscope debug thunks TARGET [--no-gc]\n"
    "       rtscope debug retainers TARGET (--constructor NAME | --info ADDR |\n"
    "                                       --address ADDR) [--limit K] [--no-gc]\n"
    "       rtscope debug snapshot TARGET -o FILE [--no-gc] [--no-blocks]\n"
    "       rtscope debug blocks TARGET [--sample N] [--no-gc]\n"
    "       rtscope debug dups TARGET [--limit N] [--no-gc]\n"
    "       rtscope debug gml TARGET -o FILE [--no-gc]\n"
    "\n"
    "Talk to the debug stub of a running program (started with\n"
    "+RTS --debug-stub, GHC_DEBUG_SOCKET or rts_debugStubStart; see\n"
    "docs/debug-stub.md), or read a snapshot file offline.\n"
    "\n"
    "TARGET is the stub's socket path, or the pid of a program whose socket\n"
    "is in $XDG_DATA_HOME/ghc-debug/debuggee/sockets (default\n"
    "~/.local/share/...), named <pid>-<program>, or the program's name when\n"
    "one live debuggee has it, or a snapshot file (census, thunks,\n"
    "retainers, blocks, dups and gml read it as they read the live heap;\n"
    "blocks needs its block list; pause and resume refuse it).\n"
    "\n"
    "  list        the debuggees in the socket directory: pid, program,\n"
    "              live or dead (a socket left by a program that is gone)\n"
    "  pause       pause the program; it stays paused after rtscope exits\n"
    "  resume      resume a paused program\n"
    "  census      pause (right after a major GC), walk the heap from the GC\n"
    "              roots and the saved objects, resume; print closures and\n"
    "              bytes per key, largest first:\n"
    "    --by type          closure type (CONSTR_2_0, THUNK, ...)\n"
    "    --by constructor   constructor (main:Main:Leak), other closures by\n"
    "                       type (the default)\n"
    "    --by info          info table, with its name\n"
    "    --by module        the module of the info table's source (-g) or of\n"
    "                       the constructor\n"
    "    --heap-census      count as the RTS's -hT census does, at a pause\n"
    "                       right after a census the program takes (it needs\n"
    "                       +RTS -hT, or another heap profile): -hT's bands,\n"
    "                       heap objects only (static closures are counted\n"
    "                       apart), each pinned block group whole as\n"
    "                       ARR_WORDS; gives the time of the pause: the\n"
    "                       census is the last eventlog heap sample before it\n"
    "  thunks      a census of the thunks only, by source location\n"
    "              (module and span, when the program was built with -g)\n"
    "  retainers   pause, search the heap breadth-first from the roots and\n"
    "              print, for each closure of constructor NAME found (Leak,\n"
    "              Main.Leak or main:Main:Leak), a shortest path from a root\n"
    "              to it: address, closure type, constructor and source\n"
    "              location (when the program was built with -g)\n"
    "    --constructor NAME the constructor to look for, or\n"
    "    --info ADDR        closures with this info table (hex), or\n"
    "    --address ADDR     the closure at this address (hex)\n"
    "    --limit K          at most K paths (default 1)\n"
    "  snapshot    pause, copy what a walk from the roots reaches (closures,\n"
    "              info tables, bitmaps, SRTs) and the block list, resume,\n"
    "              then write FILE (zstd-compressed; docs/debug.md)\n"
    "    -o, --output FILE  where to write it\n"
    "    --no-blocks        leave out the block list (a shorter pause)\n"
DEBUG_BLOCKS_HELP DEBUG_DUPS_HELP DEBUG_GML_HELP
    "  --no-gc     census/thunks/retainers/snapshot/blocks/dups/gml: pause at\n"
    "              once, without a major GC first (no effect on a snapshot)\n"
    "\n"
    "A program that a command paused is resumed when rtscope\n"
    "ends, however it ends; one that was paused already stays paused.\n"
    "exit status: 0 ok, 1 no debuggee or an error reply, 2 usage\n";

extern const cli_command cli_cmd_debug;

/* ---- list ------------------------------------------------------------- */

static int debug_list(void)
{
    char dir[4096];
    if (dbg_socket_dir(dir, sizeof(dir)) != 0)
        return debug_fail("no socket directory (set XDG_DATA_HOME or HOME)");
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0; /* no debuggee ever ran */
        return debug_fail("%s: %s", dir, strerror(errno));
    }
    struct dirent *e;
    printf("%-8s %-24s %-5s %s\n", "PID", "PROGRAM", "STATE", "SOCKET");
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '-' || pid <= 0)
            continue;
        char path[4096 + 256];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        int alive = kill((pid_t)pid, 0) == 0 || errno == EPERM;
        if (alive) {
            dbg_conn c;
            alive = dbg_connect(&c, path) == 0;
            dbg_close(&c);
        }
        printf("%-8ld %-24s %-5s %s\n", pid, end + 1, alive ? "live" : "dead",
               path);
    }
    closedir(d);
    return 0;
}

/* ---- pause / resume --------------------------------------------------- */

static int debug_pause_cmd(const char *target, int pause)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    if (ss.is_snapshot) {
        debug_session_close(&ss);
        return cli_usage_error(&cli_cmd_debug, "%s: a snapshot: %s acts on "
                               "a live program only", target,
                               pause ? "pause" : "resume");
    }
    dbg_conn *c = &ss.conn;
    int already = 0;
    if (pause) {
        if (dbg_stay_paused(c, 1) != 0 || dbg_pause(c, 0, &already) != 0)
            r = debug_fail("%s", c->err);
        else
            printf("%s\n", already ? "already paused" : "paused");
    } else {
        if (dbg_stay_paused(c, 0) != 0 || dbg_resume(c, &already) != 0)
            r = debug_fail("%s", c->err);
        else
            printf("%s\n", already ? "was not paused" : "resumed");
    }
    debug_session_close(&ss);
    return r;
}

/* ---- census ----------------------------------------------------------- */

/* BY_THUNK_SOURCE is `rtscope debug thunks`: thunks only, by source.
 * BY_HEAP_BAND is --heap-census: the bands of a -hT census. */
enum census_by { BY_TYPE, BY_CONSTRUCTOR, BY_INFO, BY_MODULE, BY_THUNK_SOURCE,
                 BY_HEAP_BAND };

/* --heap-census: per block group, whether a census skipped it (a
 * Capability's current pinned block) and whether it was counted. */
#define CENSUS_GROUP_SEEN 1
#define CENSUS_GROUP_UNCENSUSED 2

typedef struct census_acc {
    uint64_t info;
    uint64_t count, bytes;
} census_acc;

typedef struct census_state {
    dbg_u64map index; /* info ptr -> slot + 1 */
    census_acc *acc;
    size_t n, cap;
    int nomem;
    int thunks_only;
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
    uint64_t slot;
    (void)parent;
    if (s->thunks_only &&
        !(c->info->type >= DBG_THUNK && c->info->type <= DBG_THUNK_SELECTOR))
        return 0;
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
    if (!dbg_u64map_get(&s->index, c->info->ptr, &slot)) {
        if (s->n == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 256;
            census_acc *na = realloc(s->acc, nc * sizeof(*na));
            if (!na)
                return s->nomem = 1;
            s->acc = na;
            s->cap = nc;
        }
        s->acc[s->n] = (census_acc){.info = c->info->ptr};
        slot = ++s->n;
        if (dbg_u64map_put(&s->index, c->info->ptr, slot) != 0)
            return s->nomem = 1;
    }
    s->acc[slot - 1].count++;
    s->acc[slot - 1].bytes += c->size;
    return 0;
}

typedef struct census_row {
    char *key;
    uint64_t count, bytes;
} census_row;

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

static char *census_key(dbg_heap *h, uint64_t infoptr, enum census_by by)
{
    dbg_info *in = dbg_heap_info(h, infoptr);
    char buf[1200];
    const char *type = in ? dbg_closure_type_name(in->type) : "UNKNOWN";
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
            else
                snprintf(buf, sizeof(buf), "(no source) 0x%" PRIx64 " %s",
                         infoptr, src ? src[0] : type);
        } else if (by == BY_MODULE) {
            char *const *src = dbg_heap_source(h, in);
            const char *colon = con ? strchr(disp, ':') : NULL;
            const char *last = colon ? strrchr(disp, ':') : NULL;
            if (src && src[4][0])
                snprintf(buf, sizeof(buf), "%s", src[4]);
            else if (colon && last > colon)
                snprintf(buf, sizeof(buf), "%.*s", (int)(last - colon - 1),
                         colon + 1);
            else
                snprintf(buf, sizeof(buf), "(unknown) %s", type);
        } else if (dbg_heap_source(h, in)) {
            /* named as every -hi band is: docs/hi.md, "Band names" */
            char *const *src = dbg_heap_source(h, in);
            ipe_entry e = {.info = infoptr, .table_name = src[0],
                           .closure_desc = src[1], .ty_desc = src[2],
                           .label = src[3], .module = src[4], .srcloc = src[5]};
            char name[1024];
            ipe_display_name(name, sizeof(name), &e);
            snprintf(buf, sizeof(buf), "0x%" PRIx64 " %s %s", infoptr, type,
                     name);
        } else {
            snprintf(buf, sizeof(buf), "0x%" PRIx64 " %s %s", infoptr, type,
                     con ? disp : "-");
        }
    }
    return strdup(buf);
}

static int debug_census(const char *target, enum census_by by, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    dbg_heap *h = &ss.heap;
    census_state s = {.thunks_only = by == BY_THUNK_SOURCE};
    census_row *rows = NULL;
    size_t nrows = 0;
    uint64_t census_ns = 0;
    if (by == BY_HEAP_BAND) {
        /* the pause right after the program's census; then the block
         * groups, to tell heap from static and to find pinned groups */
        uint64_t *skipped = NULL;
        size_t nskipped = 0;
        if (ss.is_snapshot) {
            r = debug_fail("%s: --heap-census needs a live program: it "
                           "pauses right after the program's own census",
                           target);
            goto done;
        }
        if (dbg_pause_census(&ss.conn, &census_ns, &skipped, &nskipped) != 0) {
            int was_paused = strstr(ss.conn.err, "ALREADY_PAUSED") != NULL;
            r = debug_fail("%s", was_paused
                           ? "--heap-census: the program is paused already; "
                             "it must run to take its census (resume it)"
                           : ss.conn.err);
            goto done;
        }
        ss.resume_after = 1;
        r = census_load_blocks(&ss.heap, &s);
        if (r) {
            free(skipped);
            goto done;
        }
        for (size_t i = 0; i < nskipped; i++) {
            long g = dbg_blocks_find(s.blocks, s.nblocks, skipped[i]);
            if (g >= 0)
                s.group[g] |= CENSUS_GROUP_UNCENSUSED;
        }
        free(skipped);
        gc = -1; /* paused: the walk only reads the roots */
    }
    r = debug_session_walk(&ss, gc, census_visit, &s, 0);
    if (r)
        goto done;
    if (s.nomem) {
        r = debug_fail("out of memory");
        goto done;
    }
    rows = calloc(s.n + 1, sizeof(*rows));
    if (!rows) {
        r = debug_fail("out of memory");
        goto done;
    }
    for (size_t i = 0; i < s.n; i++) {
        rows[i].key = census_key(h, s.acc[i].info, by);
        rows[i].count = s.acc[i].count;
        rows[i].bytes = s.acc[i].bytes;
        if (!rows[i].key) {
            r = debug_fail("out of memory");
            nrows = i;
            goto done;
        }
    }
    nrows = s.n;
    if (s.pinned_groups) { /* -hT's pinned blocks: ARR_WORDS, see above */
        census_row *nr = realloc(rows, (nrows + 1) * sizeof(*rows));
        char *k = strdup("ARR_WORDS");
        if (!nr || !k) {
            if (nr)
                rows = nr;
            free(k);
            r = debug_fail("out of memory");
            goto done;
        }
        rows = nr;
        rows[nrows++] = (census_row){k, s.pinned_groups, s.pinned_bytes};
    }
    qsort(rows, nrows, sizeof(*rows), row_by_key);
    size_t m = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (m > 0 && strcmp(rows[m - 1].key, rows[i].key) == 0) {
            rows[m - 1].count += rows[i].count;
            rows[m - 1].bytes += rows[i].bytes;
            free(rows[i].key);
        } else {
            rows[m++] = rows[i];
        }
    }
    nrows = m;
    qsort(rows, nrows, sizeof(*rows), row_by_size);
    uint64_t tc = 0, tb = 0;
    if (by == BY_HEAP_BAND)
        printf("heap census: the program's last heap sample before "
               "%" PRIu64 " ns (eventlog time)\n", census_ns);
    printf("%10s %12s  %s\n", "count", "bytes",
           by == BY_HEAP_BAND ? "band"
           : by == BY_TYPE   ? "type"
           : by == BY_INFO   ? "info"
           : by == BY_MODULE ? "module"
           : by == BY_THUNK_SOURCE ? "thunk source"
                             : "constructor");
    for (size_t i = 0; i < nrows; i++) {
        printf("%10" PRIu64 " %12" PRIu64 "  %s\n", rows[i].count,
               rows[i].bytes, rows[i].key);
        tc += rows[i].count;
        tb += rows[i].bytes;
    }
    printf("total: %" PRIu64 " closures, %" PRIu64 " bytes, from %zu roots\n",
           tc, tb, ss.nroots);
    if (by == BY_HEAP_BAND)
        printf("static: %" PRIu64 " closures, %" PRIu64 " bytes (outside the "
               "heap; no heap census counts them)\n"
               "pinned: %" PRIu64 " block groups, %" PRIu64 " bytes (counted "
               "whole, as ARR_WORDS)\n"
               "uncensused: %" PRIu64 " closures, %" PRIu64 " bytes (in the "
               "capabilities' current pinned blocks, which no heap census "
               "counts)\n",
               s.static_count, s.static_bytes, s.pinned_groups, s.pinned_bytes,
               s.skipped_count, s.skipped_bytes);
    debug_warn_unreadable(h, "counts may be low");
done:
    debug_session_close(&ss);
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].key);
    free(rows);
    free(s.acc);
    free(s.blocks);
    free(s.group);
    dbg_u64map_free(&s.index);
    return r;
}

/* ---- retainers -------------------------------------------------------- */

typedef struct ret_state {
    dbg_heap *h;
    const char *name; /* match by constructor, */
    uint64_t want_info; /* or by info pointer, */
    uint64_t want_addr; /* or by address */
    dbg_u64map parent; /* addr -> parent (0 for a root) */
    dbg_u64map info;   /* addr -> info ptr */
    uint64_t *found;
    size_t nfound, limit;
    int nomem;
} ret_state;

static int ret_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    ret_state *s = ctx;
    if (dbg_u64map_put(&s->parent, c->addr, parent) != 0 ||
        dbg_u64map_put(&s->info, c->addr, c->info->ptr) != 0)
        return s->nomem = 1;
    int match;
    if (s->name) {
        const char *con = dbg_heap_con_descr(s->h, c->info);
        match = con && dbg_con_matches(con, s->name);
    } else if (s->want_info) {
        match = c->info->ptr == s->want_info;
    } else {
        match = c->addr == s->want_addr;
    }
    if (match) {
        s->found[s->nfound++] = c->addr;
        if (s->nfound == s->limit)
            return 1;
    }
    return 0;
}

void debug_print_closure(dbg_heap *h, uint64_t addr, uint64_t infoptr,
                              int root)
{
    dbg_info *in = dbg_heap_info(h, infoptr);
    printf("  0x%012" PRIx64 "  %-14s", addr,
           in ? dbg_closure_type_name(in->type) : "UNKNOWN");
    const char *con = in ? dbg_heap_con_descr(h, in) : NULL;
    if (con) {
        char disp[1024];
        dbg_con_display(con, disp, sizeof(disp));
        printf("  %s", disp);
    }
    char *const *src = in ? dbg_heap_source(h, in) : NULL;
    if (src && (src[4][0] || src[5][0])) {
        printf("  at");
        if (src[4][0])
            printf(" %s", src[4]);
        if (src[5][0])
            printf(" %s", src[5]);
    }
    if (root)
        printf("  (root)");
    printf("\n");
}

/* The path from a root to `addr`, target first, into *path (realloc'd).
 * Returns its length, 0 when out of memory. */
size_t debug_retainer_path(const dbg_u64map *parent, uint64_t addr,
                       uint64_t **path)
{
    size_t n = 0, cap = 0;
    for (uint64_t a = addr; a;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            uint64_t *np = realloc(*path, cap * sizeof(*np));
            if (!np)
                return 0;
            *path = np;
        }
        (*path)[n++] = a;
        uint64_t p = 0;
        dbg_u64map_get(parent, a, &p);
        a = p;
    }
    return n;
}

static int debug_retainers(const char *target, const char *name,
                           uint64_t info, uint64_t addr, size_t limit, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    uint64_t *path = NULL;
    dbg_heap *h = &ss.heap;
    ret_state s = {.h = h, .name = name, .want_info = info,
                   .want_addr = addr & ~(uint64_t)7, .limit = limit};
    s.found = calloc(limit, sizeof(*s.found));
    if (!s.found) {
        r = debug_fail("out of memory");
        goto done;
    }
    r = debug_session_walk(&ss, gc, ret_visit, &s, 0);
    if (r)
        goto done;
    if (s.nomem) {
        r = debug_fail("out of memory");
        goto done;
    }
    if (s.nfound == 0) {
        if (name)
            printf("no closure of constructor %s is reachable\n", name);
        else
            printf("no closure %s 0x%" PRIx64 " is reachable\n",
                   info ? "with info table" : "at", info ? info : addr);
        goto done;
    }
    for (size_t k = 0; k < s.nfound; k++) {
        size_t n = debug_retainer_path(&s.parent, s.found[k], &path);
        if (n == 0) {
            r = debug_fail("out of memory");
            goto done;
        }
        printf("path %zu: %zu closures, root first\n", k + 1, n);
        for (size_t i = n; i-- > 0;) {
            uint64_t iptr = 0;
            dbg_u64map_get(&s.info, path[i], &iptr);
            debug_print_closure(h, path[i], iptr, i == n - 1);
        }
    }
done:
    debug_session_close(&ss);
    free(path);
    free(s.found);
    dbg_u64map_free(&s.parent);
    dbg_u64map_free(&s.info);
    return r;
}

/* ---- dispatch --------------------------------------------------------- */

static int debug_run(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(&cli_cmd_debug, "missing a debug command");
    const char *sub = argv[1];
    if (strcmp(sub, "blocks") == 0)
        return debug_blocks_run(argc - 1, argv + 1);
    if (strcmp(sub, "dups") == 0)
        return debug_dups_run(argc - 1, argv + 1);
    if (strcmp(sub, "gml") == 0)
        return debug_gml_run(argc - 1, argv + 1);
    static const struct option longopts[] = {
        {"by", required_argument, NULL, 'b'},
        {"constructor", required_argument, NULL, 'c'},
        {"limit", required_argument, NULL, 'l'},
        {"no-gc", no_argument, NULL, 'n'},
        {"info", required_argument, NULL, 'i'},
        {"address", required_argument, NULL, 'a'},
        {"output", required_argument, NULL, 'o'},
        {"no-blocks", no_argument, NULL, 'B'},
        {"heap-census", no_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    enum census_by by = BY_CONSTRUCTOR;
    const char *name = NULL;
    uint64_t info = 0, addr = 0;
    int nsel = 0;
    long limit = 1;
    int gc = 1, ch, blocks = 1, heap_census = 0;
    const char *out = NULL;
    optind = 1;
    argc--;
    argv++;
    while ((ch = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'b':
            if (strcmp(optarg, "type") == 0)
                by = BY_TYPE;
            else if (strcmp(optarg, "constructor") == 0)
                by = BY_CONSTRUCTOR;
            else if (strcmp(optarg, "info") == 0)
                by = BY_INFO;
            else if (strcmp(optarg, "module") == 0)
                by = BY_MODULE;
            else
                return cli_usage_error(&cli_cmd_debug,
                                       "--by %s: use type, constructor, info or module",
                                       optarg);
            break;
        case 'c':
            name = optarg;
            nsel++;
            break;
        case 'i':
        case 'a': {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 16);
            if (*end || v == 0)
                return cli_usage_error(&cli_cmd_debug, "--%s %s: not an "
                                       "address", ch == 'i' ? "info" : "address",
                                       optarg);
            if (ch == 'i')
                info = v;
            else
                addr = v;
            nsel++;
            break;
        }
        case 'l':
            if (debug_parse_count(optarg, 1, 1000000, &limit) != 0)
                return cli_usage_error(&cli_cmd_debug, "--limit %s: not a "
                                       "positive number", optarg);
            break;
        case 'n':
            gc = 0;
            break;
        case 'o':
            out = optarg;
            break;
        case 'B':
            blocks = 0;
            break;
        case 'H':
            heap_census = 1;
            break;
        default:
            return cli_usage_error(&cli_cmd_debug, "bad option");
        }
    }
    int nargs = argc - optind;
    const char *target = nargs >= 1 ? argv[optind] : NULL;
    if (strcmp(sub, "list") == 0) {
        if (nargs != 0)
            return cli_usage_error(&cli_cmd_debug, "list takes no TARGET");
        return debug_list();
    }
    if (strcmp(sub, "pause") != 0 && strcmp(sub, "resume") != 0 &&
        strcmp(sub, "census") != 0 && strcmp(sub, "retainers") != 0 &&
        strcmp(sub, "thunks") != 0 && strcmp(sub, "snapshot") != 0)
        return cli_usage_error(&cli_cmd_debug, "'%s' is not a debug command",
                               sub);
    if (nargs != 1)
        return cli_usage_error(&cli_cmd_debug, "%s needs one TARGET", sub);
    if (strcmp(sub, "pause") == 0)
        return debug_pause_cmd(target, 1);
    if (strcmp(sub, "resume") == 0)
        return debug_pause_cmd(target, 0);
    if (strcmp(sub, "census") == 0) {
        if (heap_census && (!gc || by != BY_CONSTRUCTOR))
            return cli_usage_error(&cli_cmd_debug, "--heap-census has its own "
                                   "pause and bands: no --no-gc or --by");
        return debug_census(target, heap_census ? BY_HEAP_BAND : by, gc);
    }
    if (strcmp(sub, "thunks") == 0)
        return debug_census(target, BY_THUNK_SOURCE, gc);
    if (strcmp(sub, "snapshot") == 0) {
        if (!out)
            return cli_usage_error(&cli_cmd_debug, "snapshot needs -o FILE");
        return debug_snapshot_run(target, out, gc, blocks);
    }
    if (nsel != 1)
        return cli_usage_error(&cli_cmd_debug, "retainers needs one of "
                               "--constructor NAME, --info ADDR, --address ADDR");
    return debug_retainers(target, name, info, addr, (size_t)limit, gc);
}

const cli_command cli_cmd_debug = {
    "debug",
    "inspect a running program's heap through its debug stub",
    debug_usage,
    debug_run,
};
