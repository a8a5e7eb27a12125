/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's protocol: the table of requests, their dispatch, and
 * the answers about the program's state: VERSION, the pauses, RESUME,
 * POLL, STAY_PAUSED (rts/DebugStubProtocol.h has the numbers,
 * docs/debug-protocol.md the specification). The answers that read the
 * program's memory are rts/DebugStubHeap.c's; the frames come and go
 * through rts/DebugStubFrame.c. Runs on the stub's thread
 * (rts/DebugStub.c).
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
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

#include <errno.h>
#include <string.h>

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
    for (uint32_t i = 0; i < RTSCOPE_N_CAPS(); i++) {
        Capability *cap = RTSCOPE_CAP(i);
        if (cap->pinned_object_block != NULL) {
            stubPutPtr(c, (StgWord) cap->pinned_object_block->start);
        }
        for (bdescr *bd = cap->pinned_object_blocks; bd != NULL; bd = bd->link) {
            stubPutPtr(c, (StgWord) bd->start);
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
            stubReplyUnsupported(c, "the program paused before its census; ask again");
            return;
        }
        stubPut32be(c, (uint32_t) (census >> 32));
        stubPut32be(c, (uint32_t) census);
        putUncensusedPinned(c);
    }
    c->waiting = WAIT_NONE;
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   Pausing and resuming: VERSION, PAUSE, RESUME, POLL, PAUSE_AFTER_GC,
   PAUSE_AFTER_CENSUS, STAY_PAUSED
   -------------------------------------------------------------------------- */

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
cmdVersion (StubConn *c)
{
    stubPut32be(c, RTSCOPE_GHC_VERSION_MAJOR); // the GHC: 902 or 906
    stubPut32be(c, RTSCOPE_GHC_VERSION_PATCH); // its patch level: 2 or 6
    stubPut8(c, profilingMode());       // ghc-debug's profiling mode
#if defined(TABLES_NEXT_TO_CODE)
    stubPut8(c, 1);                     // tables next to code
#else
    stubPut8(c, 0);
#endif
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

// See Note [The request table]: the pause commands check that the program
// runs themselves, after their arguments.
static void
cmdPause (StubConn *c)
{
    uint8_t mode = stubHave(c, 1) ? stubGet8(c) : 0;
    if (mode > 1) {
        stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_MALFORMED,
                       "pause mode must be 0 (pause) or 1 (fork)");
        return;
    }
    if (stubPauseState() != NOT_PAUSED) {
        stubReplyError(c, DEBUG_STUB_RESP_ALREADY_PAUSED, 0, "");
        return;
    }
    if (mode == 0) {
        stubPause();
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
        return;
    }
    // See Note [Fork mode] in DebugStub.c: the child answers
    switch (stubPauseFork()) {
    case STUB_FORK_CHILD:
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
        return;
    case STUB_FORK_PARENT:
        c->out_len = 0;     // nothing to say: the connection is the child's
        return;
    case STUB_FORK_FAILED:
    default: {
        char msg[128];
        snprintf(msg, sizeof(msg), "cannot fork the program: %s", strerror(errno));
        stubReplyUnsupported(c, msg);
        return;
    }
    }
}

