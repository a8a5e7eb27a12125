/* The heap layouts of the GHCs rtscope reads: include/rtscope/debug/
 * debug_layout.h. */
#include "rtscope/debug/debug_layout.h"

#include <stddef.h>

/* Note [One table a GHC]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The decoder, the walk, the snapshot reader and the explorer read a
 * closure's words where the stub's pointer map and info table do not say
 * what they are: the fields of a thread (StgTSO). That is what differs
 * between GHC 9.0.2 and 9.6.6 on x86_64
 * (the word numbers are each tree's DerivedConstants.h OFFSET_StgTSO_*
 * over 8, plus the header word):
 *
 *   9.6 adds StgTSO.label (an ARR_WORDS the GC follows) after trec, so
 *   blocked_exceptions and bq move one word on; it drops the Windows I/O
 *   manager's BlockedOnIOCompletion (15) from what the GC follows. (It also
 *   adds closure type 64, CONTINUATION, a captured chunk of stack, which
 *   the stub sends with a pointer map as it does a STACK: the decoder
 *   reads it on any GHC, as 9.0.2 never has one.)
 *
 * Everything else the decoder names (thunks, applications, arrays, MVars,
 * TVars, weak pointers, STM records, stacks, block descriptors) is laid
 * out the same in both. Each GHC's facts are one row below; code asks the
 * heap's row (dbg_heap.layout), never a version number.
 */

#define WHY(v) (1u << (v))

static const dbg_layout layouts[] = {
    {902,
     "9.0.2",
     {.link = 1,
      .global_link = 2,
      .stackobj = 3,
      .block_info = 5,
      .trec = 10,
      .label = 0,
      .blocked_exceptions = 11,
      .bq = 12,
      .what_next_at = 32,
      .why_blocked_at = 34,
      .id_at = 48,
      /* NotBlocked, BlockedOnMVar, BlockedOnBlackHole, BlockedOnMsgThrowTo,
       * BlockedOnMVarRead, BlockedOnIOCompletion */
      .why_closure = WHY(0) | WHY(1) | WHY(2) | WHY(12) | WHY(14) | WHY(15)}},
    {906,
     "9.6.6",
     {.link = 1,
      .global_link = 2,
      .stackobj = 3,
      .block_info = 5,
      .trec = 10,
      .label = 11,
      .blocked_exceptions = 12,
      .bq = 13,
      .what_next_at = 32,
      .why_blocked_at = 34,
      .id_at = 48,
      .why_closure = WHY(0) | WHY(1) | WHY(2) | WHY(12) | WHY(14)}},
};

const dbg_layout *dbg_layout_for(uint32_t ghc)
{
    for (size_t i = 0; i < sizeof(layouts) / sizeof(*layouts); i++)
        if (layouts[i].ghc == ghc)
            return &layouts[i];
    return NULL;
}

const dbg_layout *dbg_layout_default(void)
{
    return &layouts[0];
}

const char *dbg_layout_known(void)
{
    return "9.0.2 (902) and 9.6.6 (906)";
}
