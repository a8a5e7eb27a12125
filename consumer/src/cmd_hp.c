#include "cli.h"
static int hp_run(int argc, char **argv) { (void)argc; (void)argv; return 2; }
const cli_command cli_cmd_hp = {"hp", "todo", "todo\n", hp_run};
