/* rtscope pprof: one heap census as a gzipped pprof profile.proto (or the
 * difference of two), for go tool pprof, speedscope and Grafana Pyroscope.
 * The profile model (profile.c) is the sink and keeps the census asked
 * for; lib/out/pprof.c encodes it. See docs/html.md. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/pprof.h"
#include "cli.h"
#include "debug.h"
#include "groups.h"
#include "profile_load.h"
#include "rtscope/debug/debug_client.h"
#include "rtscope/debug/debug_snap.h"
#include "session.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char pprof_about[] =
    "Write one heap census of an eventlog (+RTS -hi -l, -hT -l, ...) or of\n"
    "a .hp file as a gzipped pprof profile (profile.proto), to open in\n"
    "`go tool pprof`, speedscope or Grafana Pyroscope. Each band is a\n"
    "sample of type inuse_space (bytes); a -hi band with provenance sits\n"
    "under its binding and module, a cost-centre stack under its cost\n"
    "centres. Heap censuses count bytes only: there is no inuse_objects.\n"
    "Without -o, a socket or '-' is written to stdout (not a terminal).\n"
    "\n"
    "An rtscope snapshot (rtscope debug snapshot), or with --debug a live\n"
    "program's debug stub (a TARGET as rtscope debug takes it), gives the\n"
    "census of its heap by info table instead, with inuse_objects too.\n"
    "\n"
    "Sampled call stacks (+RTS --sample-alloc, --sample-time) are written\n"
    "instead of a census with --stacks, or when the eventlog has no heap\n"
    "census: one profile with the sample types alloc_objects, alloc_space\n"
    "(the default when there are allocation samples), samples and cpu (the\n"
    "default otherwise); each frame is its binding, package:Module.binding,\n"
    "with the file and line of its source span, the RTS's own frames left\n"
    "out. `go tool pprof -sample_index=cpu` picks the time samples.\n";

/* What `rtscope pprof` is given. */
typedef struct pprof_args {
    cli_input_opts io;
    const char *output, *base;
    long sample;
    double at;
    int last, sample_given, at_given, last_given, force_hp, debug, stacks;
    debug_args heap; /* --no-gc, --fork (debug_pause_table) */
} pprof_args;

static const opt pprof_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(pprof_args, output),
     .help = "where to write (default INPUT without its extension\n"
             "plus .pb.gz; '-' for stdout)"},
    {.name = "sample",
     .kind = OPT_COUNT,
     .argname = "N",
     .max = LONG_MAX,
     .value = OPT_AT(pprof_args, sample),
     .given = OPT_AT(pprof_args, sample_given),
     .help = "census number N (from 0) instead of the largest",
     .bad = "not a census number (from 0)"},
    {.name = "at",
     .kind = OPT_NUMBER,
     .argname = "SECONDS",
     .lo = -DBL_MAX,
     .hi = DBL_MAX,
     .value = OPT_AT(pprof_args, at),
     .given = OPT_AT(pprof_args, at_given),
     .help = "the census nearest SECONDS of run time",
     .bad = "not a number of seconds"},
    {.name = "last",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(pprof_args, last),
     .given = OPT_AT(pprof_args, last_given),
     .help = "the last census"},
    {.name = "base",
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(pprof_args, base),
     .help = "subtract FILE's census (chosen the same way):\n"
             "growth is positive, shrinking negative; a second\n"
             "INPUT is the same"},
    {.name = "hp",
     .letter = 'p',
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(pprof_args, force_hp),
     .help = "inputs are .hp files (assumed for names ending in\n.hp)"},
    {.name = "stacks",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(pprof_args, stacks),
     .help = "write the sampled call stacks (+RTS --sample-alloc,\n"
             "--sample-time), not a census (the default when the\n"
             "eventlog has no census)"},
    {.name = "debug",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(pprof_args, debug),
     .help = "INPUT is a debug TARGET: walk the live heap (after a\n"
             "major GC, or as --no-gc or --fork say)"},
    OPT_INCLUDE(debug_pause_table, pprof_args, heap),
    OPT_INCLUDE(cli_input_table, pprof_args, io),
    OPT_END,
};

/* The default output: INPUT without its extension, plus ".pb.gz". */
static char *pprof_default_output(const char *input)
{
    const char *slash = strrchr(input, '/');
    const char *base = slash ? slash + 1 : input;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot > base ? (size_t)(dot - input) : strlen(input);
    size_t len = stem + sizeof(".pb.gz");
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s.pb.gz", (int)stem, input);
    return out;
}

static int pprof_is_stream(const char *input)
{
    return strcmp(input, "-") == 0 || strncmp(input, "unix:", 5) == 0 ||
           strncmp(input, "tcp:", 4) == 0;
}

