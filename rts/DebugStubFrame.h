/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's frames (rts/DebugStubFrame.c): a request frame read
 * from the connection and taken apart, a response built up and sent in
 * frames. rts/DebugStubProtocol.h has the framing; what the frames say is
 * rts/DebugStubRequest.c's and rts/DebugStubHeap.c's.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#if defined(THREADED_RTS)

#include "rts/DebugStubProtocol.h"
#include "DebugStubRequest.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/uio.h>

#include "BeginPrivate.h"

/* -----------------------------------------------------------------------------
   The connection
   -------------------------------------------------------------------------- */

// A new connection on fd: its sends bounded by STUB_IO_TIMEOUT_MS,
// nothing buffered, not broken.
void stubFrameStart (StubConn *c, int fd);

// Read the next request frame into c->frame (c->pos at its start).
// false: the connection is over, because the debugger closed it or because
// the frame is too long or does not arrive in time (both answered first).
// See Note [The debug stub] in DebugStub.c.
bool stubReadFrame (StubConn *c);

/* -----------------------------------------------------------------------------
   Taking the request apart: check stubHave() before a stubGet*()
   -------------------------------------------------------------------------- */

// Whether n more bytes of the request are left.
INLINE_HEADER bool
stubHave (const StubConn *c, uint32_t n)
{
    return c->frame_len - c->pos >= n;
}

INLINE_HEADER void
stubGetBytes (StubConn *c, void *out, uint32_t n)
{
    memcpy(out, c->frame + c->pos, n);
    c->pos += n;
}

INLINE_HEADER uint8_t
stubGet8 (StubConn *c)
{
    return (uint8_t) c->frame[c->pos++];
}

INLINE_HEADER uint16_t
stubGet16be (StubConn *c)
{
    uint16_t x;
    stubGetBytes(c, &x, 2);
    return ntohs(x);
}

INLINE_HEADER uint32_t
stubGet32be (StubConn *c)
{
    uint32_t x;
    stubGetBytes(c, &x, 4);
    return ntohl(x);
}

// A pointer: 8 bytes in host order.
INLINE_HEADER StgWord
stubGetPtr (StubConn *c)
{
    uint64_t x;
    stubGetBytes(c, &x, 8);
    return (StgWord) x;
}

/* -----------------------------------------------------------------------------
   Building the response
   -------------------------------------------------------------------------- */

// Append n bytes to the response; a full buffer goes out as an
// OKAY_CONTINUES frame, and an object larger than the buffer in a frame of
// its own, straight from where it lies.
void stubPut (StubConn *c, const void *p, size_t n);

INLINE_HEADER void
stubPut8 (StubConn *c, uint8_t x)
{
    stubPut(c, &x, 1);
}

INLINE_HEADER void
stubPut16be (StubConn *c, uint16_t x)
{
    x = htons(x);
    stubPut(c, &x, 2);
}

INLINE_HEADER void
stubPut32be (StubConn *c, uint32_t x)
{
    x = htonl(x);
    stubPut(c, &x, 4);
}

// A pointer: 8 bytes in host order.
INLINE_HEADER void
stubPutPtr (StubConn *c, StgWord p)
{
    uint64_t x = p;
    stubPut(c, &x, 8);
}

// A string: its length (4 bytes, big-endian), then its n bytes.
void stubPutString (StubConn *c, const char *s, size_t n);

// End the response: what is buffered goes out as its last frame, with
// this status.
void stubFinish (StubConn *c, uint16_t status);

// An error reply: status, and for DEBUG_STUB_RESP_BAD_COMMAND a reason and
// a message. Whatever payload was buffered is dropped.
void stubReplyError (StubConn *c, uint16_t status, uint16_t why, const char *msg);

// The BAD_COMMAND replies of more than one command.
INLINE_HEADER void
stubReplyMalformed (StubConn *c)
{
    stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_MALFORMED,
                   "frame too short for its command");
}

INLINE_HEADER void
stubReplyBadAddress (StubConn *c, const char *why)
{
    stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_BAD_ADDRESS,
                   why ? why : "bad address");
}

INLINE_HEADER void
stubReplyUnsupported (StubConn *c, const char *msg)
{
    stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_UNSUPPORTED, msg);
}

// A response frame whose payload lies elsewhere in memory, sent without a
// copy: iov[1] to iov[n-1], len bytes in all (iov[0] is filled with the
// frame's header). See Note [Streaming blocks] in DebugStubHeap.c.
void stubSendGathered (StubConn *c, struct iovec *iov, int n, uint32_t len,
                       uint16_t status);

#include "EndPrivate.h"

#endif /* THREADED_RTS */
