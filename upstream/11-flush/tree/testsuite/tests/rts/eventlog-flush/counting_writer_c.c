/* An EventLogWriter that counts what it is given, installed through
 * RtsConfig.eventlog_writer; main() runs the Haskell program with it. */
#include "Rts.h"
#include "RtsAPI.h"
#include <stdatomic.h>

static atomic_size_t bytes_written;
static atomic_uint writer_flushes;

static void countingInit (void) { }
static bool countingWrite (void *eventlog, size_t size)
{
    (void) eventlog;
    atomic_fetch_add(&bytes_written, size);
    return true;
}
static void countingFlush (void) { atomic_fetch_add(&writer_flushes, 1); }
static void countingStop (void) { }

static const EventLogWriter countingWriter = {
    .initEventLogWriter = countingInit,
    .writeEventLog      = countingWrite,
    .flushEventLog      = countingFlush,
    .stopEventLogWriter = countingStop,
};

size_t countedBytes (void) { return atomic_load(&bytes_written); }
unsigned countedFlushes (void) { return atomic_load(&writer_flushes); }

extern StgClosure ZCMain_main_closure;

int main (int argc, char *argv[])
{
    RtsConfig conf = defaultRtsConfig;
    conf.rts_opts_enabled = RtsOptsAll;
    conf.eventlog_writer = &countingWriter;
    return hs_main(argc, argv, &ZCMain_main_closure, conf);
}
