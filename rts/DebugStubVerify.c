/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Verifying the addresses a debugger sends before the debug stub reads
 * them.
 *
 * ---------------------------------------------------------------------------*/

#define _GNU_SOURCE
#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "DebugStubVerify.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

/* Note [Verified reads]
 * ~~~~~~~~~~~~~~~~~~~~~
 * ghc-debug's stub dereferences whatever address the debugger sends; a
 * stale or mistyped pointer kills the program with SIGSEGV. rtscope's stub
 * reads only memory it can show to be part of the Haskell heap or of a
 * loaded object:
 *
 *  - Heap: the block groups the storage manager knows about, collected
 *    with listAllBlocks() (plus the later blocks of compact regions) while
 *    the RTS is paused, sorted by address. HEAP_ALLOCED() alone is not
 *    enough on x86_64: with the two-step allocator it is a range check on
 *    the reserved address space, and a free megablock in that range is
 *    decommitted (PROT_NONE), so reading it faults. A block group from the
 *    allocator's own lists is committed memory, all of it.
 *  - Static: the PT_LOAD segments of the loaded ELF objects (the program
 *    and every shared library, dl_iterate_phdr()). Info tables must lie in
 *    an executable segment (with tables next to code they precede their
 *    entry code); static closures and constructor names in any readable
 *    one.
 *
 * A closure is readable if its header lies in such a region, its info
 * pointer denotes a valid info table (executable segment, closure type in
 * range), and its whole extent, computed from the info table and, for
 * variable-sized objects, from size fields that are themselves checked to
 * be in the region first, lies in the same region. Anything else gets an
 * error reply.
 *
 * The heap index is built lazily on the first request that needs it after
 * a pause, so the pause itself costs nothing extra, and thrown away on
 * resume. Objects loaded by GHCi's own linker and the non-moving heap
 * (+RTS -xn) are not covered: addresses there are refused, not read.
 */

static StubRegion *heap_idx = NULL;
static size_t heap_n = 0, heap_cap = 0;
static bool heap_valid = false;

/* Note [The heap index's cache]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A walk (a snapshot's, the stub's census) asks which region holds an
 * address several times a closure: where its pointers lead, where it lies,
 * how big it is. A binary search over a large heap's hundred thousand
 * block groups missed the cache at every step: a quarter of a snapshot's
 * time went there. A region covers whole blocks, so every address of a
 * block has the same answer; the answers are kept by block number in a
 * direct-mapped table (a walk's addresses cluster: a closure's fields
 * point near it, a block holds many closures), reset when the index is
 * rebuilt. A static region is searched from the one that answered last.
 */
#define HEAP_CACHE 4096
static struct { StgWord block; ssize_t idx; } heap_cache[HEAP_CACHE];

static StubRegion *stat_idx = NULL;    // bd field unused; start/end
static bool *stat_exec = NULL;
static size_t stat_n = 0, stat_cap = 0;

static void
heapAdd (bdescr *bd)
{
    if (bd->blocks == 0) return;
    if (heap_n == heap_cap) {
        heap_cap = heap_cap ? heap_cap * 2 : 1024;
        heap_idx = stgReallocBytes(heap_idx, heap_cap * sizeof(StubRegion),
                                   "stubHeapIndex");
    }
    heap_idx[heap_n].start = (StgWord) bd->start;
    heap_idx[heap_n].end   = (StgWord) bd->start + (StgWord) bd->blocks * BLOCK_SIZE;
    heap_idx[heap_n].bd    = bd;
    heap_n++;
}

static void
heapAddList (void *user STG_UNUSED, bdescr *bd)
{
    // A list can end in a block that is also the head of another list (the
    // current pinned block still links into the nursery); duplicates are
    // dropped after sorting. The bound guards against a cycle.
    for (StgWord n = 0; bd != NULL && n < ((StgWord)1 << 28); bd = bd->link, n++) {
        heapAdd(bd);
        if ((bd->flags & BF_COMPACT) && bd->blocks != 0) {
            // The region's later blocks hang off its block chain.
            StgCompactNFDataBlock *b = ((StgCompactNFDataBlock *) bd->start)->next;
            for (StgWord m = 0; b != NULL && m < ((StgWord)1 << 24); b = b->next, m++) {
                heapAdd(Bdescr((P_) b));
            }
        }
    }
}

static int
cmpRegion (const void *a, const void *b)
{
    StgWord x = ((const StubRegion *) a)->start, y = ((const StubRegion *) b)->start;
    return x < y ? -1 : x > y ? 1 : 0;
}

