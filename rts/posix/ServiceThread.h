/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The OS threads that serve rtscope's sockets (the eventlog socket, the
 * debug stub) beside the RTS, in every way.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <pthread.h>

#include "BeginPrivate.h"

/* Start fn on a new joinable thread that takes no signal: every signal is
 * blocked in it, so the program's handlers and the RTS's own run on the
 * threads they always ran on. Returns 0, or an errno value as
 * pthread_create does. */
int createServiceThread (pthread_t *tid, void *(*fn) (void *));

#include "EndPrivate.h"
