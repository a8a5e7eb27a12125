/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Per-user socket paths: where the eventlog socket and the debug stub
 * listen when the user names no path (Note [Per-user sockets] in
 * UserSockets.c).
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include <stddef.h>

#include "BeginPrivate.h"

/* The socket path of this process under the user's data directory:
 * BASE/DIR/<pid>-<program>, BASE being $XDG_DATA_HOME or
 * $HOME/.local/share, into out (size bytes). false, having said why on
 * stderr (what names the socket: "debug stub"), if there is none. */
bool userSocketPath (const char *dir, const char *what, char *out, size_t size);

/* mkdir -p, mode 0700, of the directories above path. */
void userSocketMakeParents (const char *path);

#include "EndPrivate.h"
