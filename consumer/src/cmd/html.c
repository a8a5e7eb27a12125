/* rtscope html: a heap-profile report as one self-contained HTML page (or
 * its data as JSON), from an eventlog or a .hp file. The profile model
 * (profile.c) is the sink; report.c writes the page. See docs/html.md. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "html_opts.h"
#include "profile_load.h"
#include "rtscope/out/report.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char html_usage[] =
    "usage: rtscope html [options] INPUT\n"
    "\n"
    "Write a heap-profile report of an eventlog (+RTS -hT -l, -hi -l, ...) or\n"
    "of a .hp file: one self-contained HTML page (no network needed to view\n"
    "it) with the stacked area chart, normalized and per-band line charts,\n"
    "the heap pane, the run's facts, markers, and a searchable, sortable\n"
    "table of every band (for -hi with its provenance).\n"
    "\n"
    "options:\n"
    "  -o, --output=FILE   where to write (default INPUT.html; '-' for "
    "stdout;\n"
    "                      with --json the default is stdout)\n"
    "  --json              write the report's data as JSON "
    "instead\n" HTML_OPTS_HELP CLI_COMMON_HELP;

static int html_run(int argc, char **argv)
{
    html_opts ho;
    const char *output;
    int json;
    int err = html_opts_parse(&ho, &cli_cmd_html, argc, argv, &output, &json);
    if (err != 0)
        return err;
    if (optind != argc - 1) {
        html_opts_free(&ho);
        return cli_usage_error(&cli_cmd_html, "expected one INPUT");
    }
    const char *input = argv[optind];
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
    profile *p = profile_new(&ho.popts);
    int rc = CLI_EXIT_DATA;
    if (!p) {
        fprintf(stderr, "rtscope: out of memory\n");
    } else {
        rc = profile_load(p, input, profile_load_is_hp(input, ho.force_hp),
                          &ho.io);
    }
    if (rc == CLI_EXIT_OK) {
        FILE *out = cli_open_output(output);
        if (!out) {
            rc = CLI_EXIT_USAGE;
        } else {
            ho.ropts.input = input;
            int w = json ? report_write_json(out, p, &ho.ropts)
                         : report_write_html(out, p, &ho.ropts);
            if (cli_close_output(out, output) != 0 || w != 0)
                rc = CLI_EXIT_DATA;
        }
    }
    profile_free(p);
    html_opts_free(&ho);
    free(defout);
    return rc;
}

const cli_command cli_cmd_html = {
    "html",     "write a heap-profile report (HTML, or --json)",
    html_usage, html_run,
    NULL,       NULL,
};
