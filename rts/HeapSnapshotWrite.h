/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Writing a heap snapshot file (rts/HeapSnapshotWrite.c), in the format of
 * includes/rts/HeapSnapshotFormat.h, from the writer process's walk.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "HeapSnapshotWalk.h"

#include "BeginPrivate.h"

typedef struct {
    StgWord closures;       // closures written
    StgWord heap_bytes;     // their bytes
    StgWord file_bytes;     // the file's length
    StgWord unreadable;     // closures reached that could not be read
} SnapWriteStats;

/* Write the snapshot of w's heap to fd (an empty file, opened for writing),
 * taken of process pid at time `when`. 0, or an errno value (the first
 * failure; fd's contents are then undefined). */
int snapWriteFile (int fd, const SnapWalk *w, pid_t pid, StgWord64 when,
                   SnapWriteStats *st);

#include "EndPrivate.h"
