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
    const char *output; /* -o, or NULL */
    int json;           /* --json */
    int force_hp;
    long bands;                      /* --bands, into ropts.bands */
    size_t y_axis;                   /* --y-axis, into ropts.y_axis */
    const char **include, **exclude; /* argv strings, arrays owned */
} html_opts;

/* The options html and diff share (-p, --bands, --sort, --reverse,
 * --y-axis, --no-traces, -i, -x, --include-trace-events), into an
 * html_opts: OPT_INCLUDE_HERE(html_opts_table) in their tables, after
 * their own -o and --json (into output and json), before
 * cli_input_table (into io). */
extern const opt html_opts_table[];
/* The same without -p (--hp): how the report is made, for rtscope serve. */
extern const opt html_report_table[];

void html_opts_free(html_opts *o);

/* Initialise o and parse the command line of html or diff against
 * cmd->opts. Returns the index of the first input in argv, or minus an
 * exit status (a usage error, out of memory) with o already freed. */
int html_opts_parse(html_opts *o, const cli_command *cmd, int argc,
                    char **argv);

#endif
