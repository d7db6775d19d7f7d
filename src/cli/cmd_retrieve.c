/* cmd_retrieve.c — `ptxgen retrieve`: build a library of verified kernels from synth samples,
 * and ask it for the nearest kernels of a request (gen_retr_*, src/decode/retrieve.c). */
#include "cli.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *retrieve_usage =
    "usage: ptxgen retrieve build --in SYNTH.jsonl [--in ...] --out LIB.jsonl [--per-family 8]\n"
    "                             [--max-ptx-bytes 12000] [--exclude bench/suite,bench/suite-prose]\n"
    "       ptxgen retrieve query --lib LIB.jsonl [-k 3] [--exclude-task NAME] [--json] REQUEST\n"
    "       ptxgen retrieve eval --lib LIB.jsonl [-k 3] [--json]\n"
    "  The retrieval library of the two-stage model (docs/LITERATE.md \"Retrieval\"): kernels that passed\n"
    "  synth's verification, with every description of their task, their plan and their literate PTX.\n"
    "  build: the train-split samples of literate synth datasets, at most --per-family kernels of a family\n"
    "  (0: all), none longer than --max-ptx-bytes, no task of the --exclude suites; one kernel per task.\n"
    "  query: the k nearest kernels of REQUEST by BM25 over the descriptions' words (Chinese by\n"
    "  characters and their pairs): task, family and score per line, or --json.\n"
    "  eval: leave one out, per description style: each description asks the library without its own\n"
    "  kernel; how often the best hit (one of the k best) is of the kernel's family.\n"
    "  `ptxgen prompts --retrieve LIB` puts them in the training prompts, `gen --retrieve LIB` in gen's.\n"
    "  exit 0: done; 2: usage, I/O or a malformed input\n";

static int build(int argc, char **argv, pg_diag_sink *sink) {
    const char *in[64], *outp = NULL;
    int nin = 0;
    gen_retr_build b = {.per_family = 8, .max_ptx_bytes = 12000};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
#define ARG(flag) (!strcmp(a, flag) && i + 1 < argc)
        if (ARG("--in")) {
            if (nin == 64) return cli_usage_error("retrieve", "at most 64 --in files");
            in[nin++] = argv[++i];
        } else if (ARG("--out")) outp = argv[++i];
        else if (ARG("--exclude")) b.exclude = argv[++i];
        else if (ARG("--per-family")) { if (!cli_int_arg("retrieve", a, argv[++i], 0, 1 << 30, &b.per_family)) return 2; }
        else if (ARG("--max-ptx-bytes")) {
            int v;
            if (!cli_int_arg("retrieve", a, argv[++i], 0, 1 << 30, &v)) return 2;
            b.max_ptx_bytes = (size_t)v;
        } else return cli_usage_error("retrieve", "build: unknown or incomplete option '%s'", a);
#undef ARG
    }
    if (!nin || !outp) return cli_usage_error("retrieve", "build needs --in SYNTH.jsonl and --out LIB.jsonl");
    gen_retr *r = gen_retr_new();
    gen_retr_build_report sum = {0};
    for (int i = 0; i < nin; i++) {
        gen_retr_build_report rep;
        if (gen_retr_add_synth(r, in[i], &b, &rep, sink) != PG_OK) { gen_retr_free(r); return 2; }
        sum.lines += rep.lines, sum.added += rep.added, sum.not_train += rep.not_train, sum.no_plan += rep.no_plan;
        sum.too_long += rep.too_long, sum.excluded += rep.excluded, sum.duplicates += rep.duplicates;
        sum.family_full += rep.family_full;
    }
    if (gen_retr_count(r) == 0) {
        fprintf(stderr, "ptxgen retrieve: no kernel of %ld lines qualified (%ld not train, %ld without a plan, %ld too long, "
                        "%ld excluded); nothing written\n", sum.lines, sum.not_train, sum.no_plan, sum.too_long, sum.excluded);
        gen_retr_free(r);
        return 2;
    }
    pg_buf text = {0};
    gen_retr_print(r, &text);
    pg_status st = pg_write_file(outp, text.data, text.len, 0, sink);
    if (st == PG_OK)
        fprintf(stderr, "retrieve: %d kernels from %ld lines -> %s (skipped: %ld not train, %ld without a plan, %ld longer than %zu "
                        "bytes, %ld of the excluded suites, %ld tasks seen before, %ld over --per-family %d)\n",
                gen_retr_count(r), sum.lines, outp, sum.not_train, sum.no_plan, sum.too_long, b.max_ptx_bytes, sum.excluded,
                sum.duplicates, sum.family_full, b.per_family);
    pg_buf_free(&text);
    gen_retr_free(r);
    return st == PG_OK ? 0 : 2;
}

