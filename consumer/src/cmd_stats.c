#include "cli.h"
static int stats_run(int argc, char **argv) { (void)argc; (void)argv; return 2; }
const cli_command cli_cmd_stats = {"stats", "todo", "todo\n", stats_run};
