/* The .hp writer; see hp.h. MARK lines (user markers) never fall inside a
 * sample: a marker that arrives while a sample is open waits for its end
 * (at most HP_MAX_PENDING_MARKS of them; hp2ps would misread more). */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/hp.h"

#include "rtscope/base/hmap.h"
#include "rtscope/model/bands.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HP_MAX_PENDING_MARKS 1024
#define HP_OUT_BUF ((size_t)64 * 1024)

/* Note [Writing sample lines]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A .hp file is almost all sample lines, one per band per census ("NAME\t
 * BYTES\n"): a million of them, 50 MB, for a 31 MB -hi eventlog of a real
 * program, and what `rtscope hp` spends its time on. So a line is put
 * together in the writer's own buffer (written out 64 KiB at a time, and
 * before anything written with stdio), the number with a small decimal
 * conversion instead of fprintf, and a -hi band's name, white space
 * replaced, is made once per info table and kept by address (names),
 * all made again should an IPE event replace the entry of a table named
 * already (ipe_table_put). Lines are byte for byte what fprintf and
 * hp_put_band wrote.
 */

struct hp_writer {
    FILE *out;
    int by_address;
    int header_done;
    int in_sample;
    double sample_time, last_time;
    char *job;
    char date[64];
    bands *bands;  /* names bands: IPE entries, cost centres */
    char *ccs_buf; /* a cost-centre stack's name */
    size_t ccs_cap;
    double pending[HP_MAX_PENDING_MARKS];
    size_t npending;
    int nomem;
    char *obuf; /* lines not yet written: Note [Writing sample lines] */
    size_t olen;
    hmap names;      /* -hi: info-table address -> offset << 32 | length */
    char *name_text; /* the names, white space replaced */
    size_t name_len, name_cap;
};

hp_writer *hp_writer_new(FILE *out, int by_address)
{
    hp_writer *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->bands = bands_new();
    w->obuf = malloc(HP_OUT_BUF);
    if (!w->bands || !w->obuf) {
        bands_free(w->bands);
        free(w->obuf);
        free(w);
        return NULL;
    }
    w->out = out;
    w->by_address = by_address;
    return w;
}

void hp_writer_free(hp_writer *w)
{
    if (!w)
        return;
    bands_free(w->bands);
    free(w->ccs_buf);
    free(w->job);
    free(w->obuf);
    hmap_free(&w->names);
    free(w->name_text);
    free(w);
}

