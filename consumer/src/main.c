/* rtscope: one binary, git-like subcommands. Every subcommand is a sink of
 * the eventlog library's ordered event stream. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* RTSCOPE_VERSION: -D from the Makefile, which reads rts/Rtscope.h */

static const cli_command *const main_commands[] = {
    &cli_cmd_show,   &cli_cmd_stats, &cli_cmd_ipe,   &cli_cmd_hp,
    &cli_cmd_html,   &cli_cmd_diff,  &cli_cmd_pprof, &cli_cmd_live,
    &cli_cmd_export, &cli_cmd_serve, &cli_cmd_debug, &cli_cmd_explore,
};

#define MAIN_NCOMMANDS (sizeof(main_commands) / sizeof(main_commands[0]))

static void main_print_overview(FILE *f)
{
    fprintf(f, "usage: rtscope <command> [options] INPUT\n"
               "\n"
               "INPUT is an eventlog file, '-' for standard input, "
               "unix:PATH or tcp:[HOST:]PORT\n"
               "for a live eventlog socket (a PATH that is a socket is read as "
               "one).\n\ncommands:\n");
    for (size_t i = 0; i < MAIN_NCOMMANDS; i++)
        fprintf(f, "  %-8s %s\n", main_commands[i]->name,
                main_commands[i]->summary);
    fprintf(f, "  %-8s %s\n", "help", "show help for a command");
    fprintf(f, "\n'rtscope --version' prints the version.\n"
               "exit status: 0 ok, 1 bad or unreadable data, 2 usage\n"
               "See 'rtscope help <command>', docs/guide.md (a walk-through) "
               "and\ndocs/reference.md (every command and option).\n");
}

/* A command's help, made from its cli_command and its table of options. */
static void main_print_usage(const cli_command *cmd, FILE *f)
{
    if (cmd->print_usage) {
        cmd->print_usage(f);
        return;
    }
    const opts_layout layout = {2, 20, cmd->sep ? cmd->sep : '='};
    fprintf(f, "usage: %s\n\n%s\noptions:\n", cmd->synopsis, cmd->about);
    opts_help(f, cmd->opts, &layout);
    if (cmd->more)
        fprintf(f, "\n%s", cmd->more);
}

static const cli_command *main_find(const char *name)
{
    for (size_t i = 0; i < MAIN_NCOMMANDS; i++)
        if (strcmp(main_commands[i]->name, name) == 0)
            return main_commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        main_print_overview(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("rtscope %s\n", RTSCOPE_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 ||
        strcmp(name, "-h") == 0) {
        if (argc < 3) {
            main_print_overview(stdout);
            return CLI_EXIT_OK;
        }
        const cli_command *cmd = main_find(argv[2]);
        if (!cmd) {
            fprintf(stderr, "rtscope: no such command: %s\n", argv[2]);
            return CLI_EXIT_USAGE;
        }
        if (argc >= 4 && cmd->help_sub)
            return cmd->help_sub(argv[3]);
        main_print_usage(cmd, stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *cmd = main_find(name);
    if (!cmd) {
        fprintf(stderr, "rtscope: '%s' is not a command; see 'rtscope help'\n",
                name);
        return CLI_EXIT_USAGE;
    }
    for (int i = 2; i < argc && !(cmd->help_sub && i > 2); i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            main_print_usage(cmd, stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--") == 0)
            break;
    }
    return cmd->run(argc - 1, argv + 1);
}
