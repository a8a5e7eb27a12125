/* The explorer's duplicate views: ARR_WORDS by payload, with a histogram
 * of their sizes (lib/debug's dups, as `rtscope debug dups` counts them),
 * and duplicated strings (lib/debug's dup_strings): the groups of more
 * than one, most bytes wasted first, each expandable to its first
 * closures. */
#define _GNU_SOURCE
#include "explore.h"

#include "rtscope/debug/dup_strings.h"
#include "rtscope/debug/dups.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XD_SAMPLES 50 /* closures kept a group */
#define XD_ROWS 1000  /* groups shown */
#define XD_TEXT 60    /* characters or bytes of a row's text */

static int printable(unsigned char c)
{
    return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r';
}

/* The bytes p[0], p[step], ... (n of them) as text in quotes, escaped,
 * into buf; "..." after it when the payload has more (total). */
static void quoted(const unsigned char *p, size_t n, size_t step,
                   uint64_t total, char *buf, size_t len)
{
    size_t o = 0, k;
    buf[o++] = '"';
    for (k = 0; k < n && k < XD_TEXT && o + 4 < len; k++) {
        unsigned char c = p[k * step];
        if (c == '"' || c == '\\' || c < 0x20)
            buf[o++] = '\\';
        buf[o++] = c == '\n'   ? 'n'
                   : c == '\t' ? 't'
                   : c == '\r' ? 'r'
                               : (char)c;
    }
    snprintf(buf + o, len - o, "\"%s%s", total > k * step ? "..." : "",
             step == 2 ? " (UTF-16)" : "");
}

/* What a payload starts with: text in quotes if it is printable ASCII or
 * UTF-16 (Data.Text's arrays), else its first bytes in hex; "..." when
 * there is more. */
static void payload_text(const dbg_dup_group *g, char *buf, size_t len)
{
    size_t n = g->payload < DBG_DUP_HEAD ? (size_t)g->payload : DBG_DUP_HEAD;
    size_t k = 0, o = 0, w = 0;
    while (k < n && printable(g->head[k]))
        k++;
    while (2 * w + 1 < n && printable(g->head[2 * w]) && !g->head[2 * w + 1])
        w++;
    if (n > 0 && k == n) {
        quoted(g->head, n, 1, g->payload, buf, len);
        return;
    }
    if (n > 0 && n % 2 == 0 && 2 * w == n) {
        quoted(g->head, w, 2, g->payload, buf, len);
        return;
    }
    buf[0] = '\0';
    for (k = 0; k < n && k < 16 && o + 4 < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%02x", k ? " " : "",
                              g->head[k]);
    snprintf(buf + o, len - o, "%s", g->payload > k ? "..." : "");
}

/* A view's last line: how many groups (n, what they are), how long it
 * took, what else the user can do (more). 0, or -1 (t->err). */
static int view_end(xt_tree *t, size_t n, const char *what, const char *more,
                    double took)
{
    char buf[300];
    snprintf(buf, sizeof(buf),
             "%zu %s%s (read in %.2f s); Right: a row's first closures%s", n,
             what, n > XD_ROWS ? ", the first 1000 shown" : "", took, more);
    return xt_note_add(t, XT_NONE, buf) == XT_NONE ? -1 : xt_relist(t);
}

/* The sizes of all ARR_WORDS (copies or not), a line a power of two. */
static int histogram(xt_tree *t, const dbg_dups *d)
{
    char buf[200];
    snprintf(buf, sizeof(buf), "%-22s %9s %12s %9s %12s",
             "closure size histogram", "arrays", "bytes", "copies", "wasted");
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    for (unsigned k = 0; k < DBG_DUP_BUCKETS; k++) {
        const dbg_dup_bucket *b = &d->hist[k];
        if (!b->count)
            continue;
        char range[40];
        snprintf(range, sizeof(range), "%" PRIu64 " - %" PRIu64 " B",
                 (uint64_t)1 << k, ((uint64_t)2 << k) - 1);
        snprintf(buf, sizeof(buf),
                 "  %-20s %9" PRIu64 " %12" PRIu64 " %9" PRIu64 " %12" PRIu64,
                 range, b->count, b->bytes, b->dups, b->wasted);
        if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
            return -1;
    }
    return 0;
}

static int arr_words_view(xt_tree *t, const dbg_dups *d, double took)
{
    char buf[400], text[200];
    if (xt_view_push(t, "ARR_WORDS duplicates") != 0)
        return -1;
    snprintf(buf, sizeof(buf),
             "%" PRIu64 " ARR_WORDS, %" PRIu64 " bytes: %" PRIu64
             " are copies of another (%" PRIu64 " bytes could be shared)%s",
             d->candidates, d->candidate_bytes, d->dup_closures, d->dup_bytes,
             d->no_blocks[0] ? "; static ones counted too" : "");
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE || histogram(t, d) != 0)
        return -1;
    snprintf(buf, sizeof(buf), "%10s %8s %12s  %s", "count", "size", "wasted",
             "payload");
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    for (size_t i = 0; i < d->n && i < XD_ROWS; i++) {
        const dbg_dup_group *g = &d->groups[i];
        payload_text(g, text, sizeof(text));
        snprintf(buf, sizeof(buf),
                 "%10" PRIu64 " %8" PRIu32 " %12" PRIu64 "  %" PRIu64
                 " bytes %s",
                 g->count, g->size, dbg_dup_wasted(g), g->payload, text);
        if (xt_row_add(t, XT_NONE, strdup(buf), g->samp, g->nsamp) == XT_NONE)
            return -1;
    }
    return view_end(t, d->n, "groups of copies",
                    ", w writes a payload to a file", took);
}

