/* cmd_synth.c — `ptxgen synth`: write a verified JSONL dataset, or print its statistics. */
#include "cli.h"
#include "ptxgen/isa.h"
#include "ptxgen/pipeline.h"
#include "ptxgen/synth.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/twin.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *synth_usage =
    "usage: ptxgen synth --count N --seed S --out FILE.jsonl [--sources hand,expr,family,mutant] [--arch sm_90]\n"
    "                    [--jobs J] [--corpus DIR] [--results RESULTS.json] [--exclude SUITE_DIR]... [--no-progress]\n"
    "                    [--family-pct P]   (share of non-corpus samples from the parametric families; default 37.5)\n"
    "                    [--family-weight NAME=W[,NAME=W...]]...   (how often each family is drawn, see below)\n"
    "                    [--format literate|plain]   (default literate: docs/LITERATE.md) [--regs numbered|named|canonical]\n"
    "                    [--plan-style varied|fixed]\n"
    "       ptxgen synth --stats FILE.jsonl\n"
    "       ptxgen synth --literate-of PLAN.cu [--kernel NAME] [--arch sm_80]   (the literate PTX synth makes of a\n"
    "                    CUDA C plan, canonical: the training target of its PTX turn, to compare a model's with)\n"
    "       ptxgen synth --tasks-only DIR --count N --seed S [--exclude SUITE_DIR]...   (task specs without PTX:\n"
    "                    DIR/<name>/task.json, compositions of building blocks with C references, for\n"
    "                    train/expert_iter.py --pool)\n"
    "  --stats: counts by family, source, split and description style; per family and style the number of\n"
    "           distinct description templates (\"frames\") and of distinct description texts.\n"
    "  Writes N verified samples (ptxgen check + ptxas for the arch), byte-identical for the same\n"
    "  arguments; resumable (FILE.jsonl.partial + .state); FILE.jsonl appears only when complete.\n"
    "  --results: device results (bench/results/*-corpus-*.json) for measured performance notes.\n"
    "  --exclude: a held-out suite (bench/suite): skip every candidate whose task (name, or expression up to\n"
    "             operand order) is one of its tasks.  Repeat it or give a comma list for several suites\n"
    "             (--exclude bench/suite --exclude bench/suite-prose).\n"
    "  --corpus:  the hand-written tasks (default ./corpus, else the corpus next to the binary).\n"
    "  --jobs:    worker processes (default and maximum: the number of cores).\n"
    "  --family-weight: relative weights (integers 0..100) of the parametric families, a curriculum knob:\n"
    "             a family candidate draws family NAME with probability W / (sum of all weights); families not\n"
    "             named weigh 1, 0 leaves a family out.  NAME as the samples' \"family\" field (and --stats)\n"
    "             spell it: map, reduce, softmax, rownorm, scan, ...  Repeat it or give a comma list\n"
    "             (--family-weight softmax=10,rownorm=10 --family-weight gemm=0).  --family-pct sets how many\n"
    "             candidates are family ones; this sets which families they are.\n"
    "  --format:  literate (the default; its default --sources is hand,expr,family: no mutants): each sample\n"
    "             with a CUDA C plan (nvcc families, expression kernels,\n"
    "             corpus) carries it as cuda_c, and its PTX has the plan line each block implements as a // line\n"
    "             (nvcc -lineinfo; loops the plan does not ask to unroll stay loops); plain: the PTX as nvcc and\n"
    "             the generators write it, without plan comments (the single-stage targets of earlier models).\n"
    "  --regs:    numbered (the default: nvcc's %r<N> declared at the top) or named (literate only: registers\n"
    "             named after the plan's variables, %acc, %row, each declared just before its first use) or\n"
    "             canonical (any format: each class %r, %rd, %f, %p ... numbered from 1 in order of first\n"
    "             appearance, counts tightened: ptx_regs_renumber, docs/LITERATE.md).\n"
    "  --plan-style: varied (the default): the families with plan style variants write each sample's CUDA C\n"
    "             in a style drawn from its seed (elementwise: one-line guard with the loads inlined, guarded\n"
    "             block with natural local names, int/const int/size_t index; row-wise: loop and accumulator\n"
    "             names, a = a + b for a += b, one plan in three with its reductions as __device__ helpers;\n"
    "             every nvcc family: two plans in five that write the launch's block size or tile as a literal\n"
    "             name it, `#define NT 256` ... `j += NT`: the same instructions); the task is the same; each\n"
    "             line gets \"plan_style\" (\"/fn\" for helpers, \"/def\" for a #define);\n"
    "             fixed: every plan in its family's house style, the output of runs before the option.\n"
    "  A resume must use the arguments of the interrupted run (they are kept in the .state file).\n";

