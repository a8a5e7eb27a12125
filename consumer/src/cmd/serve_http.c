/* rtscope serve's HTTP side: pages, data, events and controls (Note [A
 * live report] in serve.c). Every response is built in the loop's thread;
 * an event stream that has nothing to say is suspended, never polled. */
#define _POSIX_C_SOURCE 200809L
#include "serve.h"

#include "rtscope/out/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the data ----------------------------------------------------------- */

static const char *serve_state(const target *t)
{
    if (t->state == TARGET_STREAMING)
        return "streaming";
    return t->m && t->ended ? "ended" : "waiting";
}

static void serve_json_str(FILE *f, const char *s)
{
    report_json_str(f, s, strlen(s));
}

/* What the page shows about target st (report JSON's "live" member). */
static void serve_live_json(FILE *f, const serve_target *st)
{
    const serve *sv = st->sv;
    const target *t = st->t;
    fprintf(f, "{\"target\":%zu,\"seq\":%" PRIu64 ",\"state\":\"%s\"", st->id,
            st->seq, serve_state(t));
    fputs(",\"status\":", f);
    serve_json_str(f, t->status);
    const metrics *m = t->m;
    fprintf(f,
            ",\"runs\":%" PRIu64 ",\"dropped_bytes\":%" PRIu64
            ",\"dropped_events\":%" PRIu64 ",\"update_s\":%.3f,\"targets\":[",
            st->runs, m ? m->dropped_bytes : 0, m ? m->dropped_events : 0,
            (double)sv->update_ms / 1000.0);
    for (size_t i = 0; i < sv->n; i++) {
        const target *o = sv->tg[i]->t;
        fprintf(f, "%s{\"id\":%zu,\"spec\":", i ? "," : "", i);
        serve_json_str(f, o->spec);
        fputs(",\"program\":", f);
        serve_json_str(f, o->m ? o->m->program : "");
        if (o->m && o->m->have_pid)
            fprintf(f, ",\"pid\":%lu", (unsigned long)o->m->pid);
        else
            fputs(",\"pid\":null", f);
        fprintf(f, ",\"state\":\"%s\"}", serve_state(o));
    }
    fputs("]}", f);
}

/* Write target st's report (its JSON data, or the page around it: `live`
 * for the served page, else the static download) to a new buffer. */
