/* The C side of PauseApi.hs: pausing the RTS through the pause API of
 * GHC 9.2 as rtscope provides it. */
#include "Rts.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void
count_thread (void *user, StgTSO *tso)
{
    (void) tso;
    (*(int *) user)++;
}

static void
count_root (void *user, StgClosure *c)
{
    (void) c;
    (*(int *) user)++;
}

/* One pause: check what must hold while paused, then resume. */
static void
pause_once (void)
{
    PauseToken *t = rts_pause();
    if (!rts_isPaused()) { fprintf(stderr, "not paused after rts_pause\n"); exit(3); }
    if (pauseTokenCapability(t) == NULL) { fprintf(stderr, "no capability\n"); exit(3); }
    int threads = 0, roots = 0;
    rts_listThreads(count_thread, &threads);
    rts_listMiscRoots(count_root, &roots);
    if (threads == 0) { fprintf(stderr, "no threads listed while paused\n"); exit(3); }
    rts_resume(t);
}

int
pause_from_ffi (void)
{
    for (int i = 0; i < 50; i++) pause_once();
    if (rts_isPaused()) { fprintf(stderr, "still paused after rts_resume\n"); exit(3); }
    return 50;
}

static int rounds_per_thread;

static void *
pauser (void *arg)
{
    int *done = arg;
    for (int i = 0; i < rounds_per_thread; i++) {
        pause_once();
        (*done)++;
    }
    return NULL;
}

int
pause_in_pthreads (int n, int rounds)
{
    pthread_t th[16];
    int done[16] = { 0 };
    rounds_per_thread = rounds;
    for (int i = 0; i < n; i++) pthread_create(&th[i], NULL, pauser, &done[i]);
    int total = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        total += done[i];
    }
    return total;
}

int
pause_and_eval (HsStablePtr io)
{
    PauseToken *t = rts_pause();
    Capability *cap = pauseTokenCapability(t);
    HaskellObj x = rts_mkInt(cap, 41);
    int small = (int) rts_getInt(x) + 1;
    HsStablePtr ret;
    rts_evalStableIO(&cap, io, &ret);
    rts_checkSchedStatus("pause_and_eval", cap);
    int r = (int) rts_getInt((HaskellObj) deRefStablePtr(ret));
    hs_free_stable_ptr(ret);
    rts_resume(t);
    return small == 42 ? r : -1;
}

static PauseToken *other_token;

static void *
resume_elsewhere (void *arg)
{
    (void) arg;
    rts_resume(other_token);
    return NULL;
}

void
misuse (int what)
{
    PauseToken *t = rts_pause();
    switch (what) {
    case 0:
        rts_pause();
        break;
    case 1:
        rts_lock();
        break;
    case 2: {
        pthread_t th;
        other_token = t;
        pthread_create(&th, NULL, resume_elsewhere, NULL);
        pthread_join(th, NULL);
        break;
    }
    }
    fprintf(stderr, "misuse %d went unnoticed\n", what);
    rts_resume(t);
}
