/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The heap snapshot flags (rts/HeapSnapshot.h):
 *
 *   --heap-snapshot-on-overflow[=DIR]
 *   --heap-snapshot-at=SIZE[:FACTOR[:COUNT]]
 *   --heap-snapshot-signal=SIG
 *   --heap-snapshot-dir=DIR
 *   --heap-snapshot-raw
 *
 * ---------------------------------------------------------------------------*/

#include "Rts.h"

#include "RtsUtils.h"
#include "HeapSnapshot.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_FACTOR 2.0
#define DEFAULT_COUNT  3

HeapSnapshotConfig heap_snapshot_config = {
    .at_factor = DEFAULT_FACTOR,
    .at_count = DEFAULT_COUNT,
};

static char *
copyString (const char *s)
{
    char *c = stgMallocBytes(strlen(s) + 1, "heapSnapshotFlag");
    strcpy(c, s);
    return c;
}

// A size as -M takes one: a number of bytes, with k, m or g (either case).
bool
rtscopeParseSize (const char *s, char **end, StgWord64 *out)
{
    errno = 0;
    double x = strtod(s, end);
    if (*end == s || errno != 0 || !(x > 0)) return false;
    switch (**end) {
    case 'k': case 'K': x *= 1024.0; (*end)++; break;
    case 'm': case 'M': x *= 1048576.0; (*end)++; break;
    case 'g': case 'G': x *= 1073741824.0; (*end)++; break;
    default: break;
    }
    if (x >= 1e18) return false;
    *out = (StgWord64) x;
    return *out > 0;
}

static bool
parseAt (const char *s, const char **bad)
{
    HeapSnapshotConfig *c = &heap_snapshot_config;
    char *end;
    *bad = "expected SIZE[:FACTOR[:COUNT]], e.g. 200m or 200m:1.5:4";
    if (!rtscopeParseSize(s, &end, &c->at_size)) return false;
    if (*end == ':') {
        s = end + 1;
        errno = 0;
        c->at_factor = strtod(s, &end);
        if (end == s || errno != 0 || !(c->at_factor > 1.0) || !isfinite(c->at_factor)) {
            *bad = "FACTOR must be a number greater than 1";
            return false;
        }
    }
    if (*end == ':') {
        s = end + 1;
        errno = 0;
        unsigned long n = strtoul(s, &end, 10);
        if (end == s || errno != 0 || n == 0 || n > 1000) {
            *bad = "COUNT must be a whole number from 1 to 1000";
            return false;
        }
        c->at_count = (uint32_t) n;
    }
    return *end == '\0';
}

static const struct { const char *name; int sig; } signals[] = {
    { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
    { "QUIT", SIGQUIT }, { "PWR", SIGPWR }, { "WINCH", SIGWINCH },
};

static bool
parseSignal (const char *s, const char **bad)
{
    *bad = "SIG is a signal's number or name: USR1, USR2, HUP, QUIT, PWR, WINCH or RTMIN+N";
    if (strncasecmp(s, "SIG", 3) == 0) s += 3;
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
        if (strcasecmp(s, signals[i].name) == 0) {
            heap_snapshot_config.signal = signals[i].sig;
            return true;
        }
    }
    char *end;
    long n;
    if (strncasecmp(s, "RTMIN+", 6) == 0) {
        n = strtol(s + 6, &end, 10);
        if (end == s + 6 || *end != '\0' || n < 0 || SIGRTMIN + n > SIGRTMAX) return false;
        n += SIGRTMIN;
    } else {
        n = strtol(s, &end, 10);
        if (end == s || *end != '\0') return false;
    }
    // not those the RTS or the kernel own
    if (n <= 0 || n >= NSIG || n == SIGKILL || n == SIGSTOP || n == SIGSEGV ||
        n == SIGBUS || n == SIGFPE || n == SIGILL || n == SIGVTALRM ||
        n == SIGALRM || n == SIGPIPE || n == SIGCHLD || n == SIGINT) {
        *bad = "that signal cannot be used for heap snapshots";
        return false;
    }
    // Between the classic signals and SIGRTMIN: the C library's own (glibc
    // takes 32 and 33 for its threads and cancellation; a handler for them
    // cannot be installed).
    if (n > SIGSYS && n < SIGRTMIN) {
        *bad = "signals between SIGSYS and SIGRTMIN are the C library's own; "
               "use RTMIN+N";
        return false;
    }
    heap_snapshot_config.signal = (int) n;
    return true;
}

bool
heapSnapshotFlag (const char *arg, const char **bad)
{
    HeapSnapshotConfig *c = &heap_snapshot_config;
    *bad = NULL;
    if (strcmp(arg, "-on-overflow") == 0) {
        c->on_overflow = true;
        return true;
    }
    if (strcmp(arg, "-on-overflow=") == 0) {
        *bad = "DIR is empty: name a directory, or write --heap-snapshot-on-overflow";
        return false;
    }
    if (strncmp(arg, "-on-overflow=", 13) == 0) {
        c->on_overflow = true;
        stgFree(c->overflow_dir);
        c->overflow_dir = copyString(arg + 13);
        return true;
    }
    if (strncmp(arg, "-dir=", 5) == 0) {
        if (arg[5] == '\0') {
            *bad = "DIR is empty: name a directory (the default is the "
                   "current one)";
            return false;
        }
        stgFree(c->dir);
        c->dir = copyString(arg + 5);
        return true;
    }
    if (strcmp(arg, "-raw") == 0) {
        c->raw = true;
        return true;
    }
    if (strncmp(arg, "-at=", 4) == 0) return parseAt(arg + 4, bad);
    if (strncmp(arg, "-signal=", 8) == 0) return parseSignal(arg + 8, bad);
    return false;
}
