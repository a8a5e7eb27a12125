/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub: ghc-debug's wire protocol served from inside the RTS.
 * docs/debug-protocol.md is the specification of what is spoken here.
 *
 * ---------------------------------------------------------------------------*/

#define _GNU_SOURCE
#include "Rts.h"
#include "RtsAPI.h"
#include "rts/DebugStub.h"

#include "RtsUtils.h"
#include "Schedule.h"
#include "Capability.h"
#include "Task.h"
#include "Rtscope.h"
#include "RtsPause.h"
#include "DebugStub.h"
#include "DebugStubVerify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(THREADED_RTS)
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#endif

/* The IPE lookup of GHC 9.2 (InfoProvEnt *lookupIPE(StgInfoTable *)),
 * provided by the -hi provenance module (rts/IPE.c). Until that module is
 * in the tree, a weak fallback that finds nothing stands in; the real one
 * overrides it at link time. See Note [Source information]. */
#if defined(__has_include)
#if __has_include("rts/IPE.h")
#include "rts/IPE.h"
#define HAVE_RTS_IPE_H 1
#endif
#endif
#if !defined(HAVE_RTS_IPE_H)
typedef struct InfoProv_ {
    char *table_name;
    char *closure_desc;
    char *ty_desc;
    char *label;
    char *module;
    char *srcloc;
} InfoProv;

typedef struct InfoProvEnt_ {
    StgInfoTable *info;
    InfoProv prov;
    struct InfoProvEnt_ *link;
} InfoProvEnt;

InfoProvEnt *lookupIPE (StgInfoTable *info);
#endif

InfoProvEnt * __attribute__((weak))
lookupIPE (StgInfoTable *info STG_UNUSED)
{
    return NULL;
}

/* Note [Source information]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * SOURCE_INFO answers with the six strings of the info table's IPE entry
 * (9.2's InfoProv: table name, closure type, type, label, module,
 * file:line:col-col), looked up with 9.2's
 *
 *     InfoProvEnt *lookupIPE(StgInfoTable *info);
 *
 * where info is the info pointer as it appears in closure headers. rtscope
 * gets provenance without -finfo-table-map (9.0 has none) from the -hi
 * provenance module, which defines lookupIPE. The weak definition above
 * answers "not found" (an empty list, as ghc-debug's stub does for a table
 * without provenance) so that the stub links and works without it.
 */

static char *stub_flag_path = NULL;   // +RTS --debug-stub[=PATH]
static bool  stub_flag_given = false;

bool
debugStubFlag (const char *arg)
{
    if (arg[0] == '\0') {
        stub_flag_given = true;
        return true;
    }
    if (arg[0] == '=' && arg[1] != '\0') {
        stub_flag_given = true;
        stgFree(stub_flag_path);
        stub_flag_path = stgMallocBytes(strlen(arg), "debugStubFlag");
        strcpy(stub_flag_path, arg + 1);
        return true;
    }
    return false;
}

#if defined(THREADED_RTS)

/* Note [The debug stub]
 * ~~~~~~~~~~~~~~~~~~~~~
 * One OS thread, which holds no Capability, runs the stub: it accepts one
 * debugger at a time on a Unix socket and answers its requests. It becomes
 * a bound Task only while it has paused the RTS (rts_pause()).
 *
 * The thread waits in poll() on the listening socket or the connection and
 * on a wake-up pipe through which other threads reach it (a self-pause,
 * the end of a GC it was waiting for, shutdown). Nothing the debugger does
 * can take the program down or leave it paused:
 *
 *  - requests are length-prefixed frames; an unknown command, or a frame
 *    too short for its command, gets an error reply and the connection
 *    goes on; a frame longer than MAX_FRAME, or one that does not arrive
 *    in full within IO_TIMEOUT_MS, gets an error reply and the connection
 *    is closed (the stream cannot be resynchronised);
 *  - addresses are verified before they are read (Note [Verified reads]);
 *  - writes carry MSG_NOSIGNAL and a send timeout, so a debugger that
 *    stops reading or vanishes costs a closed connection, never SIGPIPE or
 *    a stuck stub;
 *  - when the connection ends, for whatever reason (kill -9 included: the
 *    kernel closes the socket and poll() wakes), the stub resumes the
 *    program, unless the debugger asked for the pause to outlive it
 *    (STAY_PAUSED);
 *  - the thread blocks every signal, so the program's handlers run
 *    elsewhere, and socket errors only ever close the connection.
 */

#define MAX_FRAME      (1u << 20)
#define IO_TIMEOUT_MS  10000
#define RESP_BUF       (64 * 1024)
#define MAX_SAVED      4096

// Commands (see docs/debug-protocol.md)
enum {
    CMD_VERSION = 1, CMD_PAUSE = 2, CMD_RESUME = 3, CMD_ROOTS = 4,
    CMD_CLOSURES = 5, CMD_INFO_TABLES = 6, CMD_STACK_BITMAP = 7,
    CMD_POLL = 8, CMD_SAVED_OBJECTS = 9, CMD_FIND_PTR = 10,
    CMD_CON_DESCR = 11, CMD_SOURCE_INFO = 12, CMD_BLOCKS = 14,
    CMD_BLOCK = 15, CMD_FUN_BITMAP = 16, CMD_SRT = 17,
    CMD_CCS = 18, CMD_CC = 19, CMD_INDEX_TABLE = 20, CMD_CCS_MAIN = 21,
    // rtscope extensions
    CMD_PAUSE_AFTER_GC = 64, CMD_STAY_PAUSED = 65,
    CMD_PAUSE_AFTER_CENSUS = 66,
};

