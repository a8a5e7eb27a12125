/* eventlog_calls.c: every public C function the patch set adds or changes,
 * one step at a time, for EventlogCalls.hs, which calls calls_step()
 * through a safe or an unsafe foreign import, or has calls_on_thread() run
 * it on a new foreign (POSIX) thread.
 *
 * Eventlog streams started here go through a custom EventLogWriter: stream
 * N to stream-N.eventlog, and every writer call, one word a line, to
 * writer.log ("init 0", "write 0", "flush 0", "stop 0", ...).
 *
 * It also builds with stock GHC 9.0.2 (tools/clients/stock-exe), where only the
 * steps "start" and "end" exist: the writer calls of the two runtimes are
 * then compared line for line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "Rts.h"
#if __has_include("rts/EventLogSocket.h")
#define PATCHED_RTS 1
#include "rts/prof/Heap.h"
#include "rts/EventLogSocket.h"
#include "rts/DebugStub.h"
#endif

static FILE *out = NULL;
static int stream_no = -1;

static void log_call(const char *what)
{
    FILE *f = fopen("writer.log", "a");
    if (f != NULL) {
        fprintf(f, "%s %d\n", what, stream_no);
        fclose(f);
    }
}

static void init_writer(void)
{
    char name[64];
    snprintf(name, sizeof name, "stream-%d.eventlog", ++stream_no);
    out = fopen(name, "wb");
    log_call("init");
}

static bool write_events(void *events, size_t size)
{
    log_call("write");
    return out != NULL && fwrite(events, 1, size, out) == size;
}

static void flush_writer(void)
{
    log_call("flush");
    if (out != NULL) fflush(out);
}

static void stop_writer(void)
{
    log_call("stop");
    if (out != NULL) fclose(out);
    out = NULL;
}

static const EventLogWriter calls_writer = {
    .initEventLogWriter = init_writer,
    .writeEventLog = write_events,
    .flushEventLog = flush_writer,
    .stopEventLogWriter = stop_writer,
};

#if defined(PATCHED_RTS)
/* Copy the open stream as it is on disk now. */
static int snapshot(const char *to)
{
    char name[64];
    snprintf(name, sizeof name, "stream-%d.eventlog", stream_no);
    FILE *in = fopen(name, "rb"), *o = fopen(to, "wb");
    if (in == NULL || o == NULL) return 0;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, o);
    fclose(in);
    fclose(o);
    return 1;
}

static void *resume_later(void *arg)
{
    (void) arg;
    usleep(200 * 1000);
    rts_debugStubResume();
    return NULL;
}
#endif

/* The threaded RTS's "a sync (GC or pause) is pending" word (rts/Capability.h,
 * not a public header); weak, as the non-threaded RTS has none. */
extern void *volatile pending_sync __attribute__((weak));

/* Set by EventlogCalls.hs just before another capability allocates. */
static volatile int calls_allocating = 0;

void calls_mark_allocating(void)
{
    calls_allocating = 1;
}

/* Let the GC that another capability's allocation asks for be pending,
 * waiting for this thread's capability: wait (15 s at most) until the RTS
 * says a sync is pending, where it exports the word (the threaded RTS); a
 * fixed wait alone lost the race on a loaded machine. */
static void calls_wait_sync(void)
{
    for (int i = 0; i < 10000 && !calls_allocating; i++) usleep(1000);
    if (&pending_sync != NULL) {
        for (int i = 0; i < 15000 && pending_sync == NULL; i++) usleep(1000);
    } else {
        usleep(500 * 1000);
    }
}

/* One step; the result is printed by the Haskell side. */
int calls_step(const char *step, HsStablePtr sp)
{
    if (strcmp(step, "start") == 0) {
        return startEventLogging(&calls_writer) ? 1 : 0;
    } else if (strcmp(step, "start-late") == 0) {
        calls_wait_sync();
        return startEventLogging(&calls_writer) ? 1 : 0;
    } else if (strcmp(step, "end") == 0) {
        endEventLogging();
        return eventLogStatus() == EVENTLOG_NOT_CONFIGURED ? 1 : 0;
    }
#if defined(PATCHED_RTS)
    else if (strcmp(step, "flush") == 0) {
        flushEventLog(NULL);
        return snapshot("flushed.eventlog");
    } else if (strcmp(step, "flush-late") == 0) {
        calls_wait_sync();
        flushEventLog(NULL);
        return 1;
    } else if (strcmp(step, "census") == 0) {
        requestHeapCensus();
        return 1;
    } else if (strcmp(step, "timer-stop") == 0) {
        stopHeapProfTimer();
        return 1;
    } else if (strcmp(step, "timer-start") == 0) {
        startHeapProfTimer();
        return 1;
    } else if (strcmp(step, "socket") == 0) {
        const char *a;
        return eventLogSocketStart("calls.sock") && (a = eventLogSocketAddress()) != NULL
            && strcmp(a, "calls.sock") == 0;
    } else if (strcmp(step, "stub") == 0) {
        int r = rts_debugStubStart("stub.sock");
        rts_debugStubSaveClosure(sp);
        return r == 0 && rts_debugStubSocketPath() != NULL;
    } else if (strcmp(step, "stub-pause") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, resume_later, NULL) != 0) return 0;
        rts_debugStubPause();
        pthread_join(t, NULL);
        return 1;
    } else if (strcmp(step, "pause") == 0) {
        PauseToken *tok = rts_pause();
        int ok = rts_isPaused();
        rts_resume(tok);
        return ok && !rts_isPaused();
    }
#endif
    (void) sp;
    fprintf(stderr, "eventlog_calls: unknown step %s\n", step);
    exit(2);
}

typedef struct {
    const char *step;
    HsStablePtr sp;
    int result;
} ThreadStep;

static void *thread_step(void *arg)
{
    ThreadStep *ts = arg;
    ts->result = calls_step(ts->step, ts->sp);
    return NULL;
}

/* The step on a new OS thread that the RTS has never seen. */
int calls_on_thread(const char *step, HsStablePtr sp)
{
    ThreadStep ts = { .step = step, .sp = sp, .result = -1 };
    pthread_t t;
    if (pthread_create(&t, NULL, thread_step, &ts) != 0) return -1;
    pthread_join(t, NULL);
    return ts.result;
}
