/* rtscope export's parts (internal to src/cmd/): export.c (options, the
 * poll loop, status lines), export_points.c (InfluxDB points of a followed
 * run), export_http.c (/metrics and /control/... over libmicrohttpd). */
#ifndef RTSCOPE_CMD_EXPORT_H
#define RTSCOPE_CMD_EXPORT_H

#include "rtscope/out/influx.h"
#include "target.h"

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct exporter exporter;

/* Per-target InfluxDB bookkeeping: what was last written for the run. */
typedef struct export_follow {
    exporter *ex;
    target *t;
    uint64_t last_rts_ts; /* program time of the last ghc_rts point */
    int rts_written;
    int rts_dirty;
    uint64_t last_sample_ts; /* program time of the last census sent */
    int sample_written;
    uint64_t status_seq;
    char printed[256]; /* the last status line printed */
    int printed_error;
    /* kinds of line printed lately (digits ignored), so that a target
     * failing or restarting in a loop prints each kind once a minute */
    uint64_t recent_kind[4];
    int64_t recent_at[4];
} export_follow;

struct exporter {
    export_follow *follow;
    target **targets;
    size_t ntargets;
    influx *ix;
    uint64_t ix_status_seq;
    struct MHD_Daemon *httpd;
    uint64_t interval_ns; /* ghc_rts points at most this often */
    int64_t forget_ms;
    int quiet;
    uint64_t scrapes, control_requests;
    char line[8192];
};

void export_rts_point(export_follow *fl, uint64_t ts);
void export_on_event(void *ctx, target *t, const el_event *ev,
                     unsigned changed);
enum MHD_Result export_http(void *cls, struct MHD_Connection *c,
                            const char *url, const char *method,
                            const char *version, const char *upload_data,
                            size_t *upload_data_size, void **con_cls);

#endif