static int query(int argc, char **argv, pg_diag_sink *sink) {
    const char *lib = NULL, *request = NULL;
    gen_retr_filter f = {0};
    int k = 3;
    bool as_json = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
#define ARG(flag) (!strcmp(a, flag) && i + 1 < argc)
        if (ARG("--lib")) lib = argv[++i];
        else if (ARG("-k")) { if (!cli_int_arg("retrieve", a, argv[++i], 1, 64, &k)) return 2; }
        else if (ARG("--exclude-task")) f.exclude_task = argv[++i];
        else if (!strcmp(a, "--json")) as_json = true;
        else if (a[0] == '-' && a[1]) return cli_usage_error("retrieve", "query: unknown or incomplete option '%s'", a);
        else if (request) return cli_usage_error("retrieve", "query takes one REQUEST (quote it)");
        else request = a;
#undef ARG
    }
    if (!lib || !request) return cli_usage_error("retrieve", "query needs --lib LIB.jsonl and a REQUEST");
    gen_retr *r = NULL;
    if (gen_retr_load(lib, &r, sink) != PG_OK) return 2;
    gen_retr_hit hits[64];
    int n = gen_retr_query(r, request, &f, k, hits);
    if (as_json) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, json_pack("{s:s, s:s, s:f}", "task", hits[i].task, "family", hits[i].family, "score", hits[i].score));
        char *s = json_dumps(arr, JSON_INDENT(1));
        json_decref(arr);
        if (!s) pg_oom();
        printf("%s\n", s);
        free(s);
    } else {
        for (int i = 0; i < n; i++) printf("%-40s %-16s %.3f\n", hits[i].task, hits[i].family, hits[i].score);
        if (n == 0) fprintf(stderr, "retrieve: no kernel of %s shares a word with the request\n", lib);
    }
    gen_retr_free(r);
    return 0;
}

static int eval(int argc, char **argv, pg_diag_sink *sink) {
    const char *lib = NULL;
    int k = 3;
    bool as_json = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--lib") && i + 1 < argc) lib = argv[++i];
        else if (!strcmp(a, "-k") && i + 1 < argc) { if (!cli_int_arg("retrieve", a, argv[++i], 1, 64, &k)) return 2; }
        else if (!strcmp(a, "--json")) as_json = true;
        else return cli_usage_error("retrieve", "eval: unknown or incomplete option '%s'", a);
    }
    if (!lib) return cli_usage_error("retrieve", "eval needs --lib LIB.jsonl");
    gen_retr *r = NULL;
    if (gen_retr_load(lib, &r, sink) != PG_OK) return 2;
    gen_retr_style_eval ev[32];
    int ns = gen_retr_eval(r, k, ev, 32);
    json_t *styles = json_object();
    if (!as_json) printf("%-10s %8s %14s %14s %8s\n", "style", "queries", "family@1", "family@k", "no hit");
    for (int i = 0; i < ns; i++) {
        double q = ev[i].queries ? (double)ev[i].queries : 1.0;
        if (as_json)
            json_object_set_new(styles, ev[i].style, json_pack("{s:I, s:I, s:I, s:I}", "queries", (json_int_t)ev[i].queries, "family_at1",
                                                               (json_int_t)ev[i].family_at1, "family_atk", (json_int_t)ev[i].family_atk,
                                                               "no_hit", (json_int_t)ev[i].none));
        else
            printf("%-10s %8ld %6ld %6.1f%% %6ld %6.1f%% %8ld\n", ev[i].style, ev[i].queries, ev[i].family_at1, 100 * ev[i].family_at1 / q,
                   ev[i].family_atk, 100 * ev[i].family_atk / q, ev[i].none);
    }
    if (as_json) {
        json_t *o = json_pack("{s:s, s:i, s:i, s:o}", "library", lib, "kernels", gen_retr_count(r), "k", k, "styles", styles);
        char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        json_decref(o);
        if (!s) pg_oom();
        printf("%s\n", s);
        free(s);
    } else json_decref(styles);
    gen_retr_free(r);
    return 0;
}

int cmd_retrieve(int argc, char **argv) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    if (argc < 2) return cli_usage_error("retrieve", "need a step: build, query or eval");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { printf("%s", retrieve_usage); return 0; }
    if (!strcmp(argv[1], "build")) return build(argc, argv, &sink);
    if (!strcmp(argv[1], "query")) return query(argc, argv, &sink);
    if (!strcmp(argv[1], "eval")) return eval(argc, argv, &sink);
    return cli_usage_error("retrieve", "unknown step '%s' (build, query or eval)", argv[1]);
}
