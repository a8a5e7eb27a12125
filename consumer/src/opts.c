/* The options of every rtscope command, parsed and printed from the table
 * each command declares (opts.h).
 *
 * Note [Options as tables]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A command says what it accepts once, as data: an `opt` per option with
 * its long name, short letter, argument, help and the member of the
 * command's own struct its value goes into (OPT_AT), or a small handler
 * for what a kind cannot say. One parser reads every command line, so the
 * forms accepted are getopt_long's everywhere and the messages are one
 * shape: "bad option '--x'", "--NAME needs ARG", "--NAME ARG: what it must
 * be"; one printer writes every command's options from the same table, so
 * --help cannot drift from what is parsed. Tables are static (a command's
 * help is printed without running it) and nest: OPT_INCLUDE puts the
 * options every reader shares (cli.c) or html's report options
 * (html_opts.c) into a command's table. A parse can also bind tables
 * chosen at run time: `rtscope debug` adds the pause options only for the
 * subcommands that take them (Note [The pause options] in
 * cmd/debug/args.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "opts.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* options one command line may have, included tables flattened */
#define OPTS_MAX 48
/* getopt values of options without a letter: OPTS_VAL_BASE + index */
enum { OPTS_VAL_BASE = 256 };

/* An option of the flattened tables and the struct its value goes into. */
typedef struct opts_item {
    const opt *o;
    void *base;
} opts_item;

typedef struct opts_set {
    opts_item item[OPTS_MAX];
    size_t n;
    int overflow;
} opts_set;

static void opts_flatten(opts_set *s, const opt *table, void *base)
{
    for (const opt *o = table; o && o->name; o++) {
        if (o->kind == OPT_TABLE)
            opts_flatten(s, o->table,
                         o->value && base ? (char *)base + o->value - 1 : base);
        else if (s->n == OPTS_MAX)
            s->overflow = 1;
        else
            s->item[s->n++] = (opts_item){o, base};
    }
}

static int opts_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int opts_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = cli_usage_errorv(cmd, fmt, ap);
    va_end(ap);
    return r;
}

static int opts_takes_arg(const opt *o)
{
    return o->kind != OPT_FLAG && (o->kind != OPT_CALL || o->argname);
}

static int opts_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    /* strtoull takes "-5" for a huge number: digits only */
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    default:
        break;
    }
    if (shift) {
        if (v > (ULLONG_MAX >> shift)) /* "99999999999G" */
            return -1;
        v <<= shift;
        end++;
    }
    if (*end || v == 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* Store arg as o says into place; 0, or -1 when arg is not what o takes. */
static int opts_store(const opt *o, void *base, void *place, const char *arg)
{
    char *end;
    errno = 0;
    switch (o->kind) {
    case OPT_FLAG:
        *(int *)place = o->set;
        return 0;
    case OPT_STRING:
        *(const char **)place = arg;
        return 0;
    case OPT_COUNT: {
        long v = strtol(arg, &end, 10);
        if (errno || end == arg || *end || v < o->min || v > o->max)
            return -1;
        *(long *)place = v;
        return 0;
    }
    case OPT_SIZE: {
        size_t v;
        if (opts_parse_size(arg, &v) != 0 || v < (size_t)o->min)
            return -1;
        *(size_t *)place = v;
        return 0;
    }
    case OPT_NUMBER: {
        double v = strtod(arg, &end);
        if (end == arg || *end || !(v >= o->lo && v <= o->hi))
            return -1;
        *(double *)place = v;
        return 0;
    }
    case OPT_ADDR: {
        unsigned long long v = strtoull(arg, &end, 16);
        if (errno || end == arg || *end || v == 0)
            return -1;
        *(uint64_t *)place = v;
        return 0;
    }
    case OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], arg) == 0) {
                *(int *)place = i;
                return 0;
            }
        return -1;
    case OPT_CALL:
        return o->call(base, arg);
    case OPT_TABLE:
        break;
    }
    return -1;
}

/* "use A, B or C": what an OPT_CHOICE takes. */
static void opts_choices(const opt *o, char *buf, size_t len)
{
    size_t n = 0, at = 0;
    while (o->choices[n])
        n++;
    at += (size_t)snprintf(buf, len, "use");
    for (size_t i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s",
                               i == 0      ? " "
                               : i + 1 < n ? ", "
                                           : " or ",
                               o->choices[i]);
}

static int opts_take(const char *cmd, const opts_item *it, const char *arg)
{
    const opt *o = it->o;
    char *base = it->base;
    void *place = base && o->value ? base + o->value - 1 : NULL;
    if (!base || (!place && o->kind != OPT_CALL)) /* the table's mistake */
        return opts_error(cmd, "--%s: the table gives it no place", o->name);
    if (opts_store(o, it->base, place, arg) != 0) {
        char what[256];
        if (o->bad)
            snprintf(what, sizeof(what), "%s", o->bad);
        else if (o->kind == OPT_CHOICE)
            opts_choices(o, what, sizeof(what));
        else
            snprintf(what, sizeof(what), "not a valid %s",
                     o->argname ? o->argname : "value");
        return opts_error(cmd, "--%s %s: %s", o->name, arg ? arg : "", what);
    }
    if (o->given)
        (*(int *)(base + o->given - 1))++;
    return 0;
}

