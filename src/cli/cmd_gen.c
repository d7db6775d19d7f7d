/* cmd_gen.c — `ptxgen gen` (generate PTX with the model under the constraint): its flags;
 * the request runs in the library (pipe_generate, src/pipeline/generate.c). */
#include "cli.h"
#include "ptxgen/decode.h"
#include "ptxgen/isa.h"
#include "ptxgen/pipeline.h"

#include <stdio.h>
#include <string.h>

/* ---- ptxgen gen ------------------------------------------------------------------ */

static const char *gen_usage =
    "usage: ptxgen gen \"DESCRIPTION\" [-f FILE] [--task spec.json] [--model DIR] [--adapter DIR] [--name NAME]\n"
    "                  [--arch sm_80] [-o out.ptx] [--samples N] [--verify check|ptxas|gpu] [--explain]\n"
    "                  [--no-constraint] [--no-bias] [--bias FILE] [--seed S] [--temperature T] [--top-k K]\n"
    "                  [--max-tokens N] [--threads N] [--device cpu|gpu] [--draft N] [--ngram FILE] [--json] [--twin | --twin-file TWIN.cu]\n"
    "                  [--plan PLAN.cu] [--no-plan-check] [--plain] [--single-stage] [--no-draft-ref] [--retrieve LIB.jsonl [--retrieve-k 2]] [--regs named|numbered]\n"
    "                  [--plan-repeat-max N] [--no-regs-grow] [--reads-unwritten] [--force]\n"
    "       ptxgen gen --baseline BASE.ptx [--kernel NAME] [--no-adapter] ...  (super-optimization mode:\n"
    "                  the default model loads models/superopt, or $PTXGEN_SUPEROPT_ADAPTER, when present)\n"
    "  Decodes under the PTX constraint (valid by construction), checks the result with libptx and\n"
    "  ptxas (when installed), and with --verify gpu --task runs it against the task's reference.\n"
    "  A failed check resamples with the next seed, up to --samples attempts (default 4), each\n"
    "  0.2 hotter than the last (at most 1.0; --temperature 0 stays greedy).\n"
    "  --verify gpu --task: verified best-of-k; all --samples candidates are drawn (together, up to 8\n"
    "  per forward step, each with its own seed as in the sequential loop), each runs the\n"
    "  harness (and a correct one is timed against nvcc), and the fastest correct one is kept\n"
    "  (\"best_of\" in --json).  The task's input sets and C references are built meanwhile, from the\n"
    "  moment the task is loaded, in a process of their own (\"stages\".\"prepare\" in --json;\n"
    "  PTXGEN_GPU_PREPARE=0: inside the checks).  Without a GPU the candidates are checked up to ptxas, the best is\n"
    "  written, the verdict says \"semantics not verified\" and the exit status is 3.\n"
    "  DESCRIPTION may be a Markdown kernel card (## name, - Input: float* x (n), - Output: ...),\n"
    "  which then gives the kernel name and signature.  Model: --model, else $PTXGEN_MODEL, else\n"
    "  models/qwen15-plan, else models/qwen-plan, whichever's base is fetched first (models/fetch_base.sh\n"
    "  --qwen15 fetches both), else models/default (in the working directory, then next to the\n"
    "  binary); the summary line and --json name it.  --arch defaults to sm_80\n"
    "  (the PTX loads on sm_80 and every newer GPU).  The kernel is named by the card, the task, --name,\n"
    "  or else after the words of the description.  Only --verify gpu with --task checks what the\n"
    "  kernel computes; the summary line and --json say which checks ran (\"semantics not verified\").\n"
    "  Output: -o FILE (\"-\" is stdout); without -o the PTX goes to stdout, except with --json or --twin,\n"
    "  which write <kernel>.ptx in the working directory and never over an existing file unless --force.\n"
    "  Exit: 0 when an attempt passed the requested verification, 1 when none did, 2 usage/IO,\n"
    "  3 --verify gpu without a GPU (semantics not verified).\n"
    "  Two-stage models (base.json \"pipeline\": \"plan-literate\", docs/LITERATE.md) first write the kernel's\n"
    "  plan in CUDA C (up to --samples plans, until nvcc compiles one), then literate PTX that follows it:\n"
    "  each block of instructions starts with a // line holding the plan statement it implements.  The plan\n"
    "  is written beside the kernel as <out>.cu (it is the kernel's twin; for a free-form request it also\n"
    "  gives the kernel its name and parameters).  --plan PLAN.cu: your plan instead of the model's (checked\n"
    "  by nvcc the same way); --plain: the kernel without its plan lines; --single-stage: the PTX turn alone.\n"
    "  With --verify gpu --task, nvcc's PTX of each plan also runs on the GPU against the task's reference\n"
    "  before any PTX is written; a plan that runs wrong is drawn again (within --samples; when none runs right\n"
    "  the last one nvcc compiles is kept, with a warning).  A --plan that runs wrong is kept, with a warning.\n"
    "  Without a GPU the plan is not run (a note says so).  --no-plan-check: plans are not run on the GPU.\n"
    "  --retrieve LIB: the nearest verified kernels of a retrieval library (`ptxgen retrieve`) in both turns'\n"
    "  prompts; a model whose base.json names \"retrieval\" uses the library it ships without the flag.\n"
    "  --regs named: the constraint also admits named registers (`.reg .T %name;` at first use, docs/LITERATE.md);\n"
    "  a model whose base.json says \"regs\": \"named\" gets it without the flag; --regs numbered turns it off.\n"
    "  --no-regs-grow: a register's index must stay below the count the model declared for it.  By default it may\n"
    "  pass it (up to 2N + 32; the counts are then raised to what the body uses before any check), so a model\n"
    "  that declared too few writes a fresh register instead of being forced onto a live one.\n"
    "  --reads-unwritten: a register operand that is read may name one no earlier instruction wrote.  By default\n"
    "  it must name a written one, unless none of the slot's types is written yet (docs/LITERATE.md).\n"
    "  --plan-repeat-max N (1..15; two-stage models): a plan line that runs straight (in the kernel's body,\n"
    "  outside every loop) may head at most N comments of the PTX turn, so it cannot go back there again\n"
    "  and again (default 0: no limit; the training targets head one at most 4 times).\n"
    "  --device gpu: the model runs on the NVIDIA GPU (the project's PTX kernels and cuBLAS, through the\n"
    "  driver's libcuda; weights in f16): an error naming the cause when there is none; default cpu.\n"
    "  --draft N: speculative decoding, up to N drafted tokens checked per model step (default 0: one\n"
    "  token per step; 8 cuts the steps ~5x, bench/results/2026-12-04-gen-cpu.json); drafts come from\n"
    "  the prompt, the output so far and the n-gram table of training\n"
    "  kernels (--ngram FILE, else ngram.bin of the model directory when present; `ptxgen ngram`).  The\n"
    "  output is byte-identical to --draft 0, for greedy and seeded sampling alike.  A two-stage model's\n"
    "  PTX turn also drafts from nvcc's literate PTX of its plan (the \"reference\" source; made as the\n"
    "  training targets are); --no-draft-ref: not from it.  --draft-fixed X: a verify step's cost beyond its\n"
    "  rows, in rows, that each draft's odds are weighed against (default 0: the engine's measure); moves\n"
    "  the drafts' lengths and the steps, never the output.\n"
    "  --twin: the model also writes the kernel's CUDA C twin (a second turn: extern \"C\" __global__, same\n"
    "  name and parameters) to <out>.cu; --twin-file X.cu uses your twin instead (its signature is forced\n"
    "  when no card or task gives one).  The twin is compiled with nvcc (-ptx and a cubin).  Without --task a\n"
    "  task is inferred from the request and the twin (roles, element counts, launch rule, sizes) and\n"
    "  written to <out>.task.json (edit it and rerun with --task); with a GPU the PTX runs against the twin\n"
    "  on every input set of that task, a difference draws the next candidate (within --samples) and the\n"
    "  first difference is reported.  Verdicts: \"agrees with its CUDA twin on N input sets\", \"differs\n"
    "  from its CUDA twin: ...\" (exit 1), \"twin compiles; not run\", \"twin written; nvcc not found; not\n"
    "  compiled\".  The twin is another implementation, not a reference: agreement is not correctness.\n";

