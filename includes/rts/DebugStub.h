/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub: a ghc-debug server inside the RTS (threaded RTS only).
 * docs/debug-stub.md tells how to use it, docs/debug-protocol.md what it
 * speaks. Every function here may be called from C or, through a safe
 * foreign import, from Haskell.
 *
 * Do not #include this file directly: #include "Rts.h" first.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#if defined(__cplusplus)
extern "C" {
#endif

/* Start the stub (if it is not running yet) listening on the Unix socket
 * PATH, or, if PATH is NULL, on $GHC_DEBUG_SOCKET or ghc-debug's default
 * $XDG_DATA_HOME/ghc-debug/debuggee/sockets/<pid>-<prog>. Returns 0 when
 * the stub runs, -1 (with a message on stderr) when it cannot start. */
int rts_debugStubStart (const char *path);

/* The socket the stub listens on, or NULL if it does not run. */
const char *rts_debugStubSocketPath (void);

/* Make a closure a "saved object" the debugger can ask for (SAVED_OBJECTS).
 * The stub takes ownership of the stable pointer. */
void rts_debugStubSaveClosure (HsStablePtr sp);

/* Pause the program here until a debugger resumes it (the debugger's POLL
 * request returns once the pause is in). Call from a safe foreign call or
 * a C thread. Returns at once if the stub does not run. */
void rts_debugStubPause (void);

/* Resume a program the stub has paused (a debugger's pause or a
 * rts_debugStubPause), as a debugger's RESUME would. Returns at once; does
 * nothing if the stub does not run or the program is not paused. Callable
 * from a C thread (no Haskell thread runs while the program is paused). */
void rts_debugStubResume (void);

#if defined(__cplusplus)
}
#endif
