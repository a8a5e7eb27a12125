#include "html_opts.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void html_opts_free(html_opts *o)
{
    free(o->include);
    free(o->exclude);
}

static int html_opts_include(void *base, const char *arg)
{
    html_opts *o = base;
    o->include[o->popts.ninclude++] = arg;
    return 0;
}

static int html_opts_exclude(void *base, const char *arg)
{
    html_opts *o = base;
    o->exclude[o->popts.nexclude++] = arg;
    return 0;
}

static int html_opts_sort(void *base, const char *arg)
{
    html_opts *o = base;
    return report_parse_sort(arg, &o->ropts.sort);
}

const opt html_report_table[] = {
    {.name = "bands",
     .kind = OPT_COUNT,
     .argname = "N",
     .max = LONG_MAX,
     .value = OPT_AT(html_opts, bands),
     .help = "bands drawn in the charts (default 15; 0 = all);\n"
             "the others are summed as \"other\"",
     .bad = "not a number of bands (0 = all)"},
    {.name = "sort",
     .kind = OPT_CALL,
     .argname = "KEY",
     .call = html_opts_sort,
     .help = "band order: size (integrated size, default),\n"
             "stddev, name, gradient (slope of the fitted line)",
     .bad = "use size, stddev, name or gradient"},
    {.name = "reverse",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(html_opts, ropts.reverse),
     .help = "reverse that order"},
    {.name = "y-axis",
     .kind = OPT_SIZE,
     .argname = "BYTES",
     .value = OPT_AT(html_opts, y_axis),
     .help = "fixed top of the area chart (K, M, G suffixes)",
     .bad = "not a size (K, M, G suffixes)"},
    {.name = "no-traces",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(html_opts, popts.no_traces),
     .help = "no markers"},
    {.name = "include",
     .letter = 'i',
     .kind = OPT_CALL,
     .argname = "SUB",
     .call = html_opts_include,
     .help = "keep only markers containing SUB (repeatable)"},
    {.name = "exclude",
     .letter = 'x',
     .kind = OPT_CALL,
     .argname = "SUB",
     .call = html_opts_exclude,
     .help = "drop markers containing SUB (repeatable); a marker\n"
             "matching both -i and -x is kept"},
    {.name = "include-trace-events",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(html_opts, popts.trace_events),
     .help = "show traceEvent messages as markers too"},
    OPT_END,
};

const opt html_opts_table[] = {
    {.name = "hp",
     .letter = 'p',
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(html_opts, force_hp),
     .help = "INPUT is a .hp file (assumed for names ending in\n.hp)"},
    OPT_INCLUDE_HERE(html_report_table),
    OPT_END,
};

int html_opts_parse(html_opts *o, const cli_command *cmd, int argc, char **argv)
{
    memset(o, 0, sizeof(*o));
    o->bands = 15;
    o->ropts.sort = REPORT_SORT_SIZE;
    /* -i and -x are at most argc strings each */
    o->include = calloc((size_t)argc + 1, sizeof(char *));
    o->exclude = calloc((size_t)argc + 1, sizeof(char *));
    o->popts.include = o->include;
    o->popts.exclude = o->exclude;
    if (!o->include || !o->exclude) {
        html_opts_free(o);
        fprintf(stderr, "rtscope: out of memory\n");
        return -CLI_EXIT_DATA;
    }
    int first =
        opts_parse(cmd->name, argc, argv, &(opts_bind){cmd->opts, o}, 1);
    if (first < 0) {
        html_opts_free(o);
        return -CLI_EXIT_USAGE;
    }
    o->ropts.bands = (size_t)o->bands;
    o->ropts.y_axis = (double)o->y_axis;
    return first;
}
