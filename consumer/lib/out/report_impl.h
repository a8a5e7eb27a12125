/* Internals of librtscope-out's reports, shared by report.c (one profile),
 * json.c (the JSON writer), diff.c (two profiles) and page.c (the HTML
 * page). */
#ifndef RTSCOPE_REPORT_IMPL_H
#define RTSCOPE_REPORT_IMPL_H

#include "rtscope/base/strtab.h"
#include "rtscope/out/report.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REPORT_SPARK 40 /* points in a table sparkline */

/* The sampled stacks' data (Note [A bounded call tree] in
 * report_samples.c): nodes under this share of a kind's total, and beyond
 * the heaviest REPORT_SAMPLES_MAX_NODES, merge into an "other" per
 * parent; the heaviest REPORT_SAMPLES_SITES sites. */
#define REPORT_SAMPLES_MIN_SHARE 0.001
#define REPORT_SAMPLES_MAX_NODES 2000
#define REPORT_SAMPLES_SITES 50

typedef struct report_out {
    FILE *f;
    /* The string dictionary: each distinct string once, referred to by
     * index; borrowed (the strings outlive the report). */
    strtab dict;
    int nomem;
} report_out;

typedef double (*report_field_fn)(const profile_band *b);

const char *report_sort_name(report_sort s);
const profile_band **report_order(const profile *p, const report_opts *o);
double report_f_max(const profile_band *b);
double report_f_mean(const profile_band *b);
double report_f_size(const profile_band *b);
double report_f_slope(const profile_band *b);
long report_dict_id(report_out *o, const char *s, size_t len);
size_t *report_buckets(const profile *p, size_t *count);
size_t report_utf8_len(const unsigned char *s, size_t n);
void report_ipe_cols(const profile_band *b, const char *col[5]);
void report_json_str(FILE *f, const char *str, size_t len);
void report_num(FILE *f, double v);
void report_options(FILE *f, const report_opts *o);
void report_profile(report_out *o, const profile *p, const char *input,
                    const profile_band *const *chart, const char *const *labels,
                    size_t nchart);
void report_series(FILE *f, const profile *p, const double *v, const size_t *bk,
                   size_t n);
void report_sid(report_out *o, const char *s);
void report_spark(FILE *f, const profile *p, const profile_band *b,
                  const size_t *bk, size_t n);
void report_strings(report_out *o);
/* The "samples" member (",\"samples\":{...}") when s has samples, else
 * nothing. The trees it builds (keep[0] allocation, keep[1] time) hold
 * the names the dictionary borrows: samples_tree_free them after
 * report_strings. */
void report_samples(report_out *o, const samples *s, samples_tree keep[2]);
/* One row of the data's "tree": a kept node, or an "other" (name -1,
 * other: how many of the parent's children it merges); the root is row 0
 * (name -1, parent -1). */
typedef struct report_samples_row {
    int64_t name; /* in the tree's names */
    long parent;  /* row */
    uint64_t weight, count, other;
} report_samples_row;
/* The rows of t, bounded and in preorder (Note [A bounded call tree]),
 * into *rows (malloc'd); returns how many, or -1 (memory). */
long report_samples_rows(const samples_tree *t, report_samples_row **rows);

#endif
