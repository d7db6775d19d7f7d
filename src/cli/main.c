/* main.c — `ptxgen <command>`: thin flag parsing over the library. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

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
    {"prompts", cmd_prompts, "turn a synth dataset into prompt/completion pairs (the training format)"},
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
    fprintf(f, "\nRun 'ptxgen <command> --help' for a command's options.\n");
}

int main(int argc, char **argv) {
    /* installed as `ptxgen-nvcc` (a symlink), it is the nvcc wrapper */
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (!strcmp(base, "ptxgen-nvcc")) return cmd_nvcc(argc, argv);
    if (argc < 2) { usage(stderr); return 2; }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) { usage(stdout); return 0; }
    if (!strcmp(argv[1], "--version")) { printf("ptxgen %s\n", PTXGEN_VERSION); return 0; }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "ptxgen: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
