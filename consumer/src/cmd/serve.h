/* rtscope serve's parts (internal to src/cmd/): serve.c (options, the poll
 * loop, one heap profile per followed program), serve_http.c (the pages,
 * their data and the server-sent events that keep them current). */
#ifndef RTSCOPE_CMD_SERVE_H
#define RTSCOPE_CMD_SERVE_H

#include "httpd.h"
#include "rtscope/model/profile.h"
#include "rtscope/out/report.h"
#include "target.h"

#include <stddef.h>
#include <stdint.h>

typedef struct serve serve;
typedef struct serve_client serve_client;

/* One followed program: the profile the page shows, and its versions. */
typedef struct serve_target {
    serve *sv;
    size_t id;
    target *t;
    profile *p;           /* every run of the target on one timeline */
    samples *sm;          /* the sampled call stacks of every run (never
                             finished: report_samples reads it as is) */
    int64_t offset_ns;    /* the current run's time 0 on that timeline */
    int64_t run_ended_ms; /* when the last run ended (monotonic), or 0 */
    uint64_t runs;        /* runs seen */
    uint64_t seq;         /* version of the data (0: none published) */
    int dirty;            /* changed since version seq */
    int64_t published_ms; /* when seq was published */
    char *json;           /* data.json of version json_seq (owned) */
    size_t json_len;
    uint64_t json_seq;
    uint64_t status_seq; /* of t->status, as printed */
} serve_target;

/* A page listening to a target's events (GET /t/N/events). */
struct serve_client {
    serve *sv;
    size_t target;
    struct MHD_Connection *conn;
    uint64_t sent_seq; /* version last announced, or UINT64_MAX: none */
    int suspended;     /* waiting for news (MHD_suspend_connection) */
    int64_t wrote_ms;  /* when the last line went out */
    serve_client *next, *prev;
};

struct serve {
    serve_target **tg; /* each stays where it is: callbacks hold it */
    size_t n, cap;
    target_opts topts; /* for each target, also those added later */
    int follow_home;   /* no TARGET: every program in the per-user
                          directory, rescanned every second */
    int64_t scan_ms;   /* when it was last scanned */
    struct MHD_Daemon *httpd;
    serve_client *clients; /* a list, newest first */
    size_t nclients;
    profile_opts popts;
    report_opts ropts;
    int64_t update_ms; /* least time between two versions of a target */
    int quiet;
    uint64_t refused;        /* event streams refused (SERVE_MAX_STREAMS) */
    uint64_t refused_said;   /* of them, reported on stderr */
    int64_t refused_said_ms; /* when last reported */
};

/* Note [Many viewers]: every open live page holds one event stream for as
 * long as it is open, so they are bounded: past SERVE_MAX_STREAMS a page
 * is answered 503 at once (and polls data.json instead), and a line on
 * stderr says so, at most every 10 s. Connections are bounded well above
 * that (a browser opens a few per host for its other requests), so plain
 * requests always find a slot; an idle connection is closed after 30 s. */
#define SERVE_MAX_STREAMS 32
#define SERVE_MAX_CONNECTIONS 256

/* Keep-alive comment to idle event streams this often (it is also how a
 * closed page is noticed: a suspended connection is not watched). */
#define SERVE_KEEPALIVE_MS 10000

enum MHD_Result serve_http(void *cls, struct MHD_Connection *c, const char *url,
                           const char *method, const char *version,
                           const char *upload_data, size_t *upload_data_size,
                           void **con_cls);

/* Resume the event streams that have something to say at `now` (a new
 * version, or a keep-alive due); `all`: every one (before stopping). */
void serve_wake(serve *sv, int64_t now, int all);

/* The data (report JSON with its "live" member) of target st as of now
 * (a target changed since its version is given a new one: a page that
 * asks gets what has arrived, the rate limit is for announcements),
 * cached per version; NULL when out of memory. */
const char *serve_data(serve_target *st, size_t *len);

#endif
