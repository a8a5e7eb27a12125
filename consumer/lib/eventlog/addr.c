/* Addresses of eventlog sources: the one grammar every command reads.
 *
 *     -               standard input
 *     unix:PATH       a Unix socket (a program's --eventlog-socket)
 *     tcp:HOST:PORT   a TCP socket; tcp:[V6]:PORT; tcp:PORT is 127.0.0.1
 *     PATH            a Unix socket if PATH is one now, else a file
 *
 * HOST:PORT on its own (el_hostport_parse) is the same grammar without the
 * prefix, for listening addresses (`export --prometheus`).
 */
#include "rtscope/eventlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

static el_status addr_fail(el_error *err, const char *spec, const char *what)
{
    err->status = EL_ERR_USAGE;
    err->offset = 0;
    snprintf(err->msg, sizeof(err->msg), "%s, got '%.120s'", what, spec);
    return EL_ERR_USAGE;
}

el_status el_hostport_parse(const char *s, const char *default_host,
                            el_hostport *out, el_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *port = s, *host = NULL;
    size_t hl = 0;
    const char *colon = strrchr(s, ':');
    const char *close = strchr(s, ']');
    if (s[0] == '[' && (!close || (colon && colon < close)))
        colon = NULL; /* [V6] without a port, or an unclosed bracket */
    if (colon) {
        host = s;
        hl = (size_t)(colon - s);
        port = colon + 1;
        if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
            host++;
            hl -= 2;
        }
    }
    char *end;
    long pn = strtol(port, &end, 10);
    if (!*port || *end || pn < 0 || pn > 65535 || port[0] == '-' ||
        port[0] == '+' || (s[0] == '[' && !colon))
        return addr_fail(err, s, "expected [HOST:]PORT");
    if (hl >= sizeof(out->host))
        return addr_fail(err, s, "host name too long");
    if (hl) {
        memcpy(out->host, host, hl);
        out->host[hl] = 0;
    } else {
        if (colon && hl == 0 && !default_host)
            return addr_fail(err, s, "expected HOST:PORT");
        snprintf(out->host, sizeof(out->host), "%s",
                 default_host ? default_host : "127.0.0.1");
    }
    snprintf(out->port, sizeof(out->port), "%ld", pn);
    return EL_OK;
}

el_status el_addr_parse(const char *spec, el_addr *out, el_error *err)
{
    memset(out, 0, sizeof(*out));
    memset(err, 0, sizeof(*err));
    if (strcmp(spec, "-") == 0) {
        out->kind = EL_ADDR_STDIN;
        return EL_OK;
    }
    if (strncmp(spec, "tcp:", 4) == 0) {
        out->kind = EL_ADDR_TCP;
        el_status st = el_hostport_parse(spec + 4, "127.0.0.1", &out->tcp, err);
        if (st != EL_OK)
            return addr_fail(err, spec, "expected tcp:HOST:PORT or tcp:PORT");
        if (strcmp(out->tcp.port, "0") == 0)
            return addr_fail(err, spec, "port 0 cannot be connected to");
        return EL_OK;
    }
    const char *path = spec;
    int is_unix = strncmp(spec, "unix:", 5) == 0;
    if (is_unix)
        path = spec + 5;
    if (!*path)
        return addr_fail(err, spec, "expected a path");
    if (strlen(path) >= sizeof(out->path))
        return addr_fail(err, spec, "path too long");
    memcpy(out->path, path, strlen(path) + 1);
    struct stat st;
    if (!is_unix && stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        is_unix = 1;
    if (is_unix) {
        struct sockaddr_un sa;
        if (strlen(path) >= sizeof(sa.sun_path))
            return addr_fail(err, spec,
                             "a Unix socket path has at most 107 bytes");
        out->kind = EL_ADDR_UNIX;
    } else {
        out->kind = EL_ADDR_FILE;
    }
    return EL_OK;
}
