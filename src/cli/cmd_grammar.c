/* placeholder until the module lands */
#include "cli.h"
#include <stdio.h>
int cmd_grammar(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen grammar: not built yet\n"); return 2; }