static void
heapBuild (void)
{
    if (heap_valid) return;
    heap_n = 0;
    listAllBlocks(heapAddList, NULL);
    qsort(heap_idx, heap_n, sizeof(StubRegion), cmpRegion);
    // drop duplicates and anything overlapping its predecessor
    size_t w = 0;
    for (size_t r = 0; r < heap_n; r++) {
        if (w > 0 && heap_idx[r].start < heap_idx[w-1].end) continue;
        heap_idx[w++] = heap_idx[r];
    }
    heap_n = w;
    // no block number is all ones
    memset(heap_cache, 0xff, sizeof(heap_cache));
    heap_valid = true;
}

static int
addSegment (struct dl_phdr_info *info, size_t size STG_UNUSED, void *data STG_UNUSED)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || ph->p_memsz == 0) continue;
        if (stat_n == stat_cap) {
            stat_cap = stat_cap ? stat_cap * 2 : 64;
            stat_idx = stgReallocBytes(stat_idx, stat_cap * sizeof(StubRegion), "stubStatic");
            stat_exec = stgReallocBytes(stat_exec, stat_cap * sizeof(bool), "stubStatic");
        }
        stat_idx[stat_n].start = (StgWord) (info->dlpi_addr + ph->p_vaddr);
        stat_idx[stat_n].end = stat_idx[stat_n].start + ph->p_memsz;
        stat_idx[stat_n].bd = NULL;
        stat_exec[stat_n] = (ph->p_flags & PF_X) != 0;
        stat_n++;
    }
    return 0;
}

void
stubVerifyNewPause (void)
{
    heap_valid = false;
    stat_n = 0;
    dl_iterate_phdr(addSegment, NULL);
}

void
stubVerifyEndPause (void)
{
    heap_valid = false;
}

// Binary search for the region holding p in a sorted array.
static StubRegion *
findRegion (StubRegion *idx, size_t n, StgWord p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx[mid].end <= p) lo = mid + 1;
        else if (idx[mid].start > p) hi = mid;
        else return &idx[mid];
    }
    return NULL;
}

ssize_t
stubHeapRegionIndex (StgWord p)
{
    heapBuild();
    StgWord b = p >> BLOCK_SHIFT;
    __typeof__(heap_cache[0]) *e = &heap_cache[b & (HEAP_CACHE - 1)];
    if (e->block != b) {
        StubRegion *r = findRegion(heap_idx, heap_n, p);
        e->block = b;
        e->idx = r == NULL ? -1 : (ssize_t) (r - heap_idx);
    }
    return e->idx;
}

bool
stubHeapRegion (StgWord p, StubRegion *out)
{
    ssize_t i = stubHeapRegionIndex(p);
    if (i < 0) return false;
    *out = heap_idx[i];
    return true;
}

bool
stubStaticRegion (StgWord p, bool exec, StubRegion *out)
{
    // Segments are few (a few per object) and need not be sorted; most
    // questions in a row are about one (the program's code).
    static size_t last = 0;
    if (last >= stat_n) last = 0;
    for (size_t k = 0, i = last; k < stat_n; k++, i = i + 1 < stat_n ? i + 1 : 0) {
        if (p >= stat_idx[i].start && p < stat_idx[i].end && (!exec || stat_exec[i])) {
            last = i;
            *out = stat_idx[i];
            return true;
        }
    }
    return false;
}

static bool
regionOf (StgWord p, StubRegion *out)
{
    return stubHeapRegion(p, out) || stubStaticRegion(p, false, out);
}

bool
stubReadable (StgWord p, StgWord len)
{
    StubRegion r;
    if (p + len < p) return false;
    return regionOf(p, &r) && p + len <= r.end;
}

const StgInfoTable *
stubInfoTable (StgWord info_ptr, StgWord bytes, const char **why)
{
    StubRegion r;
    if (info_ptr % sizeof(StgWord) != 0 || info_ptr < bytes) {
        *why = "info pointer is not aligned";
        return NULL;
    }
    StgWord start = info_ptr - bytes;
    if (!stubStaticRegion(start, true, &r) || info_ptr > r.end) {
        *why = "info pointer is not in an executable segment of a loaded object";
        return NULL;
    }
#if defined(TABLES_NEXT_TO_CODE)
    const StgInfoTable *info = (const StgInfoTable *) info_ptr - 1;
#else
    const StgInfoTable *info = (const StgInfoTable *) info_ptr;
#endif
    if (info->type == INVALID_OBJECT || info->type >= N_CLOSURE_TYPES) {
        *why = "not an info table (closure type out of range)";
        return NULL;
    }
    return info;
}

