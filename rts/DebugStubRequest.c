/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's protocol: request frames in, response frames out, and
 * the answer to each command (rts/DebugStubProtocol.h has the numbers,
 * docs/debug-protocol.md the specification). Runs on the stub's thread
 * (rts/DebugStub.c); every address a request names is verified before it
 * is read (rts/DebugStubVerify.c).
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
#include "DebugStubVerify.h"
#include "DebugStubLayout.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* -----------------------------------------------------------------------------
   Output
   -------------------------------------------------------------------------- */

static void
sendAll (StubConn *c, struct iovec *iov, int n)
{
    while (!c->broken && n > 0) {
        struct msghdr msg = { .msg_iov = iov, .msg_iovlen = n };
        ssize_t r = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            c->broken = true;   // EPIPE, ECONNRESET, EAGAIN (send timeout)
            return;
        }
        while (n > 0 && (size_t) r >= iov->iov_len) {
            r -= iov->iov_len;
            iov++; n--;
        }
        if (n > 0) {
            iov->iov_base = (char *) iov->iov_base + r;
            iov->iov_len -= r;
        }
    }
}

static void
frameHeader (unsigned char hdr[DEBUG_STUB_RESP_HEADER_LEN], uint32_t len, uint16_t status)
{
    uint32_t l = htonl(len);
    uint16_t s = htons(status);
    memcpy(hdr, &l, 4);
    memcpy(hdr + 4, &s, 2);
}

// Send the buffered payload as one frame with this status.
static void
flushFrame (StubConn *c, uint16_t status)
{
    unsigned char hdr[DEBUG_STUB_RESP_HEADER_LEN];
    frameHeader(hdr, c->out_len, status);
    struct iovec iov[2] = {
        { .iov_base = hdr, .iov_len = DEBUG_STUB_RESP_HEADER_LEN },
        { .iov_base = c->out, .iov_len = c->out_len },
    };
    sendAll(c, iov, c->out_len ? 2 : 1);
    c->out_len = 0;
    c->out_sent = true;
}

static void
put (StubConn *c, const void *p, size_t n)
{
    if (c->out_len + n > STUB_RESP_BUF) flushFrame(c, DEBUG_STUB_RESP_OKAY_CONTINUES);
    if (n > STUB_RESP_BUF) {
        // a big object: its own frame, straight from where it lies
        unsigned char hdr[DEBUG_STUB_RESP_HEADER_LEN];
        frameHeader(hdr, n, DEBUG_STUB_RESP_OKAY_CONTINUES);
        struct iovec iov[2] = {
            { .iov_base = hdr, .iov_len = DEBUG_STUB_RESP_HEADER_LEN },
            { .iov_base = (void *) p, .iov_len = n },
        };
        sendAll(c, iov, 2);
        return;
    }
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
}

static void put8  (StubConn *c, uint8_t x)  { put(c, &x, 1); }
static void put16be (StubConn *c, uint16_t x) { x = htons(x); put(c, &x, 2); }
static void put32be (StubConn *c, uint32_t x) { x = htonl(x); put(c, &x, 4); }
static void putPtr (StubConn *c, StgWord p) { uint64_t x = p; put(c, &x, 8); }

static void
putString (StubConn *c, const char *s, size_t n)
{
    put32be(c, (uint32_t) n);
    put(c, s, n);
}

static void
finish (StubConn *c, uint16_t status)
{
    flushFrame(c, status);
}

// An error reply: status, and for DEBUG_STUB_RESP_BAD_COMMAND a reason and a message.
// Whatever payload was buffered is dropped.
static void
replyError (StubConn *c, uint16_t status, uint16_t why, const char *msg)
{
    c->out_len = 0;
    if (status == DEBUG_STUB_RESP_BAD_COMMAND) {
        put16be(c, why);
        put(c, msg, strlen(msg));
    }
    finish(c, status);
}

/* -----------------------------------------------------------------------------
   Input
   -------------------------------------------------------------------------- */

// Read exactly n bytes within STUB_IO_TIMEOUT_MS. 0 ok, -1 closed/error, -2 timeout.
static int
readFull (int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, STUB_IO_TIMEOUT_MS);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) return -2;
        ssize_t k = read(fd, (char *) buf + got, n - got);
        if (k < 0) { if (errno == EINTR || errno == EAGAIN) continue; return -1; }
        if (k == 0) return -1;
        got += k;
    }
    return 0;
}

