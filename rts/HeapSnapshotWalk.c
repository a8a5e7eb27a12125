/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The heap snapshot writer's walk; see HeapSnapshotWalk.h.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "Task.h"
#include "RtsPause.h"
#include "rts/DebugStubProtocol.h"
#include "DebugStubVerify.h"
#include "DebugStubLayout.h"
#include "HeapSnapshotWalk.h"
#if defined(THREADED_RTS)
#include "DebugStubRequest.h"
#endif

#include <stdlib.h>
#include <string.h>

/* Note [The snapshot walk]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * The walk reads what a debugger's walk of the same heap through the debug
 * stub reads (consumer/lib/debug/decode.c), so that a snapshot the program
 * writes of itself and one `rtscope debug snapshot` records give the same
 * census: the same roots in the same order, the same pointer fields of
 * every closure type, the SRTs of info tables and of stack frames, the
 * pointer maps of stacks and applications (rts/DebugStubLayout.c), and
 * every closure verified before it is read (rts/DebugStubVerify.c), so
 * that what the stub would refuse is left out and counted.
 *
 * What has been reached is a bit per heap word, in one bitmap over the
 * block groups the verifier indexes (sorted by address), so the set costs
 * 1/64 of the heap and the closures come out in address order by scanning
 * it; closures outside the heap (static ones) are few and kept in a hash
 * set, sorted at the end. To visit is a stack of addresses.
 */

typedef struct {
    StgWord *v;
    size_t n, cap;
} WordVec;

// An open-addressing set of non-zero words, at most half full.
typedef struct {
    StgWord *slot;
    size_t mask, n;
} WordSet;

// The SRTs of the info tables met last, by info pointer (direct-mapped): a
// table is verified and its SRT found once, not once a closure.
#define SRT_CACHE 4096
typedef struct {
    StgWord info, srt;
} SrtCache;

struct SnapWalk_ {
    WordVec roots, todo, statics_sorted, infos_sorted;
    WordSet statics, infos, bad;
    const StubRegion *regions;
    size_t nregions;
    size_t *bitoff;             // per region: its first bit in marks
    uint64_t *marks;
    StgWord unreadable;
    uint8_t *map;               // a pointer map, mapcap bytes
    StgWord mapcap;
    bool oom;
    SrtCache srt_cache[SRT_CACHE];
};

static bool
vecPush (SnapWalk *w, WordVec *v, StgWord x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 1024;
        StgWord *nv = realloc(v->v, cap * sizeof(StgWord));
        if (nv == NULL) {
            w->oom = true;
            return false;
        }
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return true;
}

