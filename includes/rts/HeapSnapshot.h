/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Heap snapshots the program takes of itself (+RTS --heap-snapshot-*):
 * the public request. See Note [Heap snapshots] in rts/HeapSnapshot.c and
 * docs/debug.md ("After the crash").
 *
 * ---------------------------------------------------------------------------*/

#pragma once

/* Ask for one snapshot of the reachable heap, written by a child process
 * to the directory +RTS --heap-snapshot-dir names (default: the working
 * directory) as <prog>.<pid>.<n>.api.rsnap. Returns at once; the program
 * stops only for the fork, soon after. If a snapshot is being written,
 * the request is refused with a message on stderr. Call it from a safe
 * foreign call or a thread of its own, not from an unsafe call. */
void rts_requestHeapSnapshot(void);