static bool
have (StubConn *c, uint32_t n)
{
    return c->frame_len - c->pos >= n;
}

static uint8_t
get8 (StubConn *c)
{
    return (uint8_t) c->frame[c->pos++];
}

// The next n bytes of the request, as they are (callers check have()).
static void
getBytes (StubConn *c, void *out, uint32_t n)
{
    memcpy(out, c->frame + c->pos, n);
    c->pos += n;
}

static uint16_t get16be (StubConn *c) { uint16_t x; getBytes(c, &x, 2); return ntohs(x); }
static uint32_t get32be (StubConn *c) { uint32_t x; getBytes(c, &x, 4); return ntohl(x); }
static StgWord  getPtr  (StubConn *c) { uint64_t x; getBytes(c, &x, 8); return (StgWord) x; }

/* -----------------------------------------------------------------------------
   Answers that wait for a pause
   -------------------------------------------------------------------------- */

/* After PAUSE_AFTER_CENSUS: the pinned blocks that a heap census does
 * not count although they hold live objects, the block each Capability
 * is filling with pinned objects (and any it has filled since the GC);
 * heapCensus() walks only the generations' lists and the GC's workspaces.
 * The stub holds the pause, so the Capabilities stay as they are. */
static void
putUncensusedPinned (StubConn *c)
{
    for (uint32_t i = 0; i < n_capabilities; i++) {
        Capability *cap = capabilities[i];
        if (cap->pinned_object_block != NULL) {
            putPtr(c, (StgWord) cap->pinned_object_block->start);
        }
        for (bdescr *bd = cap->pinned_object_blocks; bd != NULL; bd = bd->link) {
            putPtr(c, (StgWord) bd->start);
        }
    }
}

void
stubAnswerWaiting (StubConn *c)
{
    StubPauseState paused = stubPauseState();
    if (c->waiting == WAIT_NONE || paused == NOT_PAUSED) return;
    // PAUSE_AFTER_GC waits for the GC's pause, not for any pause
    if (c->waiting == WAIT_AFTER_GC && paused != PAUSED_AFTER_GC) return;
    StgWord64 census = pauseAfterGcCensus();
    c->out_len = 0;
    if (c->waiting == WAIT_AFTER_GC && c->census) {
        if (census == 0) {
            // paused after a GC, but not the census's (a self-pause came
            // first): ask again after it
            c->waiting = WAIT_NONE;
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED,
                       "the program paused before its census; ask again");
            return;
        }
        put32be(c, (uint32_t) (census >> 32));
        put32be(c, (uint32_t) census);
        putUncensusedPinned(c);
    }
    c->waiting = WAIT_NONE;
    finish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   Requests
   -------------------------------------------------------------------------- */

static void
rootCb (void *user, StgClosure *p)
{
    putPtr((StubConn *) user, (StgWord) p);
}

static void
savedCb (void *user, StgClosure *p)
{
    putPtr((StubConn *) user, (StgWord) UNTAG_CLOSURE(p));
}

static void
threadCb (void *user, StgTSO *tso)
{
    putPtr((StubConn *) user, (StgWord) tso);
}

