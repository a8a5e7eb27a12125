/* GHC's closure types (rts/storage/ClosureTypes.h: 0-63 the same in 9.0.2
 * and 9.6.6, which adds 64, CONTINUATION): their numbers as info tables,
 * the eventlog's IPE events and the debug stub give them, their names, and
 * the kinds the heap's readers ask about. The one table of them in the
 * consumer. */
#ifndef RTSCOPE_BASE_CLOSURE_TYPES_H
#define RTSCOPE_BASE_CLOSURE_TYPES_H

#include <stdint.h>

/* The types the consumer names in code; the others are between these. */
enum ghc_closure_type {
    GHC_CONSTR = 1,
    GHC_CONSTR_NOCAF = 7,
    GHC_FUN = 8,
    GHC_FUN_STATIC = 14,
    GHC_THUNK = 15,
    GHC_THUNK_STATIC = 21,
    GHC_THUNK_SELECTOR = 22,
    GHC_BCO = 23,
    GHC_AP = 24,
    GHC_PAP = 25,
    GHC_AP_STACK = 26,
    GHC_IND = 27,
    GHC_IND_STATIC = 28,
    GHC_RET_BCO = 29,
    GHC_RET_SMALL = 30,
    GHC_RET_BIG = 31,
    GHC_RET_FUN = 32,
    GHC_UPDATE_FRAME = 33,
    GHC_CATCH_FRAME = 34,
    GHC_UNDERFLOW_FRAME = 35,
    GHC_STOP_FRAME = 36,
    GHC_BLOCKING_QUEUE = 37,
    GHC_BLACKHOLE = 38,
    GHC_MVAR_CLEAN = 39,
    GHC_MVAR_DIRTY = 40,
    GHC_TVAR = 41,
    GHC_ARR_WORDS = 42,
    GHC_MUT_ARR_PTRS_CLEAN = 43,
    GHC_MUT_ARR_PTRS_FROZEN_CLEAN = 46,
    GHC_MUT_VAR_CLEAN = 47,
    GHC_MUT_VAR_DIRTY = 48,
    GHC_WEAK = 49,
    GHC_PRIM = 50,
    GHC_MUT_PRIM = 51,
    GHC_TSO = 52,
    GHC_STACK = 53,
    GHC_TREC_CHUNK = 54,
    GHC_ATOMICALLY_FRAME = 55,
    GHC_CATCH_RETRY_FRAME = 56,
    GHC_CATCH_STM_FRAME = 57,
    GHC_WHITEHOLE = 58,
    GHC_SMALL_MUT_ARR_PTRS_CLEAN = 59,
    GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN = 62,
    GHC_COMPACT_NFDATA = 63,
    GHC_CONTINUATION = 64, /* GHC 9.6 and later */
    GHC_N_CLOSURE_TYPES = 65,
};

/* GHC's name of a closure type ("THUNK_1_0"), "UNKNOWN" beyond the table. */
const char *ghc_closure_type_name(uint32_t type);
/* CONSTR .. CONSTR_NOCAF */
int ghc_type_is_constr(uint32_t type);
/* FUN .. FUN_STATIC */
int ghc_type_is_fun(uint32_t type);
/* THUNK .. THUNK_STATIC (not selectors, not APs) */
int ghc_type_is_thunk(uint32_t type);
/* Stack frames: RET_SMALL .. STOP_FRAME and the STM frames. */
int ghc_type_is_frame(uint32_t type);
/* MUT_ARR_PTRS_* and SMALL_MUT_ARR_PTRS_* */
int ghc_type_is_array(uint32_t type);
int ghc_type_is_small_array(uint32_t type);

#endif