/* A string as Haskell shows it, cut at XD_TEXT characters: "..." after
 * the quotes when it is longer or not yet evaluated to its end. */
static void string_text(const dbg_strings *s, const dbg_string_group *g,
                        char *out, size_t len)
{
    char raw[XD_TEXT * 4 + 8];
    dbg_strings_text(s, g->example, raw, sizeof(raw));
    size_t o = 0, nch = 0;
    o += (size_t)snprintf(out, len, "\"");
    for (const unsigned char *p = (const unsigned char *)raw;
         *p && nch < XD_TEXT && o + 12 < len; nch++) {
        unsigned cp = *p++;
        int extra = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;
        if (extra)
            cp &= 0x3fu >> extra;
        for (; extra > 0 && (*p & 0xc0) == 0x80; extra--)
            cp = cp << 6 | (*p++ & 0x3fu);
        if (cp == '\n' || cp == '\t' || cp == '"' || cp == '\\')
            o += (size_t)snprintf(out + o, len - o, "\\%c",
                                  cp == '\n'   ? 'n'
                                  : cp == '\t' ? 't'
                                               : (char)cp);
        else if (cp < 0x20 || cp >= 0x7f)
            o += (size_t)snprintf(out + o, len - o, "\\%u", cp);
        else
            out[o++] = (char)cp;
    }
    snprintf(out + o, len - o, "\"%s",
             g->length > nch || !g->ends ? "..." : "");
}

static int strings_view(xt_tree *t, const dbg_strings *s, double took)
{
    char buf[600], text[400];
    if (xt_view_push(t, "Duplicate strings") != 0)
        return -1;
    snprintf(buf, sizeof(buf),
             "%" PRIu64 " strings, %" PRIu64
             " bytes in their (:) cells: %" PRIu64
             " are copies of another (%" PRIu64 " bytes could be shared)",
             s->strings, s->bytes, s->dup_strings, s->dup_bytes);
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    snprintf(buf, sizeof(buf), "%10s %8s %12s  %s", "count", "length", "wasted",
             "text");
    if (xt_note_add(t, XT_NONE, buf) == XT_NONE)
        return -1;
    for (size_t i = 0; i < s->n && i < XD_ROWS; i++) {
        const dbg_string_group *g = &s->groups[i];
        string_text(s, g, text, sizeof(text));
        snprintf(buf, sizeof(buf),
                 "%10" PRIu64 " %8" PRIu64 " %12" PRIu64 "  %s", g->count,
                 g->length, dbg_string_wasted(g), text);
        if (xt_row_add(t, XT_NONE, strdup(buf), g->samp, g->nsamp) == XT_NONE)
            return -1;
    }
    return view_end(t, s->n, "strings with copies", "", took);
}

static int arr_words(xt_tree *t, const uint64_t *roots, size_t nroots,
                     const xt_progress *p)
{
    dbg_dups d;
    double t0 = xt_now();
    dbg_dups_init(&d, t->h, XD_SAMPLES);
    d.only_type = GHC_ARR_WORDS;
    int r = xt_walk(t, roots, nroots, dbg_dups_visit, &d, p);
    if (r == 0 && (d.err[0] || d.nomem))
        r = -1, snprintf(t->err, sizeof(t->err), "%.500s",
                         d.err[0] ? d.err : "out of memory");
    if (r == 0) {
        dbg_dups_finish(&d);
        r = arr_words_view(t, &d, xt_now() - t0);
    }
    dbg_dups_free(&d);
    return r;
}

static int strings(xt_tree *t, const uint64_t *roots, size_t nroots,
                   const xt_progress *p)
{
    dbg_strings s;
    double t0 = xt_now();
    dbg_strings_init(&s, t->h, XD_SAMPLES);
    int r = xt_walk(t, roots, nroots, dbg_strings_visit, &s, p);
    if (r == 0 && (s.nomem || dbg_strings_finish(&s) != 0))
        r = -1, snprintf(t->err, sizeof(t->err), "out of memory");
    if (r == 0)
        r = strings_view(t, &s, xt_now() - t0);
    dbg_strings_free(&s);
    return r;
}

int xt_dups(xt_tree *t, const uint64_t *roots, size_t nroots, int strs,
            const xt_progress *p)
{
    int r =
        strs ? strings(t, roots, nroots, p) : arr_words(t, roots, nroots, p);
    if (r > 0)
        snprintf(t->err, sizeof(t->err), "cancelled");
    return r;
}
