/* rtscope hp: write the heap profile in an eventlog as a .hp file that
 * hp2ps accepts. The writer is librtscope-out's (rtscope/out/hp.h); this is
 * the command around it: options, input, output. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/hp.h"
#include "cli.h"

#include <string.h>

static int hp_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    (void)types;
    return hp_writer_event(ctx, ev);
}

static const char hp_about[] =
    "Write the heap profile recorded in an eventlog (+RTS -h... -l) as a .hp\n"
    "file for hp2ps: samples in time order (elapsed seconds), MARK lines for\n"
    "user markers. With -hi, bands are named from IPE events\n"
    "(TABLE_NAME@SRCLOC).\n";

/* What `rtscope hp` is given. */
typedef struct hp_args {
    cli_input_opts io;
    const char *output;
    int by_address;
} hp_args;

static const opt hp_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(hp_args, output),
     .help = "where to write (required; '-' for stdout)"},
    {.name = "by-address",
     .kind = OPT_FLAG,
     .set = 1,
     .value = OPT_AT(hp_args, by_address),
     .help = "-hi: name bands by info-table address"},
    OPT_INCLUDE(cli_input_table, hp_args, io),
    OPT_END,
};

static int hp_run(int argc, char **argv)
{
    hp_args a;
    memset(&a, 0, sizeof(a));
    int first = opts_parse("hp", argc, argv, &(opts_bind){hp_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (!a.output)
        return cli_usage_error(&cli_cmd_hp, "-o FILE.hp is required");
    if (first != argc - 1)
        return cli_usage_error(&cli_cmd_hp, "expected one INPUT");
    const char *output = a.output, *input = argv[first];
    FILE *out = cli_open_output(output);
    if (!out)
        return CLI_EXIT_USAGE;
    hp_writer *w = hp_writer_new(out, a.by_address);
    if (!w) {
        fprintf(stderr, "rtscope: out of memory\n");
        cli_close_output(out, output);
        return CLI_EXIT_DATA;
    }
    uint8_t wanted[65536];
    memset(wanted, 0, sizeof(wanted));
    hp_writer_want(wanted);
    a.io.reader.wanted = wanted;
    el_reader_result res;
    int rc = cli_read(input, &a.io, hp_sink, w, &res);
    /* the profile ends at the last event of any type (res.last_ts) */
    if (hp_writer_finish(w, res.last_ts) != 0) {
        fprintf(stderr, "rtscope: %s: out of memory\n", input);
        rc = CLI_EXIT_DATA;
    }
    if (cli_close_output(out, output) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_DATA;
    hp_writer_free(w);
    return rc;
}

const cli_command cli_cmd_hp = {
    .name = "hp",
    .summary = "write the heap profile as a .hp file for hp2ps",
    .synopsis = "rtscope hp [options] -o FILE.hp INPUT",
    .about = hp_about,
    .opts = hp_opts,
    .run = hp_run,
};