// Status codes of response frames
enum {
    RESP_OKAY = 0, RESP_OKAY_CONTINUES = 1,
    RESP_BAD_COMMAND = 0x100, RESP_ALREADY_PAUSED = 0x101,
    RESP_NOT_PAUSED = 0x102, RESP_NO_RESUME = 0x103, RESP_BAD_STACK = 0x104,
};

// Reasons carried in the payload of a RESP_BAD_COMMAND frame
enum {
    WHY_UNKNOWN_COMMAND = 1, WHY_MALFORMED = 2, WHY_BAD_ADDRESS = 3,
    WHY_TOO_LONG = 4, WHY_UNSUPPORTED = 5, WHY_TIMEOUT = 6,
};

typedef enum { NOT_PAUSED, PAUSED_BY_STUB, PAUSED_AFTER_GC } PauseState;
typedef enum { WAIT_NONE, WAIT_POLL, WAIT_AFTER_GC } Waiting;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t  cond;       // signalled on resume and shutdown
    bool running;
    bool shutdown;
    pthread_t thread;
    int listen_fd;
    int wake_rd, wake_wr;
    char path[sizeof(((struct sockaddr_un *) 0)->sun_path)];
    dev_t dev;
    ino_t ino;

    PauseState paused;
    PauseToken *token;
    unsigned long resume_epoch; // incremented at every resume
    int self_pause_requests;
    bool gc_armed;              // stub thread only: we armed pauseAfterGc
    bool gc_fired;              // the GC hold has the RTS paused for us

    HsStablePtr saved[MAX_SAVED];
    uint32_t n_saved;
} stub = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
    .listen_fd = -1, .wake_rd = -1, .wake_wr = -1,
};

// One connection, owned by the stub thread.
typedef struct {
    int fd;
    bool broken;
    bool stay_paused;
    Waiting waiting;
    bool census;                // the WAIT_AFTER_GC is for a heap census
    char *frame;                // the request being handled
    uint32_t frame_len;
    uint32_t pos;               // parse position in frame
    size_t out_len;             // buffered response payload
    bool out_sent;              // some frame of this response already sent
    char out[RESP_BUF];
} Conn;

/* -----------------------------------------------------------------------------
   Output
   -------------------------------------------------------------------------- */

static void
sendAll (Conn *c, struct iovec *iov, int n)
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
frameHeader (unsigned char hdr[6], uint32_t len, uint16_t status)
{
    uint32_t l = htonl(len);
    uint16_t s = htons(status);
    memcpy(hdr, &l, 4);
    memcpy(hdr + 4, &s, 2);
}

// Send the buffered payload as one frame with this status.
static void
flushFrame (Conn *c, uint16_t status)
{
    unsigned char hdr[6];
    frameHeader(hdr, c->out_len, status);
    struct iovec iov[2] = {
        { .iov_base = hdr, .iov_len = 6 },
        { .iov_base = c->out, .iov_len = c->out_len },
    };
    sendAll(c, iov, c->out_len ? 2 : 1);
    c->out_len = 0;
    c->out_sent = true;
}

static void
put (Conn *c, const void *p, size_t n)
{
    if (c->out_len + n > RESP_BUF) flushFrame(c, RESP_OKAY_CONTINUES);
    if (n > RESP_BUF) {
        // a big object: its own frame, straight from where it lies
        unsigned char hdr[6];
        frameHeader(hdr, n, RESP_OKAY_CONTINUES);
        struct iovec iov[2] = {
            { .iov_base = hdr, .iov_len = 6 },
            { .iov_base = (void *) p, .iov_len = n },
        };
        sendAll(c, iov, 2);
        return;
    }
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
}

static void put8  (Conn *c, uint8_t x)  { put(c, &x, 1); }
static void put16be (Conn *c, uint16_t x) { x = htons(x); put(c, &x, 2); }
static void put32be (Conn *c, uint32_t x) { x = htonl(x); put(c, &x, 4); }
static void putPtr (Conn *c, StgWord p) { uint64_t x = p; put(c, &x, 8); }

static void
putString (Conn *c, const char *s, size_t n)
{
    put32be(c, (uint32_t) n);
    put(c, s, n);
}

static void
finish (Conn *c, uint16_t status)
{
    flushFrame(c, status);
}

// An error reply: status, and for RESP_BAD_COMMAND a reason and a message.
// Whatever payload was buffered is dropped.
static void
replyError (Conn *c, uint16_t status, uint16_t why, const char *msg)
{
    c->out_len = 0;
    if (status == RESP_BAD_COMMAND) {
        put16be(c, why);
        put(c, msg, strlen(msg));
    }
    finish(c, status);
}

/* -----------------------------------------------------------------------------
   Input
   -------------------------------------------------------------------------- */

