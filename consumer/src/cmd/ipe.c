/* rtscope ipe: the info-table provenance table from EVENT_IPE, one row per
 * info-table address (the last entry for an address wins), sorted by
 * address. */
#define _POSIX_C_SOURCE 200809L
#include "rtscope/model/ipe.h"
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct ipe_row {
    uint64_t info;
    uint64_t seq;
    char *text; /* fields, tab-separated, escaped */
} ipe_row;

typedef struct ipe_state {
    ipe_row *rows;
    size_t n, cap;
    uint64_t seq;
    ipe_table *names; /* the band names, as every sink gives them */
    int nomem;
} ipe_state;

static int ipe_sink(void *ctx, const el_event *ev, const el_typetab *types)
{
    ipe_state *s = ctx;
    (void)types;
    if (ev->type != EL_IPE)
        return 0;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        ipe_row *nr = realloc(s->rows, nc * sizeof(*nr));
        if (!nr)
            return s->nomem = 1;
        s->rows = nr;
        s->cap = nc;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return s->nomem = 1;
    const el_str fields[6] = {ev->u.ipe.table_name, ev->u.ipe.closure_desc,
                              ev->u.ipe.ty_desc,    ev->u.ipe.label,
                              ev->u.ipe.module,     ev->u.ipe.srcloc};
    for (int i = 0; i < 6; i++) {
        if (i)
            putc('\t', f);
        cli_put_str(f, fields[i]);
    }
    const ipe_entry *e = NULL;
    if (ipe_table_put(s->names, ev) == 0)
        e = ipe_table_get(s->names, ev->u.ipe.info);
    putc('\t', f);
    if (e) {
        el_str n = {e->name, strlen(e->name)};
        cli_put_str(f, n);
    }
    if (fclose(f) != 0 || !e) {
        free(buf);
        return s->nomem = 1;
    }
    s->rows[s->n].info = ev->u.ipe.info;
    s->rows[s->n].seq = s->seq++;
    s->rows[s->n].text = buf;
    s->n++;
    return 0;
}

static int ipe_row_cmp(const void *a, const void *b)
{
    const ipe_row *x = a, *y = b;
    if (x->info != y->info)
        return x->info < y->info ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char ipe_about[] =
    "Print the info-table provenance (IPE) entries of an eventlog, sorted by\n"
    "address: ADDRESS, table name, closure type, type, label, module, source\n"
    "span and the band name rtscope gives the table (as in hp, html, live and\n"
    "export), separated by tabs.\n";

/* What `rtscope ipe` is given. */
typedef struct ipe_args {
    cli_input_opts io;
    const char *output;
    int header;
} ipe_args;

static const opt ipe_opts[] = {
    {.name = "output",
     .letter = 'o',
     .kind = OPT_STRING,
     .argname = "FILE",
     .value = OPT_AT(ipe_args, output),
     .help = "write to FILE instead of standard output"},
    {.name = "no-header",
     .kind = OPT_FLAG,
     .set = 0,
     .value = OPT_AT(ipe_args, header),
     .help = "omit the column header line"},
    OPT_INCLUDE(cli_input_table, ipe_args, io),
    OPT_END,
};

static int ipe_run(int argc, char **argv)
{
    ipe_args a;
    memset(&a, 0, sizeof(a));
    a.output = "-";
    a.header = 1;
    int first = opts_parse("ipe", argc, argv, &(opts_bind){ipe_opts, &a}, 1);
    if (first < 0)
        return CLI_EXIT_USAGE;
    if (first != argc - 1)
        return cli_usage_error(&cli_cmd_ipe, "expected one INPUT");
    const char *output = a.output, *input = argv[first];
    ipe_state s;
    memset(&s, 0, sizeof(s));
    s.names = ipe_table_new();
    if (!s.names) {
        fprintf(stderr, "rtscope: out of memory\n");
        return CLI_EXIT_DATA;
    }
    FILE *out = cli_open_output(output);
    if (!out) {
        ipe_table_free(s.names);
        return CLI_EXIT_USAGE;
    }
    el_reader_result res;
    int rc = cli_read(input, &a.io, ipe_sink, &s, &res);
    if (s.nomem) {
        fprintf(stderr, "rtscope: %s: out of memory\n", input);
        rc = CLI_EXIT_DATA;
    }
    if (rc == CLI_EXIT_OK) {
        if (s.n)
            qsort(s.rows, s.n, sizeof(*s.rows), ipe_row_cmp);
        if (a.header)
            fputs("address\ttable\tclosure_"
                  "type\ttype\tlabel\tmodule\tsrcloc\tname\n",
                  out);
        for (size_t i = 0; i < s.n; i++) {
            if (i + 1 < s.n && s.rows[i + 1].info == s.rows[i].info)
                continue;
            fprintf(out, "0x%" PRIx64 "\t%s\n", s.rows[i].info, s.rows[i].text);
        }
    }
    for (size_t i = 0; i < s.n; i++)
        free(s.rows[i].text);
    free(s.rows);
    ipe_table_free(s.names);
    if (cli_close_output(out, output) != 0 && rc == CLI_EXIT_OK)
        rc = CLI_EXIT_DATA;
    return rc;
}

const cli_command cli_cmd_ipe = {
    .name = "ipe",
    .summary = "print the info-table provenance (IPE) table",
    .synopsis = "rtscope ipe [options] INPUT",
    .about = ipe_about,
    .opts = ipe_opts,
    .run = ipe_run,
};