static size_t
slotOf (StgWord x, size_t mask)
{
    return (size_t) (((x >> 3) * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & mask;
}

// Add x (not 0); true if it was not there. Grows at half full.
static bool
setAdd (SnapWalk *w, WordSet *s, StgWord x)
{
    if (2 * (s->n + 1) > s->mask + 1 || s->slot == NULL) {
        size_t cap = s->slot ? 2 * (s->mask + 1) : 1024;
        StgWord *ns = calloc(cap, sizeof(StgWord));
        if (ns == NULL) {
            w->oom = true;
            return false;
        }
        for (size_t i = 0; s->slot != NULL && i <= s->mask; i++) {
            if (s->slot[i] == 0) continue;
            size_t j = slotOf(s->slot[i], cap - 1);
            while (ns[j] != 0) j = (j + 1) & (cap - 1);
            ns[j] = s->slot[i];
        }
        free(s->slot);
        s->slot = ns;
        s->mask = cap - 1;
    }
    for (size_t i = slotOf(x, s->mask);; i = (i + 1) & s->mask) {
        if (s->slot[i] == x) return false;
        if (s->slot[i] == 0) {
            s->slot[i] = x;
            s->n++;
            return true;
        }
    }
}

static bool
setHas (const WordSet *s, StgWord x)
{
    if (s->slot == NULL) return false;
    for (size_t i = slotOf(x, s->mask);; i = (i + 1) & s->mask) {
        if (s->slot[i] == x) return true;
        if (s->slot[i] == 0) return false;
    }
}

static int
cmpWord (const void *a, const void *b)
{
    StgWord x = *(const StgWord *) a, y = *(const StgWord *) b;
    return x < y ? -1 : x > y ? 1 : 0;
}

// The set's members, sorted, into v.
static void
setSorted (SnapWalk *w, const WordSet *s, WordVec *v)
{
    for (size_t i = 0; s->slot != NULL && i <= s->mask; i++) {
        if (s->slot[i] != 0 && !vecPush(w, v, s->slot[i])) return;
    }
    if (v->n) qsort(v->v, v->n, sizeof(StgWord), cmpWord);
}

/* -----------------------------------------------------------------------------
   What has been reached
   -------------------------------------------------------------------------- */

static bool
marksInit (SnapWalk *w)
{
    w->regions = stubHeapRegions(&w->nregions);
    w->bitoff = malloc((w->nregions + 1) * sizeof(size_t));
    if (w->bitoff == NULL) return false;
    size_t bits = 0;
    for (size_t i = 0; i < w->nregions; i++) {
        w->bitoff[i] = bits;
        StgWord words = (w->regions[i].end - w->regions[i].start) / sizeof(StgWord);
        bits += (words + 63) & ~(size_t) 63;
    }
    w->bitoff[w->nregions] = bits;
    w->marks = calloc(bits / 64 + 1, sizeof(uint64_t));
    return w->marks != NULL;
}

// Mark p reached; true if it was not.
static bool
reach (SnapWalk *w, StgWord p)
{
    ssize_t r = stubHeapRegionIndex(p);
    if (r < 0) return setAdd(w, &w->statics, p);
    size_t bit = w->bitoff[r] + (p - w->regions[r].start) / sizeof(StgWord);
    uint64_t m = (uint64_t) 1 << (bit % 64);
    if (w->marks[bit / 64] & m) return false;
    w->marks[bit / 64] |= m;
    return true;
}

static void
visit (SnapWalk *w, StgWord p)
{
    p = (StgWord) UNTAG_CLOSURE((StgClosure *) p);
    if (p == 0 || !reach(w, p)) return;
    vecPush(w, &w->todo, p);
}

/* -----------------------------------------------------------------------------
   The pointers of a closure (as consumer/lib/debug/decode.c reads them)
   -------------------------------------------------------------------------- */

static void
visitWords (SnapWalk *w, StgWord p, StgWord size, StgWord first, StgWord count)
{
    const StgWord *word = (const StgWord *) p;
    for (StgWord i = first; i < first + count && i < size; i++) visit(w, word[i]);
}

// Note the info table (in the set, once) and visit its SRT.
static void
visitInfo (SnapWalk *w, StgWord info_ptr)
{
    SrtCache *e = &w->srt_cache[slotOf(info_ptr, SRT_CACHE - 1)];
    if (e->info != info_ptr) {
        StgWord srt = 0;
        const char *why = NULL;
        setAdd(w, &w->infos, info_ptr);
        if (!stubSrtOf(info_ptr, &srt, &why)) srt = 0;
        e->info = info_ptr;
        e->srt = srt;
    }
    if (e->srt != 0) visit(w, e->srt);
}

// The words a pointer map marks, and the info tables and SRTs of its frames.
static void
visitMap (SnapWalk *w, StgWord p, StgWord size)
{
    const StgWord *word = (const StgWord *) p;
    for (StgWord i = 0; i < size; i++) {
        if (w->map[i] == DEBUG_STUB_WORD_PTR) {
            visit(w, word[i]);
        } else if (w->map[i] == DEBUG_STUB_WORD_FRAME) {
            visitInfo(w, word[i]);
        }
    }
}

// Closures whose fields are a count of pointers after a fixed header.
static bool
visitLayout (SnapWalk *w, StgWord p, StgWord size, const StgInfoTable *info)
{
    const StgWord *word = (const StgWord *) p;
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC: case PRIM: case MUT_PRIM:
        visitWords(w, p, size, 1, info->layout.payload.ptrs);
        return true;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC:
        visitWords(w, p, size, 2, info->layout.payload.ptrs);
        return true;
    case THUNK_SELECTOR: visitWords(w, p, size, 2, 1); return true;
    case IND: case IND_STATIC: case BLACKHOLE:
    case MUT_VAR_CLEAN: case MUT_VAR_DIRTY: visitWords(w, p, size, 1, 1); return true;
    case BCO: case MVAR_CLEAN: case MVAR_DIRTY: visitWords(w, p, size, 1, 3); return true;
    case TVAR: visitWords(w, p, size, 1, 2); return true;
    case BLOCKING_QUEUE: visitWords(w, p, size, 1, 4); return true;
    case WEAK: visitWords(w, p, size, 1, 5); return true;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN: case MUT_ARR_PTRS_FROZEN_DIRTY:
        visitWords(w, p, size, 3, size > 1 ? word[1] : 0);
        return true;
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN: case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        visitWords(w, p, size, 2, size > 1 ? word[1] : 0);
        return true;
    default:
        return false;
    }
}

static void
visitFields (SnapWalk *w, StgWord p, StgWord size, const StgInfoTable *info)
{
    const StgWord *word = (const StgWord *) p;
    if (visitLayout(w, p, size, info)) return;
    switch (info->type) {
    case TREC_CHUNK: {
        // prev_chunk, next_entry_idx, then entries of four words
        visitWords(w, p, size, 1, 1);
        StgWord used = size > 2 ? word[2] : 0;
        for (StgWord e = 0; e < used && e < 16; e++) visitWords(w, p, size, 3 + 4 * e, 3);
        break;
    }
    case TSO: {
        // the fields the GC follows (scavengeTSO), as the debugger reads them
        const StgTSO *tso = (const StgTSO *) p;
        visit(w, (StgWord) tso->_link);
        visit(w, (StgWord) tso->stackobj);
        visit(w, (StgWord) tso->trec);
#if RTSCOPE_GHC_HAS_TSO_LABEL
        if (tso->label != NULL) visit(w, (StgWord) tso->label);
#endif
        visit(w, (StgWord) tso->blocked_exceptions);
        visit(w, (StgWord) tso->bq);
        switch (tso->why_blocked) {
        case NotBlocked: case BlockedOnMVar: case BlockedOnBlackHole:
        case BlockedOnMsgThrowTo: case BlockedOnMVarRead:
#if defined(BlockedOnIOCompletion)
        case BlockedOnIOCompletion:
#endif
            visit(w, (StgWord) tso->block_info.closure);
            break;
        default:
            break;
        }
        break;
    }
    default:
        break;      // ARR_WORDS, WHITEHOLE, COMPACT_NFDATA...: no pointers
    }
}

// Read the closure at p (reached, untagged) and visit what it points to.
static void
readClosure (SnapWalk *w, StgWord p)
{
    const char *why = NULL;
    StgWord size = stubClosureSizeW(p, &why);
    const StgInfoTable *info = size ? get_itbl((StgClosure *) p) : NULL;
    if (info != NULL && stubNeedsPointerMap(info->type)) {
        if (size > w->mapcap) {
            uint8_t *m = realloc(w->map, size);
            if (m == NULL) { w->oom = true; return; }
            w->map = m;
            w->mapcap = size;
        }
        char buf[160];
        if (stubPointerMap(p, size, w->map, buf, sizeof(buf)) != NULL) info = NULL;
    }
    if (info == NULL) {
        w->unreadable++;
        setAdd(w, &w->bad, p);
        return;
    }
    visitInfo(w, (StgWord) ((StgClosure *) p)->header.info);
    if (stubNeedsPointerMap(info->type)) visitMap(w, p, size);
    else visitFields(w, p, size, info);
}

/* -----------------------------------------------------------------------------
   The walk
   -------------------------------------------------------------------------- */

static void
rootCb (void *user, StgClosure *p)
{
    SnapWalk *w = user;
    if (vecPush(w, &w->roots, (StgWord) p)) visit(w, (StgWord) p);
}

static void
threadCb (void *user, StgTSO *tso)
{
    rootCb(user, (StgClosure *) tso);
}

#if defined(THREADED_RTS)
static void
savedCb (void *user, StgClosure *p)
{
    rootCb(user, UNTAG_CLOSURE(p));
}
#endif

SnapWalk *
snapWalk (const char **why)
{
    SnapWalk *w = calloc(1, sizeof(SnapWalk));
    if (w == NULL || !marksInit(w)) {
        snapWalkFree(w);
        *why = "out of memory";
        return NULL;
    }
    pauseListThreads(threadCb, w);
    pauseListMiscRoots(rootCb, w);
    pauseListGcOnlyRoots(rootCb, w);
#if defined(THREADED_RTS)
    stubListSavedObjects(savedCb, w);
#endif
    while (w->todo.n > 0 && !w->oom) readClosure(w, w->todo.v[--w->todo.n]);
    if (!w->oom) {
        // the static closures reached and read, and the info tables
        for (size_t i = 0; w->statics.slot != NULL && i <= w->statics.mask; i++) {
            StgWord p = w->statics.slot[i];
            if (p != 0 && !setHas(&w->bad, p)) vecPush(w, &w->statics_sorted, p);
        }
        qsort(w->statics_sorted.v, w->statics_sorted.n, sizeof(StgWord), cmpWord);
        setSorted(w, &w->infos, &w->infos_sorted);
    }
    if (w->oom) {
        snapWalkFree(w);
        *why = "out of memory";
        return NULL;
    }
    return w;
}

void
snapWalkFree (SnapWalk *w)
{
    if (w == NULL) return;
    free(w->roots.v);
    free(w->todo.v);
    free(w->statics_sorted.v);
    free(w->infos_sorted.v);
    free(w->statics.slot);
    free(w->infos.slot);
    free(w->bad.slot);
    free(w->bitoff);
    free(w->marks);
    free(w->map);
    free(w);
}

const StgWord *
snapRoots (const SnapWalk *w, size_t *n)
{
    *n = w->roots.n;
    return w->roots.v;
}

const StgWord *
snapInfos (const SnapWalk *w, size_t *n)
{
    *n = w->infos_sorted.n;
    return w->infos_sorted.v;
}

StgWord
snapUnreadable (const SnapWalk *w)
{
    return w->unreadable;
}

// The reached closures of heap region r, in order, until fn says stop.
static bool
regionClosures (const SnapWalk *w, size_t r, size_t *next, SnapClosureFn fn,
                void *user)
{
    size_t from = w->bitoff[r], to = w->bitoff[r + 1];
    for (size_t word = from / 64; word < to / 64; word++) {
        for (uint64_t m = w->marks[word]; m != 0; m &= m - 1) {
            size_t bit = word * 64 + (size_t) __builtin_ctzll(m);
            StgWord p = w->regions[r].start + (bit - from) * sizeof(StgWord);
            if (setHas(&w->bad, p)) continue;
            // static closures below p come first
            while (*next < w->statics_sorted.n && w->statics_sorted.v[*next] < p) {
                StgWord s = w->statics_sorted.v[(*next)++];
                if (!fn(user, s, closure_sizeW((StgClosure *) s))) return false;
            }
            if (!fn(user, p, closure_sizeW((StgClosure *) p))) return false;
        }
    }
    return true;
}

bool
snapForEachClosure (const SnapWalk *w, SnapClosureFn fn, void *user)
{
    size_t next = 0;
    for (size_t r = 0; r < w->nregions; r++) {
        if (!regionClosures(w, r, &next, fn, user)) return false;
    }
    while (next < w->statics_sorted.n) {
        StgWord s = w->statics_sorted.v[next++];
        if (!fn(user, s, closure_sizeW((StgClosure *) s))) return false;
    }
    return true;
}
