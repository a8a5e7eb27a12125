#include "Rts.h"
#include "rts/DebugStub.h"
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Is the stub accepting connections on its socket (retrying up to 10 s)? */
void checkStub (void)
{
    const char *path = rts_debugStubSocketPath();
    printf("socket path: %s\n", path != NULL ? path : "(none)");
    if (path == NULL) { fflush(stdout); return; }
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    for (int tries = 0; tries < 1000; tries++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *) &addr, sizeof addr) == 0) {
            close(fd);
            printf("stub listening\n");
            fflush(stdout);
            return;
        }
        if (fd >= 0) close(fd);
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    printf("stub not listening\n");
    fflush(stdout);
}