static void
putSmallBitmap (StubConn *c, StgWord bitmap, StgWord size)
{
    put32be(c, (uint32_t) size);
    for (StgWord i = 0; i < size; i++) {
        put8(c, !(bitmap & 1));      // 1: the word is a pointer
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
    put32be(c, (uint32_t) size);
    for (StgWord i = 0; i < size; i++) {
        put8(c, !((lb->bitmap[i / BITS_IN(W_)] >> (i % BITS_IN(W_))) & 1));
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

static void
cmdStackBitmap (StubConn *c)
{
    StgWord sp = getPtr(c);
    uint32_t off = get32be(c);
    StgWord frame = sp + off;
    StubRegion r;
    const char *why = NULL;
    if (frame < sp || !stubHeapRegion(frame, &r) || frame % sizeof(StgWord) != 0) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS, "stack frame not in a heap block");
        return;
    }
    StgWord info_ptr = *(StgWord *) frame;
    const StgInfoTable *info = stubInfoTable(info_ptr, sizeof(StgRetInfoTable), &why);
    if (info == NULL) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS, why);
        return;
    }
    switch (info->type) {
    case CATCH_STM_FRAME: case CATCH_RETRY_FRAME: case ATOMICALLY_FRAME:
    case UNDERFLOW_FRAME: case STOP_FRAME: case CATCH_FRAME:
    case UPDATE_FRAME: case RET_SMALL:
        putSmallBitmap(c, BITMAP_BITS(info->layout.bitmap), BITMAP_SIZE(info->layout.bitmap));
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    case RET_BIG: {
        StgWord bm = (StgWord) GET_LARGE_BITMAP(info);
        if (!stubReadable(bm, sizeof(StgWord)) ||
            !putLargeBitmap(c, bm, ((StgLargeBitmap *) bm)->size)) {
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS, "large bitmap not readable");
            return;
        }
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }
    case RET_FUN: {
        if (frame + sizeof(StgRetFun) > r.end) {
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS, "frame extends past its block");
            return;
        }
        StgRetFun *rf = (StgRetFun *) frame;
        why = putFunBitmap(c, (StgWord) rf->fun, rf->size);
        if (why != NULL) {
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS, why);
            return;
        }
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }
    default:
        replyError(c, DEBUG_STUB_RESP_BAD_STACK, 0, "");
        return;
    }
}

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
    struct iovec iov[1 + 2 * BLOCKS_IOV];
    unsigned char meta[BLOCKS_IOV][DEBUG_STUB_BLOCK_HEADER_LEN];
    unsigned char hdr[DEBUG_STUB_RESP_HEADER_LEN];
    int n;              // block groups gathered
    uint32_t bytes;     // payload bytes gathered
} BlockBatch;

static void
blocksFlush (BlockBatch *b)
{
    if (b->n == 0) return;
    frameHeader(b->hdr, b->bytes, DEBUG_STUB_RESP_OKAY_CONTINUES);
    b->iov[0].iov_base = b->hdr;
    b->iov[0].iov_len = DEBUG_STUB_RESP_HEADER_LEN;
    sendAll(b->c, b->iov, 1 + 2 * b->n);
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

static void
blockHeaderCb (void *user, const StubRegion *r)
{
    StubConn *c = user;
    unsigned char meta[DEBUG_STUB_BLOCK_HEADER_LEN];
    putBlockHeader(meta, r);
    put(c, meta, DEBUG_STUB_BLOCK_HEADER_LEN);
}

/* Every command that reads the heap (ROOTS, CLOSURES, STACK_BITMAP,
 * SAVED_OBJECTS, BLOCKS, BLOCK, FUN_BITMAP) starts here. The non-moving
 * heap (+RTS -xn) keeps the old generation in segments that neither
 * listAllBlocks nor the address verification cover: rather than answer
 * with a partial heap (and a "bad address" for every old object), the
 * stub refuses every heap command there, saying why. Static data, PAUSE
 * and RESUME still work. */
static bool
requirePaused (StubConn *c)
{
    if (RtsFlags.GcFlags.useNonmoving) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED,
                   "the debug stub cannot read the non-moving heap "
                   "(+RTS -xn): run the program without -xn to inspect its heap");
        return false;
    }
    if (stubPauseState() == NOT_PAUSED) {
        replyError(c, DEBUG_STUB_RESP_NOT_PAUSED, 0, "");
        return false;
    }
    return true;
}

static bool
conInfo (StgWord ptr, const StgInfoTable **out, const char **why)
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
static bool
srtOf (StgWord ptr, StgWord *out, const char **why)
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
 * has none) from the binary itself (rts/IPE.c). A table nothing is known
 * about gets an empty list, as ghc-debug's stub answers for a table
 * without provenance.
 */

// SOURCE_INFO's answer: the six strings of an IPE entry, or none.
static void
putProvenance (StubConn *c, const InfoProvEnt *e)
{
    if (e == NULL) {
        put32be(c, 0);
        return;
    }
    const char *f[6] = { e->prov.table_name, e->prov.closure_desc,
                         e->prov.ty_desc, e->prov.label,
                         e->prov.module, e->prov.srcloc };
    put32be(c, 6);
    for (int i = 0; i < 6; i++) {
        const char *s = f[i] ? f[i] : "";
        putString(c, s, strlen(s));
    }
}

/* -----------------------------------------------------------------------------
   rtscope's batch commands
   -------------------------------------------------------------------------- */

