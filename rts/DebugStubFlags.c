/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's flag: +RTS --debug-stub[=PATH], and GHC_DEBUG_SOCKET in
 * the environment, which decide whether hs_init starts the stub
 * (rts/DebugStub.c) and where it listens.
 *
 * ---------------------------------------------------------------------------*/

#include "Rts.h"

#include "RtsUtils.h"
#include "Rtscope.h"
#include "DebugStub.h"

#include <stdlib.h>
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

bool
debugStubWanted (const char **path)
{
    const char *env = getenv("GHC_DEBUG_SOCKET");
    bool from_env = env != NULL && env[0] != '\0';
    *path = stub_flag_path;
#if defined(THREADED_RTS)
    return stub_flag_given || from_env;
#else
    if (stub_flag_given) {
        errorBelch("%s--debug-stub needs the threaded RTS (link the program with -threaded)",
                   RTSCOPE_MSG_PREFIX);
        stg_exit(EXIT_FAILURE);
    }
    if (from_env) {
        errorBelch("%sGHC_DEBUG_SOCKET is set but the debug stub needs the threaded RTS; "
                   "not started", RTSCOPE_MSG_PREFIX);
    }
    return false;
#endif
}
