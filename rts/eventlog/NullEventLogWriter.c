/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * An EventLogWriter that discards everything (+RTS --null-eventlog-writer),
 * for measuring the cost of posting events without the cost of writing
 * them, or for programs that start a real writer themselves later.
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#include "rts/EventLogWriter.h"

static bool
writeNullEventLog(void *eventlog STG_UNUSED, size_t eventlog_size STG_UNUSED)
{
    return true;
}

const EventLogWriter NullEventLogWriter = {
    .initEventLogWriter = NULL,
    .writeEventLog = writeNullEventLog,
    .flushEventLog = NULL,
    .stopEventLogWriter = NULL
};
