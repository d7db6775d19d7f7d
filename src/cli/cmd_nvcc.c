/* placeholder until the module lands */
#include "cli.h"
#include <stdio.h>
int cmd_nvcc(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen nvcc: not built yet\n"); return 2; }