static const opts_item *opts_find(const opts_set *s, int val)
{
    if (val >= OPTS_VAL_BASE && val < OPTS_VAL_BASE + (int)s->n)
        return &s->item[val - OPTS_VAL_BASE];
    for (size_t i = 0; val > 0 && i < s->n; i++)
        if (s->item[i].o->letter == val)
            return &s->item[i];
    return NULL;
}

/* The usage error of an option getopt_long refused: unknown, ambiguous,
 * missing its argument or given one it does not take. */
static int opts_refused(const char *cmd, const opts_set *s, int ch, char **argv)
{
    const opts_item *it = opts_find(s, optopt);
    if (it && ch == ':')
        return opts_error(cmd, "--%s needs %s", it->o->name, it->o->argname);
    if (it)
        return opts_error(cmd, "--%s takes no argument", it->o->name);
    if (optopt)
        return opts_error(cmd, "bad option '-%c'", optopt);
    /* an unknown or ambiguous long option: getopt_long has passed it */
    const char *word = argv[optind - 1];
    size_t len = strcspn(word, "=");
    char also[256];
    size_t at = 0, nmatch = 0;
    for (size_t i = 0; len > 2 && i < s->n && at < sizeof(also); i++)
        if (strncmp(s->item[i].o->name, word + 2, len - 2) == 0) {
            at += (size_t)snprintf(also + at, sizeof(also) - at, "%s--%s",
                                   nmatch++ ? ", " : "", s->item[i].o->name);
        }
    if (nmatch > 1)
        return opts_error(cmd, "bad option '%.*s': ambiguous (%s)", (int)len,
                          word, also);
    return opts_error(cmd, "bad option '%.*s'", (int)len, word);
}

int opts_parse(const char *cmd, int argc, char **argv, const opts_bind *binds,
               size_t nbinds)
{
    opts_set s;
    s.n = 0;
    s.overflow = 0;
    for (size_t i = 0; i < nbinds; i++)
        opts_flatten(&s, binds[i].table, binds[i].base);
    if (s.overflow) { /* a programming error, caught by any test */
        opts_error(cmd, "too many options");
        return -1;
    }

    struct option longopts[OPTS_MAX + 1];
    char shorts[2 * OPTS_MAX + 2];
    size_t ns = 0;
    shorts[ns++] = ':'; /* a missing argument is ':', not '?' */
    for (size_t i = 0; i < s.n; i++) {
        const opt *o = s.item[i].o;
        int has = !opts_takes_arg(o) ? no_argument
                  : o->optional      ? optional_argument
                                     : required_argument;
        longopts[i] = (struct option){
            o->name, has, NULL, o->letter ? o->letter : OPTS_VAL_BASE + (int)i};
        if (o->letter) {
            shorts[ns++] = (char)o->letter;
            if (has != no_argument)
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = 0;
    longopts[s.n] = (struct option){NULL, 0, NULL, 0};

    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        const opts_item *it = ch == '?' || ch == ':' ? NULL : opts_find(&s, ch);
        if (!it) {
            opts_refused(cmd, &s, ch, argv);
            return -1;
        }
        if (opts_take(cmd, it, optarg) != 0)
            return -1;
    }
    return optind;
}

/* ---- help ------------------------------------------------------------- */

static void opts_help_line(FILE *f, const opts_layout *l, const char *left,
                           const char *help)
{
    int w = (int)strlen(left);
    fprintf(f, "%*s%s", l->indent, "", left);
    if (help && *help) {
        if (w < l->width)
            fprintf(f, "%*s", l->width - w, "");
        else
            fputs("  ", f);
        for (const char *p = help; *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(f, "%.*s", (int)n, p);
            p += n;
            if (*p == '\n' && *++p)
                fprintf(f, "\n%*s", l->indent + l->width, "");
        }
    }
    fputc('\n', f);
}

void opts_help(FILE *f, const opt *table, const opts_layout *l)
{
    char left[128];
    for (const opt *o = table; o && o->name; o++) {
        if (o->kind == OPT_TABLE) {
            opts_help(f, o->table, l);
        } else if (o->kind == OPT_CHOICE && o->choice_help) {
            for (int i = 0; o->choices[i]; i++) {
                snprintf(left, sizeof(left), "--%s%c%s", o->name, l->sep,
                         o->choices[i]);
                opts_help_line(f, l, left, o->choice_help[i]);
            }
        } else {
            int at = 0;
            if (o->letter)
                at = snprintf(left, sizeof(left), "-%c, ", o->letter);
            at +=
                snprintf(left + at, sizeof(left) - (size_t)at, "--%s", o->name);
            if (opts_takes_arg(o) && o->optional)
                snprintf(left + at, sizeof(left) - (size_t)at, "[=%s]",
                         o->argname);
            else if (opts_takes_arg(o))
                snprintf(left + at, sizeof(left) - (size_t)at, "%c%s", l->sep,
                         o->argname ? o->argname : "ARG");
            opts_help_line(f, l, left, o->help);
        }
    }
}