// A per-item failure of a batch command: the reason, in the item's place.
static void
putWhy (StubConn *c, const char *why)
{
    size_t n = strlen(why);
    if (n > 0xffff) n = 0xffff;
    put16be(c, (uint16_t) n);
    put(c, why, n);
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
        put32be(c, 0);
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
            put32be(c, 0);
            putWhy(c, why);
            return 0;
        }
        *mapp = mb->map;
    }
    put32be(c, (uint32_t) (size * sizeof(StgWord)));
    put(c, (void *) p, size * sizeof(StgWord));
    put32be(c, needs ? (uint32_t) size : 0);
    if (needs) put(c, mb->map, size);
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
 * cannot be read is left out (the debugger asks for it and learns why). */
#define READ_AHEAD_MAX    65536
#define READ_AHEAD_BYTES  (4u << 20)

static void
cmdReadClosures (StubConn *c, uint32_t n)
{
    MapBuf mb = { .map = NULL, .cap = 0 };
    uint32_t start = c->pos;
    uint32_t budget = 0;
    c->pos += 8 * n;
    if (have(c, 4)) budget = get32be(c);
    if (budget > READ_AHEAD_MAX) budget = READ_AHEAD_MAX;
    c->pos = start;
    // the read-ahead's queue and the set of what it has seen (the
    // requested closures included)
    StgWord qcap = budget ? (StgWord) budget * 4 + n : 0;
    StgWord *queue = NULL, *seen = NULL;
    StgWord qn = 0, hmask = 0, nseen = 0;
    if (budget) {
        queue = stgMallocBytes(qcap * sizeof(StgWord), "READ_CLOSURES queue");
        StgWord hcap = 1;
        while (hcap < 2 * (qcap + n)) hcap <<= 1;
        hmask = hcap - 1;
        seen = stgCallocBytes(hcap, sizeof(StgWord), "READ_CLOSURES seen");
    }
#define SEEN_ADD(a) ({ StgWord h_ = ((a) >> 3) * 0x9E3779B97F4A7C15ull;       \
        bool new_ = true;                                                    \
        for (StgWord i_ = h_ & hmask;; i_ = (i_ + 1) & hmask) {              \
            if (seen[i_] == (a)) { new_ = false; break; }                    \
            if (seen[i_] == 0) { seen[i_] = (a); nseen++; break; }           \
        }                                                                    \
        new_; })
    for (uint32_t i = 0; i < n && !c->broken; i++) {
        StgWord p = (StgWord) UNTAG_CLOSURE((StgClosure *) getPtr(c));
        const uint8_t *map;
        StgWord size = putClosureRecord(c, p, &mb, &map);
        if (budget && p) (void) SEEN_ADD(p);
        if (budget && size) {
            qn += stubPointersOf(p, size, map, queue + qn, qcap - qn);
        }
    }
    if (budget) {
        // the records asked for are sent; now what lies beyond them, each
        // after its address, and address 0 at the end
        uint32_t sent = 0;
        size_t bytes = 0;
        StgWord qh = 0;
        // the set stays at most half full: the queue is reused once
        // drained, so more addresses than it holds may come through
        while (qh < qn && sent < budget && bytes < READ_AHEAD_BYTES &&
               nseen < (hmask + 1) / 2 && !c->broken) {
            StgWord p = (StgWord) UNTAG_CLOSURE((StgClosure *) queue[qh++]);
            if (p == 0 || !SEEN_ADD(p)) continue;
            const char *why = NULL;
            StgWord size = stubClosureSizeW(p, &why);
            if (size == 0) continue;        // not sent: the debugger asks itself
            const uint8_t *map;
            putPtr(c, p);
            size = putClosureRecord(c, p, &mb, &map);
            sent++;
            bytes += size * sizeof(StgWord);
            if (qh == qn) qh = qn = 0;      // drained: reuse the queue
            if (qn < qcap) qn += stubPointersOf(p, size, map, queue + qn, qcap - qn);
        }
        putPtr(c, 0);
    }
#undef SEEN_ADD
    stgFree(queue);
    stgFree(seen);
    stgFree(mb.map);
}

/* DESCRIBE_INFOS: for each info pointer, what INFO_TABLES, SRT,
 * CON_DESCR and SOURCE_INFO answer about it, in one reply. */
