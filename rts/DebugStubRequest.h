/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's parts and what they share (threaded RTS only), all on
 * the stub's thread:
 *
 *  - rts/DebugStub.c, the stub's thread: the socket, its connection's life
 *    and the pause state, which only that thread changes;
 *  - rts/DebugStubFrame.c, the frames: a request frame read and taken
 *    apart, a response sent in frames (rts/DebugStubProtocol.h);
 *  - rts/DebugStubRequest.c, the protocol: the request table, and the
 *    answers about the program's state (pausing and resuming);
 *  - rts/DebugStubHeap.c, the answers that read the program's memory.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#if defined(THREADED_RTS)

#include "BeginPrivate.h"

// A frame that does not arrive in full, or a reply the debugger does not
// take, within this time ends the connection. See Note [The debug stub].
#define STUB_IO_TIMEOUT_MS  10000
#define STUB_RESP_BUF       ((size_t) 64 * 1024)

typedef enum { WAIT_NONE, WAIT_POLL, WAIT_AFTER_GC } StubWaiting;

// One connection, owned by the stub thread.
typedef struct {
    int fd;
    bool broken;
    bool stay_paused;
    StubWaiting waiting;
    bool census;                // the WAIT_AFTER_GC is for a heap census
    char *frame;                // the request being handled
    uint32_t frame_len;
    uint32_t pos;               // parse position in frame
    size_t out_len;             // buffered response payload
    char out[STUB_RESP_BUF];
} StubConn;

/* -----------------------------------------------------------------------------
   DebugStubRequest.c
   -------------------------------------------------------------------------- */

// Read and answer one request. false: the connection is over.
bool stubServeOne (StubConn *c);

// Answer the request that waits for a pause (POLL, PAUSE_AFTER_GC,
// PAUSE_AFTER_CENSUS) if the pause it waits for is in.
void stubAnswerWaiting (StubConn *c);

/* -----------------------------------------------------------------------------
   DebugStub.c: the pause state, changed by the stub thread only
   -------------------------------------------------------------------------- */

typedef enum { NOT_PAUSED, PAUSED_BY_STUB, PAUSED_AFTER_GC } StubPauseState;

StubPauseState stubPauseState (void);

// Pause the program (rts_pause), unless it is paused already.
void stubPause (void);

// Resume the program if the stub paused it.
void stubResume (void);

// Pause the program and fork it; see Note [Fork mode] in DebugStub.c.
// In the child (STUB_FORK_CHILD) the copy is paused and this thread serves
// the connection; in the parent (STUB_FORK_PARENT) the program runs again
// and the connection is left to the child until it exits. On failure
// (STUB_FORK_FAILED, errno set) the program runs again.
typedef enum { STUB_FORK_FAILED, STUB_FORK_CHILD, STUB_FORK_PARENT } StubForkResult;
StubForkResult stubPauseFork (void);

// Whether this process is the child of a fork-mode pause, and its end.
bool stubIsForkChild (void);
void stubForkChildExit (void) GNU_ATTRIBUTE(__noreturn__);

// Arm the pause after the next major GC (after the census's GC if census),
// and withdraw it. See Note [Pause after GC] in RtsPause.c.
void stubArmAfterGc (bool census);
void stubCancelAfterGc (void);

// Start a major GC on a thread of its own. false if it cannot be started.
bool stubStartMajorGc (void);

// The closures saved with rts_debugStubSaveClosure, in order.
void stubListSavedObjects (void (*fn) (void *user, StgClosure *p), void *user);

#include "EndPrivate.h"

#endif /* THREADED_RTS */
