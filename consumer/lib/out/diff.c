/* rtscope diff: two profiles, bands matched by name (report.h). */
#include "report_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    strtab_free(&o.dict);
    return rc || o.nomem || ferror(f) ? -1 : 0;
}