static void
cmdResume (StubConn *c)
{
    if (stubIsForkChild()) {
        // the snapshot's work is done: answer, then the child ends and
        // its parent serves the connection again
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
        stubForkChildExit();
    }
    stubResume();
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

static void
cmdPoll (StubConn *c)
{
    if (stubPauseState() != NOT_PAUSED) {
        stubFinish(c, DEBUG_STUB_RESP_OKAY);
    } else {
        c->waiting = WAIT_POLL;     // answered when the program pauses
    }
}

// PAUSE_AFTER_GC and PAUSE_AFTER_CENSUS; flags bit 0: start the major GC.
static void
pauseAfterGc (StubConn *c, bool census, uint8_t flags)
{
    if (census && RtsFlags.ProfFlags.doHeapProfile == NO_HEAP_PROFILING) {
        stubReplyUnsupported(c, "no heap profile to take a census of: "
                                "run the program with +RTS -hT (or -hi)");
        return;
    }
    if (stubPauseState() != NOT_PAUSED) {
        stubReplyError(c, DEBUG_STUB_RESP_ALREADY_PAUSED, 0, "");
        return;
    }
    c->waiting = WAIT_AFTER_GC;
    c->census = census;
    stubArmAfterGc(census);
    if ((flags & 1) && !stubStartMajorGc()) {
        stubCancelAfterGc();
        c->waiting = WAIT_NONE;
        stubReplyUnsupported(c, "cannot start a GC thread");
    }
}

static void
cmdPauseAfterGc (StubConn *c)
{
    pauseAfterGc(c, false, stubHave(c, 1) ? stubGet8(c) : 0);
}

static void
cmdPauseAfterCensus (StubConn *c)
{
    pauseAfterGc(c, true, 1);
}

static void
cmdStayPaused (StubConn *c)
{
    c->stay_paused = stubGet8(c) != 0;
    stubFinish(c, DEBUG_STUB_RESP_OKAY);
}

/* -----------------------------------------------------------------------------
   Cost centres: CCS, CC, INDEX_TABLE, CCS_MAIN
   -------------------------------------------------------------------------- */

static void
cmdCostCentres (StubConn *c)
{
    stubReplyUnsupported(c, "cost-centre requests need a profiled RTS");
}

/* -----------------------------------------------------------------------------
   The request table
   -------------------------------------------------------------------------- */

/* Note [The request table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Each command is a line of stub_commands[]: its number, what it needs of
 * the program, how many bytes of arguments it takes at least, and the
 * function that answers it. handleRequest looks the command up and makes
 * the checks its line asks for, in this order, before the answer runs:
 *
 *  - no line: BAD_COMMAND, UNKNOWN_COMMAND;
 *  - NEEDS_HEAP (the command reads the heap): BAD_COMMAND, UNSUPPORTED
 *    under the non-moving collector (below), then as NEEDS_PAUSE;
 *  - NEEDS_PAUSE: NOT_PAUSED unless the program is paused;
 *  - fewer bytes of arguments than min_len: BAD_COMMAND, MALFORMED.
 *
 * An answer may therefore read min_len bytes without looking; what it
 * reads beyond (a count's pointers, an optional byte) it checks with
 * stubHave(). The commands that pause (PAUSE, PAUSE_AFTER_GC,
 * PAUSE_AFTER_CENSUS) need the program running but check that in their
 * answer, after their arguments: a bad pause mode is MALFORMED, and a
 * census without a heap profile UNSUPPORTED, whether the program runs or
 * not.
 *
 * The non-moving heap (+RTS -xn) keeps the old generation in segments that
 * neither listAllBlocks nor the address verification cover: rather than
 * answer with a partial heap (and a "bad address" for every old object),
 * the stub refuses every command that reads the heap, saying why. Static
 * data, PAUSE and RESUME still work.
 *
 * A new command is an answer function and a line here (and its number in
 * rts/DebugStubProtocol.h, its description in docs/debug-protocol.md).
 */
typedef enum {
    NEEDS_NOTHING,
    NEEDS_PAUSE,        // the program paused
    NEEDS_HEAP,         // the program paused, its heap one the stub can read
} StubNeeds;

typedef struct {
    uint32_t cmd;
    StubNeeds needs;
    uint32_t min_len;           // bytes of arguments after the command
    void (*answer) (StubConn *c);
} StubCommand;

static const StubCommand stub_commands[] = {
    { DEBUG_STUB_CMD_VERSION,            NEEDS_NOTHING, 0,  cmdVersion },
    { DEBUG_STUB_CMD_PAUSE,              NEEDS_NOTHING, 0,  cmdPause },
    { DEBUG_STUB_CMD_RESUME,             NEEDS_PAUSE,   0,  cmdResume },
    { DEBUG_STUB_CMD_ROOTS,              NEEDS_HEAP,    0,  stubCmdRoots },
    { DEBUG_STUB_CMD_CLOSURES,           NEEDS_HEAP,    2,  stubCmdClosures },
    { DEBUG_STUB_CMD_INFO_TABLES,        NEEDS_NOTHING, 2,  stubCmdInfoTables },
    { DEBUG_STUB_CMD_STACK_BITMAP,       NEEDS_HEAP,    12, stubCmdStackBitmap },
    { DEBUG_STUB_CMD_POLL,               NEEDS_NOTHING, 0,  cmdPoll },
    { DEBUG_STUB_CMD_SAVED_OBJECTS,      NEEDS_HEAP,    0,  stubCmdSavedObjects },
    { DEBUG_STUB_CMD_CON_DESCR,          NEEDS_NOTHING, 8,  stubCmdConDescr },
    { DEBUG_STUB_CMD_SOURCE_INFO,        NEEDS_NOTHING, 8,  stubCmdSourceInfo },
    { DEBUG_STUB_CMD_BLOCKS,             NEEDS_HEAP,    0,  stubCmdBlocks },
    { DEBUG_STUB_CMD_BLOCK,              NEEDS_HEAP,    8,  stubCmdBlock },
    { DEBUG_STUB_CMD_FUN_BITMAP,         NEEDS_HEAP,    10, stubCmdFunBitmap },
    { DEBUG_STUB_CMD_SRT,                NEEDS_NOTHING, 2,  stubCmdSrt },
    { DEBUG_STUB_CMD_CCS,                NEEDS_NOTHING, 0,  cmdCostCentres },
    { DEBUG_STUB_CMD_CC,                 NEEDS_NOTHING, 0,  cmdCostCentres },
    { DEBUG_STUB_CMD_INDEX_TABLE,        NEEDS_NOTHING, 0,  cmdCostCentres },
    { DEBUG_STUB_CMD_CCS_MAIN,           NEEDS_NOTHING, 0,  cmdCostCentres },
    { DEBUG_STUB_CMD_PAUSE_AFTER_GC,     NEEDS_NOTHING, 0,  cmdPauseAfterGc },
    { DEBUG_STUB_CMD_STAY_PAUSED,        NEEDS_NOTHING, 1,  cmdStayPaused },
    { DEBUG_STUB_CMD_PAUSE_AFTER_CENSUS, NEEDS_NOTHING, 0,  cmdPauseAfterCensus },
    { DEBUG_STUB_CMD_READ_CLOSURES,      NEEDS_HEAP,    4,  stubCmdReadClosures },
    { DEBUG_STUB_CMD_DESCRIBE_INFOS,     NEEDS_NOTHING, 4,  stubCmdDescribeInfos },
    { DEBUG_STUB_CMD_BLOCK_LIST,         NEEDS_HEAP,    0,  stubCmdBlockList },
};

static const StubCommand *
findCommand (uint32_t cmd)
{
    for (size_t i = 0; i < sizeof(stub_commands) / sizeof(stub_commands[0]); i++) {
        if (stub_commands[i].cmd == cmd) return &stub_commands[i];
    }
    return NULL;
}

// See Note [The request table]
static void
handleRequest (StubConn *c, uint32_t cmd)
{
    c->out_len = 0;
    const StubCommand *sc = findCommand(cmd);
    if (sc == NULL) {
        stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNKNOWN_COMMAND,
                       "unknown command");
        return;
    }
    if (sc->needs == NEEDS_HEAP && RtsFlags.GcFlags.useNonmoving) {
        stubReplyUnsupported(c, "the debug stub cannot read the non-moving heap "
                                "(+RTS -xn): run the program without -xn to inspect its heap");
        return;
    }
    if (sc->needs != NEEDS_NOTHING && stubPauseState() == NOT_PAUSED) {
        stubReplyError(c, DEBUG_STUB_RESP_NOT_PAUSED, 0, "");
        return;
    }
    if (!stubHave(c, sc->min_len)) {
        stubReplyMalformed(c);
        return;
    }
    sc->answer(c);
}

bool
stubServeOne (StubConn *c)
{
    if (!stubReadFrame(c)) return false;
    if (c->frame_len < 4) {
        stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_MALFORMED,
                       "frame shorter than a command");
        return !c->broken;
    }
    handleRequest(c, stubGet32be(c));
    return !c->broken;
}

#endif /* THREADED_RTS */
