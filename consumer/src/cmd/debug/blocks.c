/* rtscope debug blocks: block statistics of a paused heap and the
 * pinned-block utilisation histogram of ghc-debug's fragmentation post.
 * Pinned objects (byte arrays allocated pinned, e.g. ByteStrings) never
 * move, so a pinned block stays allocated while any object in it lives:
 * a few survivors keep many mostly-empty blocks (and their megablocks)
 * alive. Utilisation is the bytes of reachable objects in a pinned block
 * group over the group's size; the emptiest groups' objects are shown
 * with a retainer path each, to find what keeps them. */
#define _GNU_SOURCE
#include "cli.h"
#include "debug.h"
#include "rtscope/debug/debug_blocks.h"
#include "session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS_BUCKETS 10
#define BLOCKS_OBJECTS_SHOWN 3 /* objects shown per sampled block */

typedef struct pin_obj {
    uint64_t addr, info;
    uint32_t size;
    uint32_t group; /* index into the pinned groups */
} pin_obj;

typedef struct pin_group {
    uint64_t live; /* bytes of reachable objects */
    uint64_t nobj;
} pin_group;

typedef struct blocks_state {
    dbg_heap *h;
    dbg_block *all; /* every block group, sorted */
    size_t nall;
    int have_blocks;   /* the list was read (at the first visit) */
    char err[600];     /* why it could not be */
    dbg_block *pinned; /* pinned groups, sorted */
    size_t npinned;
    pin_group *groups;
    pin_obj *objs;
    size_t nobjs, capobjs;
    hmap parent, info; /* for retainer paths */
    uint64_t heap_bytes;
    int nomem;
} blocks_state;

/* The block list, read at the first visit: the heap is paused (or a
 * snapshot) from then to the end of the walk, so it is the list of the
 * heap walked. 0, or -1 with s->err set. */
static int blocks_load(blocks_state *s)
{
    s->have_blocks = 1;
    if (dbg_heap_blocks(s->h, &s->all, &s->nall) != 0) {
        snprintf(s->err, sizeof(s->err), "no block list: %s", s->h->err);
        return -1;
    }
    if (dbg_blocks_sort_check(s->all, s->nall, s->err, sizeof(s->err)) != 0)
        return -1;
    s->pinned = calloc(s->nall ? s->nall : 1, sizeof(*s->pinned));
    s->groups = calloc(s->nall ? s->nall : 1, sizeof(*s->groups));
    if (!s->pinned || !s->groups) {
        snprintf(s->err, sizeof(s->err), "out of memory");
        return -1;
    }
    for (size_t i = 0; i < s->nall; i++)
        if (s->all[i].flags & DBG_BF_PINNED)
            s->pinned[s->npinned++] = s->all[i];
    return 0;
}

static int blocks_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    blocks_state *s = ctx;
    if (!s->have_blocks && blocks_load(s) != 0)
        return 1; /* stop the walk */
    if (hmap_put(&s->parent, c->addr, parent) != 0 ||
        hmap_put(&s->info, c->addr, c->info->ptr) != 0)
        return s->nomem = 1;
    s->heap_bytes += c->size;
    long g = dbg_blocks_find(s->pinned, s->npinned, c->addr);
    if (g < 0)
        return 0;
    s->groups[g].live += c->size;
    s->groups[g].nobj++;
    if (s->nobjs == s->capobjs) {
        size_t nc = s->capobjs ? s->capobjs * 2 : 1024;
        pin_obj *no = realloc(s->objs, nc * sizeof(*no));
        if (!no)
            return s->nomem = 1;
        s->objs = no;
        s->capobjs = nc;
    }
    s->objs[s->nobjs++] = (pin_obj){.addr = c->addr,
                                    .info = c->info->ptr,
                                    .size = c->size,
                                    .group = (uint32_t)g};
    return 0;
}

