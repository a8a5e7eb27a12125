/* rtscope diff: two heap profiles of the same program side by side, bands
 * matched by name and sorted by growth (mean bytes in B minus in A). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "html_opts.h"
#include "profile_load.h"
#include "rtscope/out/report.h"

#include <string.h>

static const char diff_about[] =
    "Compare two heap profiles (eventlogs or .hp files) of the same program:\n"
    "their area charts side by side on one scale, and a table of every band\n"
    "matched by name, sorted by growth (mean bytes in B minus in A), with\n"
    "both sizes, slopes and sparklines.\n";

static const opt diff_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(html_opts, output),
     .help = "where to write (required for HTML; '-' for stdout)"},
    {.name = "json",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(html_opts, json),
     .help = "write the data as JSON (default: stdout)"},
    OPT_INCLUDE_HERE(html_opts_table),
    OPT_INCLUDE(cli_input_table, html_opts, io),
    OPT_END,
};

static int diff_run(int argc, char **argv)
{
    html_opts ho;
    int first = html_opts_parse(&ho, &cli_cmd_diff, argc, argv);
    if (first < 0)
        return -first;
    if (first != argc - 2) {
        html_opts_free(&ho);
        return cli_usage_error(&cli_cmd_diff, "expected two inputs, A and B");
    }
    const char *output = ho.output;
    int json = ho.json;
    if (!output && !json) {
        html_opts_free(&ho);
        return cli_usage_error(&cli_cmd_diff, "-o OUT.html is required");
    }
    if (!output)
        output = "-";
    const char *in[2] = {argv[first], argv[first + 1]};
    profile *p[2] = {profile_new(&ho.popts), profile_new(&ho.popts)};
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < 2 && rc == CLI_EXIT_OK; i++) {
        if (!p[i]) {
            fprintf(stderr, "rtscope: out of memory\n");
            rc = CLI_EXIT_DATA;
        } else {
            rc = profile_load(p[i], in[i],
                              profile_load_is_hp(in[i], ho.force_hp), &ho.io);
        }
    }
    if (rc == CLI_EXIT_OK) {
        FILE *out = cli_open_output(output);
        if (!out) {
            rc = CLI_EXIT_USAGE;
        } else {
            ho.ropts.input = in[0];
            ho.ropts.input_b = in[1];
            int w = json ? report_write_diff_json(out, p[0], p[1], &ho.ropts)
                         : report_write_diff_html(out, p[0], p[1], &ho.ropts);
            if (cli_close_output(out, output) != 0 || w != 0)
                rc = CLI_EXIT_DATA;
        }
    }
    profile_free(p[0]);
    profile_free(p[1]);
    html_opts_free(&ho);
    return rc;
}

const cli_command cli_cmd_diff = {
    .name = "diff",
    .summary = "compare two heap profiles (HTML, or --json)",
    .synopsis = "rtscope diff [options] -o OUT.html A B",
    .about = diff_about,
    .opts = diff_opts,
    .run = diff_run,
};
