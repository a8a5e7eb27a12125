/* libcurl and libmicrohttpd for `rtscope export` and `rtscope serve`, loaded
 * when first called.
 *
 * Note [Libraries loaded on demand]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Only `export` and `serve` speak HTTP (libmicrohttpd serves /metrics and
 * the live report, libcurl pushes to InfluxDB), but linked into rtscope the two
 * libraries bring 30 more (TLS, Kerberos, LDAP, IDN, ...) that the dynamic
 * loader maps and relocates before main runs, in every command: 3.6 ms of CPU a
 * run, the time `cat` takes to read a 20 MB eventlog. So rtscope is not linked
 * with them. This file defines the functions rtscope calls, with the libraries'
 * own names and prototypes (their headers are included, so the compiler
 * checks them): the first call opens the library with dlopen, by the
 * soname of the library the build compiled against (the Makefile reads it
 * from the -dev package's lib*.so), and each function is looked up once.
 * Callers (lib/out/influx.c, src/httpd.c, src/cmd/export*.c and serve*.c)
 * are unchanged; the unit tests link the libraries themselves.
 *
 * If a library cannot be loaded, the first call says why on stderr and
 * every function fails as the library's own would without resources:
 * initialisers return an error or NULL, cleanups do nothing; `export`
 * then reports that it could not start. The variadic functions are
 * forwarded with the argument type their documentation gives:
 * curl_easy_setopt's by the option's type range (CURLOPTTYPE_*),
 * curl_easy_getinfo's by the info's type (CURLINFO_TYPEMASK),
 * MHD_start_daemon's options through MHD_start_daemon_va, and
 * MHD_get_daemon_info takes no argument after the two for the info types
 * export and serve ask for. rtscope calls them from one thread.
 */
#define _POSIX_C_SOURCE 200809L
#define CURL_DISABLE_TYPECHECK /* plain prototypes, not the checking macros */
#include <curl/curl.h>
#include <microhttpd.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#ifndef RTSCOPE_CURL_SONAME
#define RTSCOPE_CURL_SONAME "libcurl.so.4"
#endif
#ifndef RTSCOPE_MHD_SONAME
#define RTSCOPE_MHD_SONAME "libmicrohttpd.so.12"
#endif

typedef struct lazy_lib {
    const char *soname;
    void *handle;
    int failed; /* dlopen failed (said once) */
} lazy_lib;

static lazy_lib lazy_curl = {RTSCOPE_CURL_SONAME, NULL, 0};
static lazy_lib lazy_mhd = {RTSCOPE_MHD_SONAME, NULL, 0};

/* The address of `name` in lib, opening it first; NULL (said on stderr
 * once) if the library or the function is missing. */
static void *lazy_sym(lazy_lib *lib, const char *name)
{
    if (!lib->handle && !lib->failed) {
        lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
        if (!lib->handle) {
            lib->failed = 1;
            fprintf(stderr, "rtscope: cannot load %s: %s\n", lib->soname,
                    dlerror());
        }
    }
    if (!lib->handle)
        return NULL;
    void *p = dlsym(lib->handle, name);
    if (!p)
        fprintf(stderr, "rtscope: %s: no %s\n", lib->soname, name);
    return p;
}

/* `fn`: the library's function `name`, looked up on the first call (NULL
 * if it could not be), typed as the library's header declares it
 * (__typeof__, which GCC and Clang have in C11 too). */
