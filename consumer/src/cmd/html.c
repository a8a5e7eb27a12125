/* rtscope html: a heap-profile report as one self-contained HTML page (or
 * its data as JSON), from an eventlog or a .hp file. The profile model
 * (profile.c) is the sink; report.c writes the page. See docs/html.md. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "html_opts.h"
#include "profile_load.h"
#include "rtscope/out/report.h"

#include <stdlib.h>
#include <string.h>

static const char html_about[] =
    "Write a heap-profile report of an eventlog (+RTS -hT -l, -hi -l, ...) or\n"
    "of a .hp file: one self-contained HTML page (no network needed to view\n"
    "it) with the stacked area chart, normalized and per-band line charts,\n"
    "the heap pane, the run's facts, markers, and a searchable, sortable\n"
    "table of every band (for -hi with its provenance); when the program\n"
    "sampled its call stacks (+RTS --sample-alloc, --sample-time), a flame\n"
    "graph of them and their top sites.\n";

static const opt html_cmd_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(html_opts, output),
     .help = "where to write (default INPUT.html; '-' for stdout;\n"
             "with --json the default is stdout)"},
    {.name = "json",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(html_opts, json),
     .help = "write the report's data as JSON instead"},
    OPT_INCLUDE_HERE(html_opts_table),
    OPT_INCLUDE(cli_input_table, html_opts, io),
    OPT_END,
};

static int html_run(int argc, char **argv)
{
    html_opts ho;
    int first = html_opts_parse(&ho, &cli_cmd_html, argc, argv);
    if (first < 0)
        return -first;
    if (first != argc - 1) {
        html_opts_free(&ho);
        return cli_usage_error(&cli_cmd_html, "expected one INPUT");
    }
    const char *output = ho.output;
    int json = ho.json;
    const char *input = argv[first];
    char *defout = NULL;
    if (!output) {
        if (json || strcmp(input, "-") == 0 ||
            strncmp(input, "unix:", 5) == 0 || strncmp(input, "tcp:", 4) == 0) {
            output = "-";
        } else {
            size_t len = strlen(input) + sizeof(".html");
            defout = malloc(len);
            if (!defout) {
                html_opts_free(&ho);
                return CLI_EXIT_DATA;
            }
            snprintf(defout, len, "%s.html", input);
            output = defout;
        }
    }
    int is_hp = profile_load_is_hp(input, ho.force_hp);
    profile *p = profile_new(&ho.popts);
    /* the sampled call stacks, read in the same pass (not in a .hp) */
    samples *sm = is_hp ? NULL : samples_new();
    int rc = CLI_EXIT_DATA;
    if (!p || (!is_hp && !sm)) {
        fprintf(stderr, "rtscope: out of memory\n");
    } else {
        profile_load_also also = {samples_sink, sm, samples_wanted};
        rc = profile_load_with(p, input, is_hp, &ho.io, sm ? &also : NULL);
    }
    if (rc == CLI_EXIT_OK && sm && samples_finish(sm) != 0) {
        fprintf(stderr, "rtscope: %s: out of memory\n", input);
        rc = CLI_EXIT_DATA;
    }
    if (rc == CLI_EXIT_OK) {
        FILE *out = cli_open_output(output);
        if (!out) {
            rc = CLI_EXIT_USAGE;
        } else {
            ho.ropts.input = input;
            ho.ropts.samples = sm;
            int w = json ? report_write_json(out, p, &ho.ropts)
                         : report_write_html(out, p, &ho.ropts);
            if (cli_close_output(out, output) != 0 || w != 0)
                rc = CLI_EXIT_DATA;
        }
    }
    profile_free(p);
    samples_free(sm);
    html_opts_free(&ho);
    free(defout);
    return rc;
}

const cli_command cli_cmd_html = {
    .name = "html",
    .summary = "write a heap-profile report (HTML, or --json)",
    .synopsis = "rtscope html [options] INPUT",
    .about = html_about,
    .opts = html_cmd_opts,
    .run = html_run,
};
