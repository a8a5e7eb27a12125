#include "Rts.h"
#include <stdio.h>

static void countThread (void *user, StgTSO *tso) { (void) tso; (*(int *) user)++; }
static void countRoot (void *user, StgClosure *c) { (void) c; (*(int *) user)++; }

void pauseAndResume (void)
{
    printf("paused before: %d\n", rts_isPaused());
    PauseToken *token = rts_pause();
    int threads = 0, roots = 0;
    rts_listThreads(countThread, &threads);
    rts_listMiscRoots(countRoot, &roots);
    printf("paused: %d\n", rts_isPaused());
    printf("capability: %s\n", pauseTokenCapability(token) != NULL ? "yes" : "no");
    printf("threads listed: %s\n", threads > 0 ? "yes" : "no");
    rts_resume(token);
    printf("paused after resume: %d\n", rts_isPaused());
    fflush(stdout);
}
