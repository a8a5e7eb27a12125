/* InfluxDB 1.x writer; see influx.h.
 *
 * Note [The InfluxDB queue]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Points are appended to a list of batches; the last batch takes new points
 * until it holds batch_max bytes. The first batch is POSTed when it is full
 * or flush_ms after its first point, one request at a time (InfluxDB orders
 * nothing across concurrent writes of one series, and one request at a time
 * keeps memory and load predictable). A batch leaves the queue when the
 * server accepted it (2xx) or rejected its content (4xx other than 404/429:
 * retrying the same bytes cannot succeed; its points are counted as
 * dropped). Connection errors, timeouts, 5xx and 429 keep the batch and
 * retry after a delay that doubles from backoff_min to backoff_max. While
 * the server is away the queue grows up to queue_max bytes; past that the
 * oldest batch not in flight is dropped and its points counted, so memory
 * stays bounded however long the outage, and what arrives after it is the
 * most recent data. Points keep their own timestamps, so a late write puts
 * them where they belong.
 *
 * Since a batch is the unit of dropping, a batch holds at most an eighth of
 * the queue (but at least INFLUX_BATCH_FLOOR bytes, so that a long point
 * still fits): a drop then takes at most an eighth of a queue of 32 KiB or
 * more (a quarter of a 16 KiB one), and the rest is the newest points.
 * With batches as large as the queue (as once, for an --influx-queue below
 * the 256 KiB batch size) every drop emptied the whole queue, and an outage
 * that ended just after one lost the run's last heap censuses.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/influx.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The least bytes a batch may take (Note [The InfluxDB queue]). */
#define INFLUX_BATCH_FLOOR ((size_t)4096)

typedef struct influx_batch {
    char *data;
    size_t len, cap;
    uint64_t points;
    int64_t opened_ms; /* -1: not yet stamped (stamped at the next step) */
    int sealed;        /* being sent, or was: takes no more points */
    struct influx_batch *next;
} influx_batch;

enum influx_req { REQ_NONE, REQ_CREATE, REQ_WRITE };

struct influx {
    influx_opts opts;
    char *write_url, *query_url, *create_body;
    CURLM *multi;
    CURL *easy;
    struct curl_slist *headers;
    enum influx_req req;
    char resp[256];
    size_t resp_len;
    influx_batch *head, *tail;
    int db_ready;
    int64_t retry_at_ms;
    int backoff_ms;
    int failing;
    influx_stats st;
    char status[256];
    int status_is_error;
    uint64_t status_seq;
    int64_t now_ms;
};

static void influx_set_status(influx *ix, int is_error, const char *fmt, ...)
{
    char msg[sizeof(ix->status)];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (strcmp(msg, ix->status) == 0)
        return;
    memcpy(ix->status, msg, sizeof(msg));
    ix->status_is_error = is_error;
    ix->status_seq++;
}

const char *influx_status(const influx *ix, uint64_t *seq, int *is_error)
{
    *seq = ix->status_seq;
    *is_error = ix->status_is_error;
    return ix->status;
}

size_t influx_escape_tag(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s; s++) {
        char c = *s;
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
        if (c == ',' || c == ' ' || c == '=' || c == '\\') {
            if (n + 1 < cap)
                out[n] = '\\';
            n++;
        }
        if (n + 1 < cap)
            out[n] = c;
        n++;
    }
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

