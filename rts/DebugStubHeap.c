/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's answers that read the program's memory: its roots,
 * closures, info tables and their SRTs, the bitmaps of stack frames and
 * functions, the heap's blocks, constructors' names and provenance, and
 * rtscope's batch commands (READ_CLOSURES with its read-ahead,
 * DESCRIBE_INFOS). Each is a line of the request table in
 * rts/DebugStubRequest.c, which has checked the pause and the frame's
 * length (Note [The request table]) before it runs. Every address a
 * request names is verified before it is read (rts/DebugStubVerify.c).
 *
 * ---------------------------------------------------------------------------*/

#include "Rts.h"
#include "RtsAPI.h"
#include "rts/DebugStubProtocol.h"

#if defined(THREADED_RTS)

#include "RtsUtils.h"
#include "Capability.h"
#include "RtsPause.h"
#include "DebugStubRequest.h"
#include "DebugStubFrame.h"
#include "DebugStubHeap.h"
#include "DebugStubVerify.h"
#include "DebugStubLayout.h"
#include "IPEBinary.h"

#include <string.h>
#include <sys/uio.h>

/* -----------------------------------------------------------------------------
   Roots: ROOTS, SAVED_OBJECTS
   -------------------------------------------------------------------------- */

static void
rootCb (void *user, StgClosure *p)
{
    stubPutPtr((StubConn *) user, (StgWord) p);
}

static void
savedCb (void *user, StgClosure *p)
{
    stubPutPtr((StubConn *) user, (StgWord) UNTAG_CLOSURE(p));
}

static void
threadCb (void *user, StgTSO *tso)
{
    stubPutPtr((StubConn *) user, (StgWord) tso);
}

