/* The options and TARGETs of `rtscope debug` subcommands, parsed from a
 * table each subcommand declares (debug_opt); see debug.h.
 *
 * Note [One option parser for the debug commands]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every walking subcommand takes the pause options (--no-gc, --fork), a
 * few counts, names or addresses, and one or two TARGETs. Written out as a
 * getopt loop per command, the same loop stood in nine files and their
 * messages drifted. Here a command lists its options with what each
 * accepts; the messages are one shape, "--NAME ARG: what it must be", and
 * the pause options are accepted exactly by the commands marked no_gc in
 * the command table, so `debug pause T --by type` stays a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "debug.h"

#include "rtscope/debug/debug_client.h"
#include "session.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEBUG_MAX_OPTS 16
/* a table's options get getopt values from OPT_BASE up, clear of
 * DEBUG_PAUSE_OPTIONS' 'n' and 'F' */
enum { OPT_BASE = 256 };
static const struct option pause_opts[] = {DEBUG_PAUSE_OPTIONS};
#define NPAUSE_OPTS (sizeof(pause_opts) / sizeof(pause_opts[0]))

int debug_pause_option(int ch)
{
    return ch == 'F' ? DBG_PAUSE_FORK : DBG_PAUSE_NOW;
}

static int debug_opt_take(const debug_command *dc, const debug_opt *o,
                          const char *arg)
{
    switch (o->kind) {
    case DEBUG_OPT_COUNT:
        if (debug_parse_count(arg, o->min, o->max, o->value) != 0)
            goto bad;
        break;
    case DEBUG_OPT_STRING:
        *(const char **)o->value = arg;
        break;
    case DEBUG_OPT_FLAG:
        *(int *)o->value = (int)o->min;
        break;
    case DEBUG_OPT_ADDR: {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(arg, &end, 16);
        if (errno || end == arg || *end || v == 0)
            goto bad;
        *(uint64_t *)o->value = v;
        break;
    }
    case DEBUG_OPT_PERCENT: {
        char *end;
        double v = strtod(arg, &end);
        if (end == arg || *end || !(v > 0 && v <= 100))
            goto bad;
        *(double *)o->value = v;
        break;
    }
    case DEBUG_OPT_CHOICE: {
        size_t i = 0;
        while (o->choices[i] && strcmp(o->choices[i], arg) != 0)
            i++;
        if (!o->choices[i])
            goto bad;
        *(int *)o->value = (int)i;
        break;
    }
    }
    if (o->given)
        (*o->given)++;
    return -1;
bad:
    return debug_usage_error(dc, "--%s %s: %s", o->name, arg, o->bad);
}

int debug_parse_args(const debug_command *dc, int argc, char **argv,
                     const debug_opt *opts, int ntargets, debug_args *a)
{
    struct option longopts[DEBUG_MAX_OPTS + NPAUSE_OPTS + 1];
    char shorts[2 * DEBUG_MAX_OPTS + 1];
    size_t n = 0, ns = 0;
    for (; opts && opts[n].name; n++) {
        if (n == DEBUG_MAX_OPTS) /* a programming error, caught by tests */
            return debug_usage_error(dc, "too many options");
        longopts[n] = (struct option){
            opts[n].name,
            opts[n].kind == DEBUG_OPT_FLAG ? no_argument : required_argument,
            NULL, OPT_BASE + (int)n};
        if (opts[n].short_name) {
            shorts[ns++] = (char)opts[n].short_name;
            shorts[ns++] = ':';
        }
    }
    shorts[ns] = 0;
    size_t nl = n;
    for (size_t i = 0; dc->no_gc && i < NPAUSE_OPTS; i++)
        longopts[nl++] = pause_opts[i];
    longopts[nl] = (struct option){NULL, 0, NULL, 0};

    memset(a, 0, sizeof(*a));
    a->gc = DBG_PAUSE_AFTER_GC;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        const debug_opt *o = NULL;
        if (ch >= OPT_BASE && ch < OPT_BASE + (int)n)
            o = &opts[ch - OPT_BASE];
        for (size_t i = 0; !o && i < n; i++)
            if (opts[i].short_name && opts[i].short_name == ch)
                o = &opts[i];
        if (o) {
            int r = debug_opt_take(dc, o, optarg);
            if (r >= 0)
                return r;
        } else if (dc->no_gc && (ch == 'n' || ch == 'F')) {
            a->gc = debug_pause_option(ch);
            a->gc_given = 1;
        } else {
            return debug_usage_error(dc, "bad option");
        }
    }
    if (argc - optind != ntargets)
        return debug_usage_error(dc, ntargets == 1 ? "needs one TARGET"
                                                   : "needs two TARGETs: A B");
    for (int i = 0; i < ntargets; i++)
        a->target[i] = argv[optind + i];
    return -1;
}

int debug_usage_error(const debug_command *dc, const char *fmt, ...)
{
    char name[64];
    va_list ap;
    snprintf(name, sizeof(name), "debug %s", dc->name);
    va_start(ap, fmt);
    int r = cli_usage_errorv(name, fmt, ap);
    va_end(ap);
    return r;
}
