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
    {"ngram", cmd_ngram, "the n-gram table of training kernels that speculative decoding drafts from"},
    {"tokenize", cmd_tokenize, "encode text with a tokenizer.json (ids, pieces, tokens per line)"},
    {"logits", cmd_logits, "run the C inference engine on a prompt and print logits as JSON"},
    {"grammar", cmd_grammar, "print the GBNF grammar for llama.cpp (--gbnf)"},
    {"eval", cmd_eval, "run the held-out suite: generate, check, ptxas, GPU correctness and speed"},
    {"gate", cmd_gate, "CI performance gate: compare baseline and candidate PTX"},
    {"nvcc", cmd_nvcc, "nvcc wrapper: build, then propose an optimized PTX next to nvcc's"},
};

bool cli_int_arg(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "ptxgen %s: %s wants an integer from %ld to %ld, not '%s'\n", cmd, flag, lo, hi, text);
        fprintf(stderr, "try 'ptxgen help %s'\n", cmd);
        return false;
    }
    *out = (int)v;
    return true;
}

bool cli_float_arg(const char *cmd, const char *flag, const char *text, double lo, double hi, float *out) {
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "ptxgen %s: %s wants a number from %g to %g, not '%s'\n", cmd, flag, lo, hi, text);
        fprintf(stderr, "try 'ptxgen help %s'\n", cmd);
        return false;
    }
    *out = (float)v;
    return true;
}

bool cli_u64_arg(const char *cmd, const char *flag, const char *text, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (end == text || *end || errno == ERANGE || text[strspn(text, " \t")] == '-') {
        fprintf(stderr, "ptxgen %s: %s wants a non-negative integer, not '%s'\n", cmd, flag, text);
        fprintf(stderr, "try 'ptxgen help %s'\n", cmd);
        return false;
    }
    *out = v;
    return true;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ptxgen %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'ptxgen help %s'\n", cmd);
    return 2;
}

bool cli_arch_usable(const char *cmd, const char *arch, int ptx_version) {
    char why[512], path[512] = "ptxas";
    if (ptx_ptxas_target_check(arch, ptx_version, why, sizeof why) != 0) return true;
    ptx_ptxas_find(path, sizeof path);
    fprintf(stderr, "ptxgen %s: --arch %s: the installed ptxas (%s) does not know it: %s\n"
                    "  choose a target it supports, or install a CUDA toolkit that knows %s\n", cmd, arch, path, why, arch);
    return false;
}

int cli_cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

static void usage(FILE *f) {
    fprintf(f, "usage: ptxgen <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nRun 'ptxgen help <command>' (or 'ptxgen <command> --help') for a command's options.\n");
}

int main(int argc, char **argv) {
    /* installed as `ptxgen-nvcc` (a symlink), it is the nvcc wrapper */
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (!strcmp(base, "ptxgen-nvcc")) { pg_tmp_cleanup_install("nvcc"); return cmd_nvcc(argc, argv); }
    if (argc < 2) { usage(stderr); return 2; }
    if (!strcmp(argv[1], "help") && argc > 2) {   /* `ptxgen help CMD` = `ptxgen CMD --help` */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                /* the nvcc wrapper passes --help to the real nvcc (drop-in): its own help has its own flag */
                char *av[] = {argv[2], !strcmp(argv[2], "nvcc") ? "--ptxgen-help" : "--help", NULL};
                return commands[i].fn(2, av);
            }
        fprintf(stderr, "ptxgen help: unknown command '%s'\ntry 'ptxgen help'\n", argv[2]);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) { usage(stdout); return 0; }
    if (!strcmp(argv[1], "--version")) { printf("ptxgen %s\n", PTXGEN_VERSION); return 0; }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            pg_tmp_cleanup_install(commands[i].name);   /* temp files go away on exit and on Ctrl-C */
            return commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "ptxgen: unknown command '%s'\ntry 'ptxgen help'\n", argv[1]);
    return 2;
}
