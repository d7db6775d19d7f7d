/* placeholder until the module lands */
#include "cli.h"
#include <stdio.h>
int cmd_eval(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen eval: not built yet\n"); return 2; }