void hp_writer_want(uint8_t wanted[65536])
{
    static const uint16_t types[] = {
        EL_PROGRAM_ARGS,
        EL_WALL_CLOCK_TIME,
        EL_HEAP_PROF_BEGIN,
        EL_IPE,
        EL_HEAP_PROF_COST_CENTRE,
        EL_HEAP_PROF_SAMPLE_BEGIN,
        EL_HEAP_BIO_PROF_SAMPLE_BEGIN,
        EL_HEAP_PROF_SAMPLE_END,
        EL_HEAP_PROF_SAMPLE_STRING,
        EL_HEAP_PROF_SAMPLE_COST_CENTRE,
        EL_USER_MARKER,
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        wanted[types[i]] = 1;
}

/* Write out the buffered lines. */
static void hp_out_flush(hp_writer *w)
{
    if (w->olen)
        fwrite(w->obuf, 1, w->olen, w->out);
    w->olen = 0;
}

/* Room for n more bytes in the buffer (n <= HP_OUT_BUF). */
static char *hp_out_room(hp_writer *w, size_t n)
{
    if (w->olen + n > HP_OUT_BUF)
        hp_out_flush(w);
    return w->obuf + w->olen;
}

/* Everything but sample lines: through stdio, after the buffered lines. */
static void hp_printf(hp_writer *w, const char *fmt, ...)
{
    hp_out_flush(w);
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vfprintf(w->out, fmt, ap);
    va_end(ap);
}

/* hp2ps reads a band name up to white space, so replace it: s[0, len)
 * into dst, "(none)" for an empty name. Returns the bytes written (at most
 * the larger of len and 6). */
static size_t hp_band_text(char *dst, const char *s, size_t len)
{
    if (len == 0) {
        // NOLINTNEXTLINE(bugprone-not-null-terminated-result): not a C string
        memcpy(dst, "(none)", 6);
        return 6;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        /* white space (C locale) and control characters */
        dst[i] = c <= 0x20 || c == 0x7f ? '_' : (char)c;
    }
    return len;
}

/* A band name into the buffer, a buffer at a time if long. */
static void hp_put_band(hp_writer *w, const char *s, size_t len)
{
    do {
        size_t n = len < HP_OUT_BUF / 2 ? len : HP_OUT_BUF / 2;
        char *d = hp_out_room(w, n < 6 ? 6 : n);
        w->olen += hp_band_text(d, s, n);
        s += n;
        len -= n;
    } while (len > 0);
}

/* "\t" BYTES "\n", as fprintf's "\t%" PRIu64 "\n". */
static void hp_put_bytes(hp_writer *w, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    char *d = hp_out_room(w, n + 2);
    *d++ = '\t';
    for (size_t i = 0; i < n; i++)
        d[i] = tmp[n - 1 - i];
    d[n] = '\n';
    w->olen += n + 2;
}

/* The names made so far no longer hold (Note [Writing sample lines]). */
static void hp_forget_names(hp_writer *w)
{
    hmap_free(&w->names);
    w->name_len = 0;
}

/* -hi: the band name of info table addr, white space replaced, made once
 * (Note [Writing sample lines]); 0 when the table has no IPE entry or on
 * no memory (the caller then names the band by its label). */
static int hp_table_name(hp_writer *w, uint64_t addr, const char **name,
                         size_t *len)
{
    uint64_t v;
    if (!hmap_get(&w->names, addr, &v)) {
        const ipe_entry *e = ipe_table_get(bands_ipe_table(w->bands), addr);
        if (!e)
            return 0;
        size_t n = strlen(e->name);
        if (n > UINT32_MAX - 6 || w->name_len > UINT32_MAX - 6 - n)
            return 0;
        if (w->name_len + n + 6 > w->name_cap) {
            size_t nc = (w->name_len + n + 6) * 2;
            char *nt = realloc(w->name_text, nc);
            if (!nt)
                return 0;
            w->name_text = nt;
            w->name_cap = nc;
        }
        size_t k = hp_band_text(w->name_text + w->name_len, e->name, n);
        v = (uint64_t)w->name_len << 32 | k;
        if (hmap_put(&w->names, addr, v) != 0)
            return 0;
        w->name_len += k;
    }
    *name = w->name_text + (v >> 32);
    *len = (size_t)(v & UINT32_MAX);
    return 1;
}

static void hp_write_header(hp_writer *w)
{
    if (w->header_done)
        return;
    w->header_done = 1;
    hp_out_flush(w);
    fputs("JOB \"", w->out);
    for (const char *p = w->job ? w->job : "unknown"; *p; p++)
        putc(*p == '"' ? '\'' : (*p == '\n' ? ' ' : *p), w->out);
    fputs("\"\n", w->out);
    fprintf(w->out, "DATE \"%s\"\n", w->date[0] ? w->date : "unknown");
    fputs("SAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n", w->out);
    fputs("BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n", w->out);
}

static void hp_flush_marks(hp_writer *w)
{
    for (size_t i = 0; i < w->npending; i++)
        hp_printf(w, "MARK %f\n", w->pending[i]);
    w->npending = 0;
}

static void hp_end_sample(hp_writer *w)
{
    hp_printf(w, "END_SAMPLE %f\n", w->sample_time);
    w->in_sample = 0;
    hp_flush_marks(w);
}

static void hp_put_label(hp_writer *w, el_str label)
{
    /* -hi: the table's band name (Note [Writing sample lines]) */
    uint64_t addr;
    const char *name;
    size_t len;
    if (!w->by_address &&
        bands_breakdown(w->bands) == EL_BREAKDOWN_INFO_TABLE &&
        ipe_parse_address(label, &addr) == 0 &&
        hp_table_name(w, addr, &name, &len)) {
        memcpy(hp_out_room(w, len), name, len);
        w->olen += len;
        return;
    }
    hp_put_band(w, label.ptr, label.len);
}

static void hp_take_job(hp_writer *w, el_str args)
{
    if (w->job)
        return;
    w->job = malloc(args.len + 1);
    if (!w->job) {
        w->nomem = 1;
        return;
    }
    memcpy(w->job, args.ptr, args.len);
    w->job[args.len] = 0;
    for (size_t i = 0; i < args.len; i++) /* NUL-separated arguments */
        if (!w->job[i])
            w->job[i] = ' ';
}

int hp_writer_event(hp_writer *w, const el_event *ev)
{
    double t = (double)ev->ts / 1e9;
    if (t > w->last_time)
        w->last_time = t;
    switch (ev->type) {
    case EL_PROGRAM_ARGS:
        hp_take_job(w, ev->u.capset_vec.vec);
        break;
    case EL_WALL_CLOCK_TIME:
        if (!w->date[0]) {
            /* Same form as the RTS: "Sun Nov 22 02:42 2026". */
            time_t secs = (time_t)ev->u.wall_clock.sec;
            struct tm tm;
            if (localtime_r(&secs, &tm))
                strftime(w->date, sizeof(w->date), "%a %b %d %H:%M %Y", &tm);
        }
        break;
    case EL_HEAP_PROF_BEGIN:
    case EL_IPE:
    case EL_HEAP_PROF_COST_CENTRE:
        if (bands_take(w->bands, ev) != 0)
            w->nomem = 1;
        /* a later entry replaces a table's name (ipe_table_put) */
        if (ev->type == EL_IPE && hmap_get(&w->names, ev->u.ipe.info, NULL))
            hp_forget_names(w);
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        hp_write_header(w);
        if (w->in_sample)
            hp_end_sample(w);
        w->sample_time = t;
        w->in_sample = 1;
        hp_printf(w, "BEGIN_SAMPLE %f\n", t);
        break;
    case EL_HEAP_PROF_SAMPLE_END:
        if (w->in_sample)
            hp_end_sample(w);
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        if (!w->in_sample)
            break;
        hp_put_label(w, ev->u.sample_string.label);
        hp_put_bytes(w, ev->u.sample_string.residency);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE: {
        if (!w->in_sample)
            break;
        size_t len;
        if (bands_ccs_name(w->bands, ev, &w->ccs_buf, &w->ccs_cap, &len) != 0) {
            w->nomem = 1;
            break;
        }
        hp_put_band(w, w->ccs_buf, len);
        hp_put_bytes(w, ev->u.sample_cc.residency);
        break;
    }
    case EL_USER_MARKER:
        hp_write_header(w);
        if (w->in_sample) {
            if (w->npending < HP_MAX_PENDING_MARKS)
                w->pending[w->npending++] = t;
        } else {
            hp_printf(w, "MARK %f\n", t);
        }
        break;
    default:
        break;
    }
    return w->nomem || ferror(w->out);
}

int hp_writer_finish(hp_writer *w, uint64_t last_ts)
{
    if ((double)last_ts / 1e9 > w->last_time)
        w->last_time = (double)last_ts / 1e9;
    hp_write_header(w);
    if (w->in_sample)
        hp_end_sample(w);
    hp_flush_marks(w);
    if (w->last_time < w->sample_time)
        w->last_time = w->sample_time;
    hp_printf(w, "BEGIN_SAMPLE %f\nEND_SAMPLE %f\n", w->last_time,
              w->last_time);
    hp_out_flush(w);
    return w->nomem ? -1 : 0;
}
