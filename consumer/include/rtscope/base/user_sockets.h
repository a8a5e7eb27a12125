/* What the user names, turned into the socket of a running program: the
 * per-user socket directories the RTS listens in when no path is given
 * (the debug stub's, ghc-debug's own; the eventlog socket's), a pid or a
 * program name looked up there, and the directory's programs listed. One
 * set of rules for every command (Note [What a target names] in
 * user_sockets.c). */
#ifndef RTSCOPE_BASE_USER_SOCKETS_H
#define RTSCOPE_BASE_USER_SOCKETS_H

#include <stddef.h>

enum rt_sock_kind {
    RT_SOCK_DEBUG,    /* +RTS --debug-stub: ghc-debug/debuggee/sockets */
    RT_SOCK_EVENTLOG, /* +RTS --eventlog-socket: rtscope/eventlog/sockets */
};

/* SUB in the user's data directory: $XDG_DATA_HOME/SUB, or, when that is
 * unset or not absolute (the XDG rule), ~/.local/share/SUB. 0, or -1 when
 * neither variable gives one (or it does not fit). */
int rt_user_data_dir(const char *sub, char *out, size_t outlen);

/* The kind's directory: rt_user_data_dir of DIR. */
int rt_sock_dir(enum rt_sock_kind k, char *out, size_t outlen);

/* Whether target names a program (its pid, or its name) rather than a
 * path: it has no '/', and nothing of that name is here other than an
 * executable (the program itself, where it was built). */
int rt_sock_names_program(const char *target);

/* The socket of the one live program target names, as
 * rt_sock_names_program: digits are a pid, another word a program name.
 * 0, or -1 with a message in err. */
int rt_sock_resolve(enum rt_sock_kind k, const char *target, char *path,
                    size_t pathlen, char *err, size_t errlen);

/* A socket of the directory. */
typedef struct rt_sock_ent {
    long pid;
    int alive; /* its pid runs (its socket may still be another's: a
                  client that must know connects) */
    char prog[256];
    char path[4096 + 256];
} rt_sock_ent;

/* The kind's sockets (<pid>-<program>), by pid; *n = 0 when the
 * directory does not exist. 0, or -1 (errno set) when it cannot be read
 * or out of memory. The caller frees *out. */
int rt_sock_list(enum rt_sock_kind k, rt_sock_ent **out, size_t *n);

#endif
