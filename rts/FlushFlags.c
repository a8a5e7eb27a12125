/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Parsing the eventlog-flushing and heap-census RTS flags.
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "FlushFlags.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

FLUSH_FLAGS FlushFlags = {
    .eventlogFlushTime    = 0,
    .nullEventlogWriter   = false,
    .automaticHeapSamples = true,
};

// Longest interval we accept: a year, comfortably inside Time's range.
#define MAX_FLUSH_SECONDS (365.0 * 24 * 60 * 60)

static bool
parseFlushInterval(const char *val, bool *error)
{
    char *end;
    errno = 0;
    double secs = strtod(val, &end);
    if (*val == '\0' || *end != '\0' || errno != 0 || isnan(secs)) {
        errorBelch("bad value for --eventlog-flush-interval: '%s' "
                   "(expected seconds, e.g. 0.5)", val);
        *error = true;
        return true;
    }
    if (secs == 0) {
        // GHC 9.2 reads 0 as "no periodic flush", the default.
        FlushFlags.eventlogFlushTime = 0;
        return true;
    }
    if (!(secs > 0) || secs > MAX_FLUSH_SECONDS) {
        errorBelch("bad value for --eventlog-flush-interval: '%s' "
                   "(must be 0 for off, or greater than 0 and at most a year)", val);
        *error = true;
        return true;
    }
    Time t = fsecondsToTime(secs);
    if (t <= 0) {
        errorBelch("bad value for --eventlog-flush-interval: '%s' "
                   "(too small)", val);
        *error = true;
        return true;
    }
    FlushFlags.eventlogFlushTime = t;
    return true;
}

/* --null-eventlog-writer throws the eventlog away, so like GHC 9.2 it
 * needs -rtsopts (OPTION_UNSAFE): a program linked with -rtsopts=some
 * must not be talked out of the eventlog its owner asked for. */
bool
flushFlagIsUnsafe(const char *arg)
{
    return strcmp(arg, "--null-eventlog-writer") == 0;
}

bool
parseFlushFlag(const char *arg, bool *error)
{
    static const char interval[] = "--eventlog-flush-interval";
    const size_t n = sizeof(interval) - 1;

    if (strncmp(arg, interval, n) == 0) {
        if (arg[n] == '=') {
            return parseFlushInterval(arg + n + 1, error);
        }
        if (arg[n] == '\0') {
            errorBelch("--eventlog-flush-interval needs a value in seconds, "
                       "e.g. --eventlog-flush-interval=0.5");
            *error = true;
            return true;
        }
        return false;   // some other flag with this prefix
    }
    if (strcmp(arg, "--null-eventlog-writer") == 0) {
        FlushFlags.nullEventlogWriter = true;
        return true;
    }
    if (strcmp(arg, "--no-automatic-heap-samples") == 0) {
        FlushFlags.automaticHeapSamples = false;
        return true;
    }
    return false;
}
