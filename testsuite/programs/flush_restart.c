/* flush_restart.c: a custom EventLogWriter for FlushRestart.hs.  Each
 * eventlog stream it is given goes to its own file, stream-NN.eventlog. */
#include <stdio.h>
#include "Rts.h"

static FILE *out = NULL;
static int stream_no = 0;

static void init_writer(void)
{
    char name[64];
    snprintf(name, sizeof name, "stream-%02d.eventlog", stream_no++);
    out = fopen(name, "wb");
}

static bool write_events(void *events, size_t size)
{
    return out != NULL && fwrite(events, 1, size, out) == size;
}

static void flush_writer(void)
{
    if (out != NULL) fflush(out);
}

static void stop_writer(void)
{
    if (out != NULL) fclose(out);
    out = NULL;
}

static const EventLogWriter stream_writer = {
    .initEventLogWriter = init_writer,
    .writeEventLog = write_events,
    .flushEventLog = flush_writer,
    .stopEventLogWriter = stop_writer,
};

/* Called from Haskell through a safe foreign call. */
int restart_eventlog(void)
{
    endEventLogging();
    return startEventLogging(&stream_writer) ? 1 : 0;
}
