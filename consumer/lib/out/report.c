/* Reports: see report.h and docs/html.md ("The data").
 *
 * Note [untrusted strings in the page]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Labels, markers, program arguments and IPE strings come from the program
 * and may hold anything: quotes, "</script>", bytes that are not UTF-8.
 * They reach the page only inside the JSON data block, written by
 * report_json_str(): '<', '>' and '&' as \u003c \u003e \u0026 (so the
 * block cannot end early or open a comment), control characters and
 * U+2028/U+2029 as \u escapes, and each byte that is not part of valid
 * UTF-8 as the four characters \xHH (visible, never a replacement that
 * could merge two labels). The page's script puts strings into the DOM
 * with textContent only, never as HTML. The only other program text in the
 * page, the <title>, goes through report_html_text().
 */
#include "rtscope/out/report.h"

#include "assets.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_SPARK 40 /* points in a table sparkline */

int report_parse_sort(const char *s, report_sort *out)
{
    static const char *const names[] = {"size", "stddev", "name", "gradient"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (report_sort)i;
            return 0;
        }
    return -1;
}

static const char *report_sort_name(report_sort s)
{
    static const char *const names[] = {"size", "stddev", "name", "gradient"};
    return names[s];
}

/* ---- JSON output ----------------------------------------------------------
 */

/* The string dictionary: each distinct string once, referred to by index. */
typedef struct report_dict {
    const char **str;
    size_t *len;
    size_t n, cap;
    uint32_t *index; /* open addressing: entry + 1 */
    size_t index_cap;
} report_dict;

typedef struct report_out {
    FILE *f;
    report_dict dict;
    int nomem;
} report_out;

static uint64_t report_hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void report_dict_free(report_dict *d)
{
    free(d->str);
    free(d->len);
    free(d->index);
}

static int report_dict_grow(report_dict *d)
{
    size_t nc = d->index_cap ? d->index_cap * 2 : 1024;
    uint32_t *ni = calloc(nc, sizeof(uint32_t));
    if (!ni)
        return -1;
    for (size_t e = 0; e < d->n; e++) {
        size_t i = (size_t)report_hash(d->str[e], d->len[e]) & (nc - 1);
        while (ni[i])
            i = (i + 1) & (nc - 1);
        ni[i] = (uint32_t)(e + 1);
    }
    free(d->index);
    d->index = ni;
    d->index_cap = nc;
    return 0;
}

/* Index of a string (borrowed: it must outlive the report). */
static long report_dict_id(report_out *o, const char *s, size_t len)
{
    report_dict *d = &o->dict;
    if ((d->n + 1) * 2 > d->index_cap && report_dict_grow(d) != 0)
        return o->nomem = 1, 0;
    size_t i = (size_t)report_hash(s, len) & (d->index_cap - 1);
    while (d->index[i]) {
        size_t e = d->index[i] - 1;
        if (d->len[e] == len && memcmp(d->str[e], s, len) == 0)
            return (long)e;
        i = (i + 1) & (d->index_cap - 1);
    }
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 256;
        const char **ns = realloc(d->str, nc * sizeof(*ns));
        if (!ns)
            return o->nomem = 1, 0;
        d->str = ns;
        size_t *nl = realloc(d->len, nc * sizeof(*nl));
        if (!nl)
            return o->nomem = 1, 0;
        d->len = nl;
        d->cap = nc;
    }
    d->str[d->n] = s;
    d->len[d->n] = len;
    d->index[i] = (uint32_t)(d->n + 1);
    return (long)d->n++;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t report_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

/* A JSON string, safe inside a <script> block (Note [untrusted strings in
 * the page]). */
static void report_json_str(FILE *f, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    putc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
            i++;
        } else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
            fprintf(f, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            putc(c, f);
            i++;
        } else {
            size_t n = report_utf8_len(s + i, len - i);
            if (n == 0) {
                fprintf(f, "\\\\x%02x", c);
                i++;
            } else if (n == 3 && c == 0xe2 && s[i + 1] == 0x80 &&
                       (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
                fprintf(f, "\\u%04x", s[i + 2] == 0xa8 ? 0x2028 : 0x2029);
                i += 3;
            } else {
                fwrite(s + i, 1, n, f);
                i += n;
            }
        }
    }
    putc('"', f);
}