size_t influx_escape_string(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    if (n + 1 < cap)
        out[n] = '"';
    n++;
    for (; *s; s++) {
        char c = *s == '\n' ? ' ' : *s;
        if (c == '"' || c == '\\') {
            if (n + 1 < cap)
                out[n] = '\\';
            n++;
        }
        if (n + 1 < cap)
            out[n] = c;
        n++;
    }
    if (n + 1 < cap)
        out[n] = '"';
    n++;
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

static size_t influx_on_body(char *p, size_t size, size_t nmemb, void *ctx)
{
    influx *ix = ctx;
    size_t n = size * nmemb;
    size_t room = sizeof(ix->resp) - 1 - ix->resp_len;
    size_t k = n < room ? n : room;
    memcpy(ix->resp + ix->resp_len, p, k);
    ix->resp_len += k;
    ix->resp[ix->resp_len] = 0;
    return n;
}

static char *influx_urlencode(CURL *easy, const char *s)
{
    char *e = curl_easy_escape(easy, s, 0);
    char *r = e ? strdup(e) : NULL;
    curl_free(e);
    return r;
}

influx *influx_new(const influx_opts *opts, char *why, size_t why_len)
{
    if (strncmp(opts->url, "http://", 7) != 0 &&
        strncmp(opts->url, "https://", 8) != 0) {
        snprintf(why, why_len,
                 "--influx wants an http:// or https:// URL, got '%s'",
                 opts->url);
        return NULL;
    }
    if (!opts->db || !*opts->db) {
        snprintf(why, why_len, "--db NAME must not be empty");
        return NULL;
    }
    influx *ix = calloc(1, sizeof(*ix));
    if (!ix) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    ix->opts = *opts;
    if (!ix->opts.queue_max)
        ix->opts.queue_max = (size_t)8 << 20;
    if (!ix->opts.batch_max)
        ix->opts.batch_max = (size_t)256 << 10;
    /* A batch is what a full queue drops: see Note [The InfluxDB queue] */
    size_t batch_cap = ix->opts.queue_max / 8;
    if (batch_cap < INFLUX_BATCH_FLOOR)
        batch_cap = INFLUX_BATCH_FLOOR;
    if (batch_cap > ix->opts.queue_max)
        batch_cap = ix->opts.queue_max;
    if (ix->opts.batch_max > batch_cap)
        ix->opts.batch_max = batch_cap;
    if (ix->opts.flush_ms <= 0)
        ix->opts.flush_ms = 1000;
    if (ix->opts.backoff_min_ms <= 0)
        ix->opts.backoff_min_ms = 500;
    if (ix->opts.backoff_max_ms < ix->opts.backoff_min_ms)
        ix->opts.backoff_max_ms = 8000;
    ix->backoff_ms = ix->opts.backoff_min_ms;
    ix->st.queue_max = ix->opts.queue_max;
    ix->db_ready = !ix->opts.create_db;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(why, why_len, "libcurl initialisation failed");
        free(ix);
        return NULL;
    }
    ix->multi = curl_multi_init();
    ix->easy = curl_easy_init();
    ix->headers = curl_slist_append(NULL, "Content-Type: text/plain; "
                                          "charset=utf-8");
    if (!ix->multi || !ix->easy || !ix->headers) {
        snprintf(why, why_len, "libcurl initialisation failed");
        influx_free(ix);
        return NULL;
    }
    size_t ul = strlen(opts->url);
    while (ul && opts->url[ul - 1] == '/')
        ul--;
    char *db = influx_urlencode(ix->easy, opts->db);
    size_t wl = ul + strlen(db ? db : "") + 64;
    ix->write_url = malloc(wl);
    ix->query_url = malloc(ul + 16);
    char *q = malloc(strlen(opts->db) * 2 + 32);
    if (db && ix->write_url && ix->query_url && q) {
        snprintf(ix->write_url, wl, "%.*s/write?db=%s&precision=ns", (int)ul,
                 opts->url, db);
        snprintf(ix->query_url, ul + 16, "%.*s/query", (int)ul, opts->url);
        /* CREATE DATABASE "name", the name's quotes escaped */
        size_t n = (size_t)sprintf(q, "CREATE DATABASE \"");
        for (const char *s = opts->db; *s; s++) {
            if (*s == '"' || *s == '\\')
                q[n++] = '\\';
            q[n++] = *s;
        }
        q[n++] = '"';
        q[n] = 0;
        char *qe = influx_urlencode(ix->easy, q);
        if (qe) {
            ix->create_body = malloc(strlen(qe) + 3);
            if (ix->create_body)
                sprintf(ix->create_body, "q=%s", qe);
            free(qe);
        }
    }
    free(q);
    free(db);
    if (!ix->write_url || !ix->query_url || !ix->create_body) {
        snprintf(why, why_len, "out of memory");
        influx_free(ix);
        return NULL;
    }
    influx_set_status(ix, 0, "InfluxDB: writing to %s", ix->write_url);
    return ix;
}

static void influx_free_batch(influx_batch *b)
{
    free(b->data);
    free(b);
}

void influx_free(influx *ix)
{
    if (!ix)
        return;
    if (ix->multi && ix->easy && ix->req != REQ_NONE)
        curl_multi_remove_handle(ix->multi, ix->easy);
    if (ix->easy)
        curl_easy_cleanup(ix->easy);
    if (ix->multi)
        curl_multi_cleanup(ix->multi);
    curl_slist_free_all(ix->headers);
    while (ix->head) {
        influx_batch *b = ix->head;
        ix->head = b->next;
        influx_free_batch(b);
    }
    free(ix->write_url);
    free(ix->query_url);
    free(ix->create_body);
    free(ix);
    curl_global_cleanup();
}

