/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Compressing heap snapshots with the system's libzstd, loaded at run time.
 * See Note [Compressed sections] in HeapSnapshotZstd.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

typedef struct SnapZstd_ SnapZstd;

// In the program, before a writer is forked: load libzstd once. False if
// it cannot be had (the writer then writes raw blocks).
bool snapZstdLoad (void);

// In the writer: a compressor, or NULL (not loaded, or out of memory).
SnapZstd *snapZstdNew (void);
void snapZstdFree (SnapZstd *z);

typedef void (*SnapZstdOut) (void *ctx, const void *p, size_t n);

// A frame of `raw` content bytes begins; its bytes are given to put, the
// last call with end. Compressed bytes go to out(ctx). False on an error
// of libzstd's (its name in *why).
bool snapZstdBegin (SnapZstd *z, StgWord64 raw, const char **why);
bool snapZstdPut (SnapZstd *z, const void *p, size_t n, bool end,
                  SnapZstdOut out, void *ctx, const char **why);

#include "EndPrivate.h"
