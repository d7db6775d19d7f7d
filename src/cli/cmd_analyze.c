/* PLACEHOLDER — replaced by the analysis/explainer work in progress. */
#include "cli.h"
#include <stdio.h>
int cmd_stats(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "stats: in progress\n"); return 2; }
int cmd_explain(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "explain: in progress\n"); return 2; }