void *influx_multi(influx *ix)
{
    return ix->multi;
}

int influx_busy(const influx *ix)
{
    return ix->req != REQ_NONE;
}

void influx_get_stats(const influx *ix, influx_stats *st)
{
    *st = ix->st;
}

/* Drop the oldest batch that is not in flight; returns 0 if there is none. */
static int influx_drop_oldest(influx *ix)
{
    influx_batch **pp = &ix->head;
    if (ix->req == REQ_WRITE && ix->head)
        pp = &ix->head->next;
    influx_batch *b = *pp;
    if (!b)
        return 0;
    *pp = b->next;
    if (ix->tail == b) {
        ix->tail = NULL;
        for (influx_batch *x = ix->head; x; x = x->next)
            ix->tail = x;
    }
    ix->st.queued_bytes -= b->len;
    ix->st.queued_points -= b->points;
    ix->st.dropped_points += b->points;
    influx_free_batch(b);
    return 1;
}

void influx_add(influx *ix, const char *line, size_t len)
{
    size_t need = len + 1;
    if (need > ix->opts.batch_max) {
        ix->st.dropped_points++;
        return;
    }
    while (ix->st.queued_bytes + need > ix->opts.queue_max)
        if (!influx_drop_oldest(ix)) {
            ix->st.dropped_points++;
            return;
        }
    influx_batch *b = ix->tail;
    if (!b || b->sealed || b->len + need > ix->opts.batch_max) {
        b = calloc(1, sizeof(*b));
        if (!b) {
            ix->st.dropped_points++;
            return;
        }
        b->opened_ms = -1;
        if (ix->tail)
            ix->tail->next = b;
        else
            ix->head = b;
        ix->tail = b;
    }
    if (b->len + need > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->len + need)
            nc *= 2;
        if (nc > ix->opts.batch_max)
            nc = ix->opts.batch_max;
        char *nd = realloc(b->data, nc);
        if (!nd) {
            ix->st.dropped_points++;
            return;
        }
        b->data = nd;
        b->cap = nc;
    }
    if (!b->data) { /* cannot happen: need > 0, so the block above ran */
        ix->st.dropped_points++;
        return;
    }
    memcpy(b->data + b->len, line, len);
    b->data[b->len + len] = '\n';
    b->len += need;
    b->points++;
    ix->st.queued_bytes += need;
    ix->st.queued_points++;
}

static int influx_batch_due(const influx *ix, int64_t now)
{
    const influx_batch *b = ix->head;
    if (!b || !ix->db_ready)
        return b != NULL && !ix->db_ready;
    return b->sealed || b->next || b->len + 256 > ix->opts.batch_max ||
           (b->opened_ms >= 0 && now - b->opened_ms >= ix->opts.flush_ms);
}

int influx_timeout_ms(const influx *ix, int64_t now)
{
    if (ix->req != REQ_NONE || !ix->head)
        return -1;
    int64_t at = ix->retry_at_ms;
    if (!influx_batch_due(ix, now)) {
        int64_t o = ix->head->opened_ms < 0 ? now : ix->head->opened_ms;
        if (o + ix->opts.flush_ms > at)
            at = o + ix->opts.flush_ms;
    }
    return at <= now ? 0 : (int)(at - now);
}

static void influx_start(influx *ix, enum influx_req req)
{
    CURL *e = ix->easy;
    curl_easy_reset(e);
    ix->resp_len = 0;
    ix->resp[0] = 0;
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 15000L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, influx_on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, ix);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    if (req == REQ_CREATE) {
        curl_easy_setopt(e, CURLOPT_URL, ix->query_url);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, ix->create_body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE,
                         (long)strlen(ix->create_body));
    } else {
        influx_batch *b = ix->head;
        b->sealed = 1;
        curl_easy_setopt(e, CURLOPT_URL, ix->write_url);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, ix->headers);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, b->data);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)b->len);
    }
    if (curl_multi_add_handle(ix->multi, e) == CURLM_OK)
        ix->req = req;
}