static int obj_by_group(const void *a, const void *b)
{
    const pin_obj *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void print_size(uint64_t bytes)
{
    if (bytes >= (uint64_t)10 << 20)
        printf("%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    else
        printf("%.1f KiB", (double)bytes / 1024.0);
}

static int bucket_of(uint64_t live, uint64_t size)
{
    if (size == 0) /* never: the list was checked */
        return 0;
    int b = (int)(live * BLOCKS_BUCKETS / size);
    return b >= BLOCKS_BUCKETS ? BLOCKS_BUCKETS - 1 : b;
}

/* A retainer path (path[n-1] is the root), root first, with the info
 * tables the walk recorded. */
static void blocks_print_path(dbg_heap *h, const hmap *info,
                              const uint64_t *path, size_t n)
{
    uint64_t *infos = malloc((n ? n : 1) * sizeof(*infos));
    if (!infos)
        return;
    for (size_t i = 0; i < n; i++) {
        infos[i] = 0;
        hmap_get(info, path[i], &infos[i]);
    }
    debug_print_path(stdout, h, path, infos, n);
    free(infos);
}

/* Indices of the `want` emptiest pinned groups holding objects, emptiest
 * first, into pick (length returned). */
static size_t pick_emptiest(const blocks_state *s, size_t want, size_t *pick)
{
    size_t n = 0;
    for (size_t g = 0; g < s->npinned; g++) {
        if (!s->groups[g].nobj)
            continue;
        /* insertion into a sorted list of at most `want` */
        size_t i = n < want ? n++ : want;
        while (i > 0) {
            size_t q = pick[i - 1];
            double ug = (double)s->groups[g].live / (double)s->pinned[g].size;
            double uq = (double)s->groups[q].live / (double)s->pinned[q].size;
            if (ug >= uq)
                break;
            if (i < want)
                pick[i] = q;
            i--;
        }
        if (i < want)
            pick[i] = g;
    }
    return n;
}

static void blocks_print_histogram(const uint64_t *hist,
                                   const uint64_t *hist_bytes, size_t empty)
{
    printf("\npinned block utilisation (reachable bytes / block size):\n");
    uint64_t most = 0;
    for (int b = 0; b < BLOCKS_BUCKETS; b++)
        if (hist[b] > most)
            most = hist[b];
    for (int b = 0; b < BLOCKS_BUCKETS; b++) {
        printf("  %3d-%3d%%  %8" PRIu64 " groups %10" PRIu64 " bytes  ", b * 10,
               b * 10 + 10, hist[b], hist_bytes[b]);
        int bar = most ? (int)((hist[b] * 40 + most - 1) / most) : 0;
        for (int i = 0; i < bar; i++)
            putchar('#');
        putchar('\n');
    }
    if (empty)
        printf("  (%zu pinned groups hold no reachable object)\n", empty);
}

/* The block groups, blocks and megablocks, the pinned groups and how full
 * they are. */
static void blocks_print_summary(const blocks_state *s)
{
    const dbg_block *all = s->all;
    size_t nall = s->nall;
    uint64_t blocks = 0, bytes = 0, pin_blocks = 0, pin_bytes = 0, pin_live = 0,
             large = 0, compact = 0;
    for (size_t i = 0; i < nall; i++) {
        blocks += all[i].size / DBG_BLOCK_SIZE;
        bytes += all[i].size;
        if (all[i].flags & DBG_BF_COMPACT)
            compact++;
        else if ((all[i].flags & DBG_BF_LARGE) &&
                 !(all[i].flags & DBG_BF_PINNED))
            large++;
    }
    uint64_t hist[BLOCKS_BUCKETS] = {0}, hist_bytes[BLOCKS_BUCKETS] = {0};
    size_t empty = 0;
    for (size_t g = 0; g < s->npinned; g++) {
        pin_blocks += s->pinned[g].size / DBG_BLOCK_SIZE;
        pin_bytes += s->pinned[g].size;
        pin_live += s->groups[g].live;
        int b = bucket_of(s->groups[g].live, s->pinned[g].size);
        hist[b]++;
        hist_bytes[b] += s->pinned[g].size;
        if (!s->groups[g].nobj)
            empty++;
    }
    printf("block groups   %zu\n", nall);
    printf("blocks         %" PRIu64 " (", blocks);
    print_size(bytes);
    printf(")\n");
    printf("megablocks     %zu\n", dbg_blocks_mblocks(all, nall));
    printf("large objects  %" PRIu64 " groups (unpinned)\n", large);
    if (compact)
        printf("compact        %" PRIu64 " groups\n", compact);
    printf("pinned blocks  %" PRIu64 " in %zu groups (", pin_blocks,
           s->npinned);
    print_size(pin_bytes);
    printf("), live ");
    print_size(pin_live);
    printf(" (%.1f%%)\n",
           pin_bytes ? 100.0 * (double)pin_live / (double)pin_bytes : 0.0);
    printf("reachable      %" PRIu64 " bytes in all blocks and static data\n",
           s->heap_bytes);
    blocks_print_histogram(hist, hist_bytes, empty);
}

/* An object of a pinned block and its retainer path (*path: scratch,
 * realloc'd); -1 when out of memory. */
static int blocks_print_object(dbg_heap *h, const blocks_state *s,
                               const pin_obj *o, uint64_t **path)
{
    dbg_info *in = dbg_heap_info(h, o->info);
    printf("object 0x%012" PRIx64 "  %s  %" PRIu32 " bytes  info 0x%" PRIx64,
           o->addr, in ? ghc_closure_type_name(in->type) : "UNKNOWN", o->size,
           o->info);
    const char *con = in ? dbg_heap_con_descr(h, in) : NULL;
    if (con) {
        char disp[1024];
        dbg_con_display(con, disp, sizeof(disp));
        printf("  %s", disp);
    }
    char *const *src = in ? dbg_heap_source(h, in) : NULL;
    if (src && src[0][0])
        printf("  %s", src[0]);
    if (src && (src[4][0] || src[5][0]))
        printf("  at%s%s%s%s", src[4][0] ? " " : "", src[4],
               src[5][0] ? " " : "", src[5]);
    printf("\n");
    size_t n = debug_retainer_path(&s->parent, o->addr, path);
    if (n == 0)
        return -1;
    printf("retainer path: %zu closures, root first\n", n);
    blocks_print_path(h, &s->info, *path, n);
    return 0;
}

/* The `sample` emptiest pinned blocks, each with its objects (the first
 * BLOCKS_OBJECTS_SHOWN) and what keeps them; -1 when out of memory. */
static int blocks_print_emptiest(dbg_heap *h, blocks_state *s, size_t sample)
{
    size_t *pick = calloc(sample, sizeof(*pick));
    uint64_t *path = NULL;
    int r = 0;
    if (!pick)
        return -1;
    size_t npick = pick_emptiest(s, sample, pick);
    qsort(s->objs, s->nobjs, sizeof(*s->objs), obj_by_group);
    printf("\nemptiest pinned blocks (%zu), their objects and what keeps "
           "them:\n",
           npick);
    for (size_t k = 0; r == 0 && k < npick; k++) {
        size_t g = pick[k];
        const dbg_block *b = &s->pinned[g];
        printf("\nblock 0x%012" PRIx64 "  %" PRIu64 " bytes, %" PRIu64
               " live (%.1f%%), %" PRIu64 " object%s\n",
               b->start, (uint64_t)b->size, s->groups[g].live,
               100.0 * (double)s->groups[g].live / (double)b->size,
               s->groups[g].nobj, s->groups[g].nobj == 1 ? "" : "s");
        /* the group's objects: binary search for the first */
        size_t lo = 0, hi = s->nobjs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->objs[mid].group < g)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo, shown = 0;
             r == 0 && i < s->nobjs && s->objs[i].group == g; i++, shown++) {
            if (shown == BLOCKS_OBJECTS_SHOWN) {
                printf("  ... %" PRIu64 " more\n",
                       s->groups[g].nobj - BLOCKS_OBJECTS_SHOWN);
                break;
            }
            r = blocks_print_object(h, s, &s->objs[i], &path);
        }
    }
    free(pick);
    free(path);
    return r;
}

