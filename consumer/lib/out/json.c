/* The reports' JSON writer: a string dictionary and escaped strings
 * (Note [untrusted strings in the page] in report.c). */
#include "rtscope/out/json.h"
#include "report_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON output ----------------------------------------------------------
 */

/* Index of a string (borrowed: it must outlive the report). */
long report_dict_id(report_out *o, const char *s, size_t len)
{
    o->dict.borrowed = 1;
    int64_t id = strtab_id(&o->dict, s, len);
    if (id < 0)
        return o->nomem = 1, 0;
    return (long)id;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
size_t report_utf8_len(const unsigned char *s, size_t n)
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
void report_json_str(FILE *f, const char *str, size_t len)
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

void report_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

void report_sid(report_out *o, const char *s)
{
    fprintf(o->f, "%ld", report_dict_id(o, s, strlen(s)));
}
