/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * listAllBlocks(): every place where the storage manager keeps blocks, as
 * in GHC 9.2 (declared in includes/rts/storage/GC.h).
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#include "Capability.h"
#include "Storage.h"
#include "GCThread.h"

/* Note [Listing all blocks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * listAllBlocks(cb, user) calls cb once per *list* of block groups, with
 * the head of the list (possibly NULL); the groups of a list are linked
 * through bd->link. The lists are those of 9.2: per generation the
 * blocks, large objects, compact objects and compacts being imported, per
 * Capability and generation the mutable list and the GC workspace lists,
 * the nurseries, and per Capability the current and the filled pinned
 * blocks. As in 9.2 the blocks of the non-moving heap (+RTS -xn) are not
 * listed, nor are the second and later blocks of a compact region (they
 * hang off the region's StgCompactNFDataBlock chain, not off bd->link).
 *
 * The caller must have paused the RTS; nothing here takes a lock.
 */

void
listAllBlocks (ListBlocksCb cb, void *user)
{
    uint32_t g, i;

    for (g = 0; g < RtsFlags.GcFlags.generations; g++) {
        for (i = 0; i < n_capabilities; i++) {
            cb(user, capabilities[i]->mut_lists[g]);
            cb(user, gc_threads[i]->gens[g].part_list);
            cb(user, gc_threads[i]->gens[g].scavd_list);
            cb(user, gc_threads[i]->gens[g].todo_bd);
        }
        cb(user, generations[g].blocks);
        cb(user, generations[g].large_objects);
        cb(user, generations[g].compact_objects);
        cb(user, generations[g].compact_blocks_in_import);
    }

    for (i = 0; i < n_nurseries; i++) {
        cb(user, nurseries[i].blocks);
    }

    for (i = 0; i < n_capabilities; i++) {
        if (capabilities[i]->pinned_object_block != NULL) {
            cb(user, capabilities[i]->pinned_object_block);
        }
        cb(user, capabilities[i]->pinned_object_blocks);
    }
}
