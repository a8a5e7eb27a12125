#include "Rts.h"
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Connect to PATH (retrying for up to 10 s) and read the first 4 bytes. */
void readEventlogMagic (const char *path)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    for (int tries = 0; tries < 1000; tries++) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *) &addr, sizeof addr) == 0) {
            char magic[5] = {0};
            size_t got = 0;
            while (got < 4) {
                ssize_t n = read(fd, magic + got, 4 - got);
                if (n <= 0) break;
                got += (size_t) n;
            }
            close(fd);
            printf("first bytes: %s\n", got == 4 ? magic : "(short read)");
            fflush(stdout);
            return;
        }
        if (fd >= 0) close(fd);
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    printf("could not connect to %s\n", path);
    fflush(stdout);
}
