/* cmd_grammar.c — `ptxgen grammar --gbnf [-o FILE]`: the llama.cpp GBNF
 * grammar for the syntactic PTX subset, generated from the ISA table. */
#include "cli.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <string.h>

static const char *grammar_usage =
    "usage: ptxgen grammar --gbnf [-o FILE]\n"
    "  print a llama.cpp GBNF grammar for the canonical PTX subset (from the ISA table)\n"
    "  -o FILE  write it to FILE (atomically) instead of stdout\n"
    "  exit 0: ok; 2: usage or I/O error\n";

int cmd_grammar(int argc, char **argv) {
    bool gbnf = false;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gbnf")) gbnf = true;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) out_path = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { fputs(grammar_usage, stdout); return 0; }
        else { cli_usage_error("grammar", "unknown argument '%s'", argv[i]); return 2; }
    }
    if (!gbnf) { cli_usage_error("grammar", "say which format (--gbnf)"); return 2; }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 50};
    if (isa_init(&sink) != PG_OK) return 2;
    pg_buf b = {0};
    dec_gbnf_write(&b);
    int rc = 0;
    if (out_path) {
        if (pg_write_file_atomic(out_path, b.data ? b.data : "", b.len, &sink) != PG_OK) rc = 2;
    } else if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) {
        fprintf(stderr, "ptxgen grammar: cannot write to stdout\n");
        rc = 2;
    }
    pg_buf_free(&b);
    return rc;
}