// Read exactly n bytes within IO_TIMEOUT_MS. 0 ok, -1 closed/error, -2 timeout.
static int
readFull (int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, IO_TIMEOUT_MS);
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
have (Conn *c, uint32_t n)
{
    return c->frame_len - c->pos >= n;
}

static uint8_t
get8 (Conn *c)
{
    return (uint8_t) c->frame[c->pos++];
}

static uint16_t
get16be (Conn *c)
{
    uint16_t x;
    memcpy(&x, c->frame + c->pos, 2);
    c->pos += 2;
    return ntohs(x);
}

static uint32_t
get32be (Conn *c)
{
    uint32_t x;
    memcpy(&x, c->frame + c->pos, 4);
    c->pos += 4;
    return ntohl(x);
}

static StgWord
getPtr (Conn *c)
{
    uint64_t x;
    memcpy(&x, c->frame + c->pos, 8);
    c->pos += 8;
    return (StgWord) x;
}

/* -----------------------------------------------------------------------------
   Pausing and resuming
   -------------------------------------------------------------------------- */

static void
wake (void)
{
    char b = 1;
    ssize_t r STG_UNUSED = write(stub.wake_wr, &b, 1);
}

// Runs on the OS thread of the GC that now holds the pause.
static void
gcHoldFired (void)
{
    pthread_mutex_lock(&stub.lock);
    stub.gc_fired = true;
    pthread_cond_broadcast(&stub.cond);
    pthread_mutex_unlock(&stub.lock);
    wake();
}

// The stub thread noticed (or waited for) the GC hold.
static void
takeGcHold (void)
{
    pthread_mutex_lock(&stub.lock);
    while (!stub.gc_fired) pthread_cond_wait(&stub.cond, &stub.lock);
    stub.gc_fired = false;
    stub.paused = PAUSED_AFTER_GC;
    stub.self_pause_requests = 0;
    pthread_mutex_unlock(&stub.lock);
    stub.gc_armed = false;
    stubVerifyNewPause();
}

/* Withdraw our pause-after-GC request. If it has fired already, the GC's
 * thread holds (or is about to hold) every Capability for us: rts_pause()
 * would wait for it forever, so take that pause instead.
 * See Note [Pause after GC] in RtsPause.c. */
static void
cancelAfterGc (void)
{
    if (!stub.gc_armed) return;
    if (pauseAfterGcDisarm()) {
        stub.gc_armed = false;
        return;
    }
    takeGcHold();
}

// Called by the stub thread only.
static void
stubPause (void)
{
    cancelAfterGc();
    if (stub.paused != NOT_PAUSED) return;
    PauseToken *t = rts_pause();
    pthread_mutex_lock(&stub.lock);
    stub.token = t;
    stub.paused = PAUSED_BY_STUB;
    stub.self_pause_requests = 0;
    pthread_mutex_unlock(&stub.lock);
    stubVerifyNewPause();
}

static void
stubResume (void)
{
    PauseState was = stub.paused;
    if (was == NOT_PAUSED) return;
    stubVerifyEndPause();
    pthread_mutex_lock(&stub.lock);
    PauseToken *t = stub.token;
    stub.token = NULL;
    stub.paused = NOT_PAUSED;
    stub.resume_epoch++;
    pthread_cond_broadcast(&stub.cond);
    pthread_mutex_unlock(&stub.lock);
    if (was == PAUSED_BY_STUB) {
        rts_resume(t);
    } else {
        pauseAfterGcRelease();
    }
}

/* After PAUSE_AFTER_CENSUS: the pinned blocks that a heap census does
 * not count although they hold live objects, the block each Capability
 * is filling with pinned objects (and any it has filled since the GC);
 * heapCensus() walks only the generations' lists and the GC's workspaces.
 * The stub holds the pause, so the Capabilities stay as they are. */
static void
putUncensusedPinned (Conn *c)
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

/* Arm the pause after GC for this connection's request; for a census,
 * arm first and then request the census, so that the census's GC is one
 * the pause waits for. See Note [Pause after a census] in RtsPause.c. */
static void
armAfterGc (Conn *c)
{
    stub.gc_armed = true;
    if (c->census) {
        pauseAfterGcArmCensus(gcHoldFired);
    } else {
        pauseAfterGcArm(gcHoldFired);
    }
}

static void *
majorGcThread (void *arg STG_UNUSED)
{
    performMajorGC();
    return NULL;
}

/* -----------------------------------------------------------------------------
   Requests
   -------------------------------------------------------------------------- */

static void
rootCb (void *user, StgClosure *p)
{
    putPtr((Conn *) user, (StgWord) p);
}

static void
threadCb (void *user, StgTSO *tso)
{
    putPtr((Conn *) user, (StgWord) tso);
}

static void
putSmallBitmap (Conn *c, StgWord bitmap, StgWord size)
{
    put32be(c, (uint32_t) size);
    for (StgWord i = 0; i < size; i++) {
        put8(c, !(bitmap & 1));      // 1: the word is a pointer
        bitmap >>= 1;
    }
}

