/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's pointer maps of stacks and applications
 * (rts/DebugStubLayout.c, Note [Pointer maps]).
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

// Closures whose pointers the info table alone does not tell: STACK,
// AP_STACK, PAP, AP.
bool stubNeedsPointerMap (StgHalfWord type);

// The pointer map of the verified closure at p, `size` words long: one
// byte per word into map (DEBUG_STUB_WORD_*). NULL, or why the map stops
// where it does (a static string, or one written into buf).
const char *stubPointerMap (StgWord p, StgWord size, uint8_t *map,
                            char *buf, size_t buflen);

// The pointer fields of the verified closure at p (`size` words; map its
// pointer map or NULL), at most max of them, into out; their number.
size_t stubPointersOf (StgWord p, StgWord size, const uint8_t *map,
                       StgWord *out, size_t max);

#include "EndPrivate.h"

