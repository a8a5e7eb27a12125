/* What rtscope's two HTTP servers share (export's /metrics and serve's
 * pages): the listening address, starting libmicrohttpd in external-select
 * epoll mode (run from the command's own poll loop), and responses. */
#ifndef RTSCOPE_HTTPD_H
#define RTSCOPE_HTTPD_H

#include <microhttpd.h>
#include <stddef.h>
#include <sys/socket.h>

/* Parse HOST:PORT, :PORT, PORT or [V6]:PORT (HOST defaults to 127.0.0.1)
 * into *ss. Returns 0, or -1 with the reason in why. */
int httpd_listen_addr(const char *spec, struct sockaddr_storage *ss, char *why,
                      size_t why_len);

/* Serve on spec ([HOST:]PORT) with handler h(cls, ...), at most
 * max_conns connections at once (an idle one is closed after 30 s);
 * extra_flags are added to MHD_USE_EPOLL. Returns the daemon, or NULL with
 * the reason in why: *usage is set if the address itself is bad (else the
 * port could not be had). */
struct MHD_Daemon *httpd_start(const char *spec, unsigned extra_flags,
                               unsigned max_conns, MHD_AccessHandlerCallback h,
                               void *cls, char *why, size_t why_len,
                               int *usage);

/* The start of an access handler: 1 when this call only begins the request
 * or brings its body (ignored), and the handler returns MHD_YES at once;
 * else 0, with *get (GET or HEAD) and *post set from the method. */
int httpd_request_begin(void **con_cls, size_t *upload_data_size,
                        const char *method, int *get, int *post);

/* What neither handler serves, answered here (Note [Requests the handlers
 * never see] in httpd.c): a method that is not a token (400) or not GET,
 * HEAD or POST (501), a request target that is not a path (400; the
 * absolute form http://HOST/PATH is taken as PATH), an HTTP/1.1 request
 * without Host (400). 1 when answered, with the result in *ret; else 0,
 * with *url the path to route. */
int httpd_request_refused(struct MHD_Connection *c, const char *method,
                          const char *version, const char **url,
                          enum MHD_Result *ret);

/* The port the daemon listens on (port 0 asks the system for one). */
unsigned httpd_port(struct MHD_Daemon *d);

/* The daemon's epoll descriptor, for the caller's poll, or -1. */
int httpd_fd(struct MHD_Daemon *d);

/* Queue a response of body[0..len) (malloc'd; freed by this call in every
 * case) with this status and Content-Type. */
enum MHD_Result httpd_respond(struct MHD_Connection *c, unsigned status,
                              const char *type, char *body, size_t len);

/* The same with a text/plain body copied from text. */
enum MHD_Result httpd_text(struct MHD_Connection *c, unsigned status,
                           const char *text);

#endif