static void
cmdDescribeInfos (StubConn *c, uint32_t n)
{
    for (uint32_t i = 0; i < n && !c->broken; i++) {
        const char *why = NULL;
        StgWord p = getPtr(c);
        const StgInfoTable *info = stubInfoTable(p, sizeof(StgInfoTable), &why);
        StgWord srt = 0;
        const StgInfoTable *ci = NULL;
        bool con = info != NULL && info->type >= CONSTR && info->type <= CONSTR_NOCAF;
        if (info != NULL && !srtOf(p, &srt, &why)) info = NULL;
        if (info != NULL && con && !conInfo(p, &ci, &why)) info = NULL;
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
            put8(c, 0);
            putWhy(c, why ? why : "bad address");
            continue;
        }
        put8(c, 1);
        put32be(c, info->type);
        put32be(c, info->layout.payload.ptrs);
        put32be(c, info->layout.payload.nptrs);
        putPtr(c, srt);
        if (con && len >= 0) putString(c, (const char *) desc, (size_t) len);
        else put32be(c, 0);
        // See Note [Source information]: only a verified table (and, for
        // a constructor, a readable description) reaches lookupIPE.
        putProvenance(c, con && len < 0 ? NULL : lookupIPE((StgInfoTable *) p));
    }
}

/* ghc-debug's profiling mode in VERSION: 0 for a non-profiled RTS; for a
 * profiled one, what its heap profile keeps in the closures' profiling
 * header (1: none, 2: retainer sets, 3: LDV, 5: another profile). */
static uint8_t
profilingMode (void)
{
#if defined(PROFILING)
    if (RtsFlags.ProfFlags.doHeapProfile == NO_HEAP_PROFILING) return 1;
    if (RtsFlags.ProfFlags.doHeapProfile == HEAP_BY_RETAINER ||
        RtsFlags.ProfFlags.retainerSelector != NULL) return 2;
    if (RtsFlags.ProfFlags.doHeapProfile == HEAP_BY_LDV ||
        RtsFlags.ProfFlags.bioSelector != NULL) return 3;
    return 5;
#else
    return 0;
#endif
}