int cmd_gen(int argc, char **argv) {
    const char *desc = NULL, *desc_file = NULL, *task_path = NULL, *model_dir = NULL, *adapter = NULL;
    const char *outp = NULL, *verify = "check", *bias_path = NULL, *baseline = NULL, *kernel_opt = NULL, *name_opt = NULL;
    int samples = 4, threads = 1;   /* one core decodes the small default model fastest; --threads N for big ones */
    bool explain = false, json = false, no_bias = false, no_adapter = false, twin = false, force = false;
    const char *twin_file = NULL, *plan_file = NULL, *ngram_path = NULL, *retrieve = NULL, *device = "cpu";
    int retrieve_k = 0, regs = PIPE_REGS_MODEL;
    bool plain = false, single = false, no_draft_ref = false, no_plan_check = false;
    gen_opts o;
    gen_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG(flag) (!strcmp(a, flag) && i + 1 < argc)
        if (ARG("-f")) desc_file = argv[++i];
        else if (ARG("--task")) task_path = argv[++i];
        else if (ARG("--model")) model_dir = argv[++i];
        else if (ARG("--adapter")) adapter = argv[++i];
        else if (!strcmp(a, "--no-adapter")) no_adapter = true;
        else if (ARG("--arch")) o.arch = argv[++i];
        else if (ARG("-o")) outp = argv[++i];
        else if (ARG("--samples")) { if (!cli_int_arg("gen", a, argv[++i], 1, 1000, &samples)) return 2; }
        else if (ARG("--verify")) verify = argv[++i];
        else if (ARG("--bias")) bias_path = argv[++i];
        else if (ARG("--seed")) { if (!cli_u64_arg("gen", a, argv[++i], &o.sampler.seed)) return 2; }
        else if (ARG("--temperature")) { if (!cli_float_arg("gen", a, argv[++i], 0, 100, &o.sampler.temperature)) return 2; }
        else if (ARG("--top-k")) { if (!cli_int_arg("gen", a, argv[++i], 1, 1 << 20, &o.sampler.top_k)) return 2; }
        else if (ARG("--max-tokens")) { if (!cli_int_arg("gen", a, argv[++i], 16, 1 << 20, &o.max_tokens)) return 2; }
        else if (ARG("--threads")) { if (!cli_int_arg("gen", a, argv[++i], 1, cli_cores(), &threads)) return 2; }
        else if (ARG("--plan-repeat-max")) { if (!cli_int_arg("gen", a, argv[++i], 0, 15, &o.plan_repeat_max)) return 2; }
        else if (ARG("--draft")) { if (!cli_int_arg("gen", a, argv[++i], 0, 64, &o.draft_max)) return 2; }
        else if (ARG("--draft-fixed")) {
            float f;
            if (!cli_float_arg("gen", a, argv[++i], 0, 64, &f)) return 2;
            o.draft_fixed = f;
        }
        else if (ARG("--ngram")) ngram_path = argv[++i];
        else if (ARG("--device")) {
            device = argv[++i];
            if (strcmp(device, "cpu") && strcmp(device, "gpu")) return cli_usage_error("gen", "--device wants cpu or gpu, not '%s'", device);
        }
        else if (ARG("--baseline") || ARG("--superopt")) baseline = argv[++i];
        else if (ARG("--kernel")) kernel_opt = argv[++i];
        else if (ARG("--name")) name_opt = argv[++i];
        else if (!strcmp(a, "--explain")) explain = true;
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--force")) force = true;
        else if (!strcmp(a, "--no-constraint")) o.constrained = false;
        else if (!strcmp(a, "--no-bias")) no_bias = true;
        else if (!strcmp(a, "--twin")) twin = true;
        else if (ARG("--twin-file")) { twin_file = argv[++i]; twin = true; }
        else if (ARG("--plan")) plan_file = argv[++i];
        else if (ARG("--retrieve")) retrieve = argv[++i];
        else if (ARG("--retrieve-k")) { if (!cli_int_arg("gen", a, argv[++i], 1, 8, &retrieve_k)) return 2; }
        else if (!strcmp(a, "--plain")) plain = true;
        else if (ARG("--regs")) {
            const char *r = argv[++i];
            regs = !strcmp(r, "named") ? PIPE_REGS_NAMED : !strcmp(r, "numbered") ? PIPE_REGS_NUMBERED : -1;
            if (regs < 0) return cli_usage_error("gen", "--regs wants named or numbered, not '%s'", r);
        }
        else if (!strcmp(a, "--no-regs-grow")) o.regs_grow = 0;
        else if (!strcmp(a, "--reads-unwritten")) o.reads_unwritten = 1;
        else if (!strcmp(a, "--single-stage")) single = true;
        else if (!strcmp(a, "--no-draft-ref")) no_draft_ref = true;
        else if (!strcmp(a, "--no-plan-check")) no_plan_check = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", gen_usage); return 0; }
        else if (a[0] == '-' && a[1]) { cli_usage_error("gen", "unknown or incomplete option '%s'", a); return 2; }
        else if (!desc) desc = a;
        else { cli_usage_error("gen", "more than one description given"); return 2; }
#undef ARG
    }
    int level = !strcmp(verify, "check") ? 0 : !strcmp(verify, "ptxas") ? 1 : !strcmp(verify, "gpu") ? 2 : -1;
    if (level < 0) return cli_usage_error("gen", "--verify wants check, ptxas or gpu, not '%s'", verify);
    if (level == 2 && !task_path) return cli_usage_error("gen", "--verify gpu needs --task (the reference to check against)");
    bool to_stdout = pg_out_is_stdout(outp);
    if (to_stdout && (json || twin))
        return cli_usage_error("gen", "-o - puts the PTX on stdout, where %s; name a file",
                               json ? "--json prints its JSON" : "--twin cannot put the twin beside it");
    int sm_;
    bool as_, fam_;
    if (!isa_parse_target(o.arch, &sm_, &as_, &fam_)) return cli_usage_error("gen", "--arch %s is not a known target (sm_50 ... sm_120a)", o.arch);
    if (!cli_arch_usable("gen", o.arch, gen_header_ptx_version(o.arch))) return 2;   /* before the model, not after every sample */
    if (name_opt && !pipe_name_ok(name_opt)) {
        return cli_usage_error("gen", "--name %s: want an identifier of at most 32 letters, digits and '_'", name_opt);
    }
    char mdir[4096];
    const char *default_model = !model_dir && cli_default_model(mdir, sizeof mdir) ? mdir : NULL;
    pipe_gen_req req = {desc, desc_file, task_path, model_dir, default_model, adapter,
                        no_adapter, outp, force, level, samples, threads, bias_path, no_bias, baseline, kernel_opt, name_opt, twin,
                        twin_file, plan_file, ngram_path, plain, single, json, explain, no_draft_ref, o, retrieve, retrieve_k, regs, device,
                        no_plan_check};
    pipe_notes notes = {cli_print_note, NULL, cli_print_out};
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    return pipe_generate(&req, &notes, &sink);
}
