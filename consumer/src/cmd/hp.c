/* rtscope hp: write the heap profile in an eventlog as a .hp file that
 * hp2ps accepts: JOB/DATE/SAMPLE_UNIT/VALUE_UNIT, samples in time order,
 * MARK lines for user markers (never inside a sample).
 *
 * Sample times are the eventlog's: elapsed seconds since the program
 * started. (The RTS's own .hp uses mutator CPU seconds, so times differ;
 * bands and values do not.) With -hi (breakdown 8) the RTS labels bands by
 * info-table address; they are named from IPE events unless --by-address.
 */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/bands.h"
#include "cli.h"

#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HP_MAX_PENDING_MARKS 1024

typedef struct hp_state {
    FILE *out;
    int by_address;
    int header_done;
    int in_sample;
    double sample_time, last_time;
    char *job;
    char date[64];
    bands *bands; /* names bands: IPE entries, cost centres */
    char *ccs_buf; /* a cost-centre stack's name */
    size_t ccs_cap;
    double pending[HP_MAX_PENDING_MARKS];
    size_t npending;
    uint64_t samples;
    int nomem;
} hp_state;

/* hp2ps reads a band name up to white space, so replace it. */
static void hp_put_band(FILE *f, const char *s, size_t len)
{
    if (len == 0) {
        fputs("(none)", f);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        putc(isspace(c) || c < 0x20 || c == 0x7f ? '_' : c, f);
    }
}

static void hp_write_header(hp_state *s)
{
    if (s->header_done)
        return;
    s->header_done = 1;
    fputs("JOB \"", s->out);
    for (const char *p = s->job ? s->job : "unknown"; *p; p++)
        putc(*p == '"' ? '\'' : (*p == '\n' ? ' ' : *p), s->out);
    fputs("\"\n", s->out);
    fprintf(s->out, "DATE \"%s\"\n", s->date[0] ? s->date : "unknown");
    fputs("SAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n", s->out);
    fputs("BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n", s->out);
}

static void hp_flush_marks(hp_state *s)
{
    for (size_t i = 0; i < s->npending; i++)
        fprintf(s->out, "MARK %f\n", s->pending[i]);
    s->npending = 0;
}

static void hp_end_sample(hp_state *s)
{
    fprintf(s->out, "END_SAMPLE %f\n", s->sample_time);
    s->in_sample = 0;
    hp_flush_marks(s);
}

static void hp_put_label(hp_state *s, el_str label)
{
    if (s->by_address) {
        hp_put_band(s->out, label.ptr, label.len);
        return;
    }
    char *name = bands_label_name(s->bands, label);
    if (!name) {
        s->nomem = 1;
        return;
    }
    hp_put_band(s->out, name, strlen(name));
    free(name);
}

static int hp_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    hp_state *s = ctx;
    (void)types;
    double t = (double)ev->ts / 1e9;
    if (t > s->last_time)
        s->last_time = t;
    switch (ev->type) {
    case EL_PROGRAM_ARGS:
        if (!s->job) {
            s->job = malloc(ev->u.capset_vec.vec.len + 1);
            if (!s->job)
                return s->nomem = 1;
            memcpy(s->job, ev->u.capset_vec.vec.ptr, ev->u.capset_vec.vec.len);
            s->job[ev->u.capset_vec.vec.len] = 0;
            for (size_t i = 0; i < ev->u.capset_vec.vec.len; i++)
                if (!s->job[i])
                    s->job[i] = ' ';
        }
        break;
    case EL_WALL_CLOCK_TIME:
        if (!s->date[0]) {
            /* Same form as the RTS: "Sun Nov 22 02:42 2026". */
            time_t secs = (time_t)ev->u.wall_clock.sec;
            struct tm tm;
            if (localtime_r(&secs, &tm))
                strftime(s->date, sizeof(s->date), "%a %b %d %H:%M %Y", &tm);
        }
        break;
    case EL_HEAP_PROF_BEGIN:
    case EL_IPE:
    case EL_HEAP_PROF_COST_CENTRE:
        if (bands_take(s->bands, ev) != 0)
            s->nomem = 1;
        break;
    case EL_HEAP_PROF_SAMPLE_BEGIN:
    case EL_HEAP_BIO_PROF_SAMPLE_BEGIN:
        hp_write_header(s);
        if (s->in_sample)
            hp_end_sample(s);
        s->sample_time = t;
        s->in_sample = 1;
        s->samples++;
        fprintf(s->out, "BEGIN_SAMPLE %f\n", t);
        break;
    case EL_HEAP_PROF_SAMPLE_END:
        if (s->in_sample)
            hp_end_sample(s);
        break;
    case EL_HEAP_PROF_SAMPLE_STRING:
        if (!s->in_sample)
            break;
        hp_put_label(s, ev->u.sample_string.label);
        fprintf(s->out, "\t%" PRIu64 "\n", ev->u.sample_string.residency);
        break;
    case EL_HEAP_PROF_SAMPLE_COST_CENTRE:
        if (!s->in_sample)
            break;
        size_t len;
        if (bands_ccs_name(s->bands, ev, &s->ccs_buf, &s->ccs_cap, &len) != 0) {
            s->nomem = 1;
            break;
        }
        hp_put_band(s->out, s->ccs_buf, len);
        fprintf(s->out, "\t%" PRIu64 "\n", ev->u.sample_cc.residency);
        break;
    case EL_USER_MARKER:
        hp_write_header(s);
        if (s->in_sample) {
            if (s->npending < HP_MAX_PENDING_MARKS)
                s->pending[s->npending++] = t;
        } else {
            fprintf(s->out, "MARK %f\n", t);
        }
        break;
    default:
        break;
    }
    return s->nomem || ferror(s->out);
}

