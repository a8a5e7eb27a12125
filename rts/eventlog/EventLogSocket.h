/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog streaming socket, RTS-internal interface. The public C API
 * is in includes/rts/EventLogSocket.h.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "rts/EventLogWriter.h"

#include "BeginPrivate.h"

/* RtsFlags.c: consume an --eventlog-socket* flag other than the buffer
 * size. Returns false if arg is not one of ours; sets *error (after a
 * message) if it is but is bad. */
bool eventLogSocketParseFlag(const char *arg, bool *error);

/* RtsFlags.c: --eventlog-socket-buffer=<size>, read with decodeSize like
 * every size flag of GHC, within these bounds (bytes). */
#define EVENTLOG_SOCKET_MIN_BUFFER ((StgWord64)64 << 10)
#define EVENTLOG_SOCKET_MAX_BUFFER ((StgWord64)1 << 40)
void eventLogSocketSetBuffer(StgWord64 bytes);

/* Trace.c, first thing in initTracing: apply the environment variables and
 * turn eventlogging on when a socket is configured without +RTS -l. */
void eventLogSocketSetupTracing(void);

/* EventLog.c, startEventLogging: every writer goes through the socket's
 * tee, so that a socket can serve any eventlog stream. */
const EventLogWriter *eventLogSocketWrapWriter(const EventLogWriter *writer);

#include "EndPrivate.h"
