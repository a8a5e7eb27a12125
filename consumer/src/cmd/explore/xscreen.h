/* The explorer's screen (xscreen.c). */
#ifndef RTSCOPE_CMD_EXPLORE_XSCREEN_H
#define RTSCOPE_CMD_EXPLORE_XSCREEN_H

#include "explore.h"

#include <stddef.h>

typedef struct xs_view xs_view;
struct xs_view {
    char what[512];     /* the title: program, pid, or snapshot file */
    char state[64];     /* "running", "paused", "forked copy", "snapshot" */
    char status[512];   /* the bottom line */
    char message[1024]; /* shown instead of the tree when there is none */
    xt_tree *tree;      /* NULL while the program runs */
    size_t sel, scroll;
    int help;
    /* From explore.c: pause (fork: a forked copy), resume, and a call
     * when no key came for a while (the program may have gone). */
    void (*pause)(xs_view *v, int fork);
    void (*resume)(xs_view *v);
    void (*tick)(xs_view *v);
    /* the retainer path of the selected closure (r) */
    void (*retain)(xs_view *v);
    void *ctx;
};

extern const char xs_keys_help[];

/* Run the screen until the user quits or a signal (INT, TERM, HUP) ends
 * it. 0, or -1 when the terminal cannot be used. */
int xs_run(xs_view *v);

#endif
