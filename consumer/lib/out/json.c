/* The reports' JSON writer: a string dictionary and escaped strings
 * (Note [untrusted strings in the page] in report.c). */
#include "report_impl.h"
#include "rtscope/strhash.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON output ----------------------------------------------------------
 */

static uint64_t report_hash(const char *s, size_t len)
{
    return rtscope_strhash(s, len);
}

void report_dict_free(report_dict *d)
{
    free(d->str);
    free(d->len);
    hmap_free(&d->index);
}

/* What report_dict_id looks for. */
typedef struct dict_key {
    const report_dict *d;
    const char *s;
    size_t len;
} dict_key;

static int dict_eq(const void *ctx, uint64_t e)
{
    const dict_key *k = ctx;
    return k->d->len[e] == k->len && memcmp(k->d->str[e], k->s, k->len) == 0;
}

/* Index of a string (borrowed: it must outlive the report). */
long report_dict_id(report_out *o, const char *s, size_t len)
{
    report_dict *d = &o->dict;
    uint64_t h = report_hash(s, len), e;
    dict_key k = {d, s, len};
    if (hmap_find(&d->index, h, dict_eq, &k, &e))
        return (long)e;
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
    if (hmap_add(&d->index, h, d->n) != 0)
        return o->nomem = 1, 0;
    d->str[d->n] = s;
    d->len[d->n] = len;
    return (long)d->n++;
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