// A large bitmap at address bm, verified first; false if it is not readable.
static bool
putLargeBitmap (Conn *c, StgWord bm, StgWord size)
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
putFunBitmap (Conn *c, StgWord fun, StgWord size)
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
cmdStackBitmap (Conn *c)
{
    StgWord sp = getPtr(c);
    uint32_t off = get32be(c);
    StgWord frame = sp + off;
    StubRegion r;
    const char *why = NULL;
    if (frame < sp || !stubHeapRegion(frame, &r) || frame % sizeof(StgWord) != 0) {
        replyError(c, RESP_BAD_COMMAND, WHY_BAD_ADDRESS, "stack frame not in a heap block");
        return;
    }
    StgWord info_ptr = *(StgWord *) frame;
    const StgInfoTable *info = stubInfoTable(info_ptr, sizeof(StgRetInfoTable), &why);
    if (info == NULL) {
        replyError(c, RESP_BAD_COMMAND, WHY_BAD_ADDRESS, why);
        return;
    }
    switch (info->type) {
    case CATCH_STM_FRAME: case CATCH_RETRY_FRAME: case ATOMICALLY_FRAME:
    case UNDERFLOW_FRAME: case STOP_FRAME: case CATCH_FRAME:
    case UPDATE_FRAME: case RET_SMALL:
        putSmallBitmap(c, BITMAP_BITS(info->layout.bitmap), BITMAP_SIZE(info->layout.bitmap));
        finish(c, RESP_OKAY);
        return;
    case RET_BIG: {
        StgWord bm = (StgWord) GET_LARGE_BITMAP(info);
        if (!stubReadable(bm, sizeof(StgWord)) ||
            !putLargeBitmap(c, bm, ((StgLargeBitmap *) bm)->size)) {
            replyError(c, RESP_BAD_COMMAND, WHY_BAD_ADDRESS, "large bitmap not readable");
            return;
        }
        finish(c, RESP_OKAY);
        return;
    }
    case RET_FUN: {
        if (frame + sizeof(StgRetFun) > r.end) {
            replyError(c, RESP_BAD_COMMAND, WHY_BAD_ADDRESS, "frame extends past its block");
            return;
        }
        StgRetFun *rf = (StgRetFun *) frame;
        why = putFunBitmap(c, (StgWord) rf->fun, rf->size);
        if (why != NULL) {
            replyError(c, RESP_BAD_COMMAND, WHY_BAD_ADDRESS, why);
            return;
        }
        finish(c, RESP_OKAY);
        return;
    }
    default:
        replyError(c, RESP_BAD_STACK, 0, "");
        return;
    }
}

static void
putBlockHeader (unsigned char meta[14], const StubRegion *r)
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
    Conn *c;
    struct iovec iov[1 + 2 * BLOCKS_IOV];
    unsigned char meta[BLOCKS_IOV][14];
    unsigned char hdr[6];
    int n;              // block groups gathered
    uint32_t bytes;     // payload bytes gathered
} BlockBatch;

static void
blocksFlush (BlockBatch *b)
{
    if (b->n == 0) return;
    frameHeader(b->hdr, b->bytes, RESP_OKAY_CONTINUES);
    b->iov[0].iov_base = b->hdr;
    b->iov[0].iov_len = 6;
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
    if (b->n == BLOCKS_IOV || b->bytes + 14 + len > BLOCKS_FRAME) blocksFlush(b);
    putBlockHeader(b->meta[b->n], r);
    b->iov[1 + 2 * b->n] = (struct iovec) { .iov_base = b->meta[b->n], .iov_len = 14 };
    b->iov[2 + 2 * b->n] = (struct iovec) { .iov_base = (void *) r->start, .iov_len = len };
    b->n++;
    b->bytes += 14 + len;
}

/* Every command that reads the heap (ROOTS, CLOSURES, STACK_BITMAP,
 * SAVED_OBJECTS, BLOCKS, BLOCK, FUN_BITMAP) starts here. The non-moving
 * heap (+RTS -xn) keeps the old generation in segments that neither
 * listAllBlocks nor the address verification cover: rather than answer
 * with a partial heap (and a "bad address" for every old object), the
 * stub refuses every heap command there, saying why. Static data, PAUSE
 * and RESUME still work. */
