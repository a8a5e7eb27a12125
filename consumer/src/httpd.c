/* See httpd.h. */
#define _POSIX_C_SOURCE 200809L
#include "httpd.h"

#include "rtscope/eventlog.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int httpd_listen_addr(const char *spec, struct sockaddr_storage *ss, char *why,
                      size_t why_len)
{
    el_hostport hp;
    el_error err;
    if (el_hostport_parse(spec, "127.0.0.1", &hp, &err) != EL_OK) {
        snprintf(why, why_len, "%s", err.msg);
        return -1;
    }
    const char *host = hp.host, *port = hp.port;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g != 0) {
        snprintf(why, why_len, "cannot resolve '%s': %s", host,
                 gai_strerror(g));
        return -1;
    }
    memset(ss, 0, sizeof(*ss));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

struct MHD_Daemon *httpd_start(const char *spec, unsigned extra_flags,
                               unsigned max_conns, MHD_AccessHandlerCallback h,
                               void *cls, char *why, size_t why_len, int *usage)
{
    struct sockaddr_storage ss;
    *usage = 0;
    if (httpd_listen_addr(spec, &ss, why, why_len) != 0) {
        *usage = 1;
        return NULL;
    }
    unsigned flags = MHD_USE_EPOLL | extra_flags;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    errno = 0;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, h, cls, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
        MHD_OPTION_CONNECTION_LIMIT, max_conns, MHD_OPTION_END);
    if (!d)
        snprintf(why, why_len, "cannot serve on %s: %s (is the port in use?)",
                 spec, errno ? strerror(errno) : "libmicrohttpd failed");
    return d;
}

int httpd_request_begin(void **con_cls, size_t *upload_data_size,
                        const char *method, int *get, int *post)
{
    static int first_call_marker;
    if (!*con_cls) {
        *con_cls = &first_call_marker;
        return 1;
    }
    if (*upload_data_size) { /* a control request's body is ignored */
        *upload_data_size = 0;
        return 1;
    }
    *get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
           strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    *post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    return 0;
}

/* Note [Requests the handlers never see]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * libmicrohttpd 0.9.75 (bookworm's and trixie's) answers a request line or
 * header over its 32 KiB of connection memory with 414 or 431, a bad
 * version with 505 and a malformed header line with 400. It hands the
 * handler whatever else it can split into a method, a target and a
 * version, so the handler checks the rest: a method must be a token (RFC
 * 9110 5.6.2) and one we serve, the target a path (origin form; the
 * absolute form is accepted as servers must, RFC 9112 3.2.2), and an
 * HTTP/1.1 request must name its Host. What it cannot split (one word, or
 * no line end) it closes without an answer; a client sees the connection
 * closed. */
static int is_tchar(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
           (ch >= 'A' && ch <= 'Z') || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

int httpd_request_refused(struct MHD_Connection *c, const char *method,
                          const char *version, const char **url,
                          enum MHD_Result *ret)
{
    const char *why = NULL;
    unsigned status = MHD_HTTP_BAD_REQUEST;
    const char *m = method;
    while (*m && is_tchar((unsigned char)*m))
        m++;
    const char *u = *url;
    if (strncmp(u, "http://", 7) == 0 || strncmp(u, "https://", 8) == 0) {
        u = strchr(u + (u[4] == 's' ? 8 : 7), '/');
        if (!u)
            u = "/";
    }
    if (*m || m == method)
        why = "bad request: the method is not a token\n";
    else if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
             strcmp(method, MHD_HTTP_METHOD_HEAD) != 0 &&
             strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
        status = MHD_HTTP_NOT_IMPLEMENTED;
        why = "not implemented: rtscope serves GET, HEAD and POST\n";
    } else if (*u != '/')
        why = "bad request: the target is not a path (/...)\n";
    else if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
             !MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                          MHD_HTTP_HEADER_HOST))
        why = "bad request: an HTTP/1.1 request names its Host\n";
    if (!why) {
        *url = u;
        return 0;
    }
    *ret = httpd_text(c, status, why);
    return 1;
}

unsigned httpd_port(struct MHD_Daemon *d)
{
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return di ? (unsigned)di->port : 0u;
}

int httpd_fd(struct MHD_Daemon *d)
{
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
    return di ? di->epoll_fd : -1;
}

enum MHD_Result httpd_respond(struct MHD_Connection *c, unsigned status,
                              const char *type, char *body, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result httpd_text(struct MHD_Connection *c, unsigned status,
                           const char *text)
{
    char *b = strdup(text);
    if (!b)
        return MHD_NO;
    return httpd_respond(c, status, "text/plain; charset=utf-8", b, strlen(b));
}
