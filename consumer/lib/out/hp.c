/* The .hp writer; see hp.h. MARK lines (user markers) never fall inside a
 * sample: a marker that arrives while a sample is open waits for its end
 * (at most HP_MAX_PENDING_MARKS of them; hp2ps would misread more). */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/hp.h"

#include "rtscope/model/bands.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HP_MAX_PENDING_MARKS 1024

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
};

hp_writer *hp_writer_new(FILE *out, int by_address)
{
    hp_writer *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->bands = bands_new();
    if (!w->bands) {
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

/* hp2ps reads a band name up to white space, so replace it. A profile is
 * mostly band names: they go out a buffer at a time (putc a byte at a time
 * was half of `rtscope hp`'s instructions on a real -hi profile). */
static void hp_put_band(FILE *f, const char *s, size_t len)
{
    if (len == 0) {
        fputs("(none)", f);
        return;
    }
    char buf[256];
    while (len > 0) {
        size_t n = len < sizeof(buf) ? len : sizeof(buf);
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            /* white space (C locale) and control characters */
            buf[i] = c <= 0x20 || c == 0x7f ? '_' : (char)c;
        }
        // cppcheck-suppress uninitvar ; the loop above set buf[0..n)
        fwrite(buf, 1, n, f);
        s += n;
        len -= n;
    }
}

static void hp_write_header(hp_writer *w)
{
    if (w->header_done)
        return;
    w->header_done = 1;
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
        fprintf(w->out, "MARK %f\n", w->pending[i]);
    w->npending = 0;
}

static void hp_end_sample(hp_writer *w)
{
    fprintf(w->out, "END_SAMPLE %f\n", w->sample_time);
    w->in_sample = 0;
    hp_flush_marks(w);
}

static void hp_put_label(hp_writer *w, el_str label)
{
    /* -hi: the table's band name, kept by the IPE table (nothing to copy) */
    const ipe_entry *e = w->by_address ? NULL : bands_ipe(w->bands, label);
    if (e)
        hp_put_band(w->out, e->name, strlen(e->name));
    else
        hp_put_band(w->out, label.ptr, label.len);
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
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        hp_write_header(w);
        if (w->in_sample)
            hp_end_sample(w);
        w->sample_time = t;
        w->in_sample = 1;
        fprintf(w->out, "BEGIN_SAMPLE %f\n", t);
        break;
    case EL_HEAP_PROF_SAMPLE_END:
        if (w->in_sample)
            hp_end_sample(w);
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        if (!w->in_sample)
            break;
        hp_put_label(w, ev->u.sample_string.label);
        fprintf(w->out, "\t%" PRIu64 "\n", ev->u.sample_string.residency);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE: {
        if (!w->in_sample)
            break;
        size_t len;
        if (bands_ccs_name(w->bands, ev, &w->ccs_buf, &w->ccs_cap, &len) != 0) {
            w->nomem = 1;
            break;
        }
        hp_put_band(w->out, w->ccs_buf, len);
        fprintf(w->out, "\t%" PRIu64 "\n", ev->u.sample_cc.residency);
        break;
    }
    case EL_USER_MARKER:
        hp_write_header(w);
        if (w->in_sample) {
            if (w->npending < HP_MAX_PENDING_MARKS)
                w->pending[w->npending++] = t;
        } else {
            fprintf(w->out, "MARK %f\n", t);
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
    fprintf(w->out, "BEGIN_SAMPLE %f\nEND_SAMPLE %f\n", w->last_time,
            w->last_time);
    return w->nomem ? -1 : 0;
}
