/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * RTS flags for eventlog flushing and heap-census control (GHC 9.2
 * spellings).  They live here rather than in RTS_FLAGS because base reads
 * RTS_FLAGS at fixed offsets: its layout must not change.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

typedef struct _FLUSH_FLAGS {
    Time eventlogFlushTime;     // --eventlog-flush-interval=SECS; 0: off
    bool nullEventlogWriter;    // --null-eventlog-writer
    bool automaticHeapSamples;  // false with --no-automatic-heap-samples
} FLUSH_FLAGS;

extern FLUSH_FLAGS FlushFlags;

/* Recognise one of the flags above.  arg is the whole argument, "--..."
 * included.  Returns false if arg is not one of them; otherwise sets the
 * flag, or reports a bad value with errorBelch() and sets *error. */
bool parseFlushFlag(const char *arg, bool *error);
bool flushFlagIsUnsafe(const char *arg);

#include "EndPrivate.h"