static void report_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

static void report_sid(report_out *o, const char *s)
{
    fprintf(o->f, "%ld", report_dict_id(o, s, strlen(s)));
}

/* ---- bands: order, series, sparklines ------------------------------------ */

typedef struct report_sorter {
    const profile_band *bands;
    report_sort sort;
} report_sorter;

static int report_cmp_key(const profile_band *x, const profile_band *y,
                          report_sort sort)
{
    double a = 0, b = 0;
    switch (sort) {
    case REPORT_SORT_SIZE:
        a = x->integral;
        b = y->integral;
        break;
    case REPORT_SORT_STDDEV:
        a = x->stddev;
        b = y->stddev;
        break;
    case REPORT_SORT_GRADIENT:
        a = x->slope;
        b = y->slope;
        break;
    case REPORT_SORT_NAME:
        return strcmp(x->name, y->name);
    }
    if (a != b)
        return a > b ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* qsort has no context argument in C11: sort (key, index) pairs. */
typedef struct report_rank {
    const profile_band *band;
    report_sort sort;
} report_rank;

static int report_rank_cmp(const void *a, const void *b)
{
    const report_rank *x = a, *y = b;
    return report_cmp_key(x->band, y->band, x->sort);
}

/* The bands in report order (--sort, --reverse); malloc'd, or NULL. */
static const profile_band **report_order(const profile *p, const report_opts *o)
{
    size_t n = p->nbands;
    report_rank *r = malloc((n ? n : 1) * sizeof(*r));
    const profile_band **out =
        malloc((n ? n : 1) * sizeof(const profile_band *));
    if (!r || !out) {
        free(r);
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        r[i].band = &p->bands[i];
        r[i].sort = o->sort;
    }
    qsort(r, n, sizeof(*r), report_rank_cmp);
    for (size_t i = 0; i < n; i++)
        out[i] = r[o->reverse ? n - 1 - i : i].band;
    free(r);
    return out;
}

/* Buckets that hold at least one census, in time order. */
static size_t *report_buckets(const profile *p, size_t *count)
{
    size_t *b = malloc((p->nb ? p->nb : 1) * sizeof(size_t));
    size_t n = 0;
    for (size_t i = 0; b && i < p->nb; i++)
        if (p->bucket_count[i])
            b[n++] = i;
    *count = n;
    return b;
}

/* A series over the non-empty buckets, zeros at both ends trimmed:
 * {"s":FIRST,"v":[...]} */
static void report_series(FILE *f, const profile *p, const double *v,
                          const size_t *bk, size_t n)
{
    size_t s = 0, e = n;
    while (s < e && v[bk[s]] == 0)
        s++;
    while (e > s && v[bk[e - 1]] == 0)
        e--;
    fprintf(f, "{\"s\":%zu,\"v\":[", s);
    for (size_t i = s; i < e; i++) {
        double mean = v[bk[i]] / p->bucket_count[bk[i]];
        fprintf(f, "%s%.0f", i > s ? "," : "", mean);
    }
    fputs("]}", f);
}

/* A sparkline: REPORT_SPARK means of the band over time, each a character
 * of "0-9A-Za-z-_" (0 to 63, relative to the band's largest). */
static void report_spark(FILE *f, const profile *p, const profile_band *b,
                         const size_t *bk, size_t n)
{
    static const char digits[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
    double pts[REPORT_SPARK];
    size_t np = n < REPORT_SPARK ? n : REPORT_SPARK;
    double top = 0;
    for (size_t j = 0; j < np; j++) {
        size_t from = j * n / np, to = (j + 1) * n / np;
        double sum = 0, cnt = 0;
        for (size_t i = from; i < to; i++) {
            sum += b->buckets[bk[i]];
            cnt += p->bucket_count[bk[i]];
        }
        pts[j] = cnt > 0 ? sum / cnt : 0;
        if (pts[j] > top)
            top = pts[j];
    }
    putc('"', f);
    for (size_t j = 0; j < np; j++)
        putc(digits[top > 0 ? (int)lround(pts[j] / top * 63) : 0], f);
    putc('"', f);
}

/* ---- one profile ------------------------------------------------------ */

static void report_meta(report_out *o, const profile *p, const char *input)
{
    FILE *f = o->f;
    fputs("{\"input\":", f);
    report_sid(o, input ? input : "");
    /* Program arguments as the RTS records them, RTS options separated. */
    fputs(",\"program\":", f);
    const char *prog = p->args ? p->args : (p->hp_job ? p->hp_job : "");
    size_t plen = p->args ? strnlen(p->args, p->args_len) : strlen(prog);
    if (!p->args && p->hp_job) /* JOB "prog args" */
        plen = strcspn(prog, " ");
    fprintf(f, "%ld", report_dict_id(o, prog, plen));
    fputs(",\"args\":[", f);
    int na = 0, nr = 0;
    char *rts = NULL;
    size_t rts_len = 0;
    FILE *rf = open_memstream(&rts, &rts_len);
    if (!rf) {
        o->nomem = 1;
        return;
    }
    if (p->args) {
        int mode = 0; /* 0 program, 1 inside +RTS, 2 after --RTS */
        for (size_t i = plen + 1; i < p->args_len;) {
            const char *a = p->args + i;
            size_t al = strnlen(a, p->args_len - i);
            i += al + 1;
            if (mode != 2 && al == 4 && memcmp(a, "+RTS", 4) == 0) {
                mode = 1;
                continue;
            }
            if (mode == 1 && al == 4 && memcmp(a, "-RTS", 4) == 0) {
                mode = 0;
                continue;
            }
            if (mode != 2 && al == 5 && memcmp(a, "--RTS", 5) == 0) {
                mode = 2;
                continue;
            }
            if (mode == 1) {
                fprintf(rf, "%s%ld", nr++ ? "," : "", report_dict_id(o, a, al));
            } else {
                fprintf(f, "%s%ld", na++ ? "," : "", report_dict_id(o, a, al));
            }
        }
    } else if (p->hp_job && prog[plen]) {
        /* a .hp's JOB is one string: show the rest as one argument */
        fprintf(f, "%ld",
                report_dict_id(o, prog + plen + 1, strlen(prog + plen + 1)));
    }
    if (fclose(rf) != 0)
        o->nomem = 1;
    fprintf(f, "],\"rts_flags\":[%s]", rts ? rts : "");
    free(rts);
    fputs(",\"ghc\":", f);
    report_sid(o, p->rts_id ? p->rts_id : "");
    fputs(",\"date\":", f);
    report_sid(o, p->date[0] ? p->date : (p->hp_date ? p->hp_date : ""));
    fputs(",\"breakdown\":", f);
    static const char *const names[] = {"",    "-hc", "-hm", "-hd", "-hy",
                                        "-hr", "-hb", "-hT", "-hi"};
    report_sid(o, p->breakdown < 9 ? names[p->breakdown] : "");
    fputs(",\"interval_s\":", f);
    report_num(f, p->interval_ns ? (double)p->interval_ns / 1e9 : NAN);
    fprintf(f, ",\"samples\":%zu,\"bands\":%zu,\"duration_s\":", p->nsamples,
            p->nbands);
    report_num(f, p->last_time);
    fprintf(f,
            ",\"events\":%llu,\"ipe_entries\":%zu,\"from_hp\":%s,"
            "\"traces_dropped\":%llu}",
            (unsigned long long)p->events, ipe_table_count(bands_ipe_table(p->names)),
            p->from_hp ? "true" : "false",
            (unsigned long long)p->traces_dropped);
}

/* The area chart's data: the given bands (NULL: absent in this profile)
 * and "other", the sum of every band not given. */
static void report_chart(report_out *o, const profile *p,
                         const profile_band *const *chart,
                         const char *const *labels, size_t nchart)
{
    FILE *f = o->f;
    size_t nbk;
    size_t *bk = report_buckets(p, &nbk);
    double *v = calloc(p->nb ? p->nb : 1, sizeof(double));
    unsigned char *in = calloc(p->nbands ? p->nbands : 1, 1);
    if (!bk || !v || !in) {
        o->nomem = 1;
        free(bk);
        free(v);
        free(in);
        return;
    }
    fputs("{\"times\":[", f);
    for (size_t i = 0; i < nbk; i++) {
        if (i)
            putc(',', f);
        fprintf(f, "%.6f", profile_bucket_time(p, bk[i]));
    }
    fputs("],\"labels\":[", f);
    for (size_t c = 0; c < nchart; c++)
        fprintf(f, "%s%ld", c ? "," : "",
                report_dict_id(o, labels[c], strlen(labels[c])));
    fputs("],\"series\":[", f);
    for (size_t c = 0; c < nchart; c++) {
        if (c)
            putc(',', f);
        memset(v, 0, p->nb * sizeof(double));
        if (chart[c]) {
            in[chart[c] - p->bands] = 1;
            for (size_t i = 0; i < nbk; i++)
                v[bk[i]] = chart[c]->buckets[bk[i]];
        }
        report_series(f, p, v, bk, nbk);
    }
    size_t rest = 0;
    memset(v, 0, p->nb * sizeof(double));
    for (size_t b = 0; b < p->nbands; b++) {
        if (in[b])
            continue;
        rest++;
        for (size_t i = 0; i < nbk; i++)
            v[bk[i]] += p->bands[b].buckets[bk[i]];
    }
    if (rest) {
        if (nchart)
            putc(',', f);
        report_series(f, p, v, bk, nbk);
    }
    fprintf(f, "],\"other\":%zu}", rest);
    free(bk);
    free(v);
    free(in);
}

static void report_heap(report_out *o, const profile *p)
{
    FILE *f = o->f;
    static const char *const names[PROFILE_NHEAP] = {"heap_size", "blocks_size",
                                                     "live_bytes", "returned"};
    fputs("{\"times\":[", f);
    int first = 1;
    for (size_t i = 0; i < p->hnb; i++) {
        if (!p->hcount[i])
            continue;
        fprintf(f, "%s%.6f", first ? "" : ",", p->htsum[i] / p->hcount[i]);
        first = 0;
    }
    putc(']', f);
    for (int s = 0; s < PROFILE_NHEAP; s++) {
        fprintf(f, ",\"%s\":[", names[s]);
        first = 1;
        for (size_t i = 0; i < p->hnb; i++) {
            if (!p->hcount[i])
                continue;
            if (!first)
                putc(',', f);
            first = 0;
            if (isnan(p->heap[s][i]))
                fputs("null", f);
            else
                fprintf(f, "%.0f", p->heap[s][i]);
        }
        putc(']', f);
    }
    putc('}', f);
}

static void report_traces(report_out *o, const profile *p)
{
    FILE *f = o->f;
    putc('[', f);
    for (size_t i = 0; i < p->ntraces; i++) {
        const profile_trace *t = &p->traces[i];
        fprintf(f, "%s[%.6f,%ld,%d]", i ? "," : "", t->t,
                report_dict_id(o, t->text, strlen(t->text)), t->is_event);
    }
    putc(']', f);
}

static void report_profile(report_out *o, const profile *p, const char *input,
                           const profile_band *const *chart,
                           const char *const *labels, size_t nchart)
{
    fputs("{\"meta\":", o->f);
    report_meta(o, p, input);
    fputs(",\"chart\":", o->f);
    report_chart(o, p, chart, labels, nchart);
    fputs(",\"heap\":", o->f);
    report_heap(o, p);
    fputs(",\"traces\":", o->f);
    report_traces(o, p);
    putc('}', o->f);
}

/* IPE columns of a band; empty strings without provenance. */
static void report_ipe_cols(const profile_band *b, const char *col[5])
{
    const ipe_entry *e = b ? b->ipe : NULL;
    col[0] = e ? e->label : "";
    col[1] = e ? ipe_closure_type_name(e->closure_desc) : "";
    col[2] = e ? e->ty_desc : "";
    col[3] = e ? e->module : "";
    col[4] = e ? e->srcloc : "";
}

static void report_options(FILE *f, const report_opts *o)
{
    fprintf(f,
            ",\"options\":{\"bands\":%zu,\"sort\":\"%s\",\"reverse\":%s,"
            "\"y_axis\":",
            o->bands, report_sort_name(o->sort), o->reverse ? "true" : "false");
    report_num(f, o->y_axis > 0 ? o->y_axis : NAN);
    putc('}', f);
}

static void report_strings(report_out *o)
{
    fputs(",\"strings\":[", o->f);
    for (size_t i = 0; i < o->dict.n; i++) {
        if (i)
            putc(',', o->f);
        report_json_str(o->f, o->dict.str[i], o->dict.len[i]);
    }
    putc(']', o->f);
}

typedef double (*report_field_fn)(const profile_band *b);
static double report_f_size(const profile_band *b)
{
    return b->size_mib_s;
}
static double report_f_mean(const profile_band *b)
{
    return b->mean;
}
static double report_f_max(const profile_band *b)
{
    return b->max_v;
}
static double report_f_stddev(const profile_band *b)
{
    return b->stddev;
}
static double report_f_intercept(const profile_band *b)
{
    return b->intercept;
}
static double report_f_slope(const profile_band *b)
{
    return b->slope;
}
static double report_f_r2(const profile_band *b)
{
    return b->r2;
}

static void report_column(FILE *f, const char *name,
                          const profile_band *const *rows, size_t n,
                          report_field_fn fn)
{
    fprintf(f, ",\"%s\":[", name);
    for (size_t i = 0; i < n; i++) {
        if (i)
            putc(',', f);
        if (rows[i])
            report_num(f, fn(rows[i]));
        else
            fputs("null", f);
    }
    putc(']', f);
}

static int report_json_profile(report_out *o, const profile *p,
                               const report_opts *opts)
{
    FILE *f = o->f;
    const profile_band **order = report_order(p, opts);
    size_t nchart =
        opts->bands && opts->bands < p->nbands ? opts->bands : p->nbands;
    const char **labels = malloc((nchart ? nchart : 1) * sizeof(char *));
    size_t nbk;
    size_t *bk = report_buckets(p, &nbk);
    if (!order || !labels || !bk) {
        free(order);
        free(labels);
        free(bk);
        return -1;
    }
    for (size_t c = 0; c < nchart; c++)
        labels[c] = order[c]->name;
    fputs("{\"rtscope\":1,\"kind\":\"profile\",\"profile\":", f);
    report_profile(o, p, opts->input, order, labels, nchart);
    int ipe = p->breakdown == EL_BREAKDOWN_INFO_TABLE;
    fprintf(f, ",\"table\":{\"n\":%zu,\"ipe\":%s,\"label\":[", p->nbands,
            ipe ? "true" : "false");
    for (size_t i = 0; i < p->nbands; i++)
        fprintf(f, "%s%ld", i ? "," : "",
                report_dict_id(o, order[i]->name, strlen(order[i]->name)));
    fputs("],\"key\":[", f);
    for (size_t i = 0; i < p->nbands; i++)
        fprintf(f, "%s%ld", i ? "," : "",
                report_dict_id(o, order[i]->key, order[i]->key_len));
    putc(']', f);
    if (ipe) {
        static const char *const cols[5] = {"desc", "ctype", "type", "module",
                                            "loc"};
        for (int c = 0; c < 5; c++) {
            fprintf(f, ",\"%s\":[", cols[c]);
            for (size_t i = 0; i < p->nbands; i++) {
                const char *v[5];
                report_ipe_cols(order[i], v);
                fprintf(f, "%s%ld", i ? "," : "",
                        report_dict_id(o, v[c], strlen(v[c])));
            }
            putc(']', f);
        }
    }
    report_column(f, "size", order, p->nbands, report_f_size);
    report_column(f, "mean", order, p->nbands, report_f_mean);
    report_column(f, "max", order, p->nbands, report_f_max);
    report_column(f, "stddev", order, p->nbands, report_f_stddev);
    report_column(f, "intercept", order, p->nbands, report_f_intercept);
    report_column(f, "slope", order, p->nbands, report_f_slope);
    report_column(f, "r2", order, p->nbands, report_f_r2);
    fputs(",\"spark\":[", f);
    for (size_t i = 0; i < p->nbands; i++) {
        if (i)
            putc(',', f);
        report_spark(f, p, order[i], bk, nbk);
    }
    fputs("]}", f);
    report_options(f, opts);
    report_strings(o);
    fputs("}", f);
    free(order);
    free(labels);
    free(bk);
    return 0;
}

int report_write_json(FILE *f, const profile *p, const report_opts *opts)
{
    report_out o;
    memset(&o, 0, sizeof(o));
    o.f = f;
    int rc = report_json_profile(&o, p, opts);
    putc('\n', f);
    report_dict_free(&o.dict);
    return rc || o.nomem || ferror(f) ? -1 : 0;
}

/* ---- diff --------------------------------------------------------------- */

typedef struct report_pair {
    const char *name;
    const profile_band *a, *b;
    double growth; /* mean bytes in B minus mean bytes in A */
    double peak;   /* the larger mean, to choose the charted bands */
} report_pair;

/* Band names compared as a .hp file keeps them: white space is '_' there
 * (hp2ps reads a name up to white space), so a .hp profile and an
 * eventlog's name the same band "THUNK_in_base:GHC.Show.showList__" and
 * "THUNK in base:GHC.Show.showList__". */
static int report_name_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = isspace((unsigned char)*a) ? '_' : (unsigned char)*a;
        int y = isspace((unsigned char)*b) ? '_' : (unsigned char)*b;
        if (x != y)
            return x - y;
        if (!x)
            return 0;
    }
}

