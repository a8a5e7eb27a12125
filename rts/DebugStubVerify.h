/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * What the debug stub may read: the heap blocks and static segments it can
 * verify. See Note [Verified reads] in DebugStubVerify.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* A readable range: a heap block group (bd != NULL) or a loaded object's
 * segment (bd == NULL). */
typedef struct {
    StgWord start;
    StgWord end;        /* exclusive */
    bdescr *bd;         /* group head, or NULL for a static segment */
} StubRegion;

/* Start a new pause: forget the heap index (rebuilt on first use, the
 * heap having changed since the last pause) and re-read the segments of
 * the loaded objects. Call with the RTS paused. */
void stubVerifyNewPause (void);

/* Forget everything (the RTS is about to run again). */
void stubVerifyEndPause (void);

/* The heap block group holding p, if any. */
bool stubHeapRegion (StgWord p, StubRegion *out);

/* The static segment holding p, if any (exec: executable ones only). */
bool stubStaticRegion (StgWord p, bool exec, StubRegion *out);

/* Whether [p, p+len) lies in one verified region. */
bool stubReadable (StgWord p, StgWord len);

/* The info table an info pointer (as found in a closure header) denotes,
 * if it lies in an executable segment with `bytes` bytes of table before
 * it and has a valid closure type; NULL (and *why) otherwise. */
const StgInfoTable *stubInfoTable (StgWord info_ptr, StgWord bytes,
                                   const char **why);

/* The size in words of the closure at p (untagged), or 0 (and *why) if p
 * is not a closure the stub can verify. */
StgWord stubClosureSizeW (StgWord p, const char **why);

/* Every heap block group, sorted by address, each once: as an array
 * (valid until the next stubVerifyNewPause), or one by one. */
const StubRegion *stubHeapRegions (size_t *n);

/* The index in stubHeapRegions() of the block group holding p, or -1. */
ssize_t stubHeapRegionIndex (StgWord p);
typedef void (*StubBlockFn) (void *user, const StubRegion *r);
void stubForEachBlock (StubBlockFn fn, void *user);

/* A NUL-terminated string at s inside a static segment: its length, or -1. */
long stubStaticStrlen (StgWord s);

/* The constructor info table at info pointer ptr, verified (false and
 * *why if it is not one). */
bool stubConInfo (StgWord ptr, const StgInfoTable **out, const char **why);

/* The SRT of the info table at info pointer ptr (0 if it has none);
 * false and *why if the table cannot be verified. */
bool stubSrtOf (StgWord ptr, StgWord *out, const char **why);

#include "EndPrivate.h"
