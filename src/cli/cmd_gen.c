/* placeholder until the module lands */
#include "cli.h"
#include <stdio.h>
int cmd_gen(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen gen: not built yet\n"); return 2; }
int cmd_prompts(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen prompts: not built yet\n"); return 2; }