/* --literate-of: nvcc's literate PTX of one plan, made as the training targets are (the
 * parameters named as the plan names them), canonical as `prompts` writes the completions. */
static int literate_of_plan(const char *path, const char *kernel, const char *arch, pg_diag_sink *sink) {
    char *src = NULL;
    size_t len = 0;
    if (pg_read_file(path, 1u << 20, &src, &len, sink) != PG_OK) return 2;
    twin_kernel tk;
    memset(&tk, 0, sizeof tk);
    int rc = 1;
    if (twin_parse(src, path, kernel, &tk, sink) != PG_OK) {
        fprintf(stderr, "ptxgen synth: %s: no extern \"C\" __global__ kernel%s%s to read\n", path, kernel ? " named " : "",
                kernel ? kernel : "");
        goto done;
    }
    const char **names = calloc(tk.nparams ? (size_t)tk.nparams : 1, sizeof *names);
    if (!names) pg_oom();
    for (int i = 0; i < tk.nparams; i++) names[i] = tk.params[i].name;
    pg_buf lit = {0}, canon = {0};
    char why[300];
    if (!synth_cuda_literate_ptx(src, tk.kernel, names, tk.nparams, arch, &lit, why, sizeof why))
        fprintf(stderr, "ptxgen synth: %s: %s\n", path, why);
    else if (!pipe_canonical_ptx(lit.data, arch, 0, true, &canon, why, sizeof why))
        fprintf(stderr, "ptxgen synth: %s: nvcc's PTX is not canonical: %s\n", path, why);
    else {
        fputs(canon.data, stdout);
        rc = 0;
    }
    free(names);
    pg_buf_free(&lit);
    pg_buf_free(&canon);
done:
    twin_kernel_free(&tk);
    free(src);
    return rc;
}