static int report_pair_name_cmp(const void *x, const void *y)
{
    const report_pair *a = x, *b = y;
    int c = report_name_cmp(a->name, b->name);
    if (c)
        return c;
    /* the same name twice in one profile: A's before B's */
    return (a->a == NULL) - (b->a == NULL);
}

static int report_pair_growth_cmp(const void *x, const void *y)
{
    const report_pair *a = x, *b = y;
    if (a->growth != b->growth)
        return a->growth > b->growth ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int report_pair_peak_cmp(const void *x, const void *y)
{
    const report_pair *a = *(const report_pair *const *)x,
                      *b = *(const report_pair *const *)y;
    if (a->peak != b->peak)
        return a->peak > b->peak ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Bands of A and B matched by name: sort all by name, merge neighbours. */
static report_pair *report_pairs(const profile *a, const profile *b,
                                 size_t *count)
{
    size_t n = a->nbands + b->nbands, m = 0;
    report_pair *all = malloc((n ? n : 1) * sizeof(*all));
    if (!all)
        return NULL;
    for (size_t i = 0; i < a->nbands; i++)
        all[m++] = (report_pair){a->bands[i].name, &a->bands[i], NULL, 0, 0};
    for (size_t i = 0; i < b->nbands; i++)
        all[m++] = (report_pair){b->bands[i].name, NULL, &b->bands[i], 0, 0};
    qsort(all, m, sizeof(*all), report_pair_name_cmp);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && report_name_cmp(all[k - 1].name, all[i].name) == 0 &&
            all[k - 1].a && !all[k - 1].b && all[i].b) {
            all[k - 1].b = all[i].b;
            if (strchr(all[i].name, ' ')) /* the eventlog's spelling */
                all[k - 1].name = all[i].name;
            continue;
        }
        all[k++] = all[i];
    }
    for (size_t i = 0; i < k; i++) {
        double ma = all[i].a ? all[i].a->mean : 0;
        double mb = all[i].b ? all[i].b->mean : 0;
        all[i].growth = mb - ma;
        all[i].peak = ma > mb ? ma : mb;
    }
    qsort(all, k, sizeof(*all), report_pair_growth_cmp);
    *count = k;
    return all;
}

