/* The C side of GHC.Eventlog.Socket: start the RTS's eventlog socket, with
 * eventlogging turned on first if the program runs without +RTS -l (as
 * eventlog-socket's own writer does). Called through a safe foreign call:
 * startEventLogging stops every capability. */
#include "Rts.h"
#include "rts/EventLogWriter.h"
#include "rts/EventLogSocket.h"

#include <string.h>

int
rtscope_eventlog_socket_start(const char *addr)
{
    const char *serving = eventLogSocketAddress();
    if (serving != NULL) {
        /* started already (by +RTS --eventlog-socket, the environment, or
         * an earlier call): the same address is no error */
        return strcmp(serving, addr) == 0 ? 1 : -1;
    }
    switch (eventLogStatus()) {
    case EVENTLOG_NOT_SUPPORTED:
        return 0;
    case EVENTLOG_NOT_CONFIGURED:
        /* no -l: the socket is the only writer */
        if (!startEventLogging(&NullEventLogWriter)) return 0;
        break;
    case EVENTLOG_RUNNING:
        break;
    }
    return eventLogSocketStart(addr) ? 1 : 0;
}

/* Clients that have connected so far, and are connected now. */
void
rtscope_eventlog_socket_clients(unsigned long *ever, unsigned long *now)
{
    EventLogSocketStats st;
    eventLogSocketGetStats(&st);
    *ever = st.clients_connected;
    *now = st.clients_active;
}