static char *serve_report(serve_target *st, int html, int live, size_t *len)
{
    char *live_json = NULL, *out = NULL;
    size_t live_len = 0;
    *len = 0;
    if (profile_view(st->p) != 0)
        return NULL;
    FILE *lf = open_memstream(&live_json, &live_len);
    if (!lf)
        return NULL;
    serve_live_json(lf, st);
    if (fclose(lf) != 0) {
        free(live_json);
        return NULL;
    }
    report_opts ro = st->sv->ropts;
    ro.input = st->t->spec;
    ro.live = live ? live_json : NULL;
    ro.samples = st->sm;
    FILE *f = open_memstream(&out, len);
    int rc = -1;
    if (f) {
        rc = html ? report_write_html(f, st->p, &ro)
                  : report_write_json(f, st->p, &ro);
        if (fclose(f) != 0)
            rc = -1;
    }
    free(live_json);
    if (rc != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Asked for: a target changed since its version gets a new one now. */
static void serve_fresh(serve_target *st)
{
    if (!st->dirty)
        return;
    st->seq++;
    st->dirty = 0;
    st->published_ms = target_now_ms();
}

const char *serve_data(serve_target *st, size_t *len)
{
    serve_fresh(st);
    if (!st->json || st->json_seq != st->seq) {
        size_t n;
        char *j = serve_report(st, 0, 1, &n);
        if (!j)
            return NULL;
        free(st->json);
        st->json = j;
        st->json_len = n;
        st->json_seq = st->seq;
    }
    *len = st->json_len;
    return st->json;
}

/* ---- event streams ------------------------------------------------------ */

static void serve_client_unlink(serve_client *c)
{
    serve *sv = c->sv;
    if (c->prev)
        c->prev->next = c->next;
    else
        sv->clients = c->next;
    if (c->next)
        c->next->prev = c->prev;
    sv->nclients--;
}

static void serve_client_free(void *cls)
{
    serve_client *c = cls;
    serve_client_unlink(c);
    free(c);
}

/* libmicrohttpd asks for more of the stream: the news, a keep-alive, or
 * nothing yet (then the connection waits suspended for serve_wake). */
static ssize_t serve_client_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    serve_client *c = cls;
    serve_target *st = c->sv->tg[c->target];
    int64_t now = target_now_ms();
    int n = 0;
    (void)pos;
    if (c->sent_seq != st->seq) {
        n = snprintf(buf, max,
                     "%sevent: update\ndata: {\"seq\":%" PRIu64
                     ",\"state\":\"%s\",\"samples\":%zu}\n\n",
                     c->sent_seq == UINT64_MAX ? "retry: 1000\n" : "", st->seq,
                     serve_state(st->t), st->p->nsamples);
        c->sent_seq = st->seq;
    } else if (now - c->wrote_ms >= SERVE_KEEPALIVE_MS) {
        n = snprintf(buf, max, ": keep-alive\n\n");
    }
    if (n < 0 || (size_t)n >= max)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (n > 0) {
        c->wrote_ms = now;
        return n;
    }
    c->suspended = 1;
    MHD_suspend_connection(c->conn);
    return 0;
}

void serve_wake(serve *sv, int64_t now, int all)
{
    for (serve_client *c = sv->clients; c; c = c->next) {
        if (!c->suspended)
            continue;
        if (all || c->sent_seq != sv->tg[c->target]->seq ||
            now - c->wrote_ms >= SERVE_KEEPALIVE_MS) {
            c->suspended = 0;
            MHD_resume_connection(c->conn);
        }
    }
}

/* A live page past SERVE_MAX_STREAMS (Note [Many viewers] in serve.h). */
static enum MHD_Result serve_refuse_stream(serve *sv, struct MHD_Connection *c)
{
    int64_t now = target_now_ms();
    sv->refused++;
    if (!sv->refused_said_ms || now - sv->refused_said_ms >= 10000) {
        fprintf(stderr,
                "rtscope serve: %" PRIu64 " live page(s) refused: at most %d "
                "event streams are open at once (those pages poll "
                "data.json instead)\n",
                sv->refused - sv->refused_said, SERVE_MAX_STREAMS);
        sv->refused_said = sv->refused;
        sv->refused_said_ms = now;
    }
    static const char msg[] =
        "too many live pages are open at once: this page polls data.json "
        "instead of listening for updates\n";
    struct MHD_Response *r = MHD_create_response_from_buffer(
        sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/plain; charset=utf-8");
    MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "10");
    enum MHD_Result ret =
        MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result serve_events(serve_target *st, struct MHD_Connection *c)
{
    serve *sv = st->sv;
    if (sv->nclients >= SERVE_MAX_STREAMS)
        return serve_refuse_stream(sv, c);
    serve_client *cl = calloc(1, sizeof(*cl));
    if (!cl)
        return MHD_NO;
    *cl = (serve_client){.sv = sv,
                         .target = st->id,
                         .conn = c,
                         .sent_seq = UINT64_MAX,
                         .wrote_ms = target_now_ms(),
                         .next = sv->clients};
    struct MHD_Response *r = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, 1024, serve_client_read, cl, serve_client_free);
    if (!r) {
        free(cl);
        return MHD_NO;
    }
    if (sv->clients)
        sv->clients->prev = cl;
    sv->clients = cl;
    sv->nclients++;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- pages and controls ------------------------------------------------- */

static enum MHD_Result serve_redirect(struct MHD_Connection *c, const char *to)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, to);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_FOUND, r);
    MHD_destroy_response(r);
    return ret;
}

