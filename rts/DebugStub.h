/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's hooks in RTS startup, shutdown and flag parsing.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#include "BeginPrivate.h"

/* +RTS --debug-stub[=PATH]: ARG is what follows "--debug-stub" ("" or
 * "=PATH"). Returns false if ARG is malformed. */
bool debugStubFlag (const char *arg);

/* Whether hs_init starts the stub (+RTS --debug-stub, or GHC_DEBUG_SOCKET
 * in the environment), and *path, the flag's PATH or NULL (the default).
 * In the non-threaded RTS, says why it cannot (and exits if the flag asked
 * for it). rts/DebugStubFlags.c */
bool debugStubWanted (const char **path);

/* End of hs_init: start the stub if +RTS --debug-stub or GHC_DEBUG_SOCKET
 * asks for it. */
void initDebugStub (void);

/* Start of hs_exit: resume the program if the stub paused it, stop the
 * stub's thread, remove its socket. */
void exitDebugStub (void);

#include "EndPrivate.h"
