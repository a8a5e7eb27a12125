/* The self-contained HTML page of a report (Note [untrusted strings in
 * the page] in report.c). */
#include "report_impl.h"

#include "assets.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        } else if (nl == 7 && memcmp(slot, "CONNECT", 7) == 0) {
            if (opts->live)
                fputs("; connect-src 'self'", f);
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

/* ---- pages of other reports ---------------------------------------------- */

void report_html_escape(FILE *f, const char *s)
{
    report_html_text(f, s, strlen(s));
}

void report_html_escape_pre(FILE *f, const char *s)
{
    for (const char *nl; (nl = strchr(s, '\n')) != NULL; s = nl + 1) {
        report_html_text(f, s, (size_t)(nl - s));
        fputc('\n', f);
    }
    report_html_escape(f, s);
}

int report_page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
          "'none'; "
          "style-src 'unsafe-inline'\">\n<title>",
          f);
    report_html_escape(f, title);
    fputs("</title>\n<style>\n", f);
    if (report_put_asset(f, "report.css") != 0)
        return -1;
    fputs("\nbody { margin: 1em 2em; }\n"
          "table.rows { border-collapse: collapse; margin: 0.5em 0 1.5em; }\n"
          "table.rows td, table.rows th { padding: 2px 10px; text-align: "
          "right; }\n"
          "table.rows td.name, table.rows th.name { text-align: left; }\n"
          "pre.path { font-size: 12px; overflow-x: auto; }\n"
          "</style>\n</head>\n<body>\n<h1>",
          f);
    report_html_escape(f, title);
    fputs("</h1>\n", f);
    return ferror(f) ? -1 : 0;
}

int report_page_end(FILE *f)
{
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}
