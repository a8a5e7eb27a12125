#include "html_opts.h"

#include <getopt.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

void html_opts_init(html_opts *o, int argc)
{
    memset(o, 0, sizeof(*o));
    o->ropts.bands = 15;
    o->ropts.sort = REPORT_SORT_SIZE;
    o->include = calloc((size_t)argc + 1, sizeof(char *));
    o->exclude = calloc((size_t)argc + 1, sizeof(char *));
    o->popts.include = o->include;
    o->popts.exclude = o->exclude;
}

void html_opts_free(html_opts *o)
{
    free(o->include);
    free(o->exclude);
}

int html_opts_option(html_opts *o, int code, const char *arg)
{
    char *end;
    switch (code) {
    case 'p':
        o->force_hp = 1;
        return 0;
    case 'i':
        o->include[o->popts.ninclude++] = arg;
        return 0;
    case 'x':
        o->exclude[o->popts.nexclude++] = arg;
        return 0;
    case 1100:
        o->popts.no_traces = 1;
        return 0;
    case 1101:
        o->popts.trace_events = 1;
        return 0;
    case 1102: {
        long n = strtol(arg, &end, 10);
        if (*end || end == arg || n < 0)
            return -1;
        o->ropts.bands = (size_t)n;
        return 0;
    }
    case 1103:
        return report_parse_sort(arg, &o->ropts.sort);
    case 1104:
        o->ropts.reverse = 1;
        return 0;
    case 1105: {
        size_t v;
        if (cli_parse_size(arg, &v) != 0)
            return -1;
        o->ropts.y_axis = (double)v;
        return 0;
    }
    default:
        return 1;
    }
}

int html_opts_parse(html_opts *o, const cli_command *cmd, int argc, char **argv,
                    const char **output, int *json)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'J'},
        HTML_OPTS_LONGOPTS,
        CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int c;
    *output = NULL;
    *json = 0;
    html_opts_init(o, argc);
    if (!o->include || !o->exclude) {
        html_opts_free(o);
        fprintf(stderr, "rtscope: out of memory\n");
        return CLI_EXIT_DATA;
    }
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:pi:x:", longopts, NULL)) != -1) {
        if (c == 'o') {
            *output = optarg;
        } else if (c == 'J') {
            *json = 1;
        } else {
            int r = html_opts_option(o, c, optarg);
            if (r == 1)
                r = c == '?' ? -1 : cli_common_option(&o->io, c, optarg);
            if (r != 0) {
                html_opts_free(o);
                return cli_usage_error(cmd, "bad option or value");
            }
        }
    }
    return 0;
}
