/* placeholder until the module lands */
#include "cli.h"
#include <stdio.h>
int cmd_tokenize(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen tokenize: not built yet\n"); return 2; }
int cmd_logits(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen logits: not built yet\n"); return 2; }
