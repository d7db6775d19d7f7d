/* main.c — `ptxgen <command>`: thin flag parsing over the library. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { const char *name; int (*fn)(int, char **); const char *help; } commands[] = {
    {"check", cmd_check, "validate PTX files (--json, --ptxas, --arch)"},
    {"fmt", cmd_fmt, "canonical pretty-print of a PTX file"},
    {"stats", cmd_stats, "JSON statistics per function (--ptxas)"},
    {"explain", cmd_explain, "each instruction with a plain-English sentence, plus function summaries"},
    {"isa", cmd_isa, "dump the instruction table as JSON"},
    {"run", cmd_run, "check and time PTX for a task on the GPU against its reference and nvcc (--suite DIR)"},
    {"devinfo", cmd_devinfo, "GPU name, sm, measured copy bandwidth and FP32/FP16 peak"},
    {"synth", cmd_synth, "write a verified JSONL training dataset (--stats FILE for its statistics)"},
    {"gen", cmd_gen, "generate PTX from a description with the model, under the PTX constraint"},
    {"twin", cmd_twin, "a PTX kernel against its CUDA C twin: compile, infer a task, run both on the GPU"},
    {"prompts", cmd_prompts, "turn a synth dataset into prompt/completion pairs (the training format)"},
    {"retrieve", cmd_retrieve, "the library of verified kernels the two-stage model's prompts retrieve from (build, query, eval)"},
    {"ngram", cmd_ngram, "the n-gram table of training kernels that speculative decoding drafts from"},
    {"tokenize", cmd_tokenize, "encode text with a tokenizer.json (ids, pieces, tokens per line)"},
    {"logits", cmd_logits, "run the C inference engine on a prompt and print logits as JSON"},
    {"grammar", cmd_grammar, "print the GBNF grammar for llama.cpp (--gbnf)"},
    {"eval", cmd_eval, "run the held-out suite: generate, check, ptxas, GPU correctness and speed"},
    {"gate", cmd_gate, "CI performance gate: compare baseline and candidate PTX"},
    {"nvcc", cmd_nvcc, "nvcc wrapper: build, then propose an optimized PTX next to nvcc's"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: ptxgen <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nRun 'ptxgen help <command>' (or 'ptxgen <command> --help') for a command's options.\n");
}

/* Whatever a command printed must have arrived: a write error on stdout (a full
 * disk behind `> file`) is exit 2 with a message, a reader that left (`| head`)
 * a quiet exit 2. */
static int finish(int rc) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 0};
    return pg_stdout_finish(&sink) == PG_OK ? rc : 2;
}

int main(int argc, char **argv) {
    json_set_alloc_funcs(pg_xmalloc, free);   /* out of memory in a JSON object: a clean exit 2, not a NULL */
    pg_stdout_install();                      /* a failed write to stdout keeps its cause for finish() */
    /* installed as `ptxgen-nvcc` (a symlink), it is the nvcc wrapper */
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (!strcmp(base, "ptxgen-nvcc")) { pg_tmp_cleanup_install("nvcc"); return finish(cmd_nvcc(argc, argv)); }
    if (argc < 2) { usage(stderr); return 2; }
    if (!strcmp(argv[1], "help") && argc > 2) {   /* `ptxgen help CMD` = `ptxgen CMD --help` */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                /* the nvcc wrapper passes --help to the real nvcc (drop-in): its own help has its own flag */
                char *av[] = {argv[2], !strcmp(argv[2], "nvcc") ? "--ptxgen-help" : "--help", NULL};
                return finish(commands[i].fn(2, av));
            }
        fprintf(stderr, "ptxgen help: unknown command '%s'\ntry 'ptxgen help'\n", argv[2]);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) { usage(stdout); return finish(0); }
    if (!strcmp(argv[1], "--version")) { printf("ptxgen %s\n", PTXGEN_VERSION); return finish(0); }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            pg_tmp_cleanup_install(commands[i].name);   /* temp files go away on exit and on Ctrl-C */
            return finish(commands[i].fn(argc - 1, argv + 1));
        }
    fprintf(stderr, "ptxgen: unknown command '%s'\ntry 'ptxgen help'\n", argv[1]);
    return 2;
}
