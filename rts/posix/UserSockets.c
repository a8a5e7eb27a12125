/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Per-user socket paths: see UserSockets.h.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "Rtscope.h"
#include "posix/UserSockets.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Note [Per-user sockets]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * A program told to listen without a path (+RTS --debug-stub,
 * +RTS --eventlog-socket) listens at BASE/DIR/<pid>-<program>, where BASE
 * is $XDG_DATA_HOME, or $HOME/.local/share, and <program> the base name
 * of argv[0]. The debug stub's DIR is ghc-debug's own
 * (ghc-debug/debuggee/sockets: its clients find the program there), the
 * eventlog socket's rtscope/eventlog/sockets. The directories are made
 * mode 0700: only the user reaches the sockets. A client lists the
 * directory to find a program by pid or by name (rtscope's one resolver:
 * Note [What a target names] in consumer/lib/base/user_sockets.c); the
 * sockets of a program that died without removing them name a pid that
 * is gone, and clients pass them by. */
bool
userSocketPath (const char *dir, const char *what, char *out, size_t size)
{
    char base[4096];
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg != NULL && xdg[0] == '/') {
        snprintf(base, sizeof(base), "%s", xdg);
    } else if (home != NULL && home[0] == '/') {
        snprintf(base, sizeof(base), "%s/.local/share", home);
    } else {
        errorBelch("%s%s: no socket path: neither XDG_DATA_HOME nor HOME is "
                   "set to an absolute path; give one",
                   RTSCOPE_MSG_PREFIX, what);
        return false;
    }
    int argc; char **argv;
    getProgArgv(&argc, &argv);
    const char *prog = (argc > 0 && argv[0]) ? argv[0] : "program";
    const char *slash = strrchr(prog, '/');
    if (slash) prog = slash + 1;
    int n = snprintf(out, size, "%s/%s/%d-%s", base, dir, (int) getpid(), prog);
    if (n > 0 && (size_t) n < size) return true;
    errorBelch("%s%s: the socket path under %s is too long (a Unix socket "
               "path has at most %d bytes); give one",
               RTSCOPE_MSG_PREFIX, what, base, (int) size - 1);
    return false;
}

void
userSocketMakeParents (const char *path)
{
    char buf[4096];
    if ((size_t) snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf)) return;
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0700);
            *p = '/';
        }
    }
}
