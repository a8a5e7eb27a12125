/* debug_client: connection, framing and the simple requests of the debug
 * stub protocol. See debug_client.h and docs/debug-protocol.md. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_client.h"
#include "rtscope/base/user_sockets.h"

#include "rtscope/base/filekind.h"
#include "rtscope/base/safestr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- buffers ---------------------------------------------------------- */

int dbg_buf_put(dbg_buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t nc = (b->len + n) * 2 + 64;
        unsigned char *np = realloc(b->p, nc);
        if (!np)
            return -1;
        b->p = np;
        b->cap = nc;
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
    return 0;
}

int dbg_buf_put8(dbg_buf *b, uint8_t x)
{
    return dbg_buf_put(b, &x, 1);
}

int dbg_buf_put16(dbg_buf *b, uint16_t x)
{
    x = htons(x);
    return dbg_buf_put(b, &x, 2);
}

int dbg_buf_put32(dbg_buf *b, uint32_t x)
{
    x = htonl(x);
    return dbg_buf_put(b, &x, 4);
}

int dbg_buf_putptr(dbg_buf *b, uint64_t x)
{
    return dbg_buf_put(b, &x, 8);
}

void dbg_buf_free(dbg_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

uint16_t dbg_rd16(const unsigned char *p)
{
    uint16_t x;
    memcpy(&x, p, 2);
    return ntohs(x);
}

uint32_t dbg_rd32(const unsigned char *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return ntohl(x);
}

uint64_t dbg_rdptr(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* ---- names ------------------------------------------------------------ */

const char *dbg_status_name(int status)
{
    switch (status) {
    case DEBUG_STUB_RESP_OKAY:
        return "OKAY";
    case DEBUG_STUB_RESP_OKAY_CONTINUES:
        return "OKAY_CONTINUES";
    case DEBUG_STUB_RESP_BAD_COMMAND:
        return "BAD_COMMAND";
    case DEBUG_STUB_RESP_ALREADY_PAUSED:
        return "ALREADY_PAUSED";
    case DEBUG_STUB_RESP_NOT_PAUSED:
        return "NOT_PAUSED";
    case DEBUG_STUB_RESP_NO_RESUME:
        return "NO_RESUME";
    case DEBUG_STUB_RESP_BAD_STACK:
        return "BAD_STACK";
    default:
        return "unknown status";
    }
}

const char *dbg_command_name(uint32_t cmd)
{
    switch (cmd) {
    case DEBUG_STUB_CMD_VERSION:
        return "VERSION";
    case DEBUG_STUB_CMD_PAUSE:
        return "PAUSE";
    case DEBUG_STUB_CMD_RESUME:
        return "RESUME";
    case DEBUG_STUB_CMD_ROOTS:
        return "ROOTS";
    case DEBUG_STUB_CMD_CLOSURES:
        return "CLOSURES";
    case DEBUG_STUB_CMD_INFO_TABLES:
        return "INFO_TABLES";
    case DEBUG_STUB_CMD_STACK_BITMAP:
        return "STACK_BITMAP";
    case DEBUG_STUB_CMD_POLL:
        return "POLL";
    case DEBUG_STUB_CMD_SAVED_OBJECTS:
        return "SAVED_OBJECTS";
    case DEBUG_STUB_CMD_CON_DESCR:
        return "CON_DESCR";
    case DEBUG_STUB_CMD_SOURCE_INFO:
        return "SOURCE_INFO";
    case DEBUG_STUB_CMD_BLOCKS:
        return "BLOCKS";
    case DEBUG_STUB_CMD_BLOCK:
        return "BLOCK";
    case DEBUG_STUB_CMD_FUN_BITMAP:
        return "FUN_BITMAP";
    case DEBUG_STUB_CMD_SRT:
        return "SRT";
    case DEBUG_STUB_CMD_PAUSE_AFTER_GC:
        return "PAUSE_AFTER_GC";
    case DEBUG_STUB_CMD_STAY_PAUSED:
        return "STAY_PAUSED";
    case DEBUG_STUB_CMD_PAUSE_AFTER_CENSUS:
        return "PAUSE_AFTER_CENSUS";
    case DEBUG_STUB_CMD_READ_CLOSURES:
        return "READ_CLOSURES";
    case DEBUG_STUB_CMD_DESCRIBE_INFOS:
        return "DESCRIBE_INFOS";
    case DEBUG_STUB_CMD_BLOCK_LIST:
        return "BLOCK_LIST";
    default:
        return "command";
    }
}

static void conn_err(dbg_conn *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(c->err, sizeof(c->err), fmt, ap);
    va_end(ap);
}

/* ---- targets ---------------------------------------------------------- */

int dbg_socket_dir(char *out, size_t outlen)
{
    return rt_sock_dir(RT_SOCK_DEBUG, out, outlen);
}

int dbg_target_resolve(const char *target, char *path, size_t pathlen,
                       char *err, size_t errlen)
{
    if (rt_sock_names_program(target))
        return rt_sock_resolve(RT_SOCK_DEBUG, target, path, pathlen, err,
                               errlen);
    if ((size_t)snprintf(path, pathlen, "%s", target) >= pathlen) {
        snprintf(err, errlen, "%s: socket path too long", target);
        return -1;
    }
    return 0;
}

/* ---- connection ------------------------------------------------------- */

int dbg_connect(dbg_conn *c, const char *path)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->timeout_ms = 60000;
    snprintf(c->path, sizeof(c->path), "%s", path);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(a.sun_path)) {
        conn_err(c, "%s: socket path too long", path);
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    struct stat st;
    if (stat(path, &st) != 0) {
        conn_err(c, "%s: no such socket: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        conn_err(c, "%s: is %s, not a debuggee's socket", path,
                 rt_file_kind(st.st_mode));
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        conn_err(c, "socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int e = errno;
        close(fd);
        if (e == ECONNREFUSED)
            conn_err(c,
                     "%s: no debuggee listens (stale socket: the program "
                     "has exited?)",
                     path);
        else
            conn_err(c, "%s: cannot connect: %s", path, strerror(e));
        return -1;
    }
    c->fd = fd;
    return 0;
}

void dbg_close(dbg_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

static int write_all(int fd, const void *p, size_t n)
{
    while (n > 0) {
        ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p = (const char *)p + r;
        n -= (size_t)r;
    }
    return 0;
}

/* 0, -1 closed or error, -2 timeout */
static int read_full(int fd, void *p, size_t n, int timeout_ms)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = poll(&pfd, 1, timeout_ms);
        if (r == 0)
            return -2;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        ssize_t k = read(fd, (char *)p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

int dbg_request(dbg_conn *c, uint32_t cmd, const dbg_buf *body, dbg_buf *out)
{
    c->reason = 0;
    if (c->fd < 0) {
        conn_err(c, "%s: not connected", c->path);
        return -1;
    }
    size_t blen = body ? body->len : 0;
    unsigned char h[8];
    uint32_t x = htonl((uint32_t)(4 + blen));
    memcpy(h, &x, 4);
    x = htonl(cmd);
    memcpy(h + 4, &x, 4);
    if (write_all(c->fd, h, 8) != 0 ||
        (blen && write_all(c->fd, body->p, blen) != 0)) {
        conn_err(c, "%s: %s: connection closed by the debuggee (%s)", c->path,
                 dbg_command_name(cmd), strerror(errno));
        dbg_close(c);
        return -1;
    }
    c->requests++;
    out->len = 0;
    for (;;) {
        unsigned char fh[DEBUG_STUB_RESP_HEADER_LEN];
        int r = read_full(c->fd, fh, sizeof(fh), c->timeout_ms);
        if (r == 0) {
            uint32_t len = dbg_rd32(fh);
            c->received += DEBUG_STUB_RESP_HEADER_LEN + (size_t)len;
            if (len > out->cap - out->len || !out->p) {
                size_t nc = out->len + len + 1;
                if (nc < out->cap * 2) /* geometric: replies of many frames */
                    nc = out->cap * 2;
                unsigned char *np = realloc(out->p, nc);
                if (!np) {
                    conn_err(c, "out of memory");
                    return -1;
                }
                out->p = np;
                out->cap = nc;
            }
            r = read_full(c->fd, out->p + out->len, len, c->timeout_ms);
            if (r == 0) {
                size_t start = out->len;
                out->len += len;
                uint16_t st = dbg_rd16(fh + 4);
                if (st == DEBUG_STUB_RESP_OKAY_CONTINUES)
                    continue;
                if (st == DEBUG_STUB_RESP_BAD_COMMAND) {
                    if (len >= 2) {
                        c->reason = dbg_rd16(out->p + start);
                        conn_err(c, "%s: the stub refused it: %.*s (reason %d)",
                                 dbg_command_name(cmd), (int)(len - 2),
                                 (const char *)out->p + start + 2, c->reason);
                    } else {
                        conn_err(c, "%s: the stub refused it",
                                 dbg_command_name(cmd));
                    }
                }
                if (st != DEBUG_STUB_RESP_OKAY) {
                    if (st != DEBUG_STUB_RESP_BAD_COMMAND)
                        conn_err(c, "%s: %s", dbg_command_name(cmd),
                                 dbg_status_name(st));
                    out->len = 0;
                }
                return st;
            }
        }
        conn_err(c, "%s: %s: %s", c->path, dbg_command_name(cmd),
                 r == -2 ? "no reply (timed out)"
                         : "connection closed by the debuggee");
        dbg_close(c);
        return -1;
    }
}

int dbg_request_ok(dbg_conn *c, uint32_t cmd, const dbg_buf *body, dbg_buf *out)
{
    int st = dbg_request(c, cmd, body, out);
    return st == DEBUG_STUB_RESP_OKAY ? 0 : -1;
}

/* ---- simple requests -------------------------------------------------- */

/* The first request of a connection. The stub answers it at once from its
 * own thread, paused or not, unless it is serving another client: it serves
 * one at a time, and a second one's connection waits in the listen queue
 * for as long as the first stays. So a short wait, and a reply that says
 * so. */
#define DBG_VERSION_TIMEOUT_MS 5000

int dbg_version(dbg_conn *c, uint32_t *version, int *profiling)
{
    dbg_buf out = {0};
    int saved = c->timeout_ms;
    if (c->timeout_ms > DBG_VERSION_TIMEOUT_MS)
        c->timeout_ms = DBG_VERSION_TIMEOUT_MS;
    int r = dbg_request_ok(c, DEBUG_STUB_CMD_VERSION, NULL, &out);
    c->timeout_ms = saved;
    if (r != 0 && strstr(c->err, "timed out"))
        conn_err(c,
                 "%s: no reply in %d s: another debugger (rtscope explore, "
                 "rtscope debug, a ghc-debug client) is probably connected to "
                 "it; the stub serves one at a time",
                 c->path[0] ? c->path : "the debuggee",
                 DBG_VERSION_TIMEOUT_MS / 1000);
    if (r == 0 && out.len < 4) {
        conn_err(c, "VERSION: short reply");
        r = -1;
    }
    if (r == 0)
        *version = dbg_rd32(out.p);
    if (r == 0 && profiling)
        *profiling = out.len >= 9 ? ((const unsigned char *)out.p)[8] : -1;
    dbg_buf_free(&out);
    return r;
}

int dbg_pause(dbg_conn *c, enum dbg_pause_mode mode, int *was_paused)
{
    dbg_buf b = {0}, out = {0};
    /* PAUSE_AFTER_GC's byte: start the GC; PAUSE's: 1 for fork mode */
    dbg_buf_put8(&b, mode == DBG_PAUSE_NOW ? 0 : 1);
    int st =
        dbg_request(c,
                    mode == DBG_PAUSE_AFTER_GC ? DEBUG_STUB_CMD_PAUSE_AFTER_GC
                                               : DEBUG_STUB_CMD_PAUSE,
                    &b, &out);
    dbg_buf_free(&b);
    dbg_buf_free(&out);
    if (was_paused)
        *was_paused = st == DEBUG_STUB_RESP_ALREADY_PAUSED;
    return st == DEBUG_STUB_RESP_OKAY || st == DEBUG_STUB_RESP_ALREADY_PAUSED
               ? 0
               : -1;
}

int dbg_pause_census(dbg_conn *c, uint64_t *when_ns, uint64_t **skipped,
                     size_t *nskipped)
{
    dbg_buf out = {0};
    *skipped = NULL;
    *nskipped = 0;
    int r = dbg_request_ok(c, DEBUG_STUB_CMD_PAUSE_AFTER_CENSUS, NULL, &out);
    if (r == 0 && (out.len < 8 || (out.len - 8) % 8 != 0)) {
        conn_err(c, "PAUSE_AFTER_CENSUS: reply of %zu bytes", out.len);
        r = -1;
    }
    if (r == 0) {
        *when_ns = (uint64_t)dbg_rd32(out.p) << 32 | dbg_rd32(out.p + 4);
        size_t n = (out.len - 8) / 8;
        *skipped = malloc((n + 1) * sizeof(**skipped));
        if (!*skipped) {
            conn_err(c, "out of memory");
            r = -1;
        } else {
            for (size_t i = 0; i < n; i++)
                (*skipped)[i] = dbg_rdptr(out.p + 8 + 8 * i);
            *nskipped = n;
        }
    }
    dbg_buf_free(&out);
    return r;
}

int dbg_resume(dbg_conn *c, int *was_running)
{
    dbg_buf out = {0};
    int st = dbg_request(c, DEBUG_STUB_CMD_RESUME, NULL, &out);
    dbg_buf_free(&out);
    if (was_running)
        *was_running = st == DEBUG_STUB_RESP_NOT_PAUSED;
    return st == DEBUG_STUB_RESP_OKAY || st == DEBUG_STUB_RESP_NOT_PAUSED ? 0
                                                                          : -1;
}

int dbg_stay_paused(dbg_conn *c, int on)
{
    dbg_buf b = {0}, out = {0};
    dbg_buf_put8(&b, on ? 1 : 0);
    int r = dbg_request_ok(c, DEBUG_STUB_CMD_STAY_PAUSED, &b, &out);
    dbg_buf_free(&b);
    dbg_buf_free(&out);
    return r;
}

int dbg_ptr_list(dbg_conn *c, uint32_t cmd, uint64_t **outp, size_t *n)
{
    dbg_buf out = {0};
    *outp = NULL;
    *n = 0;
    if (dbg_request_ok(c, cmd, NULL, &out) != 0) {
        dbg_buf_free(&out);
        return -1;
    }
    size_t k = out.len / 8;
    uint64_t *v = malloc((k ? k : 1) * sizeof(*v));
    if (!v) {
        dbg_buf_free(&out);
        conn_err(c, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < k; i++)
        v[i] = dbg_rdptr(out.p + 8 * i);
    dbg_buf_free(&out);
    *outp = v;
    *n = k;
    return 0;
}

int dbg_conn_peer(const dbg_conn *c, uint64_t *pid, char *prog, size_t n)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (c->fd < 0 || n == 0 ||
        getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        cred.pid <= 0)
        return -1;
    char path[64], argv0[4096];
    snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)cred.pid);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t got = fread(argv0, 1, sizeof(argv0) - 1, f);
    fclose(f);
    argv0[got] = '\0'; /* argv[0] ends at its NUL */
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    if (!*base)
        return -1;
    *pid = (uint64_t)cred.pid;
    snprintf(prog, n, "%s", base);
    return 0;
}

char *dbg_take_string(const unsigned char *p, size_t avail, size_t *used)
{
    if (avail < 4)
        return NULL;
    uint32_t l = dbg_rd32(p);
    if (l > avail - 4)
        return NULL;
    /* the program's own text: See rtscope/base/safestr.h */
    char *s = rt_str_escape_ctl(p + 4, l);
    if (!s)
        return NULL;
    *used = 4 + (size_t)l;
    return s;
}

int dbg_con_descr(dbg_conn *c, uint64_t info, char **outs)
{
    dbg_buf b = {0}, out = {0};
    dbg_buf_putptr(&b, info);
    int r = dbg_request_ok(c, DEBUG_STUB_CMD_CON_DESCR, &b, &out);
    *outs = NULL;
    if (r == 0) {
        size_t used;
        *outs = dbg_take_string(out.p, out.len, &used);
        if (!*outs) {
            conn_err(c, "CON_DESCR: malformed reply");
            r = -1;
        }
    }
    dbg_buf_free(&b);
    dbg_buf_free(&out);
    return r;
}

void dbg_source_info_free(char *fields[6])
{
    for (int i = 0; i < DBG_SOURCE_FIELDS; i++) {
        free(fields[i]);
        fields[i] = NULL;
    }
}

int dbg_source_info(dbg_conn *c, uint64_t info, char *fields[6], int *nfields)
{
    dbg_buf b = {0}, out = {0};
    dbg_buf_putptr(&b, info);
    for (int i = 0; i < DBG_SOURCE_FIELDS; i++)
        fields[i] = NULL;
    *nfields = 0;
    int r = dbg_request_ok(c, DEBUG_STUB_CMD_SOURCE_INFO, &b, &out);
    if (r == 0) {
        if (out.len < 4) {
            r = -1;
        } else {
            uint32_t n = dbg_rd32(out.p);
            size_t off = 4;
            if (n != 0 && n != DBG_SOURCE_FIELDS)
                r = -1;
            for (uint32_t i = 0; r == 0 && i < n; i++) {
                size_t used = 0;
                fields[i] = dbg_take_string(out.p + off, out.len - off, &used);
                if (!fields[i])
                    r = -1;
                off += used;
            }
            if (r == 0)
                *nfields = (int)n;
        }
        if (r != 0) {
            dbg_source_info_free(fields);
            conn_err(c, "SOURCE_INFO: malformed reply");
        }
    }
    dbg_buf_free(&b);
    dbg_buf_free(&out);
    return r;
}
