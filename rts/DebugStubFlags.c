/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's flag: +RTS --debug-stub[=PATH], which decides whether
 * hs_init starts the stub (rts/DebugStub.c); where it listens is the
 * flag's PATH, else GHC_DEBUG_SOCKET, else ghc-debug's convention.
 *
 * ---------------------------------------------------------------------------*/

#include "Rts.h"

#include "RtsUtils.h"
#include "Rtscope.h"
#include "DebugStub.h"

#include <string.h>

static char *stub_flag_path = NULL;   // +RTS --debug-stub[=PATH]
static bool  stub_flag_given = false;

bool
debugStubFlag (const char *arg)
{
    if (arg[0] == '\0') {
        stub_flag_given = true;
        return true;
    }
    if (arg[0] == '=' && arg[1] != '\0') {
        stub_flag_given = true;
        stgFree(stub_flag_path);
        stub_flag_path = stgMallocBytes(strlen(arg), "debugStubFlag");
        strcpy(stub_flag_path, arg + 1);
        return true;
    }
    return false;
}

/* Only the flag starts the stub at hs_init (or the program, through
 * rts_debugStubStart and the GHC.Debug.Stub API). GHC_DEBUG_SOCKET just
 * names the path, as in ghc-debug-stub: were it enough to start the stub,
 * every threaded child a debugged program runs would inherit it and try
 * to take the parent's socket. */
bool
debugStubWanted (const char **path)
{
    *path = stub_flag_path;
#if defined(THREADED_RTS)
    return stub_flag_given;
#else
    if (stub_flag_given) {
        errorBelch("%s--debug-stub needs the threaded RTS (link the program with -threaded)",
                   RTSCOPE_MSG_PREFIX);
        stg_exit(EXIT_FAILURE);
    }
    return false;
#endif
}
