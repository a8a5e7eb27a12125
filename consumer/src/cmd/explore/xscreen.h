/* The explorer's screen (xscreen.c). */
#ifndef RTSCOPE_CMD_EXPLORE_XSCREEN_H
#define RTSCOPE_CMD_EXPLORE_XSCREEN_H

#include "explore.h"

#include <stddef.h>

/* What the user can ask for: by a key, or from the command picker
 * (Ctrl-P). The screen does the ones about itself (back, forward, keys,
 * quit); explore.c the others. */
enum xs_cmd {
    XC_PAUSE,
    XC_FORK,
    XC_RESUME,
    XC_SEARCH, /* arg: the query */
    XC_RETAIN,
    XC_WRITE,
    XC_SNAPSHOT,
    XC_CENSUS_INFO,
    XC_CENSUS_CON,
    XC_CENSUS_MODULE,
    XC_CENSUS_TYPE,
    XC_CENSUS2,
    XC_THUNKS,
    XC_DOMINATORS,
    XC_SUSPECTS,
    XC_ARR_WORDS,
    XC_STRINGS,
    XC_ROOTS,
    XC_BACK,
    XC_FORWARD,
    XC_HELP,
    XC_QUIT,
    XC_N
};

typedef struct xs_view xs_view;
struct xs_view {
    char what[512];     /* the title: program, pid, or snapshot file */
    char state[64];     /* "running", "paused", "forked copy", "snapshot" */
    char status[512];   /* the bottom line */
    char message[1024]; /* shown instead of the tree when there is none */
    xt_tree *tree;      /* NULL while the program runs */
    size_t sel, scroll;
    int help;
    char query[256]; /* the last search */
    /* From explore.c: a command (arg: what the user typed for it, or
     * NULL), and a call when no key came for a while (the program may
     * have gone). */
    void (*command)(xs_view *v, enum xs_cmd c, const char *arg);
    void (*tick)(xs_view *v);
    void *ctx;
    /* (the screen's own) */
    double drawn_at;
};

extern const char xs_keys_help[];

/* A long walk's progress on the status line, and Esc to cancel it (an
 * xt_progress poll; ui is the xs_view). */
int xs_progress(void *ui, const char *what, size_t visited, size_t queued);

/* A line typed on the status line after label, into buf (which holds
 * what to start from). 1 on Enter, 0 on Esc. */
int xs_prompt(xs_view *v, const char *label, char *buf, size_t len);

/* Run the screen until the user quits or a signal (INT, TERM, HUP) ends
 * it. 0, or -1 when the terminal cannot be used. */
int xs_run(xs_view *v);

#endif
