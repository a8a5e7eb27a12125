/* cmd_debug.h: what the `rtscope debug` subcommands share beyond
 * debug_session.h. cmd_debug.c holds the dispatch and
 * list/pause/resume/census/thunks/retainers; the heavier analyses
 * (blocks, dups, gml) have a file each and print retainer paths with the
 * helpers below. */
#ifndef RTSCOPE_CMD_DEBUG_H
#define RTSCOPE_CMD_DEBUG_H

#include "debug_heap.h"

#include <stddef.h>
#include <stdint.h>

/* One line of a retainer path: address, closure type, constructor,
 * source; "(root)" when root. */
void debug_print_closure(dbg_heap *h, uint64_t addr, uint64_t infoptr,
                         int root);
/* The path from a root to `addr` through the first-reached parents
 * (addr -> parent, 0 for a root), target first, into *path (realloc'd).
 * Returns its length, 0 when out of memory. */
size_t debug_retainer_path(const dbg_u64map *parent, uint64_t addr,
                           uint64_t **path);

/* The subcommands in their own files; argv[0] is the subcommand. */
int debug_blocks_run(int argc, char **argv);
int debug_dups_run(int argc, char **argv);
int debug_gml_run(int argc, char **argv);

#define DEBUG_BLOCKS_HELP                                                     \
    "  blocks      pause (after a major GC), read the heap's block list and\n" \
    "              walk the heap: block groups, blocks, megablocks, pinned\n" \
    "              blocks, and a histogram of pinned-block utilisation (bytes\n" \
    "              of reachable objects / block size, 10% buckets); then the\n" \
    "              objects of the emptiest pinned blocks, each with a\n"   \
    "              retainer path\n"                                        \
    "    --sample N         show the objects of the N emptiest pinned blocks\n" \
    "                       (default 3; 0 for none)\n"                    \
    "              e.g.  pinned blocks  1210 in 1204 groups (4840.0 KiB),\n" \
    "                    live 174.0 KiB (3.6%)\n"                          \
    "                      0- 10%      1200 groups    4915200 bytes  ####\n"
#define DEBUG_DUPS_HELP                                                       \
    "  dups        identical immutable closures (same info table, same\n"   \
    "              payload): constructors, frozen arrays and byte arrays\n" \
    "              that could be one shared closure, by bytes wasted\n"      \
    "              ((count - 1) * size), with constructor and source\n"      \
    "    --limit N          at most N groups (default 20)\n"              \
    "              e.g.       count     size       wasted  closure\n"    \
    "                           500       24        11976  CONSTR_2_0\n"  \
    "                    main:Main:Dup  at Main Fragment.hs:27:12-22 ...\n"
#define DEBUG_GML_HELP                                                        \
    "  gml         write the type-points-from graph in GML: a node per\n"   \
    "              constructor or closure type (count, bytes), an edge A -> B\n" \
    "              with the number of pointers from A closures to B closures\n" \
    "    -o FILE            the output file (- for standard output)\n"   \
    "              e.g.  node [ id 111 label \"main:Main:Kept\"\n"          \
    "                      kind \"constructor\" count 1200 bytes 28800 ]\n" \
    "                    edge [ source 111 target 92 count 1200 ]  (-> PS)\n"

#endif