/* Does p (loaded from input) have the census asked for? A CLI exit code
 * (errors reported). */
static int pprof_check_census(const profile *p, const char *input)
{
    if (p->nsamples == 0) {
        fprintf(stderr,
                "rtscope: %s: no heap census (run the program with +RTS "
                "-hi -l, -hT -l, ...)\n",
                input);
        return CLI_EXIT_DATA;
    }
    if (!p->census.found) {
        fprintf(stderr,
                "rtscope: %s: --sample %zu: the profile has %zu census%s (0 "
                "to %zu)\n",
                input, p->opts.pick_index, p->nsamples,
                p->nsamples == 1 ? "" : "es", p->nsamples - 1);
        return CLI_EXIT_DATA;
    }
    return CLI_EXIT_OK;
}

/* Load one input and check it has the census asked for. */
static int pprof_load(profile *p, const char *input, int force_hp,
                      const cli_input_opts *io)
{
    int rc = profile_load(p, input, profile_load_is_hp(input, force_hp), io);
    return rc != CLI_EXIT_OK ? rc : pprof_check_census(p, input);
}

/* Write to `output` through a temporary file renamed at the end, so a
 * failure leaves no partial file ("-": standard output; what is not a
 * regular file is written in place). */
/* What pprof_output writes: the census of profiles, or of the heap. */
typedef int (*pprof_writer)(FILE *f, const void *ctx);

typedef struct pprof_profiles {
    const profile *p, *base;
} pprof_profiles;

static int pprof_write_profiles(FILE *f, const void *ctx)
{
    const pprof_profiles *pp = ctx;
    return pprof_write(f, pp->p, pp->base);
}

/* The sampled stacks of an eventlog, with what its profile knows of the
 * program. */
typedef struct pprof_stacks {
    const profile *p;
    const samples *s;
} pprof_stacks;

static int pprof_write_samples(FILE *f, const void *ctx)
{
    const pprof_stacks *ps = ctx;
    const char *prog = ps->p->args ? ps->p->args : "";
    int64_t end = (int64_t)llround(ps->p->last_time * 1e9);
    if ((int64_t)ps->s->last_ts > end)
        end = (int64_t)ps->s->last_ts;
    return pprof_write_stacks(f, ps->s, prog, strcspn(prog, " "),
                              ps->p->start_unix_ns, end);
}