typedef const profile_band *(*report_side_fn)(const report_pair *r);
static const profile_band *report_side_a(const report_pair *r)
{
    return r->a;
}
static const profile_band *report_side_b(const report_pair *r)
{
    return r->b;
}

static void report_pair_column(FILE *f, const char *name,
                               const report_pair *rows, size_t n,
                               report_side_fn side, report_field_fn fn)
{
    fprintf(f, ",\"%s\":[", name);
    for (size_t i = 0; i < n; i++) {
        const profile_band *b = side(&rows[i]);
        if (i)
            putc(',', f);
        if (b)
            report_num(f, fn(b));
        else
            fputs("null", f);
    }
    putc(']', f);
}

static int report_json_diff(report_out *o, const profile *a, const profile *b,
                            const report_opts *opts)
{
    FILE *f = o->f;
    size_t n = 0;
    report_pair *rows = report_pairs(a, b, &n);
    size_t nchart = opts->bands && opts->bands < n ? opts->bands : n;
    const report_pair **byPeak =
        malloc((n ? n : 1) * sizeof(const report_pair *));
    const profile_band **ca =
        malloc((nchart ? nchart : 1) * sizeof(const profile_band *));
    const profile_band **cb =
        malloc((nchart ? nchart : 1) * sizeof(const profile_band *));
    const char **labels = malloc((nchart ? nchart : 1) * sizeof(char *));
    size_t nbka, nbkb;
    size_t *bka = report_buckets(a, &nbka), *bkb = report_buckets(b, &nbkb);
    int rc = -1;
    if (!rows || !byPeak || !ca || !cb || !labels || !bka || !bkb)
        goto out;
    for (size_t i = 0; i < n; i++)
        byPeak[i] = &rows[i];
    qsort(byPeak, n, sizeof(const report_pair *), report_pair_peak_cmp);
    for (size_t c = 0; c < nchart; c++) {
        ca[c] = byPeak[c]->a;
        cb[c] = byPeak[c]->b;
        labels[c] = byPeak[c]->name;
    }
    fputs("{\"rtscope\":1,\"kind\":\"diff\",\"a\":", f);
    report_profile(o, a, opts->input, ca, labels, nchart);
    fputs(",\"b\":", f);
    report_profile(o, b, opts->input_b, cb, labels, nchart);
    int ipe = a->breakdown == EL_BREAKDOWN_INFO_TABLE ||
              b->breakdown == EL_BREAKDOWN_INFO_TABLE;
    fprintf(f, ",\"table\":{\"n\":%zu,\"ipe\":%s,\"label\":[", n,
            ipe ? "true" : "false");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%ld", i ? "," : "",
                report_dict_id(o, rows[i].name, strlen(rows[i].name)));
    putc(']', f);
    if (ipe) {
        static const char *const cols[5] = {"desc", "ctype", "type", "module",
                                            "loc"};
        for (int c = 0; c < 5; c++) {
            fprintf(f, ",\"%s\":[", cols[c]);
            for (size_t i = 0; i < n; i++) {
                const char *v[5];
                const profile_band *band =
                    rows[i].b && rows[i].b->ipe ? rows[i].b : rows[i].a;
                report_ipe_cols(band, v);
                fprintf(f, "%s%ld", i ? "," : "",
                        report_dict_id(o, v[c], strlen(v[c])));
            }
            putc(']', f);
        }
    }
    fputs(",\"growth\":[", f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            putc(',', f);
        report_num(f, rows[i].growth);
    }
    putc(']', f);
    report_pair_column(f, "mean_a", rows, n, report_side_a, report_f_mean);
    report_pair_column(f, "mean_b", rows, n, report_side_b, report_f_mean);
    report_pair_column(f, "size_a", rows, n, report_side_a, report_f_size);
    report_pair_column(f, "size_b", rows, n, report_side_b, report_f_size);
    report_pair_column(f, "max_a", rows, n, report_side_a, report_f_max);
    report_pair_column(f, "max_b", rows, n, report_side_b, report_f_max);
    report_pair_column(f, "slope_a", rows, n, report_side_a, report_f_slope);
    report_pair_column(f, "slope_b", rows, n, report_side_b, report_f_slope);
    const char *sk[2] = {"spark_a", "spark_b"};
    for (int s = 0; s < 2; s++) {
        fprintf(f, ",\"%s\":[", sk[s]);
        for (size_t i = 0; i < n; i++) {
            const profile_band *band = s ? rows[i].b : rows[i].a;
            if (i)
                putc(',', f);
            if (band)
                report_spark(f, s ? b : a, band, s ? bkb : bka,
                             s ? nbkb : nbka);
            else
                fputs("\"\"", f);
        }
        putc(']', f);
    }
    fputs("}", f);
    report_options(f, opts);
    report_strings(o);
    fputs("}", f);
    rc = 0;