static bool
requirePaused (Conn *c)
{
    if (RtsFlags.GcFlags.useNonmoving) {
        replyError(c, RESP_BAD_COMMAND, WHY_UNSUPPORTED,
                   "the debug stub cannot read the non-moving heap "
                   "(+RTS -xn): run the program without -xn to inspect its heap");
        return false;
    }
    if (stub.paused == NOT_PAUSED) {
        replyError(c, RESP_NOT_PAUSED, 0, "");
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

static void
handleRequest (Conn *c, uint32_t cmd)
{
    const char *why = NULL;
    c->out_len = 0;
    c->out_sent = false;

    switch (cmd) {
    case CMD_VERSION:
        put32be(c, 902);                // the 9.2 pause API and protocol
        put32be(c, 2);                  // patch level of the real compiler (9.0.2)
        put8(c, 0);                     // not a profiled RTS
#if defined(TABLES_NEXT_TO_CODE)
        put8(c, 1);                     // tables next to code
#else
        put8(c, 0);
#endif
        finish(c, RESP_OKAY);
        return;

    case CMD_PAUSE:
        if (have(c, 1) && get8(c) != 0) {
            replyError(c, RESP_BAD_COMMAND, WHY_UNSUPPORTED,
                       "fork mode is not supported: pause with 0");
            return;
        }
        if (stub.paused != NOT_PAUSED) {
            replyError(c, RESP_ALREADY_PAUSED, 0, "");
            return;
        }
        stubPause();
        finish(c, RESP_OKAY);
        return;

    case CMD_RESUME:
        if (stub.paused == NOT_PAUSED) {
            replyError(c, RESP_NOT_PAUSED, 0, "");
            return;
        }
        stubResume();
        finish(c, RESP_OKAY);
        return;

    case CMD_ROOTS:
        if (!requirePaused(c)) return;
        pauseListThreads(threadCb, c);
        pauseListMiscRoots(rootCb, c);
        pauseListGcOnlyRoots(rootCb, c);
        finish(c, RESP_OKAY);
        return;

    case CMD_CLOSURES: {
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
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_INFO_TABLES: {
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
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_SRT: {
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
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_STACK_BITMAP:
        if (!requirePaused(c)) return;
        if (!have(c, 12)) goto malformed;
        cmdStackBitmap(c);
        return;

    case CMD_FUN_BITMAP: {
        if (!requirePaused(c)) return;
        if (!have(c, 10)) goto malformed;
        StgWord fun = getPtr(c);
        uint16_t n = get16be(c);
        why = putFunBitmap(c, fun, n);
        if (why != NULL) goto bad_address;
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_POLL:
        if (stub.paused != NOT_PAUSED) {
            finish(c, RESP_OKAY);
        } else {
            c->waiting = WAIT_POLL;     // answered when the program pauses
        }
        return;

    case CMD_SAVED_OBJECTS:
        if (!requirePaused(c)) return;
        for (uint32_t i = 0; i < stub.n_saved; i++) {
            putPtr(c, (StgWord) UNTAG_CLOSURE((StgClosure *) deRefStablePtr(stub.saved[i])));
        }
        finish(c, RESP_OKAY);
        return;

    case CMD_CON_DESCR: {
        if (!have(c, 8)) goto malformed;
        StgWord p = getPtr(c);
        const StgInfoTable *info;
        if (!conInfo(p, &info, &why)) goto bad_address;
        StgWord desc = (StgWord) GET_CON_DESC(CON_INFO_PTR_TO_STRUCT((StgInfoTable *) p));
        long len = stubStaticStrlen(desc);
        if (len < 0) { why = "constructor name not readable"; goto bad_address; }
        putString(c, (const char *) desc, (size_t) len);
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_SOURCE_INFO: {
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
        InfoProvEnt *e = lookupIPE((StgInfoTable *) p);
        if (e == NULL) {
            put32be(c, 0);
        } else {
            const char *f[6] = { e->prov.table_name, e->prov.closure_desc,
                                 e->prov.ty_desc, e->prov.label,
                                 e->prov.module, e->prov.srcloc };
            put32be(c, 6);
            for (int i = 0; i < 6; i++) {
                const char *s = f[i] ? f[i] : "";
                putString(c, s, strlen(s));
            }
        }
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_BLOCKS: {
        if (!requirePaused(c)) return;
        BlockBatch *b = stgMallocBytes(sizeof(BlockBatch), "CMD_BLOCKS");
        b->c = c; b->n = 0; b->bytes = 0;
        stubForEachBlock(blockCb, b);
        blocksFlush(b);
        stgFree(b);
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_BLOCK: {
        if (!requirePaused(c)) return;
        if (!have(c, 8)) goto malformed;
        StubRegion r;
        if (!stubHeapRegion(getPtr(c), &r)) {
            why = "address is not in a heap block";
            goto bad_address;
        }
        unsigned char meta[14];
        putBlockHeader(meta, &r);
        put(c, meta, 14);
        put(c, (void *) r.start, r.end - r.start);
        finish(c, RESP_OKAY);
        return;
    }

    case CMD_CCS: case CMD_CC: case CMD_INDEX_TABLE: case CMD_CCS_MAIN:
        replyError(c, RESP_BAD_COMMAND, WHY_UNSUPPORTED,
                   "cost-centre requests need a profiled RTS");
        return;

    case CMD_PAUSE_AFTER_GC:
    case CMD_PAUSE_AFTER_CENSUS: {
        bool census = cmd == CMD_PAUSE_AFTER_CENSUS;
        uint8_t flags = census ? 1 : have(c, 1) ? get8(c) : 0;
        if (census && RtsFlags.ProfFlags.doHeapProfile == NO_HEAP_PROFILING) {
            replyError(c, RESP_BAD_COMMAND, WHY_UNSUPPORTED,
                       "no heap profile to take a census of: "
                       "run the program with +RTS -hT (or -hi)");
            return;
        }
        if (stub.paused != NOT_PAUSED) {
            replyError(c, RESP_ALREADY_PAUSED, 0, "");
            return;
        }
        c->waiting = WAIT_AFTER_GC;
        c->census = census;
        armAfterGc(c);
        if (flags & 1) {
            pthread_t t;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&t, &attr, majorGcThread, NULL) != 0) {
                cancelAfterGc();
                c->waiting = WAIT_NONE;
                replyError(c, RESP_BAD_COMMAND, WHY_UNSUPPORTED, "cannot start a GC thread");
            }
            pthread_attr_destroy(&attr);
        }
        return;
    }

    case CMD_STAY_PAUSED:
        if (!have(c, 1)) goto malformed;
        c->stay_paused = get8(c) != 0;
        finish(c, RESP_OKAY);
        return;

    default:
        replyError(c, RESP_BAD_COMMAND, WHY_UNKNOWN_COMMAND, "unknown command");
        return;
    }

malformed:
    replyError(c, RESP_BAD_COMMAND, WHY_MALFORMED, "frame too short for its command");
    return;
bad_address:
    replyError(c, RESP_BAD_COMMAND, WHY_BAD_ADDRESS, why ? why : "bad address");
    return;
}

// Read and answer one request. false: the connection is over.
static bool
serveOne (Conn *c)
{
    uint32_t len;
    int r = readFull(c->fd, &len, 4);
    if (r == -1) return false;
    if (r == -2) {
        replyError(c, RESP_BAD_COMMAND, WHY_TIMEOUT, "incomplete frame");
        return false;
    }
    len = ntohl(len);
    if (len > MAX_FRAME) {
        replyError(c, RESP_BAD_COMMAND, WHY_TOO_LONG, "frame too long");
        return false;
    }
    c->frame = stgReallocBytes(c->frame, len + 8, "debug stub frame");
    r = readFull(c->fd, c->frame, len);
    if (r == -1) return false;
    if (r == -2) {
        replyError(c, RESP_BAD_COMMAND, WHY_TIMEOUT, "incomplete frame");
        return false;
    }
    c->frame_len = len;
    c->pos = 0;
    if (len < 4) {
        replyError(c, RESP_BAD_COMMAND, WHY_MALFORMED, "frame shorter than a command");
        return !c->broken;
    }
    handleRequest(c, get32be(c));
    return !c->broken;
}

/* -----------------------------------------------------------------------------
   The stub thread
   -------------------------------------------------------------------------- */

static void
endConnection (Conn *c)
{
    close(c->fd);
    c->fd = -1;
    cancelAfterGc();
    c->waiting = WAIT_NONE;
    if (!c->stay_paused) stubResume();
    c->stay_paused = false;
    c->broken = false;
}

static void *
stubThread (void *arg STG_UNUSED)
{
    Conn *c = stgMallocBytes(sizeof(Conn), "debug stub connection");
    memset(c, 0, sizeof(Conn));
    c->fd = -1;

    for (;;) {
        struct pollfd fds[2];
        int n = 0;
        fds[n++] = (struct pollfd) { .fd = stub.wake_rd, .events = POLLIN };
        if (c->fd < 0) {
            fds[n++] = (struct pollfd) { .fd = stub.listen_fd, .events = POLLIN };
        } else {
            // While a request waits for a pause, only watch for hang-up.
            short ev = c->waiting == WAIT_NONE ? POLLIN : POLLRDHUP;
            fds[n++] = (struct pollfd) { .fd = c->fd, .events = ev };
        }
        if (poll(fds, n, -1) < 0 && errno != EINTR) {
            sleep(1);           // should not happen; do not spin
            continue;
        }

        if (fds[0].revents) {
            char buf[64];
            while (read(stub.wake_rd, buf, sizeof(buf)) > 0) { }
        }

        pthread_mutex_lock(&stub.lock);
        bool shutdown = stub.shutdown;
        bool self_pause = stub.self_pause_requests > 0;
        bool gc_fired = stub.gc_fired;
        pthread_mutex_unlock(&stub.lock);

        if (shutdown) break;
        if (gc_fired) takeGcHold();
        if (self_pause) stubPause();
        // An after-GC request withdrawn for a self-pause waits for the
        // next major GC again once the program runs.
        if (c->fd >= 0 && c->waiting == WAIT_AFTER_GC && !stub.gc_armed &&
            stub.paused == NOT_PAUSED) {
            armAfterGc(c);
        }

        if (c->fd >= 0 && c->waiting != WAIT_NONE && stub.paused != NOT_PAUSED) {
            if (c->waiting == WAIT_POLL || stub.paused == PAUSED_AFTER_GC) {
                StgWord64 census = pauseAfterGcCensus();
                c->out_len = 0;
                if (c->waiting == WAIT_AFTER_GC && c->census) {
                    if (census == 0) {
                        // paused after a GC, but not the census's (a
                        // self-pause came first): ask again after it
                        c->waiting = WAIT_NONE;
                        replyError(c, RESP_BAD_COMMAND, WHY_UNSUPPORTED,
                                   "the program paused before its census; ask again");
                        goto waited;
                    }
                    put32be(c, (uint32_t) (census >> 32));
                    put32be(c, (uint32_t) census);
                    putUncensusedPinned(c);
                }
                c->waiting = WAIT_NONE;
                finish(c, RESP_OKAY);
            }
        waited: ;
        }

        if (c->fd < 0) {
            if (n > 1 && (fds[1].revents & POLLIN)) {
                int fd = accept4(stub.listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (fd >= 0) {
                    struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };
                    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
                    c->fd = fd;
                    c->waiting = WAIT_NONE;
                    c->stay_paused = false;
                    c->broken = false;
                    if (stub.paused == NOT_PAUSED) stubVerifyNewPause();
                }
            }
            continue;
        }

        if (c->broken) {
            endConnection(c);
            continue;
        }
        short rev = n > 1 ? fds[1].revents : 0;
        if (rev & (POLLHUP | POLLERR | POLLNVAL | POLLRDHUP)) {
            endConnection(c);
        } else if ((rev & POLLIN) && c->waiting == WAIT_NONE) {
            if (!serveOne(c)) endConnection(c);
        }
    }

    if (c->fd >= 0) {
        c->stay_paused = false;
        endConnection(c);
    }
    cancelAfterGc();
    stubResume();
    stgFree(c->frame);
    stgFree(c);
    return NULL;
}

/* -----------------------------------------------------------------------------
   Starting and stopping
   -------------------------------------------------------------------------- */

static void
removeSocket (void)
{
    struct stat st;
    if (stub.path[0] != '\0' && stat(stub.path, &st) == 0 &&
        st.st_dev == stub.dev && st.st_ino == stub.ino) {
        unlink(stub.path);
    }
}

static void
atExitRemoveSocket (void)
{
    removeSocket();
}

// mkdir -p for the parent directories of path, mode 0700.
static void
makeParents (const char *path)
{
    char buf[sizeof(stub.path)];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0700);
            *p = '/';
        }
    }
}

static bool
defaultPath (char *out, size_t size)
{
    const char *env = getenv("GHC_DEBUG_SOCKET");
    if (env != NULL && env[0] != '\0') {
        return (size_t) snprintf(out, size, "%s", env) < size;
    }
    char base[4096];
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg != NULL && xdg[0] == '/') {
        snprintf(base, sizeof(base), "%s", xdg);
    } else {
        const char *home = getenv("HOME");
        if (home == NULL) return false;
        snprintf(base, sizeof(base), "%s/.local/share", home);
    }
    int argc; char **argv;
    getProgArgv(&argc, &argv);
    const char *prog = (argc > 0 && argv[0]) ? argv[0] : "program";
    const char *slash = strrchr(prog, '/');
    if (slash) prog = slash + 1;
    return (size_t) snprintf(out, size, "%s/ghc-debug/debuggee/sockets/%d-%s",
                             base, (int) getpid(), prog) < size;
}

// Whether a live process listens on path.
static bool
someoneListens (const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(a.sun_path)) { close(fd); return false; }
    memcpy(a.sun_path, path, strlen(path) + 1);
    bool alive = connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0;
    close(fd);
    return alive;
}

int
rts_debugStubStart (const char *path)
{
    char want[sizeof(stub.path)];
    char tmp[sizeof(stub.path)];
    struct sockaddr_un a = { .sun_family = AF_UNIX };

    pthread_mutex_lock(&stub.lock);
    if (stub.running) {
        pthread_mutex_unlock(&stub.lock);
        return 0;
    }

    if (path != NULL) {
        if (strlen(path) + 1 >= sizeof(want)) goto too_long;
        strcpy(want, path);
    } else if (!defaultPath(want, sizeof(want))) {
        goto too_long;
    }
    if (strlen(want) >= sizeof(a.sun_path)) goto too_long;
    // See Note [Socket permissions]
    if (strlen(want) + 8 < sizeof(a.sun_path)) {
        snprintf(tmp, sizeof(tmp), "%s.tmp%d", want, (int) getpid() % 100);
    } else {
        strcpy(tmp, want);
    }

    makeParents(want);
    // Only a socket is ever replaced (a stale one, below): the path may be
    // a typo for a file of the user's, which bind-and-rename would destroy.
    struct stat there;
    if (lstat(want, &there) == 0 && !S_ISSOCK(there.st_mode)) {
        errorBelch("%sdebug stub: %s exists and is not a socket; not started",
                   RTSCOPE_MSG_PREFIX, want);
        goto fail;
    }
    if (someoneListens(want)) {
        errorBelch("%sdebug stub: %s is in use by another process; not started",
                   RTSCOPE_MSG_PREFIX, want);
        goto fail;
    }

    /* Note [Socket permissions]
     * ~~~~~~~~~~~~~~~~~~~~~~~~~~
     * The socket gives read access to the whole heap, so it must be the
     * owner's alone (mode 0600). Its mode comes from the umask at bind(),
     * and the umask is process-wide (changing it would race with the
     * program's other threads). So we bind under a temporary name, chmod
     * it, and rename it into place: nobody ever sees the socket at its
     * real path with looser modes. When the path is too long for a
     * suffix we bind in place and chmod at once; the directory ghc-debug's
     * convention uses is created 0700, which covers the window.
     */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) goto sys_fail;
    strcpy(a.sun_path, tmp);
    unlink(tmp);                // a stale socket (nobody listens there)
    if (bind(fd, (struct sockaddr *) &a, sizeof(a)) != 0 ||
        chmod(tmp, 0600) != 0 || listen(fd, 4) != 0 ||
        (strcmp(tmp, want) != 0 && rename(tmp, want) != 0)) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        goto sys_fail;
    }
    struct stat st;
    if (stat(want, &st) == 0) {
        stub.dev = st.st_dev;
        stub.ino = st.st_ino;
    }
    strcpy(stub.path, want);
    stub.listen_fd = fd;

    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(fd);
        removeSocket();
        stub.path[0] = '\0';
        goto sys_fail;
    }
    stub.wake_rd = pipefd[0];
    stub.wake_wr = pipefd[1];

    // The thread blocks every signal: the program's handlers run elsewhere.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&stub.thread, NULL, stubThread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err != 0) {
        close(fd);
        close(pipefd[0]);
        close(pipefd[1]);
        removeSocket();
        stub.path[0] = '\0';
        errno = err;
        goto sys_fail;
    }
    stub.running = true;
    stub.shutdown = false;

    static bool atexit_done = false;
    if (!atexit_done) {
        atexit(atExitRemoveSocket);
        atexit_done = true;
    }
    pthread_mutex_unlock(&stub.lock);
    return 0;