// How many bytes of info table precede the info pointer for this type.
static StgWord
infoBytesFor (StgHalfWord type)
{
    switch (type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
        return sizeof(StgConInfoTable);
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC:
        return sizeof(StgFunInfoTable);
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC: case THUNK_SELECTOR:
        return sizeof(StgThunkInfoTable);
    default:
        return sizeof(StgInfoTable);
    }
}

StgWord
stubClosureSizeW (StgWord p, const char **why)
{
    StubRegion r;
    p = (StgWord) UNTAG_CLOSURE((StgClosure *) p);
    if (!regionOf(p, &r)) {
        *why = "address is not in a heap block or static segment";
        return 0;
    }
    StgWord avail = (r.end - p) / sizeof(StgWord);
    if (avail < 1) { *why = "closure header outside its block"; return 0; }

    StgWord info_ptr = (StgWord) ((StgClosure *) p)->header.info;
    const StgInfoTable *info = stubInfoTable(info_ptr, sizeof(StgInfoTable), why);
    if (info == NULL) return 0;
    if (infoBytesFor(info->type) > sizeof(StgInfoTable) &&
        stubInfoTable(info_ptr, infoBytesFor(info->type), why) == NULL) {
        return 0;
    }

    // Variable-sized objects: the words up to and including their size
    // field must lie in the region before closure_sizeW_ reads it. (A
    // small ARR_WORDS can end exactly at the end of its block: asking for
    // more than its own header refused it.)
    StgWord head = 1;
    switch (info->type) {
    case ARR_WORDS: case PAP: case STACK:
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN: case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        head = 2;
        break;
    case AP: case AP_STACK:
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN: case MUT_ARR_PTRS_FROZEN_DIRTY:
        head = 3;
        break;
    case BCO:
        head = 5;
        break;
#if RTSCOPE_GHC_HAS_CONTINUATIONS
    case CONTINUATION:          // stack_size is its fourth word
        head = 4;
        break;
#endif
    default:
        break;
    }
    if (avail < head) { *why = "closure extends past its block"; return 0; }

    StgWord size = closure_sizeW_((StgClosure *) p, info);
    if (size == 0 || size > avail) {
        *why = "closure extends past its block";
        return 0;
    }
    return size;
}

const StubRegion *
stubHeapRegions (size_t *n)
{
    heapBuild();
    *n = heap_n;
    return heap_idx;
}

void
stubForEachBlock (StubBlockFn fn, void *user)
{
    heapBuild();
    for (size_t i = 0; i < heap_n; i++) fn(user, &heap_idx[i]);
}

long
stubStaticStrlen (StgWord s)
{
    StubRegion r;
    if (!stubStaticRegion(s, false, &r)) return -1;
    const char *nul = memchr((const char *) s, 0, r.end - s);
    return nul == NULL ? -1 : (long) (nul - (const char *) s);
}

bool
stubConInfo (StgWord ptr, const StgInfoTable **out, const char **why)
{
    const StgInfoTable *info = stubInfoTable(ptr, sizeof(StgConInfoTable), why);
    if (info == NULL) return false;
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
        *out = info;
        return true;
    default:
        *why = "not a constructor's info table";
        return false;
    }
}

// The SRT of the info table at info pointer ptr (0 if it has none).
bool
stubSrtOf (StgWord ptr, StgWord *out, const char **why)
{
    const StgInfoTable *info = stubInfoTable(ptr, sizeof(StgInfoTable), why);
    if (info == NULL) return false;
    *out = 0;
    switch (info->type) {
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC: {
        if (stubInfoTable(ptr, sizeof(StgFunInfoTable), why) == NULL) return false;
        const StgFunInfoTable *fi = FUN_INFO_PTR_TO_STRUCT((StgInfoTable *) ptr);
        if (fi->i.srt) *out = (StgWord) GET_FUN_SRT(fi);
        return true;
    }
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC: case THUNK_SELECTOR: {
        if (stubInfoTable(ptr, sizeof(StgThunkInfoTable), why) == NULL) return false;
        const StgThunkInfoTable *ti = THUNK_INFO_PTR_TO_STRUCT((StgInfoTable *) ptr);
        if (ti->i.srt) *out = (StgWord) GET_SRT(ti);
        return true;
    }
    case RET_SMALL: case RET_BIG: case RET_FUN: case UPDATE_FRAME:
    case CATCH_FRAME: case UNDERFLOW_FRAME: case STOP_FRAME:
    case ATOMICALLY_FRAME: case CATCH_RETRY_FRAME: case CATCH_STM_FRAME: {
        const StgRetInfoTable *ri = RET_INFO_PTR_TO_STRUCT((StgInfoTable *) ptr);
        if (ri->i.srt) *out = (StgWord) GET_SRT(ri);
        return true;
    }
    default:
        return true;
    }
}
