#include "cli.h"
static int ipe_run(int argc, char **argv) { (void)argc; (void)argv; return 2; }
const cli_command cli_cmd_ipe = {"ipe", "todo", "todo\n", ipe_run};