too_long:
    errorBelch("%sdebug stub: socket path too long; not started", RTSCOPE_MSG_PREFIX);
    goto fail;
sys_fail:
    errorBelch("%sdebug stub: cannot listen on %s: %s; not started",
               RTSCOPE_MSG_PREFIX, want, strerror(errno));
fail:
    pthread_mutex_unlock(&stub.lock);
    return -1;
}

const char *
rts_debugStubSocketPath (void)
{
    return stub.running ? stub.path : NULL;
}

void
rts_debugStubSaveClosure (HsStablePtr sp)
{
    pthread_mutex_lock(&stub.lock);
    if (stub.n_saved < MAX_SAVED) {
        stub.saved[stub.n_saved++] = sp;
    } else {
        hs_free_stable_ptr(sp);
    }
    pthread_mutex_unlock(&stub.lock);
}

void
rts_debugStubPause (void)
{
    Task *task = myTask();
    if (task != NULL && task->cap != NULL &&
        RELAXED_LOAD(&task->cap->running_task) == task) {
        // We would wait for the stub's pause, which waits for our Capability.
        errorBelch("error: rts_debugStubPause: called from a thread that owns a capability.\n"
                   "   Perhaps a 'foreign import unsafe' should be 'safe'?");
        stg_exit(EXIT_FAILURE);
    }
    pthread_mutex_lock(&stub.lock);
    if (!stub.running || stub.shutdown) {
        pthread_mutex_unlock(&stub.lock);
        return;
    }
    unsigned long epoch = stub.resume_epoch;
    stub.self_pause_requests++;
    wake();
    while (stub.resume_epoch == epoch && !stub.shutdown) {
        pthread_cond_wait(&stub.cond, &stub.lock);
    }
    pthread_mutex_unlock(&stub.lock);
}

