/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The heap snapshot writer's walk (rts/HeapSnapshotWalk.c): what is
 * reachable from the roots, in address order. Runs in the writer process
 * (Note [Heap snapshots] in HeapSnapshot.c), whose heap nothing changes.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

typedef struct SnapWalk_ SnapWalk;

/* Walk the heap from the roots: the debug stub's ROOTS, then its saved
 * objects. NULL (and *why) when memory runs out. */
SnapWalk *snapWalk (const char **why);
void snapWalkFree (SnapWalk *w);

/* The roots, in the stub's order. */
const StgWord *snapRoots (const SnapWalk *w, size_t *n);

/* The info pointers met (of closures and of stack frames), sorted, each
 * once. */
const StgWord *snapInfos (const SnapWalk *w, size_t *n);

/* Closures the walk reached but could not read (the stub's verification
 * refused them). */
StgWord snapUnreadable (const SnapWalk *w);

/* Every closure reached, in address order, with its size in words. */
typedef bool (*SnapClosureFn) (void *user, StgWord p, StgWord size);
bool snapForEachClosure (const SnapWalk *w, SnapClosureFn fn, void *user);

#include "EndPrivate.h"
