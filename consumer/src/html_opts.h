/* Options shared by rtscope html and rtscope diff: what goes into the
 * profile (traces), how the report orders and draws bands. */
#ifndef RTSCOPE_HTML_OPTS_H
#define RTSCOPE_HTML_OPTS_H

#include "cli.h"
#include "rtscope/model/profile.h"
#include "rtscope/out/report.h"

typedef struct html_opts {
    cli_input_opts io;
    profile_opts popts;
    report_opts ropts;
    int force_hp;
    const char **include, **exclude; /* argv strings, arrays owned */
} html_opts;

#define HTML_OPTS_LONGOPTS                                                     \
    {"hp", no_argument, NULL, 'p'}, {"no-traces", no_argument, NULL, 1100},    \
        {"include", required_argument, NULL, 'i'},                             \
        {"exclude", required_argument, NULL, 'x'},                             \
        {"include-trace-events", no_argument, NULL, 1101},                     \
        {"bands", required_argument, NULL, 1102},                              \
        {"sort", required_argument, NULL, 1103},                               \
        {"reverse", no_argument, NULL, 1104},                                  \
    {                                                                          \
        "y-axis", required_argument, NULL, 1105                                \
    }

#define HTML_OPTS_HELP                                                         \
    "  -p, --hp            INPUT is a .hp file (assumed for names ending in\n" \
    "                      .hp)\n"                                             \
    "  --bands=N           bands drawn in the charts (default 15; 0 = all);\n" \
    "                      the others are summed as \"other\"\n"               \
    "  --sort=KEY          band order: size (integrated size, default),\n"     \
    "                      stddev, name, gradient (slope of the fitted "       \
    "line)\n"                                                                  \
    "  --reverse           reverse that order\n"                               \
    "  --y-axis=BYTES      fixed top of the area chart (K, M, G suffixes)\n"   \
    "  --no-traces         no markers\n"                                       \
    "  -i, --include=SUB   keep only markers containing SUB (repeatable)\n"    \
    "  -x, --exclude=SUB   drop markers containing SUB (repeatable); a "       \
    "marker\n"                                                                 \
    "                      matching both -i and -x is kept\n"                  \
    "  --include-trace-events  show traceEvent messages as markers too\n"

/* argc bounds the number of -i/-x strings. */
void html_opts_init(html_opts *o, int argc);
void html_opts_free(html_opts *o);
/* Handle an option of HTML_OPTS_LONGOPTS (or -p/-i/-x): 0 handled, -1 bad
 * value, 1 not one of these. */
int html_opts_option(html_opts *o, int code, const char *arg);

/* Initialise o and parse the command line of html or diff: -o/--output
 * into *output, --json into *json, the shared and common options into o.
 * Returns 0 with argv[optind..] the inputs, or an exit status (usage
 * error or out of memory) with o already freed. */
int html_opts_parse(html_opts *o, const cli_command *cmd, int argc, char **argv,
                    const char **output, int *json);

#endif
