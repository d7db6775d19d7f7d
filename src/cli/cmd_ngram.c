/* cmd_ngram.c — `ptxgen ngram`: the n-gram table of training kernels that speculative decoding
 * drafts from (gen_ngram_build_jsonl; the format is in src/decode/ngram.c), shipped beside an
 * adapter as ngram.bin. */
#include "cli.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <string.h>

static const char *ngram_usage =
    "usage: ptxgen ngram --in PAIRS.jsonl (--model DIR | --tokenizer FILE) --out TABLE.bin [--order 4] [--min-count 2]\n"
    "  The n-gram table speculative decoding drafts from: for every context of 1..order tokens in the\n"
    "  training completions (`ptxgen prompts` pairs, or a synth dataset's ptx_code; lines with a split\n"
    "  other than train and twin turns are skipped), the most frequent next token, kept when seen at\n"
    "  least --min-count times.  Tokenized with the model's tokenizer (the table records its fingerprint\n"
    "  and gen refuses a table of another tokenizer).  Ship it as ngram.bin beside the adapter: gen\n"
    "  loads DIR/ngram.bin of a model directory (or --ngram FILE).\n"
    "  exit 0: written; 2: usage, I/O or a bad input line\n";

int cmd_ngram(int argc, char **argv) {
    const char *in = NULL, *outp = NULL, *model = NULL, *tokp = NULL;
    int order = 4, min_count = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG(flag) (!strcmp(a, flag) && i + 1 < argc)
        if (ARG("--in")) in = argv[++i];
        else if (ARG("--out")) outp = argv[++i];
        else if (ARG("--model")) model = argv[++i];
        else if (ARG("--tokenizer")) tokp = argv[++i];
        else if (ARG("--order")) { if (!cli_int_arg("ngram", a, argv[++i], 1, GEN_NGRAM_MAX_ORDER, &order)) return 2; }
        else if (ARG("--min-count")) { if (!cli_int_arg("ngram", a, argv[++i], 1, 1 << 30, &min_count)) return 2; }
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", ngram_usage); return 0; }
        else return cli_usage_error("ngram", "unknown or incomplete option '%s'", a);
#undef ARG
    }
    if (!in || !outp) return cli_usage_error("ngram", "need --in PAIRS.jsonl and --out TABLE.bin");
    if (!model == !tokp) return cli_usage_error("ngram", "give one of --model DIR and --tokenizer FILE (the table's token ids are that tokenizer's)");
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    char tpath[8400];
    if (model && model_tokenizer_path(model, tpath, sizeof tpath, &sink) != PG_OK) return 2;
    tok_tokenizer *t = NULL;
    if (tok_load(model ? tpath : tokp, &t, &sink) != PG_OK) return 2;
    int n = 0;
    pg_status st = gen_ngram_build_jsonl(t, in, order, min_count, outp, &n, &sink);
    if (st == PG_OK) {
        gen_ngram *g = NULL;
        if (gen_ngram_load(outp, t, &g, &sink) == PG_OK)
            fprintf(stderr, "ngram: %d kernels -> %s: %zu contexts of 1..%d tokens (min count %d)\n", n, outp, gen_ngram_entries(g), order,
                    min_count);
        else st = PG_ERR_INVALID;
        gen_ngram_free(g);
    }
    tok_free(t);
    return st == PG_OK ? 0 : 2;
}
