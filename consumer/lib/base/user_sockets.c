/* rt_sock_*: see rtscope/base/user_sockets.h. */
#include "rtscope/base/user_sockets.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Note [What a target names]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A program started with +RTS --debug-stub or +RTS --eventlog-socket and
 * no path listens at BASE/DIR/<pid>-<program> (Note [Per-user sockets]
 * in the RTS's posix/UserSockets.c). Every command takes what the user
 * names by the same rules, whatever it reads:
 *
 *   - a path (it has a '/', or something of that name is here that is
 *     not an executable) is taken as it is: a socket, a snapshot, an
 *     eventlog file;
 *   - digits are a pid: the socket <pid>-* in the command's directory;
 *   - another word is a program name: the socket of the one live program
 *     of that name there (two or more: give a pid). A bare executable's
 *     name is the program's where it was built (./Service is here).
 *
 * The eventlog's own address forms (-, unix:PATH, tcp:HOST:PORT) come
 * before these (cli_resolve_input). Sockets whose pid is gone are stale
 * (the program died without removing them): a name passes them by. */

static const struct {
    const char *dir, *one, *many, *sock, *path;
} kinds[] = {
    [RT_SOCK_DEBUG] = {"ghc-debug/debuggee/sockets", "debuggee", "debuggees",
                       "debuggee socket", "socket"},
    [RT_SOCK_EVENTLOG] = {"rtscope/eventlog/sockets",
                          "program with an eventlog socket",
                          "programs with eventlog sockets", "eventlog socket",
                          "file"},
};

int rt_user_data_dir(const char *sub, char *out, size_t outlen)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(out, outlen, "%s/%s", xdg, sub);
    else if (home && *home == '/')
        n = snprintf(out, outlen, "%s/.local/share/%s", home, sub);
    else
        return -1;
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int rt_sock_dir(enum rt_sock_kind k, char *out, size_t outlen)
{
    return rt_user_data_dir(kinds[k].dir, out, outlen);
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

int rt_sock_names_program(const char *target)
{
    struct stat st;
    if (!*target || strchr(target, '/'))
        return 0;
    if (stat(target, &st) != 0)
        return 1;
    return S_ISREG(st.st_mode) && (st.st_mode & 0111) && !all_digits(target);
}

static int pid_alive(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static int by_pid(const void *a, const void *b)
{
    const rt_sock_ent *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int rt_sock_list(enum rt_sock_kind k, rt_sock_ent **out, size_t *n)
{
    char dir[4096];
    *out = NULL;
    *n = 0;
    if (rt_sock_dir(k, dir, sizeof(dir)) != 0) {
        errno = ENOENT;
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '-' || pid <= 0 || !end[1])
            continue;
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            rt_sock_ent *v = realloc(*out, nc * sizeof(*v));
            if (!v) {
                closedir(d);
                free(*out);
                *out = NULL;
                *n = 0;
                errno = ENOMEM;
                return -1;
            }
            *out = v;
            cap = nc;
        }
        rt_sock_ent *s = &(*out)[(*n)++];
        s->pid = pid;
        s->alive = pid_alive(pid);
        snprintf(s->prog, sizeof(s->prog), "%s", end + 1);
        snprintf(s->path, sizeof(s->path), "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (*n > 1)
        qsort(*out, *n, sizeof(**out), by_pid);
    return 0;
}

int rt_sock_resolve(enum rt_sock_kind k, const char *target, char *path,
                    size_t pathlen, char *err, size_t errlen)
{
    char dir[4096];
    int pid = all_digits(target);
    if (rt_sock_dir(k, dir, sizeof(dir)) != 0) {
        snprintf(err, errlen,
                 "%s: no such %s, and no socket directory to find a %s in "
                 "(set XDG_DATA_HOME or HOME)",
                 target, kinds[k].path, kinds[k].one);
        return -1;
    }
    rt_sock_ent *v;
    size_t n;
    if (rt_sock_list(k, &v, &n) != 0) {
        snprintf(err, errlen, "%s: cannot read %s: %s", target, dir,
                 strerror(errno));
        return -1;
    }
    size_t found = 0, first = 0;
    long pids[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        int match = pid ? v[i].pid == strtol(target, NULL, 10)
                        : strcmp(v[i].prog, target) == 0 && v[i].alive;
        if (!match)
            continue;
        if (found < 2)
            pids[found] = v[i].pid;
        if (found++ == 0)
            first = i;
    }
    int r = 0;
    if (found == 0 && pid) {
        snprintf(err, errlen, "pid %s: no %s in %s", target, kinds[k].sock,
                 dir);
        r = -1;
    } else if (found == 0) {
        snprintf(err, errlen,
                 "%s: no such %s, and no live %s of that name in %s", target,
                 kinds[k].path, kinds[k].one, dir);
        r = -1;
    } else if (found > 1) {
        snprintf(err, errlen,
                 "%s: %zu live %s of that name (pids %ld, %ld, ...): give a "
                 "pid",
                 target, found, kinds[k].many, pids[0], pids[1]);
        r = -1;
    } else if ((size_t)snprintf(path, pathlen, "%s", v[first].path) >=
               pathlen) {
        snprintf(err, errlen, "%s: socket path too long", target);
        r = -1;
    }
    free(v);
    return r;
}
