/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's pointer maps: which words of a stack, a stack chunk
 * (AP_STACK) or a partial application (PAP, AP) the GC follows, computed
 * in the RTS from the same info tables and bitmaps the GC reads
 * (rts/sm/Scav.c's scavenge_stack, scavenge_PAP), so that a debugger gets
 * the pointers of a whole stack in the reply that carries the stack,
 * instead of asking for each frame's bitmap in turn. Every info table and
 * bitmap is verified (rts/DebugStubVerify.c) before it is read.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "rts/DebugStubProtocol.h"
#include "DebugStubLayout.h"
#include "DebugStubVerify.h"

#include <stdio.h>
#include <string.h>

/* Note [Pointer maps]
 * ~~~~~~~~~~~~~~~~~~~
 * A pointer map has one byte per word of the closure (header included):
 *
 *   DEBUG_STUB_WORD_DATA   not a pointer (or a pointer the GC ignores)
 *   DEBUG_STUB_WORD_PTR    a pointer to a closure, possibly tagged
 *   DEBUG_STUB_WORD_FRAME  the info pointer of a stack frame: the frame's
 *                          info table may have an SRT that keeps closures
 *                          alive (the GC follows it in a major GC)
 *
 * Frames are read from sp (a STACK) or from the payload (an AP_STACK) to
 * the end, as scavenge_stack reads them. A frame that cannot be decoded
 * (its info table not verified, a bitmap that does not fit, a function
 * that is not one) ends the map with a reason that says which frame: the
 * debugger reports it rather than guess.
 */

// Mark `size` words at `base` (index into map) from a bitmap whose bits
// are 0 for a pointer (GHC's convention for stacks and arguments).
static void
markSmall (uint8_t *map, StgWord base, StgWord bitmap, StgWord size)
{
    for (StgWord i = 0; i < size; i++) {
        map[base + i] = (bitmap & 1) ? DEBUG_STUB_WORD_DATA : DEBUG_STUB_WORD_PTR;
        bitmap >>= 1;
    }
}

// A large bitmap at bm (verified first) of at least `size` bits; NULL or why.
static const char *
markLarge (uint8_t *map, StgWord base, StgWord bm, StgWord size)
{
    if (!stubReadable(bm, sizeof(StgWord))) return "large bitmap not readable";
    const StgLargeBitmap *lb = (const StgLargeBitmap *) bm;
    if (size > lb->size) return "large bitmap smaller than its frame";
    StgWord words = (lb->size + BITS_IN(W_) - 1) / BITS_IN(W_);
    if (!stubReadable(bm, (1 + words) * sizeof(StgWord))) return "large bitmap not readable";
    for (StgWord i = 0; i < size; i++) {
        map[base + i] = ((lb->bitmap[i / BITS_IN(W_)] >> (i % BITS_IN(W_))) & 1)
            ? DEBUG_STUB_WORD_DATA : DEBUG_STUB_WORD_PTR;
    }
    return NULL;
}

// A verified BCO closure (interpreted code) at p; NULL or why.
static const char *
verifiedBco (StgWord p, const StgBCO **out)
{
    const char *why = NULL;
    p = (StgWord) UNTAG_CLOSURE((StgClosure *) p);
    StgWord size = stubClosureSizeW(p, &why);
    if (size == 0) return why != NULL ? why : "not a closure";
    if (get_itbl((StgClosure *) p)->type != BCO) return "not a BCO";
    const StgBCO *bco = (const StgBCO *) p;
    StgWord bits = BCO_BITMAP_SIZE(bco);
    if (sizeofW(StgBCO) + 1 + (bits + BITS_IN(W_) - 1) / BITS_IN(W_) > size) {
        return "BCO bitmap extends past the BCO";
    }
    *out = bco;
    return NULL;
}

/* The arguments of a function: `n` words at map[base], per the argument
 * bitmap of the function closure `fun` (scavenge_arg_block, or a BCO's
 * bitmap for an interpreted function). NULL or why. */
static const char *
markArgs (uint8_t *map, StgWord base, StgWord fun, StgWord n)
{
    const char *why = NULL;
    fun = (StgWord) UNTAG_CLOSURE((StgClosure *) fun);
    if (stubClosureSizeW(fun, &why) == 0) return why;
    const StgInfoTable *info = get_itbl((StgClosure *) fun);
    if (info->type == BCO) {
        const StgBCO *bco;
        if ((why = verifiedBco(fun, &bco)) != NULL) return why;
        if (n > BCO_BITMAP_SIZE(bco)) return "more arguments than the BCO's bitmap has";
        return markLarge(map, base, (StgWord) BCO_BITMAP(bco), n);
    }
    switch (info->type) {
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC:
        break;
    default:
        return "the function of an application is not a function closure";
    }
    const StgFunInfoTable *fi = get_fun_itbl((StgClosure *) fun);
    switch (fi->f.fun_type) {
    case ARG_GEN:
        if (n > BITMAP_SIZE(fi->f.b.bitmap)) return "more arguments than the function's bitmap has";
        markSmall(map, base, BITMAP_BITS(fi->f.b.bitmap), n);
        return NULL;
    case ARG_GEN_BIG:
        return markLarge(map, base, (StgWord) GET_FUN_LARGE_BITMAP(fi), n);
    case ARG_BCO:
        return "a function of type ARG_BCO that is not a BCO";
    default:
        if (fi->f.fun_type > ARG_PPPPPPPP) return "function argument type out of range";
        if (n > BITMAP_SIZE(stg_arg_bitmaps[fi->f.fun_type])) {
            return "more arguments than the function's bitmap has";
        }
        markSmall(map, base, BITMAP_BITS(stg_arg_bitmaps[fi->f.fun_type]), n);
        return NULL;
    }
}

/* The frames of a stack area: words [from, to) of the closure at p (map
 * index = word offset from p), as scavenge_stack reads them. */
static const char *
markFrames (uint8_t *map, StgWord p, StgWord from, StgWord to,
            char *buf, size_t buflen)
{
    const char *why = NULL;
    StgWord i = from;
    while (i < to) {
        StgWord frame = p + i * sizeof(StgWord);
        StgWord info_ptr = *(StgWord *) frame;
        const StgInfoTable *info = stubInfoTable(info_ptr, sizeof(StgRetInfoTable), &why);
        if (info == NULL) goto bad;
        map[i] = DEBUG_STUB_WORD_FRAME;
        StgWord left = to - i - 1;     // words after the frame's info pointer
        switch (info->type) {
        case UPDATE_FRAME: case CATCH_STM_FRAME: case CATCH_RETRY_FRAME:
        case ATOMICALLY_FRAME: case UNDERFLOW_FRAME: case STOP_FRAME:
        case CATCH_FRAME: case RET_SMALL: {
            StgWord size = BITMAP_SIZE(info->layout.bitmap);
            if (size > left) { why = "frame extends past the stack"; goto bad; }
            markSmall(map, i + 1, BITMAP_BITS(info->layout.bitmap), size);
            i += 1 + size;
            break;
        }
        case RET_BIG: {
            StgWord bm = (StgWord) GET_LARGE_BITMAP(info);
            if (!stubReadable(bm, sizeof(StgWord))) { why = "large bitmap not readable"; goto bad; }
            StgWord size = ((const StgLargeBitmap *) bm)->size;
            if (size > left) { why = "frame extends past the stack"; goto bad; }
            if ((why = markLarge(map, i + 1, bm, size)) != NULL) goto bad;
            i += 1 + size;
            break;
        }
        case RET_BCO: {
            if (left < 1) { why = "frame extends past the stack"; goto bad; }
            const StgBCO *bco;
            StgWord b = ((StgWord *) frame)[1];
            if ((why = verifiedBco(b, &bco)) != NULL) goto bad;
            map[i + 1] = DEBUG_STUB_WORD_PTR;
            StgWord size = BCO_BITMAP_SIZE(bco);
            if (size > left - 1) { why = "frame extends past the stack"; goto bad; }
            if ((why = markLarge(map, i + 2, (StgWord) BCO_BITMAP(bco), size)) != NULL) goto bad;
            i += 2 + size;
            break;
        }
        case RET_FUN: {
            if (left < 2) { why = "frame extends past the stack"; goto bad; }
            const StgRetFun *rf = (const StgRetFun *) frame;
            if (rf->size > left - 2) { why = "frame extends past the stack"; goto bad; }
            map[i + 1] = DEBUG_STUB_WORD_DATA;
            map[i + 2] = DEBUG_STUB_WORD_PTR;
            if ((why = markArgs(map, i + 3, (StgWord) rf->fun, rf->size)) != NULL) goto bad;
            i += 3 + rf->size;
            break;
        }
        default:
            why = "not a stack frame's info table";
            goto bad;
        }
    }
    return NULL;
bad:
    snprintf(buf, buflen, "stack frame at word %lu: %s", (unsigned long) i, why);
    return buf;
}

bool
stubNeedsPointerMap (StgHalfWord type)
{
    return type == STACK || type == AP_STACK || type == PAP || type == AP
#if RTSCOPE_GHC_HAS_CONTINUATIONS
        || type == CONTINUATION
#endif
        ;
}

const char *
stubPointerMap (StgWord p, StgWord size, uint8_t *map, char *buf, size_t buflen)
{
    p = (StgWord) UNTAG_CLOSURE((StgClosure *) p);
    memset(map, DEBUG_STUB_WORD_DATA, size);
    const StgInfoTable *info = get_itbl((StgClosure *) p);
    switch (info->type) {
    case STACK: {
        const StgStack *s = (const StgStack *) p;
        StgWord first = ((StgWord) s->sp - p) / sizeof(StgWord);
        StgWord end = sizeofW(StgStack) + s->stack_size;
        if ((StgWord) s->sp < p + sizeofW(StgStack) * sizeof(StgWord) ||
            (StgWord) s->sp % sizeof(StgWord) != 0 || end > size || first > end) {
            return "stack pointer outside its stack";
        }
        return markFrames(map, p, first, end, buf, buflen);
    }
    case AP_STACK: {
        const StgAP_STACK *ap = (const StgAP_STACK *) p;
        StgWord first = sizeofW(StgAP_STACK);
        if (ap->size > size - first) return "AP_STACK size exceeds its closure";
        map[first - 1] = DEBUG_STUB_WORD_PTR;   // fun
        return markFrames(map, p, first, first + ap->size, buf, buflen);
    }
    case PAP: {
        const StgPAP *pap = (const StgPAP *) p;
        StgWord first = sizeofW(StgPAP);
        if (pap->n_args > size - first) return "PAP arguments exceed its closure";
        map[first - 1] = DEBUG_STUB_WORD_PTR;
        return markArgs(map, first, (StgWord) pap->fun, pap->n_args);
    }
    case AP: {
        const StgAP *ap = (const StgAP *) p;
        StgWord first = sizeofW(StgAP);
        if (ap->n_args > size - first) return "AP arguments exceed its closure";
        map[first - 1] = DEBUG_STUB_WORD_PTR;
        return markArgs(map, first, (StgWord) ap->fun, ap->n_args);
    }
#if RTSCOPE_GHC_HAS_CONTINUATIONS
    case CONTINUATION: {
        // a captured chunk of stack: frames only (scavenge_continuation);
        // apply_mask_frame is an info pointer the GC does not follow
        const StgContinuation *k = (const StgContinuation *) p;
        StgWord first = sizeofW(StgContinuation);
        if (k->stack_size > size - first) return "CONTINUATION stack exceeds its closure";
        return markFrames(map, p, first, first + k->stack_size, buf, buflen);
    }
#endif
    default:
        return "no pointer map for this closure type";
    }
}

/* The pointers of the verified closure at p (`size` words, its pointer map
 * if it needs one), at most max of them, for READ_CLOSURES' read-ahead
 * (Note [Reading ahead] in DebugStubHeap.c): the pointer fields of
 * the common closures. SRTs and the fields of threads and the rarer
 * objects are left to the debugger's own requests. */
size_t
stubPointersOf (StgWord p, StgWord size, const uint8_t *map, StgWord *out,
                size_t max)
{
    const StgInfoTable *info = get_itbl((StgClosure *) p);
    const StgWord *w = (const StgWord *) p;
    StgWord first = 0, count = 0;
    size_t n = 0;
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case PRIM: case MUT_PRIM:
        first = 1; count = info->layout.payload.ptrs;
        break;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2:
        first = sizeofW(StgThunkHeader); count = info->layout.payload.ptrs;
        break;
    case THUNK_SELECTOR:
        first = sizeofW(StgThunkHeader); count = 1;
        break;
    case IND: case IND_STATIC: case BLACKHOLE:
    case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
        first = 1; count = 1;
        break;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN: case MUT_ARR_PTRS_FROZEN_DIRTY:
        first = sizeofW(StgMutArrPtrs); count = ((const StgMutArrPtrs *) p)->ptrs;
        break;
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN: case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        first = sizeofW(StgSmallMutArrPtrs); count = ((const StgSmallMutArrPtrs *) p)->ptrs;
        break;
    default:
        if (map != NULL) {
            for (StgWord i = 0; i < size && n < max; i++) {
                if (map[i] == DEBUG_STUB_WORD_PTR) out[n++] = w[i];
            }
        }
        return n;
    }
    if (first > size) return 0;
    if (count > size - first) count = size - first;
    for (StgWord i = 0; i < count && n < max; i++) out[n++] = w[first + i];
    return n;
}

