/* rtscope pprof: one heap census as a gzipped pprof profile.proto (or the
 * difference of two), for go tool pprof, speedscope and Grafana Pyroscope.
 * The profile model (profile.c) is the sink and keeps the census asked
 * for; lib/out/pprof.c encodes it. See docs/html.md. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/pprof.h"
#include "cli.h"
#include "profile_load.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char pprof_usage[] =
    "usage: rtscope pprof [options] INPUT [BASE]\n"
    "\n"
    "Write one heap census of an eventlog (+RTS -hi -l, -hT -l, ...) or of\n"
    "a .hp file as a gzipped pprof profile (profile.proto), to open in\n"
    "`go tool pprof`, speedscope or Grafana Pyroscope. Each band is a\n"
    "sample of type inuse_space (bytes); a -hi band with provenance sits\n"
    "under its binding and module, a cost-centre stack under its cost\n"
    "centres. Heap censuses count bytes only: there is no inuse_objects.\n"
    "Without -o, a socket or '-' is written to stdout (not a terminal).\n"
    "\n"
    "options:\n"
    "  -o, --output=FILE   where to write (default INPUT without its "
    "extension\n"
    "                      plus .pb.gz; '-' for stdout)\n"
    "  --sample=N          census number N (from 0) instead of the largest\n"
    "  --at=SECONDS        the census nearest SECONDS of run time\n"
    "  --last              the last census\n"
    "  --base=FILE         subtract FILE's census (chosen the same way):\n"
    "                      growth is positive, shrinking negative; a second\n"
    "                      INPUT is the same\n"
    "  -p, --hp            inputs are .hp files (assumed for names ending "
    "in\n"
    "                      .hp)\n" CLI_COMMON_HELP;

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

/* Load one input and check it has the census asked for. */
static int pprof_load(profile *p, const char *input, int force_hp,
                      const cli_input_opts *io)
{
    int rc = profile_load(p, input, profile_load_is_hp(input, force_hp), io);
    if (rc != CLI_EXIT_OK)
        return rc;
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

/* Write to `output` through a temporary file renamed at the end, so a
 * failure leaves no partial file ("-": standard output; what is not a
 * regular file is written in place). */
static int pprof_output(const char *output, const profile *p,
                        const profile *base)
{
    if (strcmp(output, "-") == 0) {
        if (isatty(STDOUT_FILENO)) {
            fprintf(stderr, "rtscope: pprof: not writing a gzipped profile "
                            "to a terminal (use -o FILE)\n");
            return CLI_EXIT_USAGE;
        }
        if (pprof_write(stdout, p, base) != 0 || fflush(stdout) != 0) {
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
        int w = f ? pprof_write(f, p, base) : -1;
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
        int w = pprof_write(f, p, base);
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

static int pprof_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"hp", no_argument, NULL, 'p'},
        {"sample", required_argument, NULL, 1200},
        {"at", required_argument, NULL, 1201},
        {"last", no_argument, NULL, 1202},
        {"base", required_argument, NULL, 1203},
        CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    cli_input_opts io;
    memset(&io, 0, sizeof(io));
    profile_opts po;
    memset(&po, 0, sizeof(po));
    po.no_traces = 1;
    po.pick = PROFILE_PICK_LARGEST;
    const char *output = NULL, *base_in = NULL;
    int force_hp = 0, picks = 0, c;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:p", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'p':
            force_hp = 1;
            break;
        case 1200: {
            errno = 0;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (*end || end == optarg || optarg[0] == '-' || errno)
                return cli_usage_error(&cli_cmd_pprof, "bad --sample: %s",
                                       optarg);
            po.pick = PROFILE_PICK_INDEX;
            po.pick_index = (size_t)n;
            picks++;
            break;
        }
        case 1201:
            po.pick_at = strtod(optarg, &end);
            if (*end || end == optarg || !isfinite(po.pick_at))
                return cli_usage_error(&cli_cmd_pprof, "bad --at: %s", optarg);
            po.pick = PROFILE_PICK_AT;
            picks++;
            break;
        case 1202:
            po.pick = PROFILE_PICK_LAST;
            picks++;
            break;
        case 1203:
            base_in = optarg;
            break;
        default: {
            int r = c == '?' ? -1 : cli_common_option(&io, c, optarg);
            if (r != 0)
                return r < 0
                           ? cli_usage_error(&cli_cmd_pprof,
                                             "bad option or value")
                           : cli_usage_error(&cli_cmd_pprof, "unknown option");
        }
        }
    }
    if (picks > 1)
        return cli_usage_error(&cli_cmd_pprof,
                               "--sample, --at and --last exclude each other");
    if (optind == argc - 2 && !base_in)
        base_in = argv[optind + 1];
    else if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_pprof, "expected INPUT [BASE]");
    const char *input = argv[optind];
    char *defout = NULL;
    if (!output) {
        if (pprof_is_stream(input)) {
            output = "-";
        } else {
            defout = pprof_default_output(input);
            if (!defout) {
                fprintf(stderr, "rtscope: out of memory\n");
                return CLI_EXIT_DATA;
            }
            output = defout;
        }
    }
    profile *p = profile_new(&po), *base = NULL;
    int rc = CLI_EXIT_OK;
    if (!p || (base_in && !(base = profile_new(&po)))) {
        fprintf(stderr, "rtscope: out of memory\n");
        rc = CLI_EXIT_DATA;
    }
    if (rc == CLI_EXIT_OK)
        rc = pprof_load(p, input, force_hp, &io);
    if (rc == CLI_EXIT_OK && base)
        rc = pprof_load(base, base_in, force_hp, &io);
    if (rc == CLI_EXIT_OK)
        rc = pprof_output(output, p, base);
    profile_free(p);
    profile_free(base);
    free(defout);
    return rc;
}

const cli_command cli_cmd_pprof = {
    "pprof",     "write one heap census as a pprof profile (.pb.gz)",
    pprof_usage, pprof_run,
    NULL,        NULL,
};