out:
    free(rows);
    free(byPeak);
    free(ca);
    free(cb);
    free(labels);
    free(bka);
    free(bkb);
    return rc;
}

int report_write_diff_json(FILE *f, const profile *a, const profile *b,
                           const report_opts *opts)
{
    report_out o;
    memset(&o, 0, sizeof(o));
    o.f = f;
    int rc = report_json_diff(&o, a, b, opts);
    putc('\n', f);
    report_dict_free(&o.dict);
    return rc || o.nomem || ferror(f) ? -1 : 0;
}

/* ---- HTML --------------------------------------------------------------- */

/* Text for an HTML element (the title): escaped, invalid UTF-8 as \xHH. */
static void report_html_text(FILE *f, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        size_t n = report_utf8_len(u + i, len - i);
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c < 0x20 || c == 0x7f || n == 0)
            fprintf(f, "\\x%02x", c);
        else {
            fwrite(u + i, 1, n, f);
            i += n;
            continue;
        }
        i++;
    }
}

static int report_put_asset(FILE *f, const char *name)
{
    const asset *a = assets_find(name);
    if (!a) {
        fprintf(stderr, "rtscope: this build has no web asset %s\n", name);
        return -1;
    }
    fwrite(a->data, 1, a->len, f);
    return 0;
}

