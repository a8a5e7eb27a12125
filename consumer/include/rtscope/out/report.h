/* Reports of a finished profile (profile.h): the data as JSON, columnar
 * with a string dictionary, and the self-contained HTML page that embeds
 * that JSON with the web assets compiled into the binary (assets.h). The
 * JSON layout is documented in docs/html.md. */
#ifndef RTSCOPE_REPORT_H
#define RTSCOPE_REPORT_H

#include "rtscope/model/profile.h"
#include "rtscope/model/samples.h"

#include <stdio.h>

typedef enum report_sort {
    REPORT_SORT_SIZE,     /* integrated size, largest first */
    REPORT_SORT_STDDEV,   /* standard deviation, largest first */
    REPORT_SORT_NAME,     /* band name, A to Z */
    REPORT_SORT_GRADIENT, /* slope of the fitted line, steepest growth first */
} report_sort;

typedef struct report_opts {
    size_t bands; /* bands drawn in the charts, the rest is "other";
                     0: all */
    report_sort sort;
    int reverse;
    double y_axis; /* fixed maximum of the area chart (bytes), 0: auto */
    const char *input, *input_b; /* names shown in the page */
    /* rtscope serve: a JSON value written as the data's "live" member, and
     * the page may then connect to its own origin (Content-Security-Policy
     * connect-src 'self'); NULL: a report complete in itself */
    const char *live;
    /* the sampled call stacks (samples.h, finished or not): the data's
     * "samples" member and the page's flame graph and sites; NULL, or no
     * samples in it: none */
    const samples *samples;
} report_opts;

/* Parse a --sort value; returns 0 or -1. */
int report_parse_sort(const char *s, report_sort *out);

/* Write the data of one profile (--json), or the HTML page around it.
 * Return 0, or -1 on a write error or when out of memory. */
int report_write_json(FILE *f, const profile *p, const report_opts *o);
int report_write_html(FILE *f, const profile *p, const report_opts *o);

/* rtscope diff: two profiles, bands matched by name, sorted by growth. */
int report_write_diff_json(FILE *f, const profile *a, const profile *b,
                           const report_opts *o);
int report_write_diff_html(FILE *f, const profile *a, const profile *b,
                           const report_opts *o);

/* A self-contained page of another report in the reports' style (their
 * CSS inlined, nothing loaded, no script): the head and the title as <h1>,
 * then the caller's body, then the end. Return 0, or -1 on a write
 * error. report_html_escape writes text escaped for HTML (invalid UTF-8
 * and control characters as \xHH). */
int report_page_begin(FILE *f, const char *title);
int report_page_end(FILE *f);
void report_html_escape(FILE *f, const char *s);
/* The same, keeping line breaks (for <pre>). */
void report_html_escape_pre(FILE *f, const char *s);

#endif
