/* GHC's closure types: see rtscope/base/closure_types.h. */
#include "rtscope/base/closure_types.h"

static const char *const ghc_type_names[GHC_N_CLOSURE_TYPES] = {
    "INVALID_OBJECT",
    "CONSTR",
    "CONSTR_1_0",
    "CONSTR_0_1",
    "CONSTR_2_0",
    "CONSTR_1_1",
    "CONSTR_0_2",
    "CONSTR_NOCAF",
    "FUN",
    "FUN_1_0",
    "FUN_0_1",
    "FUN_2_0",
    "FUN_1_1",
    "FUN_0_2",
    "FUN_STATIC",
    "THUNK",
    "THUNK_1_0",
    "THUNK_0_1",
    "THUNK_2_0",
    "THUNK_1_1",
    "THUNK_0_2",
    "THUNK_STATIC",
    "THUNK_SELECTOR",
    "BCO",
    "AP",
    "PAP",
    "AP_STACK",
    "IND",
    "IND_STATIC",
    "RET_BCO",
    "RET_SMALL",
    "RET_BIG",
    "RET_FUN",
    "UPDATE_FRAME",
    "CATCH_FRAME",
    "UNDERFLOW_FRAME",
    "STOP_FRAME",
    "BLOCKING_QUEUE",
    "BLACKHOLE",
    "MVAR_CLEAN",
    "MVAR_DIRTY",
    "TVAR",
    "ARR_WORDS",
    "MUT_ARR_PTRS_CLEAN",
    "MUT_ARR_PTRS_DIRTY",
    "MUT_ARR_PTRS_FROZEN_DIRTY",
    "MUT_ARR_PTRS_FROZEN_CLEAN",
    "MUT_VAR_CLEAN",
    "MUT_VAR_DIRTY",
    "WEAK",
    "PRIM",
    "MUT_PRIM",
    "TSO",
    "STACK",
    "TREC_CHUNK",
    "ATOMICALLY_FRAME",
    "CATCH_RETRY_FRAME",
    "CATCH_STM_FRAME",
    "WHITEHOLE",
    "SMALL_MUT_ARR_PTRS_CLEAN",
    "SMALL_MUT_ARR_PTRS_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN",
    "COMPACT_NFDATA",
    "CONTINUATION",
};

const char *ghc_closure_type_name(uint32_t type)
{
    return type < GHC_N_CLOSURE_TYPES ? ghc_type_names[type] : "UNKNOWN";
}

int ghc_type_is_constr(uint32_t type)
{
    return type >= GHC_CONSTR && type <= GHC_CONSTR_NOCAF;
}

int ghc_type_is_fun(uint32_t type)
{
    return type >= GHC_FUN && type <= GHC_FUN_STATIC;
}

int ghc_type_is_thunk(uint32_t type)
{
    return type >= GHC_THUNK && type <= GHC_THUNK_STATIC;
}

int ghc_type_is_frame(uint32_t type)
{
    return (type >= GHC_RET_SMALL && type <= GHC_STOP_FRAME) ||
           (type >= GHC_ATOMICALLY_FRAME && type <= GHC_CATCH_STM_FRAME);
}

int ghc_type_is_array(uint32_t type)
{
    return type >= GHC_MUT_ARR_PTRS_CLEAN &&
           type <= GHC_MUT_ARR_PTRS_FROZEN_CLEAN;
}

int ghc_type_is_small_array(uint32_t type)
{
    return type >= GHC_SMALL_MUT_ARR_PTRS_CLEAN &&
           type <= GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN;
}
