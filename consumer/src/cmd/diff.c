/* rtscope diff: two heap profiles of the same program side by side, bands
 * matched by name and sorted by growth (mean bytes in B minus in A). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "html_opts.h"
#include "profile_load.h"
#include "rtscope/out/report.h"

#include <getopt.h>
#include <string.h>

static const char diff_usage[] =
    "usage: rtscope diff [options] -o OUT.html A B\n"
    "\n"
    "Compare two heap profiles (eventlogs or .hp files) of the same program:\n"
    "their area charts side by side on one scale, and a table of every band\n"
    "matched by name, sorted by growth (mean bytes in B minus in A), with\n"
    "both sizes, slopes and sparklines.\n"
    "\n"
    "options:\n"
    "  -o, --output=FILE   where to write (required for HTML; '-' for stdout)\n"
    "  --json              write the data as JSON (default: "
    "stdout)\n" HTML_OPTS_HELP CLI_COMMON_HELP;

static int diff_run(int argc, char **argv)
{
    html_opts ho;
    const char *output;
    int json;
    int err = html_opts_parse(&ho, &cli_cmd_diff, argc, argv, &output, &json);
    if (err != 0)
        return err;
    if (optind != argc - 2) {
        html_opts_free(&ho);
        return cli_usage_error(&cli_cmd_diff, "expected two inputs, A and B");
    }
    if (!output && !json) {
        html_opts_free(&ho);
        return cli_usage_error(&cli_cmd_diff, "-o OUT.html is required");
    }
    if (!output)
        output = "-";
    const char *in[2] = {argv[optind], argv[optind + 1]};
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
    "diff",     "compare two heap profiles (HTML, or --json)",
    diff_usage, diff_run,
    NULL,       NULL,
};