int cmd_synth(int argc, char **argv) {
    synth_opts o;
    memset(&o, 0, sizeof o);
    o.arch = "sm_90";
    o.corpus_dir = NULL;
    o.sources = SYNTH_SRC_HAND | SYNTH_SRC_EXPR | SYNTH_SRC_FAMILY | SYNTH_SRC_MUTANT;
    o.jobs = cli_cores();
    o.progress = isatty(2);
    o.format = SYNTH_FMT_LITERATE;
    o.plan_style = SYNTH_PLAN_VARIED;
    const char *stats = NULL, *tasks_only = NULL, *literate_of = NULL, *kernel = NULL;
    bool have_arch = false;
    bool have_seed = false, have_weights = false, have_sources = false;
    int rc = 2;
    /* every --exclude and every --family-weight, joined with commas (the library takes lists) */
    pg_buf excl = {0}, fweight = {0};
    int weights[SYNTH_MAX_FAMILIES];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--count") && i + 1 < argc) { if (!cli_int_arg("synth", a, argv[++i], 1, 100000000, &o.count)) goto out; }
        else if (!strcmp(a, "--seed") && i + 1 < argc) { if (!cli_u64_arg("synth", a, argv[++i], &o.seed)) goto out; have_seed = true; }
        else if (!strcmp(a, "--out") && i + 1 < argc) o.out = argv[++i];
        else if (!strcmp(a, "--arch") && i + 1 < argc) { o.arch = argv[++i]; have_arch = true; }
        else if (!strcmp(a, "--literate-of") && i + 1 < argc) literate_of = argv[++i];
        else if (!strcmp(a, "--kernel") && i + 1 < argc) kernel = argv[++i];
        else if (!strcmp(a, "--jobs") && i + 1 < argc) { if (!cli_int_arg("synth", a, argv[++i], 1, 1 << 30, &o.jobs)) goto out; }
        else if (!strcmp(a, "--family-pct") && i + 1 < argc) {
            if (!cli_int_arg("synth", a, argv[++i], 1, 100, &o.family_pct)) goto out;
        }
        else if (!strcmp(a, "--family-weight") && i + 1 < argc) {
            if (have_weights) pg_buf_putc(&fweight, ',');
            pg_buf_puts(&fweight, argv[++i]);
            have_weights = true;
        }
        else if (!strcmp(a, "--corpus") && i + 1 < argc) o.corpus_dir = argv[++i];
        else if (!strcmp(a, "--format") && i + 1 < argc) {
            const char *f = argv[++i];
            if (!strcmp(f, "literate")) o.format = SYNTH_FMT_LITERATE;
            else if (!strcmp(f, "plain")) o.format = SYNTH_FMT_PLAIN;
            else { fprintf(stderr, "ptxgen synth: --format '%s': expected literate or plain\n", f); goto out; }
        } else if (!strcmp(a, "--plan-style") && i + 1 < argc) {
            const char *f = argv[++i];
            if (!strcmp(f, "varied")) o.plan_style = SYNTH_PLAN_VARIED;
            else if (!strcmp(f, "fixed")) o.plan_style = SYNTH_PLAN_FIXED;
            else { fprintf(stderr, "ptxgen synth: --plan-style '%s': expected varied or fixed\n", f); goto out; }
        } else if (!strcmp(a, "--regs") && i + 1 < argc) {
            const char *f = argv[++i];
            if (!strcmp(f, "named")) o.regs = SYNTH_REGS_NAMED;
            else if (!strcmp(f, "numbered")) o.regs = SYNTH_REGS_NUMBERED;
            else if (!strcmp(f, "canonical")) o.regs = SYNTH_REGS_CANONICAL;
            else { fprintf(stderr, "ptxgen synth: --regs '%s': expected numbered, named or canonical\n", f); goto out; }
        }
        else if (!strcmp(a, "--results") && i + 1 < argc) o.results = argv[++i];
        else if (!strcmp(a, "--exclude") && i + 1 < argc) {
            if (excl.len) pg_buf_putc(&excl, ',');
            pg_buf_puts(&excl, argv[++i]);
            o.exclude_dir = excl.data;
        }
        else if (!strcmp(a, "--stats") && i + 1 < argc) stats = argv[++i];
        else if (!strcmp(a, "--tasks-only") && i + 1 < argc) tasks_only = argv[++i];
        else if (!strcmp(a, "--no-progress")) o.progress = false;
        else if (!strcmp(a, "--sources") && i + 1 < argc) {
            o.sources = 0;
            have_sources = true;
            const char *s = argv[++i];
            if (strstr(s, "hand")) o.sources |= SYNTH_SRC_HAND;
            if (strstr(s, "expr")) o.sources |= SYNTH_SRC_EXPR;
            if (strstr(s, "mutant")) o.sources |= SYNTH_SRC_MUTANT;
            if (strstr(s, "family")) o.sources |= SYNTH_SRC_FAMILY;
            if (!o.sources) { fprintf(stderr, "ptxgen synth: --sources takes hand, expr, family, mutant\n"); goto out; }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", synth_usage); rc = 0; goto out; }
        else { cli_usage_error("synth", "unknown or incomplete option '%s'", a); goto out; }
    }
    /* literate samples are nvcc's translation of their plan: a mutant (renamed registers, reordered
     * instructions) is another program than the plan's, so the literate default draws none */
    if (o.format == SYNTH_FMT_LITERATE && !have_sources) o.sources &= ~(unsigned)SYNTH_SRC_MUTANT;
    if (o.regs == SYNTH_REGS_NAMED && o.format != SYNTH_FMT_LITERATE) {
        fprintf(stderr, "ptxgen synth: --regs named names registers after the plan: it needs --format literate\n");
        goto out;
    }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    if (have_weights) {   /* names and numbers are the library's to check: it knows the family table */
        if (synth_family_weights_parse(fweight.data ? fweight.data : "", weights, &sink) != PG_OK) goto out;
        o.family_weight = weights;
    }
    if (literate_of) {
        rc = literate_of_plan(literate_of, kernel, have_arch ? o.arch : "sm_80", &sink);
        goto out;
    }
    if (tasks_only) {
        if (!o.count || !have_seed) { fprintf(stderr, "ptxgen synth: --tasks-only needs --count and --seed\n"); goto out; }
        int n = 0;
        pg_status st = synth_taskonly_write(tasks_only, o.count, o.seed, excl.data, &n, &sink);
        fprintf(stderr, "synth: %d task-only tasks -> %s\n", n, tasks_only);
        rc = st == PG_OK ? 0 : 2;
        goto out;
    }
    if (stats) {
        pg_buf b = {0};
        pg_status st = synth_dataset_stats(stats, &b, &sink);
        if (b.data) fputs(b.data, stdout);
        pg_buf_free(&b);
        rc = st == PG_OK ? 0 : st == PG_ERR_IO ? 2 : 1;
        goto out;
    }
    if (o.count < 1 || !o.out || !have_seed) { cli_usage_error("synth", "need --count N, --seed S and --out F.jsonl"); goto out; }
    {   /* every sample must pass ptxas for the arch: a target it does not know would reject them all */
        int sm_;
        bool as_, fam_;
        if (!isa_parse_target(o.arch, &sm_, &as_, &fam_)) { cli_usage_error("synth", "--arch %s is not a known target (sm_50 ... sm_120a)", o.arch); goto out; }
        if (!cli_arch_usable("synth", o.arch, 0)) goto out;
    }
    int cores = cli_cores();
    if (o.jobs > cores) {   /* more workers than cores only starts more nvcc/ptxas processes at once */
        fprintf(stderr, "synth: --jobs %d capped at %d (the number of cores)\n", o.jobs, cores);
        o.jobs = cores;
    }
    /* the corpus: ./corpus, else next to the binary (build/ptxgen -> corpus), as gen finds its model */
    char corpus[4200];
    if (!o.corpus_dir && (o.sources & (SYNTH_SRC_HAND | SYNTH_SRC_MUTANT))) {
        struct stat st;
        if (stat("corpus", &st) == 0 && S_ISDIR(st.st_mode)) o.corpus_dir = "corpus";
        else if (cli_near_exe("corpus", corpus, sizeof corpus) && stat(corpus, &st) == 0 && S_ISDIR(st.st_mode)) o.corpus_dir = corpus;
        else {
            fprintf(stderr, "ptxgen synth: no corpus folder (./corpus or next to the binary): pass --corpus DIR, "
                            "or --sources expr,family to draw without it\n");
            goto out;
        }
    }
    synth_report r;
    pg_status st = synth_dataset_write(&o, &r, &sink);
    if (st != PG_OK && r.candidates == 0) {   /* refused before any work: no meta file */
        rc = st == PG_ERR_INVALID ? 1 : 2;
        goto out;
    }
    /* the run's verification rates, next to the dataset */
    json_t *m = json_object();
    json_object_set_new(m, "count", json_integer(o.count));
    json_object_set_new(m, "seed", json_integer((json_int_t)o.seed));
    json_object_set_new(m, "arch", json_string(o.arch));
    json_object_set_new(m, "written", json_integer(r.written));
    json_object_set_new(m, "resumed_from", json_integer(r.resumed_from));
    json_object_set_new(m, "candidates", json_integer(r.candidates));
    json_object_set_new(m, "failed_verification", json_integer(r.failed));   /* = the sum of by_family.failed */
    json_object_set_new(m, "mutations_with_nothing_to_change", json_integer(r.nothing_to_change));
    json_object_set_new(m, "duplicates", json_integer(r.duplicates));
    if (o.exclude_dir) {   /* only then, so runs without --exclude write the same sidecar as before */
        json_object_set_new(m, "exclude", json_string(o.exclude_dir));
        json_object_set_new(m, "excluded_heldout", json_integer(r.excluded));
    }
    if (o.family_weight) json_object_set_new(m, "family_weight", json_string(fweight.data));   /* likewise */
    json_object_set_new(m, "seconds", json_real(r.seconds));
    json_object_set_new(m, "samples_per_second", json_real(r.seconds > 0 ? (r.written - r.resumed_from) / r.seconds : 0));
    json_t *fams = json_object();
    for (int i = 0; i < r.nfam; i++) json_object_set_new(fams, r.fam[i], json_pack("{s:i, s:i}", "written", r.fam_written[i], "failed", r.fam_failed[i]));
    json_object_set_new(m, "by_family", fams);
    json_t *ex = json_array();
    for (int i = 0; i < r.nfail_examples; i++) json_array_append_new(ex, json_string(r.fail_examples[i]));
    json_object_set_new(m, "failure_examples", ex);
    char path[4200];
    snprintf(path, sizeof path, "%s.meta.json", o.out);
    char *txt = json_dumps(m, JSON_INDENT(2));
    bool out_is_file = false;   /* stdout or a device has no folder for a sidecar */
    pg_out_check(o.out, 0, &out_is_file, NULL);
    if (st == PG_ERR_IO) {   /* stopped by a file it could not write: no sidecar, nothing claimed */
        fprintf(stderr, "synth: stopped after %d samples; %s\n", r.written,
                out_is_file ? "rerun the same command to resume" : "nothing was written");
    } else {
        if (out_is_file && pg_write_file_atomic(path, txt, strlen(txt), &sink) != PG_OK) st = PG_ERR_IO;
        fprintf(stderr, "synth: %d samples (%ld candidates, %ld failed verification, %ld duplicates) in %.1f s, %.1f samples/s%s%s\n",
                r.written, r.candidates, r.failed, r.duplicates, r.seconds,
                r.seconds > 0 ? (r.written - r.resumed_from) / r.seconds : 0, st == PG_OK ? " -> " : "", st == PG_OK ? o.out : "");
    }
    free(txt);
    json_decref(m);
    rc = st == PG_OK ? 0 : st == PG_ERR_INVALID ? 1 : 2;   /* 1: fewer samples than asked; 2: usage, I/O, tools */
out:
    pg_buf_free(&excl);
    pg_buf_free(&fweight);
    return rc;
}