#define LAZY_FN(lib, name)                                                     \
    static __typeof__(&(name)) fn;                                             \
    static int looked;                                                         \
    if (!looked) {                                                             \
        looked = 1;                                                            \
        fn = (__typeof__(&(name)))lazy_sym(&(lib), #name);                     \
    }

/* ---- libcurl ------------------------------------------------------------ */

CURLcode curl_global_init(long flags)
{
    LAZY_FN(lazy_curl, curl_global_init);
    return fn ? fn(flags) : CURLE_FAILED_INIT;
}

void curl_global_cleanup(void)
{
    LAZY_FN(lazy_curl, curl_global_cleanup);
    if (fn)
        fn();
}

CURL *curl_easy_init(void)
{
    LAZY_FN(lazy_curl, curl_easy_init);
    return fn ? fn() : NULL;
}

void curl_easy_cleanup(CURL *h)
{
    LAZY_FN(lazy_curl, curl_easy_cleanup);
    if (fn)
        fn(h);
}

void curl_easy_reset(CURL *h)
{
    LAZY_FN(lazy_curl, curl_easy_reset);
    if (fn)
        fn(h);
}

/* clang-tidy: the branches differ in the argument's type, which matters
 * where long, curl_off_t and the pointers are not passed alike; and
 * va_start comes before every va_arg (the analyzer loses it here). */
// NOLINTBEGIN(bugprone-branch-clone, clang-analyzer-valist.Uninitialized)
CURLcode curl_easy_setopt(CURL *h, CURLoption option, ...)
{
    LAZY_FN(lazy_curl, curl_easy_setopt);
    if (!fn)
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, option);
    CURLcode rc;
    if (option < CURLOPTTYPE_OBJECTPOINT)
        rc = fn(h, option, va_arg(ap, long));
    else if (option < CURLOPTTYPE_FUNCTIONPOINT)
        rc = fn(h, option, va_arg(ap, void *));
    else if (option < CURLOPTTYPE_OFF_T)
        rc = fn(h, option, va_arg(ap, void (*)(void)));
    else if (option < CURLOPTTYPE_BLOB)
        rc = fn(h, option, va_arg(ap, curl_off_t));
    else
        rc = fn(h, option, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
    LAZY_FN(lazy_curl, curl_easy_getinfo);
    if (!fn)
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    CURLcode rc;
    switch (info & CURLINFO_TYPEMASK) {
    case CURLINFO_LONG:
        rc = fn(h, info, va_arg(ap, long *));
        break;
    case CURLINFO_DOUBLE:
        rc = fn(h, info, va_arg(ap, double *));
        break;
    case CURLINFO_OFF_T:
        rc = fn(h, info, va_arg(ap, curl_off_t *));
        break;
    case CURLINFO_STRING:
        rc = fn(h, info, va_arg(ap, char **));
        break;
    default: /* CURLINFO_SLIST, CURLINFO_PTR, CURLINFO_SOCKET: pointers */
        rc = fn(h, info, va_arg(ap, void *));
        break;
    }
    va_end(ap);
    return rc;
}

// NOLINTEND(bugprone-branch-clone, clang-analyzer-valist.Uninitialized)

const char *curl_easy_strerror(CURLcode code)
{
    LAZY_FN(lazy_curl, curl_easy_strerror);
    return fn ? fn(code) : "libcurl could not be loaded";
}

char *curl_easy_escape(CURL *h, const char *s, int length)
{
    LAZY_FN(lazy_curl, curl_easy_escape);
    return fn ? fn(h, s, length) : NULL;
}

void curl_free(void *p)
{
    LAZY_FN(lazy_curl, curl_free);
    if (fn)
        fn(p);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *s)
{
    LAZY_FN(lazy_curl, curl_slist_append);
    return fn ? fn(list, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *list)
{
    LAZY_FN(lazy_curl, curl_slist_free_all);
    if (fn)
        fn(list);
}

CURLM *curl_multi_init(void)
{
    LAZY_FN(lazy_curl, curl_multi_init);
    return fn ? fn() : NULL;
}

CURLMcode curl_multi_cleanup(CURLM *m)
{
    LAZY_FN(lazy_curl, curl_multi_cleanup);
    return fn ? fn(m) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_add_handle(CURLM *m, CURL *h)
{
    LAZY_FN(lazy_curl, curl_multi_add_handle);
    return fn ? fn(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h)
{
    LAZY_FN(lazy_curl, curl_multi_remove_handle);
    return fn ? fn(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_perform(CURLM *m, int *running)
{
    LAZY_FN(lazy_curl, curl_multi_perform);
    return fn ? fn(m, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd extra[],
                          unsigned int nextra, int timeout_ms, int *numfds)
{
    LAZY_FN(lazy_curl, curl_multi_poll);
    return fn ? fn(m, extra, nextra, timeout_ms, numfds) : CURLM_INTERNAL_ERROR;
}

CURLMsg *curl_multi_info_read(CURLM *m, int *left)
{
    LAZY_FN(lazy_curl, curl_multi_info_read);
    return fn ? fn(m, left) : NULL;
}

/* ---- libmicrohttpd ------------------------------------------------------ */

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port,
                                    MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls,
                                    ...)
{
    LAZY_FN(lazy_mhd, MHD_start_daemon_va);
    if (!fn)
        return NULL;
    va_list ap;
    va_start(ap, dh_cls);
    struct MHD_Daemon *d = fn(flags, port, apc, apc_cls, dh, dh_cls, ap);
    va_end(ap);
    return d;
}

void MHD_stop_daemon(struct MHD_Daemon *d)
{
    LAZY_FN(lazy_mhd, MHD_stop_daemon);
    if (fn)
        fn(d);
}

enum MHD_Result MHD_run(struct MHD_Daemon *d)
{
    LAZY_FN(lazy_mhd, MHD_run);
    return fn ? fn(d) : MHD_NO;
}

enum MHD_Result MHD_get_timeout(struct MHD_Daemon *d,
                                MHD_UNSIGNED_LONG_LONG *timeout)
{
    LAZY_FN(lazy_mhd, MHD_get_timeout);
    return fn ? fn(d, timeout) : MHD_NO;
}

const union MHD_DaemonInfo *
MHD_get_daemon_info(struct MHD_Daemon *d, enum MHD_DaemonInfoType type, ...)
{
    LAZY_FN(lazy_mhd, MHD_get_daemon_info);
    return fn ? fn(d, type) : NULL;
}

const char *MHD_lookup_connection_value(struct MHD_Connection *c,
                                        enum MHD_ValueKind kind,
                                        const char *key)
{
    LAZY_FN(lazy_mhd, MHD_lookup_connection_value);
    return fn ? fn(c, kind, key) : NULL;
}

struct MHD_Response *
MHD_create_response_from_buffer(size_t size, void *buffer,
                                enum MHD_ResponseMemoryMode mode)
{
    LAZY_FN(lazy_mhd, MHD_create_response_from_buffer);
    return fn ? fn(size, buffer, mode) : NULL;
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *r,
                                        const char *header, const char *content)
{
    LAZY_FN(lazy_mhd, MHD_add_response_header);
    return fn ? fn(r, header, content) : MHD_NO;
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *c,
                                   unsigned int status, struct MHD_Response *r)
{
    LAZY_FN(lazy_mhd, MHD_queue_response);
    return fn ? fn(c, status, r) : MHD_NO;
}

struct MHD_Response *
MHD_create_response_from_callback(uint64_t size, size_t block_size,
                                  MHD_ContentReaderCallback crc, void *crc_cls,
                                  MHD_ContentReaderFreeCallback crfc)
{
    LAZY_FN(lazy_mhd, MHD_create_response_from_callback);
    return fn ? fn(size, block_size, crc, crc_cls, crfc) : NULL;
}

void MHD_suspend_connection(struct MHD_Connection *c)
{
    LAZY_FN(lazy_mhd, MHD_suspend_connection);
    if (fn)
        fn(c);
}

void MHD_resume_connection(struct MHD_Connection *c)
{
    LAZY_FN(lazy_mhd, MHD_resume_connection);
    if (fn)
        fn(c);
}

void MHD_destroy_response(struct MHD_Response *r)
{
    LAZY_FN(lazy_mhd, MHD_destroy_response);
    if (fn)
        fn(r);
}
