/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The eventlog streaming socket: the RTS serves its eventlog to clients on a
 * Unix domain or TCP socket, alongside or instead of the eventlog file.
 *
 * Programs with a Haskell main use the RTS flags (+RTS -? lists them):
 *   --eventlog-socket=PATH | --eventlog-socket=tcp:[HOST:]PORT
 *   --eventlog-socket-wait, --eventlog-socket-buffer=SIZE,
 *   --eventlog-socket-required
 * or eventlog-socket's environment variables GHC_EVENTLOG_UNIX_PATH,
 * GHC_EVENTLOG_INET_HOST and _PORT, GHC_EVENTLOG_WAIT (rtscope's
 * GHC_EVENTLOG_SOCKET, _WAIT and _BUFFER too). Programs with a C main may instead call
 * eventLogSocketConfigure() before hs_init_ghc(), or eventLogSocketStart()
 * at any time while the eventlog runs.
 *
 * Do not #include this file directly: #include "Rts.h" instead.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <stddef.h>
#include <stdbool.h>

/* Configure the socket before the RTS starts (hs_init_ghc). addr is a Unix
 * socket path or "tcp:[HOST:]PORT" (HOST defaults to 127.0.0.1); wait makes
 * start-up block until the first client connects; buffer_bytes bounds what
 * is queued for one client (0: the default, 4 MiB). The strings are copied.
 * Returns false (with a message on stderr) if addr is malformed. */
bool eventLogSocketConfigure(const char *addr, bool wait, size_t buffer_bytes);

/* Start serving on addr while the program runs (the eventlog must be
 * enabled, e.g. with +RTS -l). Clients that join get a complete eventlog:
 * header, init events, then live events. Returns false, with a message on
 * stderr, if the socket cannot be opened; the program is not affected. */
bool eventLogSocketStart(const char *addr);

/* The address the socket serves on (as given to the flag, the environment
 * or eventLogSocketStart), or NULL if it does not serve. The string stays
 * valid while the program runs. */
const char *eventLogSocketAddress(void);

/* Counters, for tests and tools. */
typedef struct {
    unsigned long clients_connected;   /* ever accepted */
    unsigned long clients_active;
    unsigned long long bytes_dropped;  /* summed over clients */
    unsigned long long events_dropped;
    unsigned long control_ok;          /* control messages acted upon */
    unsigned long control_ignored;     /* unknown or malformed */
} EventLogSocketStats;

void eventLogSocketGetStats(EventLogSocketStats *stats);
