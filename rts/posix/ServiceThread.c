/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The OS threads that serve rtscope's sockets: see ServiceThread.h.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "posix/ServiceThread.h"

#include <signal.h>

int
createServiceThread (pthread_t *tid, void *(*fn) (void *))
{
    // The new thread inherits the signal mask of its creator.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(tid, NULL, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}