static int pprof_output(const char *output, pprof_writer write, const void *ctx)
{
    if (strcmp(output, "-") == 0) {
        if (isatty(STDOUT_FILENO)) {
            fprintf(stderr, "rtscope: pprof: not writing a gzipped profile "
                            "to a terminal (use -o FILE)\n");
            return CLI_EXIT_USAGE;
        }
        if (write(stdout, ctx) != 0 || fflush(stdout) != 0) {
            fprintf(stderr, "rtscope: -: cannot write: %s\n", strerror(errno));
            return CLI_EXIT_DATA;
        }
        return CLI_EXIT_OK;
    }
    /* a device, a fifo or a symbolic link is written in place: renaming
     * over it would replace it */
    struct stat st;
    if (lstat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
        FILE *f = fopen(output, "wb");
        int w = f ? write(f, ctx) : -1;
        int e = errno;
        if (f && fclose(f) != 0 && w == 0) {
            w = -1;
            e = errno;
        }
        if (w != 0) {
            fprintf(stderr, "rtscope: %s: cannot write: %s\n", output,
                    strerror(e));
            return CLI_EXIT_DATA;
        }
        return CLI_EXIT_OK;
    }
    size_t len = strlen(output) + sizeof(".tmpXXXXXX");
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, "rtscope: out of memory\n");
        return CLI_EXIT_DATA;
    }
    snprintf(tmp, len, "%s.tmpXXXXXX", output);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "rtscope: %s: cannot write: %s\n", output,
                strerror(errno));
        free(tmp);
        return CLI_EXIT_DATA;
    }
    /* mkstemp makes it 0600: give it the mode a new file gets */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    int rc = CLI_EXIT_OK;
    if (!f) {
        close(fd);
        rc = CLI_EXIT_DATA;
    } else {
        int w = write(f, ctx);
        int e = errno;
        if (fclose(f) != 0 && w == 0) {
            w = -1;
            e = errno;
        }
        errno = e;
        if (w != 0)
            rc = CLI_EXIT_DATA;
    }
    if (rc == CLI_EXIT_OK && rename(tmp, output) != 0)
        rc = CLI_EXIT_DATA;
    if (rc != CLI_EXIT_OK) {
        fprintf(stderr, "rtscope: %s: cannot write: %s\n", output,
                strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* ---- the census of a heap (a snapshot, or --debug TARGET) ------------- */

/* The rows, with copies of the names and provenance the heap gave. */
typedef struct pprof_heap {
    pprof_census_row *rows;
    ipe_entry *ipe; /* rows[i].ipe points here when it has provenance */
    size_t n, cap;
    char *program;
    int64_t time_nanos;
} pprof_heap;

static void pprof_heap_free(pprof_heap *ph)
{
    for (size_t i = 0; i < ph->n; i++) {
        free((char *)ph->rows[i].name);
        free((char *)ph->rows[i].key);
        const char **f[] = {&ph->ipe[i].table_name, &ph->ipe[i].closure_desc,
                            &ph->ipe[i].ty_desc,    &ph->ipe[i].label,
                            &ph->ipe[i].module,     &ph->ipe[i].srcloc};
        for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
            free((char *)*f[k]);
    }
    free(ph->rows);
    free(ph->ipe);
    free(ph->program);
}

static int pprof_heap_row(void *ctx, dbg_heap *h, uint64_t info, uint64_t count,
                          uint64_t bytes)
{
    pprof_heap *ph = ctx;
    if (ph->n == ph->cap) {
        size_t nc = ph->cap ? ph->cap * 2 : 256;
        pprof_census_row *nr = realloc(ph->rows, nc * sizeof(*nr));
        if (nr)
            ph->rows = nr;
        ipe_entry *ni = nr ? realloc(ph->ipe, nc * sizeof(*ni)) : NULL;
        if (!ni)
            return debug_fail("out of memory");
        ph->ipe = ni;
        ph->cap = nc;
    }
    dbg_info *in = dbg_heap_info(h, info);
    char *const *src = in ? dbg_heap_source(h, in) : NULL;
    char name[1200], key[1200];
    if (!in || !debug_info_name(h, in, name, sizeof(name)))
        snprintf(name, sizeof(name), "%s",
                 in ? ghc_closure_type_name(in->type) : "UNKNOWN");
    ipe_entry *e = &ph->ipe[ph->n];
    memset(e, 0, sizeof(*e));
    pprof_census_row *r = &ph->rows[ph->n];
    memset(r, 0, sizeof(*r));
    snprintf(key, sizeof(key), "0x%" PRIx64, info);
    if (src) { /* its provenance, for the module and binding locations */
        snprintf(key, sizeof(key), "%s", src[0][0] ? src[0] : key);
        e->info = info;
        e->table_name = strdup(src[0]);
        e->closure_desc = strdup(src[1]);
        e->ty_desc = strdup(src[2]);
        e->label = strdup(src[3]);
        e->module = strdup(src[4]);
        e->srcloc = strdup(src[5]);
        /* r->ipe is set once every row is in: ph->ipe moves as it grows */
    }
    r->name = strdup(name);
    r->key = strdup(key);
    r->objects = count;
    r->bytes = bytes;
    ph->n++;
    if (!r->name || !r->key ||
        (src && (!e->table_name || !e->closure_desc || !e->ty_desc ||
                 !e->label || !e->module || !e->srcloc)))
        return debug_fail("out of memory");
    return 0;
}

static int pprof_write_heap(FILE *f, const void *ctx)
{
    const pprof_heap *ph = ctx;
    return pprof_write_census(f, ph->rows, ph->n, ph->program, ph->time_nanos);
}

/* The census of TARGET's heap (a snapshot file, or live) to output. */
static int pprof_heap_run(const char *target, int snapshot, int gc,
                          const char *output)
{
    pprof_heap ph;
    memset(&ph, 0, sizeof(ph));
    const char *slash = strrchr(target, '/');
    ph.program = strdup(slash ? slash + 1 : target);
    struct timespec ts;
    if (!snapshot && clock_gettime(CLOCK_REALTIME, &ts) == 0)
        ph.time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    int rc = ph.program
                 ? debug_census_each_info(target, gc, pprof_heap_row, &ph)
                 : debug_fail("out of memory");
    for (size_t i = 0; rc == 0 && i < ph.n; i++)
        ph.rows[i].ipe = ph.ipe[i].table_name ? &ph.ipe[i] : NULL;
    if (rc == 0)
        rc = pprof_output(output, pprof_write_heap, &ph);
    pprof_heap_free(&ph);
    return rc;
}

/* The census of an eventlog or a .hp file (less BASE's), or an eventlog's
 * sampled call stacks, to output. One reading of INPUT gives both: a pipe
 * or a socket is read once. */
static int pprof_profile_run(const pprof_args *a, const char *input,
                             const char *output)
{
    profile_opts po;
    memset(&po, 0, sizeof(po));
    po.no_traces = 1;
    po.pick = a->sample_given ? PROFILE_PICK_INDEX
              : a->at_given   ? PROFILE_PICK_AT
              : a->last_given ? PROFILE_PICK_LAST
                              : PROFILE_PICK_LARGEST;
    po.pick_index = (size_t)a->sample;
    po.pick_at = a->at;
    int is_hp = profile_load_is_hp(input, a->force_hp);
    profile *p = profile_new(&po), *base = NULL;
    samples *sm = is_hp ? NULL : samples_new();
    int rc = CLI_EXIT_OK;
    if (!p || (a->base && !(base = profile_new(&po))) || (!is_hp && !sm)) {
        fprintf(stderr, "rtscope: out of memory\n");
        rc = CLI_EXIT_DATA;
    }
    profile_load_also also = {samples_sink, sm, samples_wanted};
    if (rc == CLI_EXIT_OK)
        rc = profile_load_with(p, input, is_hp, &a->io, sm ? &also : NULL);
    if (rc == CLI_EXIT_OK && sm && samples_finish(sm) != 0) {
        fprintf(stderr, "rtscope: %s: out of memory\n", input);
        rc = CLI_EXIT_DATA;
    }
    int has_stacks =
        sm && (samples_any(sm, SAMPLES_ALLOC) || samples_any(sm, SAMPLES_TIME));
    /* stacks when asked, or when there is no census and nothing asks
     * for one */
    int stacks =
        a->stacks || (p && p->nsamples == 0 && has_stacks && !a->base &&
                      !a->sample_given && !a->at_given && !a->last_given);
    if (rc == CLI_EXIT_OK && stacks && !has_stacks) {
        fprintf(stderr,
                "rtscope: %s: no sampled call stacks (run the program with "
                "+RTS --sample-alloc or --sample-time, and -l)\n",
                input);
        rc = CLI_EXIT_DATA;
    }
    if (rc == CLI_EXIT_OK && stacks) {
        pprof_stacks ps = {p, sm};
        rc = pprof_output(output, pprof_write_samples, &ps);
    } else if (rc == CLI_EXIT_OK) {
        rc = pprof_check_census(p, input);
        if (rc == CLI_EXIT_OK && has_stacks)
            fprintf(stderr,
                    "rtscope: %s: the eventlog has sampled call stacks "
                    "too: --stacks writes them\n",
                    input);
        if (rc == CLI_EXIT_OK && base)
            rc = pprof_load(base, a->base, a->force_hp, &a->io);
        pprof_profiles pp = {p, base};
        if (rc == CLI_EXIT_OK)
            rc = pprof_output(output, pprof_write_profiles, &pp);
    }
    samples_free(sm);
    profile_free(p);
    profile_free(base);
    return rc;
}

static int pprof_run(int argc, char **argv)
{
    pprof_args a;
    memset(&a, 0, sizeof(a));
    a.heap.gc = DBG_PAUSE_AFTER_GC;
    int first =
        opts_parse("pprof", argc, argv, &(opts_bind){pprof_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    int picks = a.sample_given + a.at_given + a.last_given;
    if (picks > 1)
        return cli_usage_error(&cli_cmd_pprof,
                               "--sample, --at and --last exclude each other");
    if (first == argc - 2 && !a.base)
        a.base = argv[first + 1];
    else if (first != argc - 1)
        return cli_usage_error(&cli_cmd_pprof, "expected INPUT [BASE]");
    const char *input = argv[first];
    int snapshot = dbg_snap_file_is_snapshot(input), heap = a.debug || snapshot;
    if (heap && (a.base || picks || a.force_hp))
        return cli_usage_error(&cli_cmd_pprof,
                               "a heap's census (a snapshot, --debug) is one "
                               "census: no --base, --sample, --at, --last or "
                               "--hp");
    if (a.stacks && (heap || a.base || picks || a.force_hp))
        return cli_usage_error(&cli_cmd_pprof,
                               "--stacks writes an eventlog's sampled call "
                               "stacks: no --base, --sample, --at, --last, "
                               "--hp, --debug or snapshot");
    if (a.heap.gc_given && !a.debug)
        return cli_usage_error(&cli_cmd_pprof, "--no-gc and --fork go with "
                                               "--debug");
    const char *output = a.output;
    char *defout = NULL;
    if (!output && !heap && pprof_is_stream(input)) {
        output = "-";
    } else if (!output) {
        output = defout = pprof_default_output(input);
        if (!defout) {
            fprintf(stderr, "rtscope: out of memory\n");
            return CLI_EXIT_DATA;
        }
    }
    int rc = heap ? pprof_heap_run(input, snapshot, a.heap.gc, output)
                  : pprof_profile_run(&a, input, output);
    free(defout);
    return rc;
}

const cli_command cli_cmd_pprof = {
    .name = "pprof",
    .summary = "write a heap census or sampled stacks as a pprof profile",
    .synopsis = "rtscope pprof [options] INPUT [BASE]",
    .about = pprof_about,
    .opts = pprof_opts,
    .run = pprof_run,
};