static int blocks_report(dbg_heap *h, blocks_state *s, size_t sample)
{
    blocks_print_summary(s);
    if (sample == 0 || s->nobjs == 0)
        return 0;
    return blocks_print_emptiest(h, s, sample);
}

static int debug_blocks(const char *target, size_t sample, int gc)
{
    debug_session ss;
    int r = debug_session_open(&ss, target);
    if (r)
        return r;
    blocks_state s = {.h = &ss.heap};
    r = debug_session_walk(&ss, gc, blocks_visit, &s, 0);
    if (r)
        goto done;
    if (!s.have_blocks) /* no closure visited: read it now */
        blocks_load(&s);
    if (s.err[0]) {
        r = debug_fail("%s: %s", target, s.err);
        goto done;
    }
    if (s.nomem) {
        r = debug_fail("out of memory");
        goto done;
    }
    if (blocks_report(&ss.heap, &s, sample) != 0)
        r = debug_fail("out of memory");
    debug_warn_unreadable(&ss.heap, "utilisation may be low");
done:
    debug_session_close(&ss);
    free(s.all);
    free(s.pinned);
    free(s.groups);
    free(s.objs);
    hmap_free(&s.parent);
    hmap_free(&s.info);
    return r;
}

/* What `debug blocks` is given. */
typedef struct blocks_args {
    long sample;
} blocks_args;

static const opt blocks_opts[] = {
    {.name = "sample",
     .kind = OPT_COUNT,
     .argname = "N",
     .max = 100000,
     .value = OPT_AT(blocks_args, sample),
     .help = "show the objects of the N emptiest pinned blocks\n"
             "(default 3; 0 for none)",
     .bad = "not a number of blocks"},
    OPT_END,
};

int debug_blocks_run(int argc, char **argv)
{
    blocks_args ba = {.sample = 3};
    debug_args a;
    int r = debug_parse_args(&debug_cmd_blocks, argc, argv, &ba, 1, &a);
    return r >= 0 ? r : debug_blocks(a.target[0], (size_t)ba.sample, a.gc);
}

static const char debug_blocks_help[] =
    "  blocks      pause (after a major GC), read the heap's block list and\n"
    "              walk the heap: block groups, blocks, megablocks, pinned\n"
    "              blocks, and a histogram of pinned-block utilisation (bytes\n"
    "              of reachable objects / block size, 10% buckets); then the\n"
    "              objects of the emptiest pinned blocks, each with a\n"
    "              retainer path\n";

static const char debug_blocks_example[] =
    "              e.g.  pinned blocks  1210 in 1204 groups (4840.0 KiB),\n"
    "                    live 174.0 KiB (3.6%)\n"
    "                      0- 10%      1200 groups    4915200 bytes  ####\n";

const debug_command debug_cmd_blocks = {
    .name = "blocks",
    .synopsis = "rtscope debug blocks TARGET [--sample N] [--no-gc|--fork]\n",
    .help = debug_blocks_help,
    .opts = blocks_opts,
    .example = debug_blocks_example,
    .no_gc = 1,
    .run = debug_blocks_run,
};
