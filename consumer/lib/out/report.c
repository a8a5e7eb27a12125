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
#include "report_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

const char *report_sort_name(report_sort s)
{
    static const char *const names[] = {"size", "stddev", "name", "gradient"};
    return names[s];
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
        /* integral / 2^20 (exact): what profile_view updates */
        a = x->size_mib_s;
        b = y->size_mib_s;
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
const profile_band **report_order(const profile *p, const report_opts *o)
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
size_t *report_buckets(const profile *p, size_t *count)
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
void report_series(FILE *f, const profile *p, const double *v, const size_t *bk,
                   size_t n)
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
void report_spark(FILE *f, const profile *p, const profile_band *b,
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
            sum += profile_band_bucket(p, (size_t)(b - p->bands), bk[i]);
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
    if (p->runs > 1) {
        fprintf(f, ",\"runs\":%u,\"first_date\":", p->runs);
        report_sid(o, p->first_date);
    }
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
            (unsigned long long)p->events,
            ipe_table_count(bands_ipe_table(p->names)),
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
                v[bk[i]] = profile_band_bucket(p, (size_t)(chart[c] - p->bands),
                                               bk[i]);
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
            v[bk[i]] += profile_band_bucket(p, b, bk[i]);
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

void report_profile(report_out *o, const profile *p, const char *input,
                    const profile_band *const *chart, const char *const *labels,
                    size_t nchart)
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
void report_ipe_cols(const profile_band *b, const char *col[5])
{
    const ipe_entry *e = b ? b->ipe : NULL;
    col[0] = e ? e->label : "";
    col[1] = e ? ipe_closure_type_name(e->closure_desc) : "";
    col[2] = e ? e->ty_desc : "";
    col[3] = e ? e->module : "";
    col[4] = e ? e->srcloc : "";
}

void report_options(FILE *f, const report_opts *o)
{
    fprintf(f,
            ",\"options\":{\"bands\":%zu,\"sort\":\"%s\",\"reverse\":%s,"
            "\"y_axis\":",
            o->bands, report_sort_name(o->sort), o->reverse ? "true" : "false");
    report_num(f, o->y_axis > 0 ? o->y_axis : NAN);
    putc('}', f);
}

void report_strings(report_out *o)
{
    fputs(",\"strings\":[", o->f);
    for (size_t i = 0; i < o->dict.n; i++) {
        if (i)
            putc(',', o->f);
        report_json_str(o->f, o->dict.s[i], o->dict.len[i]);
    }
    putc(']', o->f);
}

double report_f_size(const profile_band *b)
{
    return b->size_mib_s;
}
double report_f_mean(const profile_band *b)
{
    return b->mean;
}
double report_f_max(const profile_band *b)
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
double report_f_slope(const profile_band *b)
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
    samples_tree keep[2];
    report_samples(o, opts->samples, keep);
    report_options(f, opts);
    if (opts->live)
        fprintf(f, ",\"live\":%s", opts->live);
    report_strings(o);
    fputs("}", f);
    samples_tree_free(&keep[0]);
    samples_tree_free(&keep[1]);
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
    strtab_free(&o.dict);
    return rc || o.nomem || ferror(f) ? -1 : 0;
}
