/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's answers that read the program's memory
 * (rts/DebugStubHeap.c), for the request table in rts/DebugStubRequest.c.
 * Each answers the request in c->frame, whose command has been read and
 * whose pause and least length the table's line has checked (Note [The
 * request table] in DebugStubRequest.c).
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#if defined(THREADED_RTS)

#include "DebugStubRequest.h"

#include "BeginPrivate.h"

// ghc-debug's
void stubCmdRoots (StubConn *c);
void stubCmdSavedObjects (StubConn *c);
void stubCmdClosures (StubConn *c);
void stubCmdInfoTables (StubConn *c);
void stubCmdSrt (StubConn *c);
void stubCmdStackBitmap (StubConn *c);
void stubCmdFunBitmap (StubConn *c);
void stubCmdBlocks (StubConn *c);
void stubCmdBlock (StubConn *c);
void stubCmdConDescr (StubConn *c);
void stubCmdSourceInfo (StubConn *c);

// rtscope's
void stubCmdReadClosures (StubConn *c);
void stubCmdDescribeInfos (StubConn *c);
void stubCmdBlockList (StubConn *c);

#include "EndPrivate.h"

#endif /* THREADED_RTS */
