/* rtscope hp: write the heap profile in an eventlog as a .hp file that
 * hp2ps accepts. The writer is librtscope-out's (rtscope/out/hp.h); this is
 * the command around it: options, input, output. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/out/hp.h"
#include "cli.h"

#include <getopt.h>
#include <string.h>

static int hp_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    (void)types;
    return hp_writer_event(ctx, ev);
}

static const char hp_usage[] =
    "usage: rtscope hp [options] -o FILE.hp INPUT\n"
    "\n"
    "Write the heap profile recorded in an eventlog (+RTS -h... -l) as a .hp\n"
    "file for hp2ps: samples in time order (elapsed seconds), MARK lines for\n"
    "user markers. With -hi, bands are named from IPE events\n"
    "(TABLE_NAME@SRCLOC).\n"
    "\n"
    "options:\n"
    "  -o, --output=FILE   where to write (required; '-' for stdout)\n"
    "  --by-address        -hi: name bands by info-table "
    "address\n" CLI_COMMON_HELP;

static int hp_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"by-address", no_argument, NULL, 'A'},
        CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    cli_input_opts io;
    const char *output = NULL;
    int by_address = 0, c;
    memset(&io, 0, sizeof(io));
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'A':
            by_address = 1;
            break;
        default:
            if (c == '?' || cli_common_option(&io, c, optarg) != 0)
                return cli_usage_error(&cli_cmd_hp, "bad option");
        }
    }
    if (!output)
        return cli_usage_error(&cli_cmd_hp, "-o FILE.hp is required");
    if (optind != argc - 1)
        return cli_usage_error(&cli_cmd_hp, "expected one INPUT");
    FILE *out = cli_open_output(output);
    if (!out)
        return CLI_EXIT_USAGE;
    hp_writer *w = hp_writer_new(out, by_address);
    if (!w) {
        fprintf(stderr, "rtscope: out of memory\n");
        cli_close_output(out, output);
        return CLI_EXIT_DATA;
    }
    uint8_t wanted[65536];
    memset(wanted, 0, sizeof(wanted));
    hp_writer_want(wanted);
    io.reader.wanted = wanted;
    el_reader_result res;
    int rc = cli_read(argv[optind], &io, hp_sink, w, &res);
    /* the profile ends at the last event of any type (res.last_ts) */
    if (hp_writer_finish(w, res.last_ts) != 0) {
        fprintf(stderr, "rtscope: %s: out of memory\n", argv[optind]);
        rc = CLI_EXIT_DATA;
    }
    if (cli_close_output(out, output) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_DATA;
    hp_writer_free(w);
    return rc;
}

const cli_command cli_cmd_hp = {
    "hp",     "write the heap profile as a .hp file for hp2ps",
    hp_usage, hp_run,
    NULL,     NULL,
};
