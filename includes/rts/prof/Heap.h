/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Heap-census control (GHC 9.2's API), for programs running with a heap
 * profile (+RTS -h...).  Without one these do nothing.
 *
 * Do not #include this file directly: #include "Rts.h" instead.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

/* Take a heap census (one heap-profile sample) at the next opportunity:
 * when a Haskell thread next returns to the scheduler. */
void requestHeapCensus ( void );

/* Start taking samples every -i interval (the default at start-up unless
 * +RTS --no-automatic-heap-samples). */
void startHeapProfTimer ( void );

/* Stop taking samples automatically; requestHeapCensus still works. */
void stopHeapProfTimer ( void );