/* The served page, or the static report as a download. */
static enum MHD_Result serve_page(serve_target *st, struct MHD_Connection *c,
                                  int download)
{
    size_t len;
    serve_fresh(st);
    char *body = serve_report(st, 1, !download, &len);
    if (!body)
        return httpd_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                          "rtscope serve: out of memory\n");
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/html; charset=utf-8");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (download) {
        const metrics *m = st->t->m;
        char name[160], disp[200];
        if (m && m->have_pid)
            snprintf(name, sizeof(name), "%s-%lu",
                     m->program[0] ? m->program : "rtscope",
                     (unsigned long)m->pid);
        else
            snprintf(name, sizeof(name), "rtscope");
        for (char *p = name; *p; p++) /* a file name, never a header */
            if (!(*p == '.' || *p == '-' || *p == '_' ||
                  (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                  (*p >= 'A' && *p <= 'Z')))
                *p = '_';
        snprintf(disp, sizeof(disp), "attachment; filename=\"%s.html\"", name);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
    }
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result serve_json(serve_target *st, struct MHD_Connection *c)
{
    size_t len;
    const char *d = serve_data(st, &len);
    if (!d)
        return httpd_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                          "rtscope serve: out of memory\n");
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return MHD_NO;
    memcpy(copy, d, len);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, copy, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(copy);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "application/json");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result serve_control(serve_target *st, struct MHD_Connection *c,
                                     const char *what)
{
    enum target_command cmd;
    if (target_command_parse(what, &cmd) != 0)
        return httpd_text(c, MHD_HTTP_NOT_FOUND,
                          "unknown control: use request-heap-census, "
                          "start-heap-profiling or stop-heap-profiling\n");
    target *t = st->t;
    char msg[400];
    unsigned status = MHD_HTTP_OK;
    if (!t->m || t->ended) {
        snprintf(msg, sizeof(msg), "%s: no program is connected\n",
                 target_command_name(cmd));
        status = MHD_HTTP_CONFLICT;
    } else if (target_send(t, cmd) != 0) {
        snprintf(msg, sizeof(msg), "%s: %s\n", target_command_name(cmd),
                 t->status);
        status = MHD_HTTP_BAD_GATEWAY;
    } else {
        snprintf(msg, sizeof(msg), "%s: sent to %s pid %lu\n",
                 target_command_name(cmd), t->m->program,
                 (unsigned long)t->m->pid);
    }
    return httpd_text(c, status, msg);
}

/* /t/N/REST: the target and REST, or NULL. */
static serve_target *serve_route(serve *sv, const char *url, const char **rest)
{
    if (strncmp(url, "/t/", 3) != 0)
        return NULL;
    char *end;
    unsigned long id = strtoul(url + 3, &end, 10);
    if (end == url + 3 || id >= sv->n || (*end != '/' && *end != 0))
        return NULL;
    *rest = end;
    return sv->tg[id];
}

static enum MHD_Result serve_target_http(serve_target *st,
                                         struct MHD_Connection *c,
                                         const char *rest, int get, int post)
{
    if (strncmp(rest, "/control/", 9) == 0) {
        if (!post)
            return httpd_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                              "controls are POST requests\n");
        return serve_control(st, c, rest + 9);
    }
    if (!get)
        return httpd_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "use GET\n");
    if (*rest == 0) {
        char to[64];
        snprintf(to, sizeof(to), "/t/%zu/", st->id);
        return serve_redirect(c, to);
    }
    if (strcmp(rest, "/") == 0)
        return serve_page(st, c, 0);
    if (strcmp(rest, "/report.html") == 0)
        return serve_page(st, c, 1);
    if (strcmp(rest, "/data.json") == 0)
        return serve_json(st, c);
    if (strcmp(rest, "/events") == 0)
        return serve_events(st, c);
    return httpd_text(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

enum MHD_Result serve_http(void *cls, struct MHD_Connection *c, const char *url,
                           const char *method, const char *version,
                           const char *upload_data, size_t *upload_data_size,
                           void **con_cls)
{
    serve *sv = cls;
    int get, post;
    enum MHD_Result refused;
    (void)upload_data;
    if (httpd_request_begin(con_cls, upload_data_size, method, &get, &post))
        return MHD_YES;
    if (httpd_request_refused(c, method, version, &url, &refused))
        return refused;
    if (strcmp(url, "/") == 0 && get)
        return serve_redirect(c, "/t/0/");
    const char *rest;
    serve_target *st = serve_route(sv, url, &rest);
    if (!st)
        return httpd_text(c, MHD_HTTP_NOT_FOUND,
                          "not found: the pages are /t/N/ (N from 0)\n");
    return serve_target_http(st, c, rest, get, post);
}