static const char hp_usage[] =
    "usage: rtscope hp [options] -o FILE.hp INPUT\n"
    "\n"
    "Write the heap profile recorded in an eventlog (+RTS -h... -l) as a .hp\n"
    "file for hp2ps: samples in time order (elapsed seconds), MARK lines for\n"
    "user markers. With -hi, bands are named from IPE events\n"
    "(TABLE_NAME@SRCLOC).\n"
    "\n"
    "options:\n"
    "  -o, --output=FILE   where to write (required; '-' for stdout)\n"
    "  --by-address        -hi: name bands by info-table "
    "address\n" CLI_COMMON_HELP;

static int hp_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"by-address", no_argument, NULL, 'A'},
        CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    cli_input_opts io;
    hp_state s;
    const char *output = NULL;
    int c;
    memset(&io, 0, sizeof(io));
    memset(&s, 0, sizeof(s));
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'A':
            s.by_address = 1;
            break;
        default:
            if (c == '?' || cli_common_option(&io, c, optarg) != 0)
                return cli_usage_error(&cli_cmd_hp, "bad option");
        }
    }
    if (!output)
        return cli_usage_error(&cli_cmd_hp, "-o FILE.hp is required");
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_hp, "expected one INPUT");
    s.bands = bands_new();
    if (!s.bands) {
        fprintf(stderr, "rtscope: out of memory\n");
        return CLI_EXIT_DATA;
    }
    s.out = cli_open_output(output);
    if (!s.out) {
        bands_free(s.bands);
        return CLI_EXIT_USAGE;
    }
    /* The sink looks at these; the profile's end time is the last event's
     * of any type (res.last_ts). */
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
    uint8_t wanted[65536];
    memset(wanted, 0, sizeof(wanted));
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        wanted[types[i]] = 1;
    io.reader.wanted = wanted;
    el_reader_result res;
    int rc = cli_read(argv[optind], &io, hp_sink, &s, &res);
    if ((double)res.last_ts / 1e9 > s.last_time)
        s.last_time = (double)res.last_ts / 1e9;
    if (s.nomem) {
        fprintf(stderr, "rtscope: %s: out of memory\n", argv[optind]);
        rc = CLI_EXIT_DATA;
    }
    /* Close the profile as the RTS does: an empty sample at the end. */
    hp_write_header(&s);
    if (s.in_sample)
        hp_end_sample(&s);
    hp_flush_marks(&s);
    if (s.last_time < s.sample_time)
        s.last_time = s.sample_time;
    fprintf(s.out, "BEGIN_SAMPLE %f\nEND_SAMPLE %f\n", s.last_time,
            s.last_time);
    if (cli_close_output(s.out, output) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_DATA;
    bands_free(s.bands);
    free(s.ccs_buf);
    free(s.job);
    return rc;
}

const cli_command cli_cmd_hp = {
    "hp",
    "write the heap profile as a .hp file for hp2ps",
    hp_usage,
    hp_run,
    NULL,
    NULL,
};
