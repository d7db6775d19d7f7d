/* cmd_eval.c — `ptxgen eval`: the held-out suite through the funnel. */
#include "cli.h"
#include "ptxgen/decode.h"
#include "ptxgen/eval.h"
#include "ptxgen/isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *eval_usage =
    "usage: ptxgen eval --suite DIR [--model DIR] [--adapter DIR] [--samples K] [--arch sm_90]\n"
    "                   [--no-ablations | --no-constraint | --no-bias] [--out F.json] [--resume]\n"
    "                   [--keep DIR] [--only a,b] [--styles terse,zh] [--shard I/N] [--no-gpu] [--no-timing]\n"
    "                   [--max-tokens N] [--seed S] [--temperature T] [--top-k K] [--threads N]\n"
    "       ptxgen eval --suite DIR --kernels GEN_DIR [--model-name NAME] ...  (kernels generated elsewhere,\n"
    "                   GEN_DIR/<task>.<style>.<config>.<sample>.ptx, e.g. by train/generate.py on a GPU)\n"
    "       ptxgen eval --merge A.json B.json ... --out F.json [--replace]  (shards, ablations, re-runs)\n"
    "       ptxgen eval --report F.json                            (Markdown to stdout)\n"
    "       ptxgen eval --time-pass --suite DIR --keep DIR --out F.json (time correct kernels, one at a time)\n"
    "  Every task x description (terse, detailed, card, zh, prose) x config x sample goes through\n"
    "  generated -> validator -> ptxas -> loads -> correct on every input set -> speed vs nvcc -O3.\n"
    "  Configs: full (constraint + performance bias) and, unless --no-ablations, no_constraint and\n"
    "  no_bias.  --no-constraint or --no-bias run only that config.  Without a GPU the GPU columns\n"
    "  read \"not run\".  The results file is rewritten after every case; --resume continues it.\n"
    "  With --kernels, a CUDA C twin <case>.cu beside a kernel is run against it (agreement, and its\n"
    "  precision against the real reference); --twin-own also runs each twin's own nvcc PTX against\n"
    "  the real reference (GPU only); --no-twins leaves them alone (a folder of plans, each <case>.cu\n"
    "  the source of the PTX beside it: a two-stage model's plan stage).\n"
    "  --merge fails (exit 2) when two files hold a row of the same task/description/config/sample;\n"
    "  with --replace the later file's row takes its place (a re-verification run), and a task with\n"
    "  a replaced row plans the most samples any one file planned for it instead of their sum.\n";

/* The Markdown report on stdout, unless the results JSON goes there (--out -); frees doc. */
static void print_report(json_t *doc, const char *out_path) {
    if (doc && !pg_out_is_stdout(out_path)) {
        pg_buf md = {0};
        eval_markdown(doc, &md);
        fputs(md.data, stdout);
        pg_buf_free(&md);
    }
    json_decref(doc);
}

/* 0 done, 2 a file could not be read or written (the README's usage/IO status), 1 otherwise. */
static int eval_exit(pg_status st) { return st == PG_OK ? 0 : st == PG_ERR_IO ? 2 : 1; }

