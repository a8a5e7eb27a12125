/* opts.h: a command's options as a table. Every rtscope command, top-level
 * and debug alike, declares what it accepts as an array of `opt` (a long
 * name, a short letter, whether it takes an argument and its name in the
 * help, the help text, and where the value goes or a small handler);
 * opts_parse parses a command line against it and opts_help prints it.
 * See Note [Options as tables] in opts.c. */
#ifndef RTSCOPE_OPTS_H
#define RTSCOPE_OPTS_H

#include <stddef.h>
#include <stdio.h>

/* Where an option's value goes: a member of the struct the table describes
 * (the `base` given to opts_parse), as OPT_AT(type, member); 0 is none. */
#define OPT_AT(type, member) (offsetof(type, member) + 1)

typedef enum opt_kind {
    OPT_FLAG,   /* int: set to .set; takes no argument */
    OPT_STRING, /* const char *: the argument as given */
    OPT_COUNT,  /* long: a whole number from .min to .max */
    OPT_SIZE,   /* size_t: a byte count with an optional K, M or G suffix,
                   at least .min (and above 0) */
    OPT_NUMBER, /* double: a number from .lo to .hi */
    OPT_ADDR,   /* uint64_t: a non-zero hexadecimal address */
    OPT_CHOICE, /* int: the argument's index in .choices */
    OPT_CALL,   /* .call(base, arg) takes it: 0, or -1 for a bad argument;
                   an argument (required, or .optional) iff .argname */
    OPT_TABLE,  /* the options of .table, whose struct is at .value (0:
                   this table's struct); in the help, where this entry is */
} opt_kind;

typedef struct opt {
    const char *name; /* the long name, without "--"; NULL ends a table */
    int letter;       /* the short option, or 0 */
    opt_kind kind;
    const char *argname; /* the argument in the help (FILE, N); NULL: none */
    int optional;        /* the argument may be left out: --name[=ARG] */
    const char *help;    /* beside the option; "\n" between its lines */
    size_t value;        /* OPT_AT: where the value goes */
    size_t given;        /* OPT_AT of an int counting the times given, or 0 */
    int set;             /* OPT_FLAG: the value it sets */
    long min, max;       /* OPT_COUNT: the range; OPT_SIZE: the minimum */
    double lo, hi;       /* OPT_NUMBER: the range (both included) */
    const char *const *choices;     /* OPT_CHOICE: ended by NULL */
    const char *const *choice_help; /* OPT_CHOICE: a help per choice, each
                                       on a line "--name CHOICE", or NULL */
    int (*call)(void *base, const char *arg); /* OPT_CALL */
    const struct opt *table;                  /* OPT_TABLE */
    const char *bad; /* a bad argument's usage error: "--NAME ARG: BAD" */
} opt;

/* The end of a table. */
#define OPT_END                                                                \
    {                                                                          \
        .name = NULL                                                           \
    }
/* The options of `table` (their struct: member of type) in this one. */
#define OPT_INCLUDE(tab, type, member)                                         \
    {                                                                          \
        .name = "", .kind = OPT_TABLE, .table = (tab),                         \
        .value = OPT_AT(type, member)                                          \
    }

/* The options of `table`, their values in this table's struct. */
#define OPT_INCLUDE_HERE(tab)                                                  \
    {                                                                          \
        .name = "", .kind = OPT_TABLE, .table = (tab)                          \
    }

/* A table and the struct its values go into. */
typedef struct opts_bind {
    const opt *table;
    void *base;
} opts_bind;

/* Parse argv (argv[0] the command's name; GNU getopt_long's forms: --name
 * ARG, --name=ARG, unambiguous abbreviations, -L ARG, -LARG, clustered
 * letters, options among the operands, "--") against the tables, writing
 * each value into its bind's struct. Returns the index of the first
 * operand (the operands are argv[index..argc-1]), or prints a usage error,
 * "rtscope CMD: what", and returns -1. */
int opts_parse(const char *cmd, int argc, char **argv, const opts_bind *binds,
               size_t nbinds);

/* How opts_help lays a table out: `indent` spaces, the option
 * ("-o, --output=FILE", or "--output FILE" when sep is ' ') padded to
 * `width` (or followed by two spaces when longer), its help; a help's
 * further lines start under its first. */
typedef struct opts_layout {
    int indent, width;
    char sep; /* between a long option and its argument's name */
} opts_layout;

/* Print the options of a table as layout says. */
void opts_help(FILE *f, const opt *table, const opts_layout *layout);

#endif
