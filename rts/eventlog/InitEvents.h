/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Events that every eventlog stream must begin with, re-posted each time
 * eventlogging (re)starts.  See Note [Eventlog init events] in InitEvents.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

typedef void (*EventlogInitPost)(void);

#if defined(TRACING)

/* Post the events now and again at the start of every later eventlog
 * stream.  Poster functions are called with no lock held and post through
 * the ordinary trace functions (which check eventlog_enabled themselves). */
void postInitEvent(EventlogInitPost post_init);

/* Called by EventLog.c right after a stream's header has been posted, when
 * initEventsToRepost() says this is a stream started at run time (the
 * start-up stream gets them as they happen). */
bool initEventsToRepost(void);
void repostInitEvents(void);

/* Zero-argument posters for the init events the RTS itself emits. */
void traceHeapInfo(void);
void traceHeapProfBeginInit(void);

#define traceInitEvent(post_init) postInitEvent(post_init)

#else

#define traceInitEvent(post_init) /* nothing */

#endif /* TRACING */

#include "EndPrivate.h"