int cmd_eval(int argc, char **argv) {
    eval_opts o;
    eval_opts_default(&o);
    o.progress = isatty(2);
    const char *model_dir = NULL, *adapter = NULL, *report = NULL;
    PG_VEC(const char *) merge = {0};
    int threads = 1;   /* shards run in parallel; one core each decodes the small model fastest */
    bool only_nc = false, only_nb = false, merging = false, replace = false, time_pass = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG(flag) (!strcmp(a, flag) && i + 1 < argc)
        if (ARG("--suite")) o.suite_dir = argv[++i];
        else if (ARG("--model")) model_dir = argv[++i];
        else if (ARG("--adapter")) adapter = argv[++i];
        else if (ARG("--kernels")) o.kernels_dir = argv[++i];
        else if (!strcmp(a, "--twin-own")) o.twin_own = true;
        else if (!strcmp(a, "--no-twins")) o.no_twins = true;
        else if (ARG("--model-name")) o.model_name = argv[++i];
        else if (ARG("--samples")) { if (!cli_int_arg("eval", a, argv[++i], 1, 1000, &o.samples)) goto usage; }
        else if (ARG("--arch")) o.gen.arch = argv[++i];
        else if (ARG("--out")) o.out_path = argv[++i];
        else if (ARG("--keep")) o.keep_dir = argv[++i];
        else if (ARG("--only")) o.only = argv[++i];
        else if (ARG("--styles")) {
            char bad[80];
            if (!(o.styles = eval_styles_parse(argv[++i], bad, sizeof bad))) {
                fprintf(stderr, "ptxgen eval: --styles: '%s' is not a description style (terse, detailed, card, zh, prose)\n", bad);
                pg_vec_free(merge);
                return 2;
            }
        }
        else if (ARG("--shard")) {
            if (sscanf(argv[++i], "%d/%d", &o.shard, &o.nshards) != 2 || o.nshards < 1 || o.shard < 0 || o.shard >= o.nshards) {
                fprintf(stderr, "ptxgen eval: --shard takes I/N with 0 <= I < N\n");
                return 2;
            }
        } else if (ARG("--max-tokens")) { if (!cli_int_arg("eval", a, argv[++i], 16, 1 << 20, &o.gen.max_tokens)) goto usage; }
        else if (ARG("--seed")) { if (!cli_u64_arg("eval", a, argv[++i], &o.gen.sampler.seed)) goto usage; }
        else if (ARG("--temperature")) { if (!cli_float_arg("eval", a, argv[++i], 0, 100, &o.gen.sampler.temperature)) goto usage; }
        else if (ARG("--top-k")) { if (!cli_int_arg("eval", a, argv[++i], 1, 1 << 20, &o.gen.sampler.top_k)) goto usage; }
        else if (ARG("--threads")) { if (!cli_int_arg("eval", a, argv[++i], 1, cli_cores(), &threads)) goto usage; }
        else if (ARG("--report")) report = argv[++i];
        else if (!strcmp(a, "--merge")) merging = true;
        else if (!strcmp(a, "--replace")) replace = true;
        else if (!strcmp(a, "--time-pass")) time_pass = true;
        else if (!strcmp(a, "--no-ablations")) o.configs = 1u << EVAL_FULL;
        else if (!strcmp(a, "--no-constraint")) only_nc = true;
        else if (!strcmp(a, "--no-bias")) only_nb = true;
        else if (!strcmp(a, "--no-gpu")) o.no_gpu = true;
        else if (!strcmp(a, "--no-timing")) o.timing = false;
        else if (!strcmp(a, "--resume")) o.resume = true;
        else if (!strcmp(a, "--no-progress")) o.progress = false;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", eval_usage); pg_vec_free(merge); return 0; }
        else if (merging && a[0] != '-') pg_vec_push(merge, a);
        else { cli_usage_error("eval", "unknown or incomplete option '%s'", a); pg_vec_free(merge); return 2; }
#undef ARG
    }
    if (0) {
usage:  /* a bad flag value: its message is printed, the usage is not */
        pg_vec_free(merge);
        return 2;
    }
    if (o.twin_own && o.no_twins) {
        cli_usage_error("eval", "--twin-own runs the twins and --no-twins leaves them alone: give one");
        pg_vec_free(merge);
        return 2;
    }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    if (report) {
        json_error_t e;
        json_t *doc = json_load_file(report, 0, &e);
        char why[200];
        if (!doc || !eval_doc_check(doc, why, sizeof why)) {
            if (doc) fprintf(stderr, "ptxgen eval: %s: not an eval results file: %s\n", report, why);
            else fprintf(stderr, "%s:%d:%d: %s\n", report, e.line, e.column, e.text);
            json_decref(doc);
            pg_vec_free(merge);
            return 2;
        }
        eval_finalize(doc);
        pg_buf md = {0};
        eval_markdown(doc, &md);
        fputs(md.data, stdout);
        pg_buf_free(&md);
        json_decref(doc);
        pg_vec_free(merge);
        return 0;
    }
    if (replace && !merging) { fprintf(stderr, "ptxgen eval: --replace goes with --merge\n"); pg_vec_free(merge); return 2; }
    if (merging) {
        if (!merge.n || !o.out_path) { fprintf(stderr, "ptxgen eval: --merge needs files and --out\n"); pg_vec_free(merge); return 2; }
        PG_VEC(json_t *) docs = {0};
        int rc = 0;
        for (int i = 0; i < merge.n && !rc; i++) {
            json_error_t e;
            json_t *d = json_load_file(merge.v[i], 0, &e);
            char why[200];
            if (!d || !eval_doc_check(d, why, sizeof why)) {
                if (d) fprintf(stderr, "ptxgen eval: %s: not an eval results file: %s\n", merge.v[i], why);
                else fprintf(stderr, "%s:%d:%d: %s\n", merge.v[i], e.line, e.column, e.text);
                json_decref(d);
                rc = 2;
            } else pg_vec_push(docs, d);
        }
        eval_merge_info mi = {0};
        if (!rc && !eval_merge(docs.v, docs.n, replace, &mi)) {
            if (mi.first == mi.second) fprintf(stderr, "ptxgen eval: %s is twice in %s; --replace keeps the later row\n", mi.key, merge.v[mi.first]);
            else fprintf(stderr, "ptxgen eval: %s is in both %s and %s; --replace lets the later file's verdict win\n",
                         mi.key, merge.v[mi.first], merge.v[mi.second]);
            rc = 2;
        }
        if (!rc && replace) fprintf(stderr, "ptxgen eval: --replace: %zu rows replaced by a later verdict\n", mi.replaced);
        json_t *doc = !rc ? json_incref(docs.v[0]) : NULL;
        for (int i = 0; i < docs.n; i++) json_decref(docs.v[i]);
        pg_vec_free(docs);
        if (rc) { pg_vec_free(merge); return rc; }
        if (json_is_object(json_object_get(doc, "planned")))   /* every part said what it planned */
            json_object_set_new(doc, "tasks", json_integer((json_int_t)json_object_size(json_object_get(json_object_get(doc, "planned"), "tasks"))));
        else {   /* shards split the tasks, ablation runs repeat them: count distinct tasks */
            json_t *names = json_object(), *r;
            size_t k;
            json_array_foreach(json_object_get(doc, "rows"), k, r)
                if (json_is_string(json_object_get(r, "task")))
                    json_object_set_new(names, json_string_value(json_object_get(r, "task")), json_true());
            json_object_set_new(doc, "tasks", json_integer((json_int_t)json_object_size(names)));
            json_decref(names);
        }
        eval_finalize(doc);
        char *s = json_dumps(doc, JSON_INDENT(1) | JSON_ENSURE_ASCII);
        pg_status st = pg_write_file_atomic(o.out_path, s, strlen(s), &sink);
        free(s);
        json_decref(doc);
        pg_vec_free(merge);
        return st == PG_OK ? 0 : 2;
    }
    pg_vec_free(merge);
    /* before --time-pass: it times the rows of the first selected config (with the old order a
     * --no-bias time pass looked for "full" rows and timed none, silently) */
    if (only_nc || only_nb) o.configs = (only_nc ? 1u << EVAL_NO_CONSTRAINT : 0) | (only_nb ? 1u << EVAL_NO_BIAS : 0);
    if (time_pass) {
        if (!o.suite_dir || !o.out_path || !o.keep_dir) { fprintf(stderr, "ptxgen eval: --time-pass needs --suite, --out and --keep\n"); return 2; }
        return eval_exit(eval_time_pass(&o, &sink));
    }
    if (!o.suite_dir) { cli_usage_error("eval", "no --suite DIR given (or --merge, --report, --time-pass)"); return 2; }

    {   /* a target ptxas does not know would fail every case after generating it */
        int sm_;
        bool as_, fam_;
        if (!isa_parse_target(o.gen.arch, &sm_, &as_, &fam_)) return cli_usage_error("eval", "--arch %s is not a known target (sm_50 ... sm_120a)", o.gen.arch);
        if (!cli_arch_usable("eval", o.gen.arch, gen_header_ptx_version(o.gen.arch))) return 2;
    }
    if (o.kernels_dir) {   /* verify kernels generated elsewhere: no model to load */
        if (model_dir || adapter) { fprintf(stderr, "ptxgen eval: --kernels replaces the model; drop --model/--adapter\n"); return 2; }
        json_t *doc = NULL;
        eval_ctx c = {.o = &o, .result = &doc};
        pg_status st = eval_run(&c, &sink);
        print_report(doc, o.out_path);
        return eval_exit(st);
    }
    char mdir[4096];
    if (model_dir) snprintf(mdir, sizeof mdir, "%s", model_dir);
    else if (!cli_default_model(mdir, sizeof mdir)) {
        fprintf(stderr, "ptxgen eval: no model: pass --model DIR or run from the repository root (models/qwen15-plan, models/qwen-plan or models/default)\n");
        return 2;
    }
    model_model *model = NULL;
    tok_tokenizer *tok = NULL;
    dec_vocab *vocab = NULL;
    dec_bias *bias = NULL;
    int rc = 2;
    model_load_opts lo = {adapter, threads, NULL, !model_dir, false, NULL, false};   /* the default's base is pinned */
    pg_buf tp = {0};
    char tpath[8400];
    if (model_tokenizer_path(mdir, tpath, sizeof tpath, &sink) != PG_OK) goto out;
    pg_buf_printf(&tp, "%s", tpath);
    if (model_load(mdir, &lo, &model, &sink) != PG_OK || tok_load(tp.data, &tok, &sink) != PG_OK ||
        dec_vocab_new(tok, &vocab, &sink) != PG_OK || dec_bias_default(vocab, &bias, &sink) != PG_OK)
        goto out;
    eval_opts run = o;
    run.gen.format = gen_prompt_fmt_of(tok);
    json_t *doc = NULL;
    eval_ctx c = {.o = &run, .model = model, .tok = tok, .vocab = vocab, .bias = bias, .result = &doc};
    pg_status st = eval_run(&c, &sink);
    print_report(doc, o.out_path);
    rc = eval_exit(st);
out:
    pg_buf_free(&tp);
    dec_bias_free(bias);
    dec_vocab_free(vocab);
    tok_free(tok);
    model_free(model);
    return rc;
}
