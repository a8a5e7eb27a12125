/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's frames: length-prefixed request frames read from the
 * connection, responses sent in frames (rts/DebugStubProtocol.h has the
 * framing). Runs on the stub's thread; rts/DebugStubRequest.c and
 * rts/DebugStubHeap.c decide what the frames say.
 *
 * ---------------------------------------------------------------------------*/

#include "Rts.h"
#include "rts/DebugStubProtocol.h"

#if defined(THREADED_RTS)

#include "RtsUtils.h"
#include "DebugStubFrame.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

void
stubFrameStart (StubConn *c, int fd)
{
    // See Note [The debug stub] in DebugStub.c: a debugger that stops
    // reading costs the connection, never a stuck stub
    struct timeval tv = { .tv_sec = STUB_IO_TIMEOUT_MS / 1000 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    c->fd = fd;
    c->broken = false;
    c->out_len = 0;
}

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

void
stubSendGathered (StubConn *c, struct iovec *iov, int n, uint32_t len,
                  uint16_t status)
{
    unsigned char hdr[DEBUG_STUB_RESP_HEADER_LEN];
    uint32_t l = htonl(len);
    uint16_t s = htons(status);
    memcpy(hdr, &l, 4);
    memcpy(hdr + 4, &s, 2);
    iov[0] = (struct iovec) { .iov_base = hdr, .iov_len = DEBUG_STUB_RESP_HEADER_LEN };
    sendAll(c, iov, n);
    iov[0] = (struct iovec) { .iov_base = NULL, .iov_len = 0 };  // hdr ends here
}

// Send the buffered payload as one frame with this status.
static void
flushFrame (StubConn *c, uint16_t status)
{
    struct iovec iov[2] = {
        { .iov_base = NULL, .iov_len = 0 },
        { .iov_base = c->out, .iov_len = c->out_len },
    };
    stubSendGathered(c, iov, c->out_len ? 2 : 1, (uint32_t) c->out_len, status);
    c->out_len = 0;
}

void
stubPut (StubConn *c, const void *p, size_t n)
{
    if (c->out_len + n > STUB_RESP_BUF) flushFrame(c, DEBUG_STUB_RESP_OKAY_CONTINUES);
    if (n > STUB_RESP_BUF) {
        // a big object: its own frame, straight from where it lies
        struct iovec iov[2] = {
            { .iov_base = NULL, .iov_len = 0 },
            { .iov_base = (void *) p, .iov_len = n },
        };
        stubSendGathered(c, iov, 2, (uint32_t) n, DEBUG_STUB_RESP_OKAY_CONTINUES);
        return;
    }
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
}

void
stubPutString (StubConn *c, const char *s, size_t n)
{
    stubPut32be(c, (uint32_t) n);
    stubPut(c, s, n);
}

void
stubFinish (StubConn *c, uint16_t status)
{
    flushFrame(c, status);
}

void
stubReplyError (StubConn *c, uint16_t status, uint16_t why, const char *msg)
{
    c->out_len = 0;
    if (status == DEBUG_STUB_RESP_BAD_COMMAND) {
        stubPut16be(c, why);
        stubPut(c, msg, strlen(msg));
    }
    stubFinish(c, status);
}

/* -----------------------------------------------------------------------------
   Input
   -------------------------------------------------------------------------- */

typedef enum { READ_OK, READ_CLOSED, READ_TIMEOUT } ReadResult;

// Read exactly n bytes, each wait for more at most STUB_IO_TIMEOUT_MS.
static ReadResult
readFull (int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, STUB_IO_TIMEOUT_MS);
        if (r < 0) {
            if (errno == EINTR) continue;
            return READ_CLOSED;
        }
        if (r == 0) return READ_TIMEOUT;
        ssize_t k = read(fd, (char *) buf + got, n - got);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return READ_CLOSED;
        }
        if (k == 0) return READ_CLOSED;
        got += k;
    }
    return READ_OK;
}

bool
stubReadFrame (StubConn *c)
{
    uint32_t len;
    ReadResult r = readFull(c->fd, &len, 4);
    if (r == READ_OK) {
        len = ntohl(len);
        if (len > DEBUG_STUB_REQUEST_MAX) {
            stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_TOO_LONG,
                           "frame too long");
            return false;
        }
        c->frame = stgReallocBytes(c->frame, len + 8, "debug stub frame");
        r = readFull(c->fd, c->frame, len);
    }
    if (r == READ_TIMEOUT) {
        stubReplyError(c, DEBUG_STUB_RESP_BAD_COMMAND, DEBUG_STUB_WHY_TIMEOUT,
                       "incomplete frame");
    }
    if (r != READ_OK) return false;
    c->frame_len = len;
    c->pos = 0;
    return true;
}

#endif /* THREADED_RTS */
