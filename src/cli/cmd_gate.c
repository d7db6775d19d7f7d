/* placeholder until the module lands */
#include "cli.h"
#include <stdio.h>
int cmd_gate(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen gate: not built yet\n"); return 2; }
