#include <stdio.h>
#include <Rts.h>

// A writer that says what it is asked to do (writes are counted: their
// number depends on the number of capabilities).
static int writes = 0;

static void test_init(void) { printf("init\n"); fflush(stdout); }
static bool test_write(void *eventlog, size_t size)
{
    (void) eventlog; (void) size;
    writes++;
    return true;
}
static void test_flush(void) { printf("flush\n"); fflush(stdout); }
static void test_stop(void)
{
    printf("stop after %s\n", writes > 0 ? "writes" : "no write");
    fflush(stdout);
    writes = 0;
}

static const EventLogWriter writer = {
    .initEventLogWriter = test_init,
    .writeEventLog = test_write,
    .flushEventLog = test_flush,
    .stopEventLogWriter = test_stop
};

int start_eventlog(void) { return startEventLogging(&writer); }
void flush_eventlog(void) { flushEventLog(NULL); }
void end_eventlog(void) { endEventLogging(); }