void
stubCmdRoots (StubConn *c)
{
    pauseListThreads(threadCb, c);
    pauseListMiscRoots(rootCb, c);
    pauseListGcOnlyRoots(rootCb, c);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

void
stubCmdSavedObjects (StubConn *c)
{
    stubListSavedObjects(savedCb, c);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   What an info table says, verified
   -------------------------------------------------------------------------- */

/* -----------------------------------------------------------------------------
   Verified batches: CLOSURES, INFO_TABLES, SRT
   -------------------------------------------------------------------------- */

/* Note [Verified batches]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * ghc-debug's CLOSURES, INFO_TABLES and SRT take a count (2 bytes) and
 * that many pointers, and answer all or nothing: every pointer is verified
 * before a byte of the answer is buffered, and the first that fails makes
 * the reply a BAD_ADDRESS with its reason. answerVerifiedBatch is that
 * sequence once; a command gives it how to verify one pointer and how to
 * answer for one verified pointer (which may verify again to find what it
 * sends, and cannot fail). rtscope's READ_CLOSURES and DESCRIBE_INFOS
 * answer each pointer in its own place instead (Note [Reading ahead]).
 */
typedef bool (*StubVerifyFn) (StgWord p, const char **why);
typedef void (*StubAnswerFn) (StubConn *c, StgWord p);

// See Note [Verified batches]
static void
answerVerifiedBatch (StubConn *c, StubVerifyFn verify, StubAnswerFn answer)
{
    uint16_t n = stubGet16be(c);
    if (!stubHave(c, 8u * n)) {
        stubReplyMalformed(c);
        return;
    }
    const char *why = NULL;
    uint32_t start = c->pos;
    for (uint16_t i = 0; i < n; i++) {
        if (!verify(stubGetPtr(c), &why)) {
            stubReplyBadAddress(c, why);
            return;
        }
    }
    c->pos = start;
    for (uint16_t i = 0; i < n; i++) {
        answer(c, stubGetPtr(c));
    }
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

static bool
verifyClosure (StgWord p, const char **why)
{
    return stubClosureSizeW(p, why) != 0;
}

static void
answerClosure (StubConn *c, StgWord p)
{
    const char *why = NULL;
    p = (StgWord) UNTAG_CLOSURE((StgClosure *) p);
    StgWord bytes = stubClosureSizeW(p, &why) * sizeof(StgWord);
    stubPut32be(c, (uint32_t) bytes);
    stubPut(c, (void *) p, bytes);
}

void
stubCmdClosures (StubConn *c)
{
    answerVerifiedBatch(c, verifyClosure, answerClosure);
}

static bool
verifyInfoTable (StgWord p, const char **why)
{
    return stubInfoTable(p, sizeof(StgInfoTable), why) != NULL;
}

static void
answerInfoTable (StubConn *c, StgWord p)
{
    stubPut32be(c, sizeof(StgInfoTable));
    stubPut(c, (void *) (p - sizeof(StgInfoTable)), sizeof(StgInfoTable));
}

void
stubCmdInfoTables (StubConn *c)
{
    answerVerifiedBatch(c, verifyInfoTable, answerInfoTable);
}

static bool
verifySrt (StgWord p, const char **why)
{
    StgWord srt;
    return stubSrtOf(p, &srt, why);
}

static void
answerSrt (StubConn *c, StgWord p)
{
    const char *why = NULL;
    StgWord srt = 0;
    stubSrtOf(p, &srt, &why);
    stubPutPtr(c, srt);
}

void
stubCmdSrt (StubConn *c)
{
    answerVerifiedBatch(c, verifySrt, answerSrt);
}

/* -----------------------------------------------------------------------------
   Bitmaps: STACK_BITMAP, FUN_BITMAP
   -------------------------------------------------------------------------- */

static void
putSmallBitmap (StubConn *c, StgWord bitmap, StgWord size)
{
    stubPut32be(c, (uint32_t) size);
    for (StgWord i = 0; i < size; i++) {
        stubPut8(c, !(bitmap & 1));      // 1: the word is a pointer
        bitmap >>= 1;
    }
}

// A large bitmap at address bm, verified first; false if it is not readable.
static bool
putLargeBitmap (StubConn *c, StgWord bm, StgWord size)
{
    if (!stubReadable(bm, sizeof(StgWord))) return false;
    StgLargeBitmap *lb = (StgLargeBitmap *) bm;
    if (size > lb->size) return false;
    StgWord words = (lb->size + BITS_IN(W_) - 1) / BITS_IN(W_);
    if (!stubReadable(bm, (1 + words) * sizeof(StgWord))) return false;
    stubPut32be(c, (uint32_t) size);
    for (StgWord i = 0; i < size; i++) {
        stubPut8(c, !((lb->bitmap[i / BITS_IN(W_)] >> (i % BITS_IN(W_))) & 1));
    }
    return true;
}

// The argument bitmap of a function closure (verified), size bits of it.
static const char *
putFunBitmap (StubConn *c, StgWord fun, StgWord size)
{
    const char *why = NULL;
    fun = (StgWord) UNTAG_CLOSURE((StgClosure *) fun);
    if (stubClosureSizeW(fun, &why) == 0) return why;
    const StgInfoTable *info = get_itbl((StgClosure *) fun);
    switch (info->type) {
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC:
        break;
    default:
        return "not a function closure";
    }
    const StgFunInfoTable *fi = get_fun_itbl((StgClosure *) fun);
    switch (fi->f.fun_type) {
    case ARG_GEN:
        if (size > BITMAP_SIZE(fi->f.b.bitmap)) return "more arguments than the bitmap has";
        putSmallBitmap(c, BITMAP_BITS(fi->f.b.bitmap), size);
        return NULL;
    case ARG_GEN_BIG:
        if (!putLargeBitmap(c, (StgWord) GET_FUN_LARGE_BITMAP(fi), size)) {
            return "large bitmap not readable or too small";
        }
        return NULL;
    case ARG_BCO:
        return "interpreted function";
    default:
        if (fi->f.fun_type > ARG_PPPPPPPP) return "function type out of range";
        if (size > BITMAP_SIZE(stg_arg_bitmaps[fi->f.fun_type])) {
            return "more arguments than the bitmap has";
        }
        putSmallBitmap(c, BITMAP_BITS(stg_arg_bitmaps[fi->f.fun_type]), size);
        return NULL;
    }
}

// The bitmap of the frame at frame (in the heap region r) with this info table.
static void
putFrameBitmap (StubConn *c, StgWord frame, const StubRegion *r,
                const StgInfoTable *info)
{
    switch (info->type) {
    case CATCH_STM_FRAME: case CATCH_RETRY_FRAME: case ATOMICALLY_FRAME:
    case UNDERFLOW_FRAME: case STOP_FRAME: case CATCH_FRAME:
    case UPDATE_FRAME: case RET_SMALL:
        putSmallBitmap(c, BITMAP_BITS(info->layout.bitmap), BITMAP_SIZE(info->layout.bitmap));
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
        return;
    case RET_BIG: {
        StgWord bm = (StgWord) GET_LARGE_BITMAP(info);
        if (!stubReadable(bm, sizeof(StgWord)) ||
            !putLargeBitmap(c, bm, ((StgLargeBitmap *) bm)->size)) {
            stubReplyBadAddress(c, "large bitmap not readable");
            return;
        }
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }
    case RET_FUN: {
        if (frame + sizeof(StgRetFun) > r->end) {
            stubReplyBadAddress(c, "frame extends past its block");
            return;
        }
        StgRetFun *rf = (StgRetFun *) frame;
        const char *why = putFunBitmap(c, (StgWord) rf->fun, rf->size);
        if (why != NULL) {
            stubReplyBadAddress(c, why);
            return;
        }
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }
    default:
        stubReplyError(c, DEBUG_STUB_RESP_BAD_STACK, 0, "");
        return;
    }
}

void
stubCmdStackBitmap (StubConn *c)
{
    StgWord sp = stubGetPtr(c);
    uint32_t off = stubGet32be(c);
    StgWord frame = sp + off;
    StubRegion r;
    const char *why = NULL;
    if (frame < sp || !stubHeapRegion(frame, &r) || frame % sizeof(StgWord) != 0) {
        stubReplyBadAddress(c, "stack frame not in a heap block");
        return;
    }
    StgWord info_ptr = *(StgWord *) frame;
    const StgInfoTable *info = stubInfoTable(info_ptr, sizeof(StgRetInfoTable), &why);
    if (info == NULL) {
        stubReplyBadAddress(c, why);
        return;
    }
    putFrameBitmap(c, frame, &r, info);
}

void
stubCmdFunBitmap (StubConn *c)
{
    StgWord fun = stubGetPtr(c);
    uint16_t n = stubGet16be(c);
    const char *why = putFunBitmap(c, fun, n);
    if (why != NULL) {
        stubReplyBadAddress(c, why);
        return;
    }
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   Blocks: BLOCKS, BLOCK_LIST, BLOCK
   -------------------------------------------------------------------------- */

static void
putBlockHeader (unsigned char meta[DEBUG_STUB_BLOCK_HEADER_LEN], const StubRegion *r)
{
    uint16_t flags = r->bd->flags;
    uint64_t start = r->start;
    uint32_t len = htonl((uint32_t) (r->end - r->start));
    memcpy(meta, &flags, 2);
    memcpy(meta + 2, &start, 8);
    memcpy(meta + 10, &len, 4);
}

/* Note [Streaming blocks]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * BLOCKS sends the whole heap. Copying it through the response buffer
 * would halve the throughput, so block groups are gathered into frames of
 * up to BLOCKS_FRAME bytes and sent with one sendmsg() per frame whose
 * iovec points at the blocks themselves (the RTS is paused; they cannot
 * change). */
#define BLOCKS_FRAME   (4u << 20)
#define BLOCKS_IOV     500     // 1 + 2 * BLOCKS_IOV <= IOV_MAX

typedef struct {
    StubConn *c;
    struct iovec iov[1 + 2 * BLOCKS_IOV];   // iov[0]: the frame's header
    unsigned char meta[BLOCKS_IOV][DEBUG_STUB_BLOCK_HEADER_LEN];
    int n;              // block groups gathered
    uint32_t bytes;     // payload bytes gathered
} BlockBatch;

static void
blocksFlush (BlockBatch *b)
{
    if (b->n == 0) return;
    stubSendGathered(b->c, b->iov, 1 + 2 * b->n, b->bytes, DEBUG_STUB_RESP_OKAY_CONTINUES);
    b->n = 0;
    b->bytes = 0;
}

static void
blockCb (void *user, const StubRegion *r)
{
    BlockBatch *b = user;
    if (b->c->broken) return;
    StgWord len = r->end - r->start;
    if (b->n == BLOCKS_IOV || b->bytes + DEBUG_STUB_BLOCK_HEADER_LEN + len > BLOCKS_FRAME) blocksFlush(b);
    putBlockHeader(b->meta[b->n], r);
    b->iov[1 + 2 * b->n] = (struct iovec) { .iov_base = b->meta[b->n], .iov_len = DEBUG_STUB_BLOCK_HEADER_LEN };
    b->iov[2 + 2 * b->n] = (struct iovec) { .iov_base = (void *) r->start, .iov_len = len };
    b->n++;
    b->bytes += DEBUG_STUB_BLOCK_HEADER_LEN + len;
}

void
stubCmdBlocks (StubConn *c)
{
    BlockBatch *b = stgMallocBytes(sizeof(BlockBatch), "DEBUG_STUB_CMD_BLOCKS");
    b->c = c; b->n = 0; b->bytes = 0;
    stubForEachBlock(blockCb, b);
    blocksFlush(b);
    stgFree(b);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

static void
blockHeaderCb (void *user, const StubRegion *r)
{
    StubConn *c = user;
    unsigned char meta[DEBUG_STUB_BLOCK_HEADER_LEN];
    putBlockHeader(meta, r);
    stubPut(c, meta, DEBUG_STUB_BLOCK_HEADER_LEN);
}

// BLOCKS without the blocks' memory: what a debugger that reads the heap
// closure by closure needs of the block list
void
stubCmdBlockList (StubConn *c)
{
    stubForEachBlock(blockHeaderCb, c);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

void
stubCmdBlock (StubConn *c)
{
    StubRegion r;
    if (!stubHeapRegion(stubGetPtr(c), &r)) {
        stubReplyBadAddress(c, "address is not in a heap block");
        return;
    }
    unsigned char meta[DEBUG_STUB_BLOCK_HEADER_LEN];
    putBlockHeader(meta, &r);
    stubPut(c, meta, DEBUG_STUB_BLOCK_HEADER_LEN);
    stubPut(c, (void *) r.start, r.end - r.start);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   Constructors and provenance: CON_DESCR, SOURCE_INFO
   -------------------------------------------------------------------------- */

/* Note [Source information]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * SOURCE_INFO answers with the six strings of the info table's IPE entry
 * (9.2's InfoProv: table name, closure type, type, label, module,
 * file:line:col-col), looked up with 9.2's
 *
 *     InfoProvEnt *lookupIPE(StgInfoTable *info);
 *
 * (includes/rts/IPE.h) where info is the info pointer as it appears in
 * closure headers. rtscope gets provenance without -finfo-table-map (9.0
 * has none) from the binary itself (rts/IPEBinary.c). A table nothing is known
 * about gets an empty list, as ghc-debug's stub answers for a table
 * without provenance.
 */

// SOURCE_INFO's answer: the six strings of an IPE entry, or none.
static void
putProvenance (StubConn *c, const InfoProvEnt *e)
{
    if (e == NULL) {
        stubPut32be(c, 0);
        return;
    }
    char loc[1024];
    const char *f[6] = { e->prov.table_name, e->prov.closure_desc,
                         e->prov.ty_desc, e->prov.label,
                         e->prov.module, ipeSrcLoc(&e->prov, loc, sizeof(loc)) };
    stubPut32be(c, 6);
    for (int i = 0; i < 6; i++) {
        const char *s = f[i] ? f[i] : "";
        stubPutString(c, s, strlen(s));
    }
}

void
stubCmdConDescr (StubConn *c)
{
    StgWord p = stubGetPtr(c);
    const StgInfoTable *info;
    const char *why = NULL;
    if (!stubConInfo(p, &info, &why)) {
        stubReplyBadAddress(c, why);
        return;
    }
    StgWord desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
    long len = stubStaticStrlen(desc);
    if (len < 0) {
        stubReplyBadAddress(c, "constructor name not readable");
        return;
    }
    stubPutString(c, (const char *) desc, (size_t) len);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

// See Note [Source information]
void
stubCmdSourceInfo (StubConn *c)
{
    StgWord p = stubGetPtr(c);
    const char *why = NULL;
    // lookupIPE reads the info table (its closure type and, for a
    // constructor, its description) and caches an entry per pointer:
    // only a verified info table may reach it.
    const StgInfoTable *info = stubInfoTable(p, sizeof(StgInfoTable), &why);
    if (info == NULL) {
        stubReplyBadAddress(c, why);
        return;
    }
    if (info->type >= CONSTR && info->type <= CONSTR_NOCAF) {
        const StgInfoTable *ci;
        if (!stubConInfo(p, &ci, &why)) {
            stubReplyBadAddress(c, why);
            return;
        }
        StgWord desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
        if (stubStaticStrlen(desc) < 0) {
            stubReplyBadAddress(c, "constructor name not readable");
            return;
        }
    }
    putProvenance(c, lookupIPE((StgInfoTable *) p));
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   rtscope's batch commands: READ_CLOSURES, DESCRIBE_INFOS
   -------------------------------------------------------------------------- */

// A per-item failure of a batch command: the reason, in the item's place.
static void
putWhy (StubConn *c, const char *why)
{
    size_t n = strlen(why);
    if (n > 0xffff) n = 0xffff;
    stubPut16be(c, (uint16_t) n);
    stubPut(c, why, n);
}

// The count (4 bytes) that starts a batch command, if the frame holds that
// many pointers after it.
static bool
getBatchCount (StubConn *c, uint32_t *n)
{
    *n = stubGet32be(c);
    if (*n > (c->frame_len - c->pos) / 8) {
        stubReplyMalformed(c);
        return false;
    }
    return true;
}

/* One closure of READ_CLOSURES: its record (size and memory, pointer
 * map), or size 0 and why it cannot be read. Returns its size in words (0
 * if unreadable); *mapp is its pointer map or NULL. */
typedef struct {
    uint8_t *map;
    StgWord cap;
    char buf[160];
} MapBuf;

static StgWord
putClosureRecord (StubConn *c, StgWord p, MapBuf *mb, const uint8_t **mapp)
{
    const char *why = NULL;
    *mapp = NULL;
    StgWord size = stubClosureSizeW(p, &why);
    if (size == 0) {
        stubPut32be(c, 0);
        putWhy(c, why);
        return 0;
    }
    bool needs = stubNeedsPointerMap(get_itbl((StgClosure *) p)->type);
    if (needs) {
        if (size > mb->cap) {
            mb->cap = size;
            mb->map = stgReallocBytes(mb->map, mb->cap, "READ_CLOSURES");
        }
        why = stubPointerMap(p, size, mb->map, mb->buf, sizeof(mb->buf));
        if (why != NULL) {
            stubPut32be(c, 0);
            putWhy(c, why);
            return 0;
        }
        *mapp = mb->map;
    }
    stubPut32be(c, (uint32_t) (size * sizeof(StgWord)));
    stubPut(c, (void *) p, size * sizeof(StgWord));
    stubPut32be(c, needs ? (uint32_t) size : 0);
    if (needs) stubPut(c, mb->map, size);
    return size;
}

/* Note [Reading ahead]
 * ~~~~~~~~~~~~~~~~~~~~
 * A debugger walks the heap breadth-first and asks for the closures of
 * its frontier a batch at a time. Along a list, a chain of thunks or any
 * long path the frontier is one closure wide, and a request a closure is
 * a round trip a closure: a list of a million cells took a million. So
 * READ_CLOSURES may carry, after its pointers, a budget (4 bytes): the
 * stub then also sends, after the records asked for, up to that many
 * closures found breadth-first from their pointers (the pointer fields of
 * the common closures: stubPointersOf), each after its address (8 bytes),
 * at most READ_AHEAD_BYTES of them, and then address 0. The debugger
 * keeps them and asks only for what it does not hold. Every one is
 * verified like any other; none is sent twice in one reply; one that
 * cannot be read is left out (the debugger asks for it and learns why).
 *
 * What the read-ahead has seen (the requested closures included) is a set
 * of addresses in open addressing (0 marks a free slot; no closure lies at
 * 0), sized when the request arrives to at least twice what the queue can
 * bring and kept at most half full, so a probe always ends.
 */
#define READ_AHEAD_MAX    65536
#define READ_AHEAD_BYTES  (4u << 20)

typedef struct {
    uint32_t budget;    // closures to send beyond those asked for; 0: none
    StgWord *queue;     // pointers found, to visit breadth-first
    StgWord qcap, qh, qn;
    StgWord *seen;      // the set of addresses met, hcap slots
    StgWord hmask;      // hcap - 1 (hcap a power of 2)
    StgWord nseen;
} ReadAhead;

// The budget after the n pointers of a READ_CLOSURES request, if any.
static uint32_t
readAheadBudget (StubConn *c, uint32_t n)
{
    uint32_t start = c->pos;
    uint32_t budget = 0;
    c->pos += 8 * n;
    if (stubHave(c, 4)) budget = stubGet32be(c);
    if (budget > READ_AHEAD_MAX) budget = READ_AHEAD_MAX;
    c->pos = start;
    return budget;
}

static void
readAheadInit (ReadAhead *ra, uint32_t budget, uint32_t n)
{
    *ra = (ReadAhead) { .budget = budget };
    if (budget == 0) return;
    ra->qcap = (StgWord) budget * 4 + n;
    ra->queue = stgMallocBytes(ra->qcap * sizeof(StgWord), "READ_CLOSURES queue");
    StgWord hcap = 1;
    while (hcap < 2 * (ra->qcap + n)) hcap <<= 1;
    ra->hmask = hcap - 1;
    ra->seen = stgCallocBytes(hcap, sizeof(StgWord), "READ_CLOSURES seen");
}

static void
readAheadFree (ReadAhead *ra)
{
    stgFree(ra->queue);
    stgFree(ra->seen);
}

// Add the closure at a (not 0) to what the read-ahead has seen; false if
// it was there already.
static bool
seenAdd (ReadAhead *ra, StgWord a)
{
    StgWord i = ((a >> 3) * UINT64_C(0x9E3779B97F4A7C15)) & ra->hmask;
    for (;; i = (i + 1) & ra->hmask) {
        if (ra->seen[i] == a) return false;
        if (ra->seen[i] == 0) {
            ra->seen[i] = a;
            ra->nseen++;
            return true;
        }
    }
}

// Queue the pointer fields of the closure at p (size words, map its
// pointer map or NULL), as many as the queue holds.
static void
readAheadQueue (ReadAhead *ra, StgWord p, StgWord size, const uint8_t *map)
{
    ra->qn += stubPointersOf(p, size, map, ra->queue + ra->qn, ra->qcap - ra->qn);
}

// The records asked for are sent; now what lies beyond them, each after
// its address, and address 0 at the end. See Note [Reading ahead].
static void
sendReadAhead (StubConn *c, ReadAhead *ra, MapBuf *mb)
{
    uint32_t sent = 0;
    size_t bytes = 0;
    // the set stays at most half full: the queue is reused once drained,
    // so more addresses than it holds may come through
    while (ra->qh < ra->qn && sent < ra->budget && bytes < READ_AHEAD_BYTES &&
           ra->nseen < (ra->hmask + 1) / 2 && !c->broken) {
        StgWord p = (StgWord) UNTAG_CLOSURE((StgClosure *) ra->queue[ra->qh++]);
        if (p == 0 || !seenAdd(ra, p)) continue;
        const char *why = NULL;
        StgWord size = stubClosureSizeW(p, &why);
        if (size == 0) continue;        // not sent: the debugger asks itself
        const uint8_t *map;
        stubPutPtr(c, p);
        size = putClosureRecord(c, p, mb, &map);
        sent++;
        bytes += size * sizeof(StgWord);
        if (ra->qh == ra->qn) ra->qh = ra->qn = 0;  // drained: reuse the queue
        if (ra->qn < ra->qcap) readAheadQueue(ra, p, size, map);
    }
    stubPutPtr(c, 0);
}

void
stubCmdReadClosures (StubConn *c)
{
    uint32_t n;
    if (!getBatchCount(c, &n)) return;
    MapBuf mb = { .map = NULL, .cap = 0 };
    ReadAhead ra;
    readAheadInit(&ra, readAheadBudget(c, n), n);
    for (uint32_t i = 0; i < n && !c->broken; i++) {
        StgWord p = (StgWord) UNTAG_CLOSURE((StgClosure *) stubGetPtr(c));
        const uint8_t *map;
        StgWord size = putClosureRecord(c, p, &mb, &map);
        if (ra.budget && p) (void) seenAdd(&ra, p);
        if (ra.budget && size) readAheadQueue(&ra, p, size, map);
    }
    if (ra.budget) sendReadAhead(c, &ra, &mb);
    readAheadFree(&ra);
    stgFree(mb.map);
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

// One info pointer of DESCRIBE_INFOS: what INFO_TABLES, SRT, CON_DESCR and
// SOURCE_INFO answer about it, or why it cannot be read.
static void
describeInfo (StubConn *c, StgWord p)
{
    const char *why = NULL;
    const StgInfoTable *info = stubInfoTable(p, sizeof(StgInfoTable), &why);
    StgWord srt = 0;
    const StgInfoTable *ci = NULL;
    bool con = info != NULL && info->type >= CONSTR && info->type <= CONSTR_NOCAF;
    if (info != NULL && !stubSrtOf(p, &srt, &why)) info = NULL;
    if (info != NULL && con && !stubConInfo(p, &ci, &why)) info = NULL;
    StgWord desc = 0;
    long len = 0;
    if (info != NULL && con) {
        // A constructor-typed table without a description: the RTS's
        // stg_dummy_ret_info (INFO_TABLE, not INFO_TABLE_CONSTR), the
        // fun of the AP_STACKs raiseAsync builds. Described without a
        // name (and without provenance, which would read it).
        desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
        len = stubStaticStrlen(desc);
    }
    if (info == NULL) {
        stubPut8(c, 0);
        putWhy(c, why ? why : "bad address");
        return;
    }
    stubPut8(c, 1);
    stubPut32be(c, info->type);
    stubPut32be(c, info->layout.payload.ptrs);
    stubPut32be(c, info->layout.payload.nptrs);
    stubPutPtr(c, srt);
    if (con && len >= 0) stubPutString(c, (const char *) desc, (size_t) len);
    else stubPut32be(c, 0);
    // See Note [Source information]: only a verified table (and, for
    // a constructor, a readable description) reaches lookupIPE.
    putProvenance(c, con && len < 0 ? NULL : lookupIPE((StgInfoTable *) p));
}

void
stubCmdDescribeInfos (StubConn *c)
{
    uint32_t n;
    if (!getBatchCount(c, &n)) return;
    for (uint32_t i = 0; i < n && !c->broken; i++) {
        describeInfo(c, stubGetPtr(c));
    }
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

#endif /* THREADED_RTS */
