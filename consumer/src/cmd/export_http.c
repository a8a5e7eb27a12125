/* rtscope export: GET /metrics and POST /control/... (libmicrohttpd, run
 * from the export loop: Note [One thread, one poll] in export.c). */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include "cli.h"
#include "httpd.h"
#include "rtscope/base/procmem.h"
#include "rtscope/out/prom.h"

#include <curl/curl.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---------------------------------------------------------------------- */
/* HTTP: /metrics and /control/...                                         */

/* The targets as the exposition sees them (prom_source). */
static void export_write_targets(exporter *ex, FILE *f)
{
    prom_source *v = calloc(ex->ntargets + 1, sizeof(*v));
    if (!v)
        return;
    for (size_t i = 0; i < ex->ntargets; i++) {
        const target *t = ex->targets[i];
        v[i] = (prom_source){
            .spec = t->spec,
            .m = t->m,
            .ended = t->ended,
            .receiving = t->state == TARGET_STREAMING,
            .connects = t->connects,
            .failures = t->failures,
            .runs = t->runs,
            .read_bytes = t->bytes,
        };
    }
    prom_write_sources(f, v, ex->ntargets);
    free(v);
}

static void export_write_self(exporter *ex, FILE *f)
{
    struct rusage ru;
    long long rss = rt_resident_bytes();
    prom_write_family(f, "process_resident_memory_bytes", "gauge",
                      "Resident memory of the exporter.");
    fprintf(f, "process_resident_memory_bytes %lld\n", rss > 0 ? rss : 0);
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        prom_write_family(f, "process_cpu_seconds_total", "counter",
                          "CPU time of the exporter.");
        fprintf(f, "process_cpu_seconds_total %.6f\n",
                (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    }
    prom_write_family(f, "rtscope_scrapes_total", "counter",
                      "Requests for /metrics served.");
    fprintf(f, "rtscope_scrapes_total %llu\n", (unsigned long long)ex->scrapes);
    if (!ex->ix)
        return;
    influx_stats st;
    influx_get_stats(ex->ix, &st);
    static const struct {
        const char *name, *type, *help;
    } fam[] = {
        {"rtscope_influx_queue_bytes", "gauge",
         "Line-protocol bytes waiting to be written to InfluxDB."},
        {"rtscope_influx_queue_points", "gauge",
         "Points waiting to be written to InfluxDB."},
        {"rtscope_influx_queue_max_bytes", "gauge",
         "Bound of the InfluxDB queue (--influx-queue)."},
        {"rtscope_influx_sent_points_total", "counter",
         "Points InfluxDB accepted."},
        {"rtscope_influx_dropped_points_total", "counter",
         "Points dropped: queue full during an outage, or rejected by "
         "InfluxDB."},
        {"rtscope_influx_failed_requests_total", "counter",
         "Write requests that failed and were retried."},
    };
    const uint64_t v[] = {st.queued_bytes,   st.queued_points,
                          st.queue_max,      st.sent_points,
                          st.dropped_points, st.failed_requests};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        prom_write_family(f, fam[i].name, fam[i].type, fam[i].help);
        fprintf(f, "%s %llu\n", fam[i].name, (unsigned long long)v[i]);
    }
}

static enum MHD_Result export_control(exporter *ex, struct MHD_Connection *c,
                                      const char *what)
{
    enum target_command cmd;
    if (target_command_parse(what, &cmd) != 0)
        return httpd_text(c, MHD_HTTP_NOT_FOUND,
                          "unknown control: use /control/request-heap-"
                          "census, /control/start-heap-profiling, "
                          "/control/stop-heap-profiling or "
                          "/control/heap-snapshot\n");
    const char *pid =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pid");
    const char *prog =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "program");
    const char *tspec =
        MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "target");
    char *body = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&body, &len);
    if (!f)
        return MHD_NO;
    unsigned sent = 0, failed = 0;
    ex->control_requests++;
    for (size_t i = 0; i < ex->ntargets; i++) {
        target *t = ex->targets[i];
        const metrics *m = t->m;
        if (!m || t->ended)
            continue;
        if (pid && (!m->have_pid || strtoul(pid, NULL, 10) != m->pid))
            continue;
        if (prog && strcmp(prog, m->program) != 0)
            continue;
        if (tspec && strcmp(tspec, t->spec) != 0)
            continue;
        int ok = target_send(t, cmd) == 0;
        fprintf(f, "%s: %s (pid %lu, %s): %s\n", target_command_name(cmd),
                m->program, (unsigned long)m->pid, t->spec,
                ok ? "sent" : t->status);
        if (ok)
            sent++;
        else
            failed++;
    }
    if (!sent && !failed)
        fprintf(f, "%s: no connected program matches\n",
                target_command_name(cmd));
    if (fclose(f) != 0) {
        free(body);
        return MHD_NO;
    }
    unsigned status = sent     ? MHD_HTTP_OK
                      : failed ? MHD_HTTP_BAD_GATEWAY
                               : MHD_HTTP_NOT_FOUND;
    return httpd_respond(c, status, "text/plain; charset=utf-8", body, len);
}

enum MHD_Result export_http(void *cls, struct MHD_Connection *c,
                            const char *url, const char *method,
                            const char *version, const char *upload_data,
                            size_t *upload_data_size, void **con_cls)
{
    exporter *ex = cls;
    int get, post;
    enum MHD_Result refused;
    (void)upload_data;
    if (httpd_request_begin(con_cls, upload_data_size, method, &get, &post))
        return MHD_YES;
    if (httpd_request_refused(c, method, version, &url, &refused))
        return refused;
    if (strncmp(url, "/control/", 9) == 0) {
        if (!post)
            return httpd_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                              "control requests are POST requests\n");
        return export_control(ex, c, url + 9);
    }
    if (strcmp(url, "/metrics") == 0) {
        if (!get)
            return httpd_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                              "/metrics: use GET\n");
        char *body = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&body, &len);
        if (!f)
            return MHD_NO;
        ex->scrapes++;
        export_write_targets(ex, f);
        export_write_self(ex, f);
        if (fclose(f) != 0) {
            free(body);
            return MHD_NO;
        }
        return httpd_respond(c, MHD_HTTP_OK, PROM_CONTENT_TYPE, body, len);
    }
    if (strcmp(url, "/") == 0 && get)
        return httpd_text(c, MHD_HTTP_OK,
                          "rtscope export\n\nGET  /metrics\n"
                          "POST /control/request-heap-census[?pid=N|"
                          "program=NAME|target=SPEC]\n"
                          "POST /control/start-heap-profiling\n"
                          "POST /control/stop-heap-profiling\n");
    return httpd_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
}
