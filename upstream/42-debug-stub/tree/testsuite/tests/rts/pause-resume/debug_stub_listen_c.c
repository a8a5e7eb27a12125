#include "Rts.h"
#include "RtsAPI.h"
#include "rts/DebugStub.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void sleepMs (long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

/* A connection to the stub's socket (retrying up to 10 s), or -1. */
static int connectStub (const char *path)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    for (int tries = 0; tries < 1000; tries++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *) &addr, sizeof addr) == 0) {
            return fd;
        }
        if (fd >= 0) close(fd);
        sleepMs(10);
    }
    return -1;
}

/* Is the stub accepting connections on its socket? */
void checkStub (void)
{
    const char *path = rts_debugStubSocketPath();
    printf("socket path: %s\n", path != NULL ? path : "(none)");
    if (path != NULL) {
        int fd = connectStub(path);
        printf(fd >= 0 ? "stub listening\n" : "stub not listening\n");
        if (fd >= 0) close(fd);
    }
    fflush(stdout);
}

/* ------------------------------------------------ pause after GC */

static volatile long bumps;

/* Called by a Haskell thread in a loop: progress of the program. */
void bump (void) { bumps++; }

static int readFull (int fd, unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, buf, n);
        if (r <= 0) return -1;
        buf += r;
        n -= (size_t) r;
    }
    return 0;
}

/* Send a request (ghc-debug framing: u32be length, u32be command, body)
 * and return the status of its reply, or -1. */
static int request (int fd, uint32_t cmd, const unsigned char *body, uint32_t n)
{
    unsigned char frame[16];
    uint32_t len = 4 + n;
    if (n > sizeof frame - 8) return -1;
    for (int i = 0; i < 4; i++) frame[i] = (unsigned char) (len >> (24 - 8 * i));
    for (int i = 0; i < 4; i++) frame[4 + i] = (unsigned char) (cmd >> (24 - 8 * i));
    if (n > 0) memcpy(frame + 8, body, n);
    if (write(fd, frame, 8 + n) != (ssize_t) (8 + n)) return -1;
    for (;;) {      /* OKAY_CONTINUES frames, then the final one */
        unsigned char head[6], skip[256];
        if (readFull(fd, head, 6) != 0) return -1;
        uint32_t plen = (uint32_t) head[0] << 24 | (uint32_t) head[1] << 16
                      | (uint32_t) head[2] << 8 | head[3];
        int status = head[4] << 8 | head[5];
        while (plen > 0) {
            size_t k = plen < sizeof skip ? plen : sizeof skip;
            if (readFull(fd, skip, k) != 0) return -1;
            plen -= (uint32_t) k;
        }
        if (status != 1) return status;
    }
}

static uint32_t majorGCs (void)
{
    RTSStats s;
    getRTSStats(&s);
    return s.major_gcs;
}

/* PAUSE_AFTER_GC with "start a major GC now", then RESUME, through the
 * stub's socket, while a Haskell thread calls bump() in a loop. */
void pauseAfterGcCheck (void)
{
    const char *path = rts_debugStubSocketPath();
    int fd = path != NULL ? connectStub(path) : -1;
    if (fd < 0) { printf("stub not listening\n"); fflush(stdout); return; }
    long start = bumps;
    for (int i = 0; i < 1000 && bumps == start; i++) sleepMs(10);
    printf("running before the pause: %s\n", bumps != start ? "yes" : "no");

    uint32_t gcs = majorGCs();
    const unsigned char gcNow = 1;
    int st = request(fd, 64, &gcNow, 1);                 /* PAUSE_AFTER_GC */
    printf("PAUSE_AFTER_GC: status %d, paused %s, after a major GC it started %s\n",
           st, rts_isPaused() ? "yes" : "no", majorGCs() > gcs ? "yes" : "no");
    long during = bumps;
    sleepMs(200);
    printf("no Haskell code ran while paused: %s\n", bumps == during ? "yes" : "no");

    st = request(fd, 3, NULL, 0);                        /* RESUME */
    long after = bumps;
    for (int i = 0; i < 1000 && bumps == after; i++) sleepMs(10);
    printf("RESUME: status %d, paused %s, running again %s\n",
           st, rts_isPaused() ? "yes" : "no", bumps != after ? "yes" : "no");
    close(fd);
    fflush(stdout);
}