/* The page: the template with its @@SLOTS@@ filled in. */
static int report_html(FILE *f, const char *title, const profile *a,
                       const profile *b, const report_opts *opts)
{
    const asset *tpl = assets_find("report.html");
    if (!tpl) {
        fprintf(stderr, "rtscope: this build has no web asset report.html\n");
        return -1;
    }
    const char *s = (const char *)tpl->data, *end = s + tpl->len;
    int rc = 0;
    while (s < end && rc == 0) {
        const char *at = strstr(s, "@@");
        if (!at || at >= end) {
            fwrite(s, 1, (size_t)(end - s), f);
            break;
        }
        fwrite(s, 1, (size_t)(at - s), f);
        const char *close = strstr(at + 2, "@@");
        if (!close)
            return -1;
        size_t nl = (size_t)(close - (at + 2));
        const char *slot = at + 2;
        if (nl == 5 && memcmp(slot, "TITLE", 5) == 0) {
            report_html_text(f, title, strlen(title));
        } else if (nl == 4 && memcmp(slot, "DATA", 4) == 0) {
            rc = b ? report_write_diff_json(f, a, b, opts)
                   : report_write_json(f, a, opts);
        } else if (nl > 6 && memcmp(slot, "ASSET ", 6) == 0) {
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)(nl - 6), slot + 6);
            rc = report_put_asset(f, name);
        } else {
            fwrite(at, 1, nl + 4, f);
        }
        s = close + 2;
    }
    return rc || ferror(f) ? -1 : 0;
}

static const char *report_title_of(const profile *p, const char *input)
{
    if (p->args && p->args[0])
        return p->args;
    if (p->hp_job && p->hp_job[0])
        return p->hp_job;
    return input ? input : "heap profile";
}

int report_write_html(FILE *f, const profile *p, const report_opts *opts)
{
    return report_html(f, report_title_of(p, opts->input), p, NULL, opts);
}

int report_write_diff_html(FILE *f, const profile *a, const profile *b,
                           const report_opts *opts)
{
    return report_html(f, report_title_of(a, opts->input), a, b, opts);
}
