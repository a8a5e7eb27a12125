/* The explorer's picker (xpick.c): the debuggees in ghc-debug's socket
 * directory and the snapshots in a snapshot directory. */
#ifndef RTSCOPE_CMD_EXPLORE_XPICK_H
#define RTSCOPE_CMD_EXPLORE_XPICK_H

#include <stddef.h>

/* The snapshot directory: dir if not NULL, else $RTSCOPE_SNAPSHOT_DIR,
 * $XDG_DATA_HOME/rtscope/snapshots, ~/.local/share/rtscope/snapshots. 0,
 * or -1 when there is no home to put it in. */
int xpick_snapshot_dir(const char *dir, char *out, size_t len);

/* Let the user pick: 0 with the chosen socket or snapshot path in target,
 * 1 when there was nothing to pick or the user quit, -1 after an error
 * (printed). */
int xpick_run(const char *dir, char *target, size_t len, const char *msg);

#endif
