#define _POSIX_C_SOURCE 200809L
#include "profile_load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOAD_PROGRESS_MIN (64ull << 20) /* show progress from 64 MiB */
#define LOAD_PROGRESS_EVERY 65536       /* events between clock checks */

typedef struct load_state {
    profile *p;
    const profile_load_also *also;
    uint8_t mine[65536];   /* the profile's types */
    uint8_t theirs[65536]; /* also's */
    const char *input;
    int progress;
    uint64_t total; /* input size, 0: unknown */
    uint64_t countdown;
    double next; /* time of the next progress line */
    int shown;
} load_state;

static double load_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void load_progress(load_state *s)
{
    double now = load_now();
    if (now < s->next)
        return;
    s->next = now + 0.25;
    double mib = (double)s->p->input_bytes / (1024.0 * 1024.0);
    if (s->total)
        fprintf(stderr, "\rrtscope: %s: %.0f of %.0f MiB (%.0f%%) ", s->input,
                mib, (double)s->total / (1024.0 * 1024.0),
                100.0 * (double)s->p->input_bytes / (double)s->total);
    else
        fprintf(stderr, "\rrtscope: %s: %.0f MiB ", s->input, mib);
    s->shown = 1;
}

static int load_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    load_state *s = ctx;
    int rc = s->mine[ev->type] ? profile_sink(s->p, ev, types) : 0;
    if (rc == 0 && s->also && s->theirs[ev->type])
        rc = s->also->sink(s->also->ctx, ev, types);
    if (s->progress && --s->countdown == 0) {
        s->countdown = LOAD_PROGRESS_EVERY;
        load_progress(s);
    }
    return rc;
}

int profile_load_is_hp(const char *input, int force_hp)
{
    size_t n = strlen(input);
    return force_hp || (n > 3 && strcmp(input + n - 3, ".hp") == 0);
}

static int load_hp(profile *p, const char *input)
{
    FILE *f = strcmp(input, "-") == 0 ? stdin : fopen(input, "r");
    if (!f) {
        fprintf(stderr, "rtscope: %s: cannot read: %s\n", input,
                strerror(errno));
        return CLI_EXIT_DATA;
    }
    char msg[200];
    int rc = profile_read_hp(p, f, msg, sizeof(msg));
    if (f != stdin)
        fclose(f);
    if (rc != 0) {
        fprintf(stderr, "rtscope: %s: %s\n", input, msg);
        return CLI_EXIT_DATA;
    }
    if (p->hp_cut)
        fprintf(stderr,
                "rtscope: %s: warning: the file ends inside the sample at "
                "%.6f s (%zu values read, no END_SAMPLE: the program was "
                "stopped while writing it); that sample is left out\n",
                input, p->hp_cut_time, p->hp_cut_values);
    return CLI_EXIT_OK;
}

int profile_load(profile *p, const char *input, int is_hp,
                 const cli_input_opts *io)
{
    return profile_load_with(p, input, is_hp, io, NULL);
}

int profile_load_with(profile *p, const char *input, int is_hp,
                      const cli_input_opts *io, const profile_load_also *also)
{
    int rc;
    if (is_hp) {
        rc = load_hp(p, input);
    } else {
        /* two tables of every type: on the heap, not the stack */
        load_state *s = calloc(1, sizeof(*s));
        uint8_t *wanted = calloc(65536, 1);
        if (!s || !wanted) {
            free(s);
            free(wanted);
            fprintf(stderr, "rtscope: out of memory\n");
            return CLI_EXIT_DATA;
        }
        s->p = p;
        s->also = also;
        s->input = input;
        s->countdown = LOAD_PROGRESS_EVERY;
        struct stat st;
        if (strcmp(input, "-") != 0 && stat(input, &st) == 0 &&
            S_ISREG(st.st_mode))
            s->total = (uint64_t)st.st_size;
        s->progress = isatty(STDERR_FILENO) &&
                      (s->total == 0 || s->total >= LOAD_PROGRESS_MIN);
        s->next = load_now() + 0.5;
        profile_wanted(s->mine);
        if (also)
            also->wanted(s->theirs);
        for (size_t t = 0; t < 65536; t++)
            wanted[t] = s->mine[t] | s->theirs[t];
        cli_input_opts o = *io;
        o.reader.wanted = wanted;
        el_reader_result res;
        memset(&res, 0, sizeof(res));
        rc = cli_read(input, &o, load_sink, s, &res);
        if (s->shown)
            fputs("\r\033[K", stderr);
        if (res.bytes > p->input_bytes)
            p->input_bytes = res.bytes;
        free(s);
        free(wanted);
    }
    if (profile_finish(p) != 0 || p->nomem) {
        fprintf(stderr, "rtscope: %s: out of memory\n", input);
        return CLI_EXIT_DATA;
    }
    return rc;
}