static void influx_retry_later(influx *ix, int64_t now, const char *what)
{
    ix->st.failed_requests++;
    ix->retry_at_ms = now + ix->backoff_ms;
    /* no counts in the message: it is printed when it changes, and the
     * counts are in /metrics (rtscope_influx_*) */
    influx_set_status(ix, 1,
                      "InfluxDB: %.300s; retrying (at most every %.1f s), "
                      "keeping at most %llu bytes of points",
                      what, ix->opts.backoff_max_ms / 1000.0,
                      (unsigned long long)ix->opts.queue_max);
    ix->backoff_ms *= 2;
    if (ix->backoff_ms > ix->opts.backoff_max_ms)
        ix->backoff_ms = ix->opts.backoff_max_ms;
    ix->failing = 1;
}

static void influx_succeeded(influx *ix)
{
    ix->backoff_ms = ix->opts.backoff_min_ms;
    if (ix->failing)
        influx_set_status(ix, 0, "InfluxDB: writes to %s resumed",
                          ix->write_url);
    ix->failing = 0;
}

static void influx_finished(influx *ix, CURLcode rc, int64_t now)
{
    long code = 0;
    enum influx_req req = ix->req;
    curl_easy_getinfo(ix->easy, CURLINFO_RESPONSE_CODE, &code);
    curl_multi_remove_handle(ix->multi, ix->easy);
    ix->req = REQ_NONE;
    char what[512];
    /* the first line of the server's answer, for messages */
    for (size_t i = 0; i < ix->resp_len; i++)
        if (ix->resp[i] == '\n' || ix->resp[i] == '\r')
            ix->resp[i] = ' ';
    if (rc != CURLE_OK) {
        snprintf(what, sizeof(what), "%.200s unreachable: %s", ix->opts.url,
                 curl_easy_strerror(rc));
        influx_retry_later(ix, now, what);
        return;
    }
    if (req == REQ_CREATE) {
        if (code >= 200 && code < 300) {
            ix->db_ready = 1;
            influx_succeeded(ix);
        } else if (code >= 500) {
            snprintf(what, sizeof(what), "CREATE DATABASE: HTTP %ld %.200s",
                     code, ix->resp);
            influx_retry_later(ix, now, what);
        } else {
            /* not allowed (auth) or not understood: write anyway */
            ix->db_ready = 1;
            influx_set_status(ix, 1,
                              "InfluxDB: CREATE DATABASE %s failed: HTTP "
                              "%ld %s (writing anyway)",
                              ix->opts.db, code, ix->resp);
        }
        return;
    }
    influx_batch *b = ix->head;
    if (!b) /* cannot happen: a write is only started with a batch */
        return;
    if (code >= 200 && code < 300) {
        ix->st.sent_points += b->points;
        ix->st.sent_batches++;
    } else if (code == 404 && ix->opts.create_db) {
        ix->db_ready = 0; /* database gone: create it again, then retry */
        snprintf(what, sizeof(what), "HTTP 404 %s", ix->resp);
        influx_retry_later(ix, now, what);
        return;
    } else if (code >= 500 || code == 429 || code == 404 || code == 408) {
        snprintf(what, sizeof(what), "HTTP %ld %.200s", code, ix->resp);
        influx_retry_later(ix, now, what);
        return;
    } else {
        ix->st.dropped_points += b->points;
        influx_set_status(ix, 1,
                          "InfluxDB rejected a batch of %llu points: HTTP "
                          "%ld %s",
                          (unsigned long long)b->points, code, ix->resp);
    }
    ix->head = b->next;
    if (ix->tail == b)
        ix->tail = NULL;
    ix->st.queued_bytes -= b->len;
    ix->st.queued_points -= b->points;
    influx_free_batch(b);
    if (code >= 200 && code < 300)
        influx_succeeded(ix);
}

void influx_step(influx *ix, int64_t now)
{
    int running = 0;
    ix->now_ms = now;
    for (influx_batch *b = ix->head; b; b = b->next)
        if (b->opened_ms < 0)
            b->opened_ms = now;
    curl_multi_perform(ix->multi, &running);
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(ix->multi, &left)))
        if (msg->msg == CURLMSG_DONE && ix->req != REQ_NONE)
            influx_finished(ix, msg->data.result, now);
    if (ix->req != REQ_NONE || !ix->head || now < ix->retry_at_ms)
        return;
    if (!ix->db_ready)
        influx_start(ix, REQ_CREATE);
    else if (influx_batch_due(ix, now))
        influx_start(ix, REQ_WRITE);
    if (ix->req != REQ_NONE)
        curl_multi_perform(ix->multi, &running);
}
