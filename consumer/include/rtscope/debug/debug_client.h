/* debug_client: a client of the rtscope debug stub (ghc-debug's wire
 * protocol, docs/debug-protocol.md). One connection, requests answered in
 * order; every failure leaves a message in conn->err. */
#ifndef RTSCOPE_DEBUG_CLIENT_H
#define RTSCOPE_DEBUG_CLIENT_H

#include <stddef.h>
#include <stdint.h>

/* Commands, statuses, BAD_COMMAND reasons and framing: the stub's own
 * header (includes/rts/DebugStubProtocol.h). */
#include "rts/DebugStubProtocol.h"

/* A growable byte buffer; owns p. */
typedef struct dbg_buf {
    unsigned char *p;
    size_t len, cap;
} dbg_buf;

int dbg_buf_put(dbg_buf *b, const void *d, size_t n);
int dbg_buf_put8(dbg_buf *b, uint8_t x);
int dbg_buf_put16(dbg_buf *b, uint16_t x);  /* big-endian */
int dbg_buf_put32(dbg_buf *b, uint32_t x);  /* big-endian */
int dbg_buf_putptr(dbg_buf *b, uint64_t x); /* host order */
void dbg_buf_free(dbg_buf *b);

uint16_t dbg_rd16(const unsigned char *p);  /* big-endian */
uint32_t dbg_rd32(const unsigned char *p);  /* big-endian */
uint64_t dbg_rdptr(const unsigned char *p); /* host order */
/* A string as replies carry it (u32be length, bytes) at p, within avail
 * bytes: malloc'd and NUL-terminated, *used its encoded length; NULL if it
 * does not fit (or out of memory). */
char *dbg_take_string(const unsigned char *p, size_t avail, size_t *used);

typedef struct dbg_conn {
    int fd;
    char path[256];
    char err[512];
    int reason; /* BAD_COMMAND reason of the last error reply, or 0 */
    int timeout_ms;
    uint64_t requests; /* requests sent on this connection */
    uint64_t received; /* reply bytes received */
} dbg_conn;

/* The program at the other end of c's socket (the kernel's SO_PEERCRED):
 * its pid, and its name as it was started (argv[0]'s last component, as
 * the RTS calls it), at most n - 1 bytes. 0, or -1 if the kernel or /proc
 * cannot say (another user's program, or gone). */
int dbg_conn_peer(const dbg_conn *c, uint64_t *pid, char *prog, size_t n);

/* Turn a TARGET into a socket path: a path (containing '/', or a word
 * naming something here other than an executable) is taken as is; digits
 * are a pid, and another word a program name (the one live debuggee of
 * that name, also where an executable of that name is: the program, where
 * it was built), looked up in the ghc-debug socket directory. Returns 0,
 * or -1 with a message in err. */
int dbg_target_resolve(const char *target, char *path, size_t pathlen,
                       char *err, size_t errlen);

/* The ghc-debug socket directory: $XDG_DATA_HOME/ghc-debug/debuggee/sockets
 * ($XDG_DATA_HOME defaults to ~/.local/share). */
int dbg_socket_dir(char *out, size_t outlen);

/* Connect to a stub. Returns 0, or -1 with c->err set (no stub listening,
 * stale socket, permission denied...). */
int dbg_connect(dbg_conn *c, const char *path);
void dbg_close(dbg_conn *c);

/* Send a request and read the whole response into out (payload of all
 * frames). Returns the final status (>= 0), or -1 if the connection failed
 * (c->err set). For BAD_COMMAND, c->err holds the stub's message and
 * c->reason its reason; out is left empty for every error status. */
int dbg_request(dbg_conn *c, uint32_t cmd, const dbg_buf *body, dbg_buf *out);

/* As dbg_request, but any status other than OKAY is an error: returns 0 or
 * -1 with c->err set to "COMMAND: why". */
int dbg_request_ok(dbg_conn *c, uint32_t cmd, const dbg_buf *body,
                   dbg_buf *out);

const char *dbg_status_name(int status);
const char *dbg_command_name(uint32_t cmd);

/* Convenience requests; all return 0 or -1 (c->err set). */
/* VERSION: the GHC version whose protocol the stub speaks (902) and, when
 * profiling is not NULL, ghc-debug's profiling mode of the debuggee (0: not
 * a profiled RTS; 1-5: profiled, its heap profile; -1: a stub that does not
 * say, as ghc-debug's before 0.6). */
int dbg_version(dbg_conn *c, uint32_t *version, int *profiling);
/* How to pause: at once, right after a major GC the stub starts, or in
 * ghc-debug's fork mode (the stub pauses, forks and resumes the program at
 * once; the connection then reads the paused copy until RESUME). */
enum dbg_pause_mode {
    DBG_PAUSE_NOW = 0,
    DBG_PAUSE_AFTER_GC = 1,
    DBG_PAUSE_FORK = 2,
};
/* Pause; *was_paused set if the program was paused already (not an
 * error). */
int dbg_pause(dbg_conn *c, enum dbg_pause_mode mode, int *was_paused);
/* Resume; *was_running set if it was not paused (not an error). */
int dbg_resume(dbg_conn *c, int *was_running);
/* Pause right after the major GC that takes a heap census the stub asks
 * for (PAUSE_AFTER_CENSUS; the program needs a heap profile, +RTS -hT);
 * *when_ns is the time of the pause on the eventlog's clock: that census
 * is the program's last heap sample before it. *skipped (caller frees)
 * lists the starts of the pinned block groups the census did not count
 * (the capabilities' current pinned blocks). A program paused already is
 * an error (ALREADY_PAUSED). */
int dbg_pause_census(dbg_conn *c, uint64_t *when_ns, uint64_t **skipped,
                     size_t *nskipped);
int dbg_stay_paused(dbg_conn *c, int on);
/* ROOTS or SAVED_OBJECTS: an array of addresses, caller frees. */
int dbg_ptr_list(dbg_conn *c, uint32_t cmd, uint64_t **out, size_t *n);
/* CON_DESCR: a malloc'd NUL-terminated string. */
int dbg_con_descr(dbg_conn *c, uint64_t info, char **out);
/* SOURCE_INFO: *nfields = 0 or 6; fields malloc'd (free with
 * dbg_source_info_free). */
#define DBG_SOURCE_FIELDS 6
int dbg_source_info(dbg_conn *c, uint64_t info, char *fields[6], int *nfields);
void dbg_source_info_free(char *fields[6]);

#endif