void
initDebugStub (void)
{
    const char *env = getenv("GHC_DEBUG_SOCKET");
    if (stub_flag_given || (env != NULL && env[0] != '\0')) {
        rts_debugStubStart(stub_flag_path);
    }
}

void
exitDebugStub (void)
{
    pthread_mutex_lock(&stub.lock);
    if (!stub.running) {
        pthread_mutex_unlock(&stub.lock);
        return;
    }
    stub.shutdown = true;
    pthread_cond_broadcast(&stub.cond);
    pthread_mutex_unlock(&stub.lock);
    wake();
    pthread_join(stub.thread, NULL);

    pthread_mutex_lock(&stub.lock);
    close(stub.listen_fd);
    close(stub.wake_rd);
    close(stub.wake_wr);
    stub.listen_fd = stub.wake_rd = stub.wake_wr = -1;
    removeSocket();
    stub.path[0] = '\0';
    stub.running = false;
    pthread_mutex_unlock(&stub.lock);
}

#else /* !THREADED_RTS */

int
rts_debugStubStart (const char *path STG_UNUSED)
{
    errorBelch("%sdebug stub: needs the threaded RTS (link the program with -threaded)",
               RTSCOPE_MSG_PREFIX);
    return -1;
}

const char *
rts_debugStubSocketPath (void)
{
    return NULL;
}

void
rts_debugStubSaveClosure (HsStablePtr sp)
{
    hs_free_stable_ptr(sp);
}

void
rts_debugStubPause (void)
{
}

void
initDebugStub (void)
{
    if (stub_flag_given) {
        errorBelch("%s--debug-stub needs the threaded RTS (link the program with -threaded)",
                   RTSCOPE_MSG_PREFIX);
        stg_exit(EXIT_FAILURE);
    }
    const char *env = getenv("GHC_DEBUG_SOCKET");
    if (env != NULL && env[0] != '\0') {
        errorBelch("%sGHC_DEBUG_SOCKET is set but the debug stub needs the threaded RTS; "
                   "not started", RTSCOPE_MSG_PREFIX);
    }
}

void
exitDebugStub (void)
{
}

#endif /* THREADED_RTS */