static void
handleRequest (StubConn *c, uint32_t cmd)
{
    const char *why = NULL;
    c->out_len = 0;
    c->out_sent = false;

    switch (cmd) {
    case DEBUG_STUB_CMD_VERSION:
        put32be(c, DEBUG_STUB_PROTOCOL_VERSION); // the 9.2 pause API and protocol
        put32be(c, 2);                  // patch level of the real compiler (9.0.2)
        put8(c, profilingMode());       // ghc-debug's profiling mode
#if defined(TABLES_NEXT_TO_CODE)
        put8(c, 1);                     // tables next to code
#else
        put8(c, 0);
#endif
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;

    case DEBUG_STUB_CMD_PAUSE: {
        uint8_t mode = have(c, 1) ? get8(c) : 0;
        if (mode > 1) {
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_MALFORMED,
                       "pause mode must be 0 (pause) or 1 (fork)");
            return;
        }
        if (stubPauseState() != NOT_PAUSED) {
            replyError(c, DEBUG_STUB_RESP_ALREADY_PAUSED, 0, "");
            return;
        }
        if (mode == 0) {
            stubPause();
            finish(c, DEBUG_STUB_RESP_OKAY);
            return;
        }
        // See Note [Fork mode] in DebugStub.c: the child answers
        switch (stubPauseFork()) {
        case STUB_FORK_CHILD:
            finish(c, DEBUG_STUB_RESP_OKAY);
            return;
        case STUB_FORK_PARENT:
            c->out_len = 0;     // nothing to say: the connection is the child's
            return;
        case STUB_FORK_FAILED:
        default: {
            char msg[128];
            snprintf(msg, sizeof(msg), "cannot fork the program: %s", strerror(errno));
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED, msg);
            return;
        }
        }
    }

    case DEBUG_STUB_CMD_RESUME:
        if (stubPauseState() == NOT_PAUSED) {
            replyError(c, DEBUG_STUB_RESP_NOT_PAUSED, 0, "");
            return;
        }
        if (stubIsForkChild()) {
            // the snapshot's work is done: answer, then the child ends and
            // its parent serves the connection again
            finish(c, DEBUG_STUB_RESP_OKAY);
            stubForkChildExit();
        }
        stubResume();
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;

    case DEBUG_STUB_CMD_ROOTS:
        if (!requirePaused(c)) return;
        pauseListThreads(threadCb, c);
        pauseListMiscRoots(rootCb, c);
        pauseListGcOnlyRoots(rootCb, c);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;

    case DEBUG_STUB_CMD_CLOSURES: {
        if (!requirePaused(c)) return;
        if (!have(c, 2)) goto malformed;
        uint16_t n = get16be(c);
        if (!have(c, 8u * n)) goto malformed;
        uint32_t start = c->pos;
        for (uint16_t i = 0; i < n; i++) {       // verify all, then send
            if (stubClosureSizeW(getPtr(c), &why) == 0) goto bad_address;
        }
        c->pos = start;
        for (uint16_t i = 0; i < n; i++) {
            StgWord p = (StgWord) UNTAG_CLOSURE((StgClosure *) getPtr(c));
            StgWord bytes = stubClosureSizeW(p, &why) * sizeof(StgWord);
            put32be(c, (uint32_t) bytes);
            put(c, (void *) p, bytes);
        }
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_INFO_TABLES: {
        if (!have(c, 2)) goto malformed;
        uint16_t n = get16be(c);
        if (!have(c, 8u * n)) goto malformed;
        uint32_t start = c->pos;
        for (uint16_t i = 0; i < n; i++) {
            if (stubInfoTable(getPtr(c), sizeof(StgInfoTable), &why) == NULL) goto bad_address;
        }
        c->pos = start;
        for (uint16_t i = 0; i < n; i++) {
            StgWord p = getPtr(c);
            put32be(c, sizeof(StgInfoTable));
            put(c, (void *) (p - sizeof(StgInfoTable)), sizeof(StgInfoTable));
        }
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_SRT: {
        if (!have(c, 2)) goto malformed;
        uint16_t n = get16be(c);
        if (!have(c, 8u * n)) goto malformed;
        uint32_t start = c->pos;
        StgWord srt;
        for (uint16_t i = 0; i < n; i++) {
            if (!srtOf(getPtr(c), &srt, &why)) goto bad_address;
        }
        c->pos = start;
        for (uint16_t i = 0; i < n; i++) {
            srtOf(getPtr(c), &srt, &why);
            putPtr(c, srt);
        }
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_STACK_BITMAP:
        if (!requirePaused(c)) return;
        if (!have(c, 12)) goto malformed;
        cmdStackBitmap(c);
        return;

    case DEBUG_STUB_CMD_FUN_BITMAP: {
        if (!requirePaused(c)) return;
        if (!have(c, 10)) goto malformed;
        StgWord fun = getPtr(c);
        uint16_t n = get16be(c);
        why = putFunBitmap(c, fun, n);
        if (why != NULL) goto bad_address;
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_POLL:
        if (stubPauseState() != NOT_PAUSED) {
            finish(c, DEBUG_STUB_RESP_OKAY);
        } else {
            c->waiting = WAIT_POLL;     // answered when the program pauses
        }
        return;

    case DEBUG_STUB_CMD_SAVED_OBJECTS:
        if (!requirePaused(c)) return;
        stubListSavedObjects(savedCb, c);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;

    case DEBUG_STUB_CMD_CON_DESCR: {
        if (!have(c, 8)) goto malformed;
        StgWord p = getPtr(c);
        const StgInfoTable *info;
        if (!conInfo(p, &info, &why)) goto bad_address;
        StgWord desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
        long len = stubStaticStrlen(desc);
        if (len < 0) { why = "constructor name not readable"; goto bad_address; }
        putString(c, (const char *) desc, (size_t) len);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_SOURCE_INFO: {      // See Note [Source information]
        if (!have(c, 8)) goto malformed;
        StgWord p = getPtr(c);
        // lookupIPE reads the info table (its closure type and, for a
        // constructor, its description) and caches an entry per pointer:
        // only a verified info table may reach it.
        const StgInfoTable *info = stubInfoTable(p, sizeof(StgInfoTable), &why);
        if (info == NULL) goto bad_address;
        if (info->type >= CONSTR && info->type <= CONSTR_NOCAF) {
            const StgInfoTable *ci;
            if (!conInfo(p, &ci, &why)) goto bad_address;
            StgWord desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
            if (stubStaticStrlen(desc) < 0) {
                why = "constructor name not readable";
                goto bad_address;
            }
        }
        putProvenance(c, lookupIPE((StgInfoTable *) p));
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_BLOCKS: {
        if (!requirePaused(c)) return;
        BlockBatch *b = stgMallocBytes(sizeof(BlockBatch), "DEBUG_STUB_CMD_BLOCKS");
        b->c = c; b->n = 0; b->bytes = 0;
        stubForEachBlock(blockCb, b);
        blocksFlush(b);
        stgFree(b);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_BLOCK_LIST: {
        // BLOCKS without the blocks' memory: what a debugger that reads
        // the heap closure by closure needs of the block list
        if (!requirePaused(c)) return;
        stubForEachBlock(blockHeaderCb, c);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_BLOCK: {
        if (!requirePaused(c)) return;
        if (!have(c, 8)) goto malformed;
        StubRegion r;
        if (!stubHeapRegion(getPtr(c), &r)) {
            why = "address is not in a heap block";
            goto bad_address;
        }
        unsigned char meta[DEBUG_STUB_BLOCK_HEADER_LEN];
        putBlockHeader(meta, &r);
        put(c, meta, DEBUG_STUB_BLOCK_HEADER_LEN);
        put(c, (void *) r.start, r.end - r.start);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_CCS: case DEBUG_STUB_CMD_CC: case DEBUG_STUB_CMD_INDEX_TABLE: case DEBUG_STUB_CMD_CCS_MAIN:
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED,
                   "cost-centre requests need a profiled RTS");
        return;

    case DEBUG_STUB_CMD_PAUSE_AFTER_GC:
    case DEBUG_STUB_CMD_PAUSE_AFTER_CENSUS: {
        bool census = cmd == DEBUG_STUB_CMD_PAUSE_AFTER_CENSUS;
        uint8_t flags = census ? 1 : have(c, 1) ? get8(c) : 0;
        if (census && RtsFlags.ProfFlags.doHeapProfile == NO_HEAP_PROFILING) {
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED,
                       "no heap profile to take a census of: "
                       "run the program with +RTS -hT (or -hi)");
            return;
        }
        if (stubPauseState() != NOT_PAUSED) {
            replyError(c, DEBUG_STUB_RESP_ALREADY_PAUSED, 0, "");
            return;
        }
        c->waiting = WAIT_AFTER_GC;
        c->census = census;
        stubArmAfterGc(census);
        if ((flags & 1) && !stubStartMajorGc()) {
            stubCancelAfterGc();
            c->waiting = WAIT_NONE;
            replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED,
                       "cannot start a GC thread");
        }
        return;
    }

    case DEBUG_STUB_CMD_READ_CLOSURES:
    case DEBUG_STUB_CMD_DESCRIBE_INFOS: {
        if (cmd == DEBUG_STUB_CMD_READ_CLOSURES && !requirePaused(c)) return;
        if (!have(c, 4)) goto malformed;
        uint32_t n = get32be(c);
        if (n > (c->frame_len - c->pos) / 8) goto malformed;
        if (cmd == DEBUG_STUB_CMD_READ_CLOSURES) cmdReadClosures(c, n);
        else cmdDescribeInfos(c, n);
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }

    case DEBUG_STUB_CMD_STAY_PAUSED:
        if (!have(c, 1)) goto malformed;
        c->stay_paused = get8(c) != 0;
        finish(c, DEBUG_STUB_RESP_OKAY);
        return;

    default:
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNKNOWN_COMMAND, "unknown command");
        return;
    }

malformed:
    replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_MALFORMED, "frame too short for its command");
    return;
bad_address:
    replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS, why ? why : "bad address");
    return;
}

bool
stubServeOne (StubConn *c)
{
    uint32_t len;
    int r = readFull(c->fd, &len, 4);
    if (r == -1) return false;
    if (r == -2) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_TIMEOUT, "incomplete frame");
        return false;
    }
    len = ntohl(len);
    if (len > DEBUG_STUB_REQUEST_MAX) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_TOO_LONG, "frame too long");
        return false;
    }
    c->frame = stgReallocBytes(c->frame, len + 8, "debug stub frame");
    r = readFull(c->fd, c->frame, len);
    if (r == -1) return false;
    if (r == -2) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_TIMEOUT, "incomplete frame");
        return false;
    }
    c->frame_len = len;
    c->pos = 0;
    if (len < 4) {
        replyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_MALFORMED, "frame shorter than a command");
        return !c->broken;
    }
    handleRequest(c, get32be(c));
    return !c->broken;
}

#endif /* THREADED_RTS */
