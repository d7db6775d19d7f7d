/* ptxgen/pipeline.h — two-stage generation (docs/LITERATE.md): the model writes the
 * kernel's plan in CUDA C, nvcc checks the plan, then the model writes literate PTX
 * that follows it.  One model, two ChatML turns (gen_prompt_build_plan,
 * gen_prompt_build_ptx_plan); `ptxgen gen` runs them for models whose base.json says
 * "pipeline": "plan-literate".
 *
 *   request (+ task)  --pipe_plan-->  plan (CUDA C)  --nvcc (twin_compile), twin_parse-->
 *       PTX signature (the task's, else the plan's)  --pipe_ptx-->  literate PTX
 *
 * The plan stage draws up to `plan_samples` plans (seeds sampler.seed, +1, ...) and keeps
 * the first that nvcc compiles and whose kernel ptxgen can read (with a task: that has the
 * task's name); without nvcc, the first whose kernel can be read.  A user's plan
 * (pipe_in.plan, `gen --plan FILE.cu`) skips the model's plan turn but is checked the same
 * way.  For a free-form request the plan is the kernel's twin: it names the kernel and its
 * parameters, so the PTX gets a real signature instead of one the model invents.
 *
 * With a task and pipe_in.gpu_check (`gen --verify gpu --task`, unless --no-plan-check) a
 * plan nvcc compiled also runs on the GPU: nvcc's PTX of it through the candidates' funnel
 * (pipe_verify at level 2, one gpu_memo for the stage's plans) against the task's reference.
 * A plan that runs wrong, faults or hangs is drawn again (plan_note says why); when none runs
 * right, the last plan nvcc compiled is kept with a warning (plan_gpu_note) -- the kernel's own
 * verification still decides.  A given plan that runs wrong is kept with the warning, never
 * replaced.  Without a GPU (no libcuda, no device) or nvcc, or when the funnel cannot judge
 * nvcc's PTX (the validator or ptxas refuses it, the task's reference cannot be set up), the
 * plan is kept as without the check and plan_gpu_note says why it was not run.  The checks use
 * pipe_in.memo when given (gen's: the one memo of the request, so the task's input sets and
 * references are built once, by its preparation or its worker, for the plans and the candidates
 * alike, and CUDA starts once unless a kernel faults); its worker then outlives pipe_plan.  A
 * plan that runs wrong leaves the worker as it was, one that faults or hangs retires it (gpu.h):
 * the candidates' checks find the same sets and a sound context either way.  Without a memo the
 * stage makes its own and ends its worker before it returns.  Either way the worker starts after
 * a deferred GPU engine's child is forked (draw.h: pipe_plan forks it before the first check
 * when no plan was drawn yet, a given plan), so no process that initialised CUDA forks, and the
 * engine's child never holds the worker's socket.
 *
 * Ownership: pipe_out owns its strings (pipe_out_free).  Errors go to the diagnostics sink
 * (E9xx); nothing here prints. */
#ifndef PTXGEN_PIPELINE_H
#define PTXGEN_PIPELINE_H

#include "ptxgen/common.h"
#include "ptxgen/decode.h"
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"
#include "ptxgen/model.h"
#include "ptxgen/task.h"
#include "ptxgen/twin.h"

typedef struct {
    const char *request;       /* the user's description (or card) */
    const task_spec *task;     /* optional: its C signature goes into the plan turn, its PTX signature is forced */
    const char *plan;          /* optional: the user's plan (CUDA C text): no plan turn */
    gen_opts gen;              /* arch, sampler, max_tokens (PTX turn), format (must be ChatML), block, bias ... */
    int plan_max_tokens;       /* the plan turn's token limit (0 = 1024) */
    int plan_samples;          /* plans drawn until one passes (0 = 4) */
    const gen_retr *retr;      /* optional: the nearest retr_k (1..8; 0 = 2) kernels of this library go into both turns'
                                  prompts (docs/LITERATE.md "Retrieval"), as `prompts --retrieve` trained them */
    int retr_k;
    bool need_nvcc;            /* refuse when nvcc is missing, instead of taking an unchecked plan */
    bool no_draft_ref;         /* speculative decoding (gen.draft_max > 0) without the reference drafts (an A/B switch) */
    bool ref_regs_canonical;   /* the reference drafts' registers renumbered in order of first appearance (ptx_regs_renumber),
                                  as a model of the canonical register style writes them (pipe_model_regs_canonical) */
    bool gpu_check;            /* with task: run nvcc's PTX of each plan on the GPU against the task's reference and draw a
                                  wrong plan again (above; gen --verify gpu, off with --no-plan-check) */
    gpu_memo *memo;            /* with gpu_check: the request's GPU answers and harness worker to check the plans with
                                  (gen's, made when it loaded the task, its input sets prepared ahead: gpu_memo_prepare),
                                  left as it is, worker running, for the candidates' checks (borrowed).  NULL: the stage
                                  makes its own (gpu_memo_new) and frees it before it returns */
} pipe_in;

typedef struct {
    char *plan;                /* the plan kept (malloc'd); NULL when none passed */
    int plan_attempts;         /* plans drawn (0: the user's) */
    int plan_tokens;           /* tokens of the plan kept */
    int plan_loops;            /* draws ended early at a loop (gen_text_loops), each drawn again */
    double plan_seconds;       /* the plan stage, all attempts and nvcc */
    double plan_decode_seconds;/* of which the model's sampling (gen_free_sample), all attempts */
    int plan_steps, plan_drafted, plan_accepted;   /* model steps, drafted and accepted tokens, all attempts */
    bool nvcc_ran;             /* nvcc was found and compiled the plan kept */
    char plan_note[400];       /* why the last rejected plan was rejected (nvcc's first error, ...), or "" */
    char *kernel;              /* the plan's kernel name (malloc'd) */
    char *signature;           /* the PTX signature of the PTX turn: the task's, else the plan's (malloc'd) */
    gen_result ptx;            /* the PTX turn (pipe_ptx) */
    char *ref_ptx;             /* with gen.draft_max > 0: nvcc's literate PTX of the plan kept, canonical, made as the
                                  training targets are (synth_cuda_literate_ptx; registers renumbered with
                                  in->ref_regs_canonical), the PTX turn's gen_opts.draft_ref
                                  (malloc'd); NULL when it could not be made (ref_note says why) or was not wanted */
    char ref_note[300];
    int plan_gpu_checked;      /* gpu_check: plans whose nvcc PTX ran on the GPU to a verdict (right or wrong) */
    int plan_gpu_wrong;        /* of which ran wrong, faulted or hung */
    const char *plan_gpu;      /* the kept plan's GPU verdict: "pass", "fail" (ran wrong, kept anyway) or "not run" */
    char plan_gpu_note[400];   /* "" or, for the user: why the plan did not run on the GPU, or that the kept one ran wrong */
    int plan_gpu_cuda_starts;  /* gpu_check: harness processes the plans' checks started (each initialises CUDA) */
    int plan_gpu_refs;         /* and input sets they built with their reference (0: all from the memo's preparation) */
} pipe_out;

/* The plan stage: fills out->plan, kernel, signature, the counts and notes.  PG_OK with a
 * plan; PG_ERR_INVALID (with a diagnostic naming the last plan's problem) when no plan
 * passed; PG_ERR_USAGE for a format other than ChatML. */
PG_API pg_status pipe_plan(model_model *m, const tok_tokenizer *t, const pipe_in *in, pipe_out *out, pg_diag_sink *diag);
/* The PTX stage: the literate PTX of out->plan under the constraint (plan comments
 * allowed, the signature forced), into out->ptx (gen_sample's result: its ptx text starts
 * with the GENERATED_BY line). */
PG_API pg_status pipe_ptx(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const pipe_in *in, pipe_out *out,
                          pg_diag_sink *diag);
/* The generation options of the PTX turn, for callers that draw it themselves (gen's
 * attempts and best-of-k): *o = in->gen with the PTX turn's prompt (built into `prompt`,
 * which must outlive o), the signature (or the plan's kernel name), plan comments and the
 * reference drafts (o->draft_ref = out->ref_ptx: out must outlive o too). */
PG_API void pipe_ptx_opts(const pipe_in *in, const pipe_out *out, gen_opts *o, pg_buf *prompt);
PG_API void pipe_out_free(pipe_out *o);

/* Does the model folder's base.json say "pipeline": "plan-literate"?  (false for a folder
 * without one, a GGUF file, or another pipeline.) */
PG_API bool pipe_model_is_two_stage(const char *model_path);
/* The retrieval library a model folder ships: base.json "retrieval" (a file name inside the
 * folder, e.g. "retrieval.jsonl") joined to the folder into out; false when it names none, and
 * for a name that leaves the folder ("/", ".."). */
PG_API bool pipe_model_retrieval(const char *model_path, char *out, size_t n);
/* Does the model folder's base.json say "regs": "named"?  (The register style its PTX turn was
 * trained on, docs/LITERATE.md; false for "numbered", a folder without one, or a GGUF file.) */
PG_API bool pipe_model_regs_named(const char *model_path);
/* Does it say "regs": "canonical"?  (Numbered registers renumbered in order of first appearance,
 * ptx_regs_renumber, docs/LITERATE.md "The canonical register style"; false otherwise.) */
PG_API bool pipe_model_regs_canonical(const char *model_path);

/* ==== one request end to end (src/pipeline/select.c, twin.c, pairs.c) ====================
 * The pieces `ptxgen gen`, `ptxgen twin`, `ptxgen prompts` and the nvcc wrapper put
 * together: the verdicts of one candidate (pipe_verify), best-of-k selection over the
 * attempts (pipe_select), the CUDA C twin and its differential verdict (pipe_twin_*),
 * kernel names, and the training pairs' canonical text.  Nothing here prints: the
 * progress lines a command shows ("gen: attempt 2/4 failed (...)") go to a pipe_notes
 * callback as whole lines (each ending in '\n'), errors to the diagnostics sink. */

typedef struct {
    void (*fn)(void *user, const char *text);   /* progress and errors (a command's stderr); NULL: dropped */
    void *user;
    void (*out)(void *user, const char *text);  /* the product (a command's stdout: PTX, JSON, the explanation),
                                                   in order with the notes; NULL: dropped */
} pipe_notes;

/* One candidate's verdicts: eval's funnel (validator + the task's signature -> ptxas ->
 * the GPU at level 2) reduced to three words and one reason. */
typedef struct {
    const char *check, *ptxas, *gpu;   /* "pass" | "fail" | "not run" */
    int registers;
    char unwritten[80];                /* "" or "%f3 in saxpy": a register some path reads before anything writes
                                          it (ptx_unwritten_reads); such a candidate never passes */
    char why[600];
    eval_funnel_result fr;             /* the verdict fields (module and ptxas report not kept): best-of-k compares these */
} pipe_verdict;

/* Verification levels: 0 check (validator), 1 ptxas, 2 gpu (against the task's reference).
 * memo: the GPU answers shared by the attempts of one request (gpu_memo_new; NULL: none). */
PG_API void pipe_verify(const char *ptx, const char *path, const char *arch, const task_spec *task, int level, bool time_it,
                        gpu_memo *memo, pipe_verdict *v);
/* Did the candidate pass `level`?  (a ptxas that ran and rejected it never passes, nor does one
 * that reads a register before any write: v->unwritten) */
PG_API bool pipe_passed(const pipe_verdict *v, int level);
/* gpu_check's verdict on one plan from its pipe_verify verdict (nvcc's PTX of the plan, level 2):
 * RIGHT (correct on every input set), WRONG (wrong values, a fault, a hang, a module that does not
 * load: the plan is drawn again) or UNSETTLED (no GPU, or the validator, ptxas or the task's setup
 * stopped it: nothing said about the plan, which is kept).  `why` gets the harness's detail. */
typedef enum { PIPE_PLAN_GPU_RIGHT, PIPE_PLAN_GPU_WRONG, PIPE_PLAN_GPU_UNSETTLED } pipe_plan_gpu;
PG_API pipe_plan_gpu pipe_plan_gpu_judge(const pipe_verdict *v, char *why, size_t n);

/* The temperature of sequential attempt `at` (1-based) when the first is drawn at t: t, t + 0.2,
 * t + 0.4, ... at most 1.0; t <= 0 (greedy) and t >= 1 unchanged. */
PG_API float pipe_retry_temperature(float t, int at);
/* Best-of-k selection: up to `samples` candidates (seeds o->sampler.seed, +1, ...; without best_of
 * each retry a little hotter: pipe_retry_temperature).  Without
 * best_of the first that passes `level` is kept (else the first drawn); with best_of (a GPU
 * and a task) all are drawn together (gen_sample_k), each is verified and timed, and the
 * fastest correct one is kept (eval_better; the earliest on a tie).  A candidate that is the same
 * kernel as an earlier one (pipe_same_kernel) takes that one's verdict and timing without running
 * anything again.  Candidates are written to tmpdir for the tools. */
typedef struct {
    const char *request;
    const task_spec *task;
    int samples, level;
    bool best_of;
    const char *tmpdir;
    gpu_memo *memo;                    /* the GPU answers and worker to verify with (gen's, its preparation started:
                                        * gpu_memo_prepare); NULL: pipe_select makes its own at level 2 with a task */
} pipe_select_in;
/* One attempt: its verdict's stage and where its verification's time went (gen --json "stages"). */
typedef struct {
    const char *stage;                 /* the funnel's last stage (eval_funnel_result.stage) */
    bool passed;                       /* passed the requested level */
    int same_as;                       /* 1-based attempt whose kernel this is (its verdict reused, nothing run); 0 = verified */
    double seconds;                    /* wall seconds of its verification (temp file, GPU probe, funnel; ~0 when same_as) */
    eval_funnel_result fr;             /* its verdict fields (as pipe_verdict.fr), the *_s fields its stages' wall
                                          seconds; all zero when same_as (the verdict is that attempt's) */
} pipe_attempt;
typedef struct {
    gen_result best;                   /* the kept candidate */
    pipe_verdict bestv;
    int best_attempt;                  /* 1-based; 0 = none */
    int ncorrect;                      /* best_of: candidates correct on the GPU */
    int nverified;                     /* attempts verified (the others were the same kernel as an earlier one) */
    bool passed;                       /* one passed the requested level */
    bool write_failed;                 /* a temp file could not be written (an I/O error, exit 2) */
    double draw_s;                     /* wall seconds drawing the candidates (all k together, or one at a time) */
    double verify_s;                   /* wall seconds verifying them (temp files, pipe_verify) */
    pipe_attempt *attempts;            /* nattempts, in order (owned) */
    int nattempts;
    gpu_prep_stats prep;               /* the memo's preparation of the input sets when the attempts ended (state
                                        * "off": none) */
} pipe_select_out;
/* Frees out->best and out->attempts. */
PG_API void pipe_select_out_free(pipe_select_out *out);
/* Are two candidates the same kernel?  Equal once whole-line `//` comments and blank lines are
 * dropped (a literate kernel's plan comments change nothing the tools see).  pipe_select
 * verifies such a candidate once. */
PG_API bool pipe_same_kernel(const char *a, const char *b);
/* PG_OK when the attempts ran (out->passed says whether one passed); an error when a draw
 * failed or a temp file could not be written.  o->sampler.seed is left at the last seed. */
PG_API pg_status pipe_select(model_model *m, const tok_tokenizer *t, const dec_vocab *v, gen_opts *o, const pipe_select_in *in,
                             pipe_select_out *out, const pipe_notes *notes, pg_diag_sink *diag);

/* The CUDA C twin of a kernel and its differential verdict (`gen --twin`, `ptxgen twin`). */
typedef struct {
    twin_verdict verdict;
    int sets;                  /* input sets compared (agrees) */
    int attempts;              /* PTX candidates compared with the twin */
    char detail[700];          /* the first difference, or why it was not run */
    char cu_path[4200], task_path[4200];
    bool task_written;
    char nvcc[1024];
    bool generated;            /* the model wrote the twin (else --twin-file) */
    unsigned out_flags;        /* PG_OUT_* for the twin's files (NO_CLOBBER for default names) */
    bool write_failed;         /* a twin file could not be written (exit 2) */
} pipe_twin;

/* After to->cu_path is written: compile it, read its kernel, and (no task given) infer
 * to->task_path from the request, the twin and a PTX, load it (*inferred) and show its
 * summary as a note.  Sets to->verdict for the static outcomes. */
PG_API void pipe_twin_prepare(const char *request, const char *cu_text, const char *ptx, const char *arch, int block_hint,
                              const task_spec *given, pipe_twin *to, task_spec **inferred, const pipe_notes *notes,
                              pg_diag_sink *diag);
/* Is the GPU comparison possible for this PTX (check and ptxas passed, a GPU)?  Else sets the verdict. */
PG_API bool pipe_twin_can_run(const pipe_verdict *v, pipe_twin *to);
/* One PTX against the twin (the inferred task's reference) on the GPU.  true when the
 * comparison is settled: it agrees, or the twin/task cannot run. */
PG_API bool pipe_twin_judge(const char *ptx, const char *arch, const task_spec *inferred, const char *tmpdir, int at, pipe_twin *to,
                            pipe_verdict *v, pg_diag_sink *diag);
/* gen --twin: writes <outp>.cu (twin_src, else the model's second turn), prepares it, and
 * with a GPU runs the PTX against it; a difference draws the next candidates (within
 * samples) until one agrees, which then replaces *best. */
typedef struct {
    const char *request;
    int samples;
    uint64_t seed0;
    const char *outp;          /* the kernel's path: the twin is <outp without .ptx>.cu */
    const char *twin_src;      /* the user's twin (or the two-stage plan); NULL: the model writes it */
    const char *twin_file;     /* the user's twin file (not copied over itself) */
    const task_spec *given;
    const char *tmpdir;
} pipe_twin_in;
PG_API void pipe_twin_phase(model_model *m, const tok_tokenizer *t, const dec_vocab *v, gen_opts *o, const pipe_twin_in *in,
                            pipe_select_out *sel, pipe_twin *to, const pipe_notes *notes, pg_diag_sink *diag);

/* Kernel names and paths. */
/* A name from the words of a free-text request: "tiled 16x16 SGEMM with shared memory" ->
 * "tiled_16x16_sgemm" (at most 3 words, 32 bytes; "kernel" when nothing is left). */
PG_API void pipe_name_from_request(const char *request, char *out, size_t n);
/* A kernel name the constraint accepts: an identifier of at most 32 bytes. */
PG_API bool pipe_name_ok(const char *s);
/* The header of entry `kernel` (NULL: the first entry) in canonical text. */
PG_API bool pipe_entry_signature(const char *canon, const char *kernel, pg_buf *out);
/* Bytes that are not UTF-8 become '?' (text quoted back by nvcc, for JSON). */
PG_API void pipe_utf8_clean(char *s);
/* "dir/base.ptx" -> "dir/base" + ext */
PG_API void pipe_sibling_path(const char *ptx_path, const char *ext, char *out, size_t n);
PG_API bool pipe_same_file(const char *a, const char *b);
/* --plain: the literate kernel without its "\t//" plan lines (the GENERATED_BY line stays). */
PG_API void pipe_strip_plan_lines(char *ptx);

/* Training pairs (`ptxgen prompts`, src/pipeline/pairs.c). */
/* Canonical text with the forced header for `arch` (with the kept comments, or without
 * them; --widen-regs when > 0); false (and why) when it does not validate. */
PG_API bool pipe_canonical_ptx(const char *src, const char *arch, int widen_regs, bool comments, pg_buf *out, char *why,
                               size_t whyn);
/* The two-stage pairs of one synth sample (`prompts --stage`, docs/LITERATE.md): stage 1 the
 * plan pair (request + the task's C signature and launch when with_signature -> the plan), 2 the
 * PTX pair (request + the task's launch when with_signature + plan + PTX signature -> module), 3 both; one JSONL line each ({id, family, source,
 * split, description_style, turn, prompt, completion}) appended to out.  With retr, the retr_k
 * (1..8) nearest kernels of the library, never the sample's own task, go into both prompts.
 * Returns the pairs written; note gets a warning for the caller (a task that does not load) or "". */
typedef struct {
    json_t *sample;            /* the synth line (its task, family, source, split, style) */
    const char *id, *request, *arch, *plan, *signature, *module;
    bool with_signature;
    int stage;
    const gen_retr *retr;      /* optional */
    int retr_k;
} pipe_stage_in;
PG_API long pipe_stage_pairs(const pipe_stage_in *in, pg_buf *out, char *note, size_t noten);
/* The super-optimization pair of corpus task `name` (CORPUS/name/{task.json,kernel.ptx}):
 * the prompt carries nvcc's PTX of its reference.cu, the completion is the hand kernel
 * with the baseline's parameter names.  One JSONL line into `line`; false (and why, or a
 * diagnostic) when unusable. */
PG_API bool pipe_superopt_pair(const char *corpus, const char *name, const char *arch, double speedup, pg_buf *line, char *why,
                               size_t whyn, pg_diag_sink *diag);

/* ==== `ptxgen gen` as one call (src/pipeline/generate.c) ==================================
 * request (text, card, task, baseline) -> signature and kernel name -> the model (+ the
 * super-optimization adapter, the n-gram table, the bias) -> the plan turn of two-stage
 * models (pipe_plan) -> the attempts and best-of-k (pipe_select) -> the twin (pipe_twin_phase)
 * -> the files -> the report: the summary lines as notes, the PTX (no out_path), the JSON
 * (json) or the explanation (explain) through notes->out.  The flags of `ptxgen gen` map
 * one to one onto the fields; the checks of the flags themselves (--verify words, --arch,
 * --name, -o - with --json) are the caller's. */
typedef struct {
    const char *request;        /* the description (or card); NULL: request_file, the task's, or "" with a baseline */
    const char *request_file;   /* -f FILE */
    const char *task_path;      /* --task */
    const char *model_dir;      /* --model; NULL: default_model */
    const char *default_model;  /* the model found without --model (the caller's search), or NULL */
    const char *adapter;        /* --adapter */
    bool no_adapter;
    const char *out_path;       /* -o; NULL: stdout, or <kernel>.ptx with json or twin */
    bool force;                 /* replace <kernel>.ptx and its twin files */
    int level;                  /* --verify: 0 check, 1 ptxas, 2 gpu (needs task_path) */
    int samples, threads;
    const char *bias_path;
    bool no_bias;
    const char *baseline;       /* super-optimization mode: the baseline PTX file */
    const char *kernel;         /* its entry (--kernel) */
    const char *name;           /* --name */
    bool twin;                  /* --twin */
    const char *twin_file;      /* --twin-file */
    const char *plan_file;      /* --plan */
    const char *ngram_path;     /* --ngram */
    bool plain, single_stage, json, explain;
    bool no_draft_ref;          /* --no-draft-ref: a two-stage model's PTX turn drafts without nvcc's PTX of the plan */
    gen_opts gen;               /* arch, sampler, max_tokens, constrained, draft_max */
    const char *retrieve_path;  /* --retrieve: a retrieval library for a two-stage model (NULL: the model's, if it ships one) */
    int retrieve_k;             /* --retrieve-k (0 = 2) */
    int regs;                   /* --regs: PIPE_REGS_MODEL (0, the model's base.json "regs"), _NUMBERED or _NAMED */
    const char *device;         /* --device: "cpu" (NULL: the same) or "gpu" (the model's forward pass on the GPU, model.h) */
    bool no_plan_check;         /* --no-plan-check: a two-stage model's plans are not run on the GPU (pipe_in.gpu_check) */
} pipe_gen_req;
enum { PIPE_REGS_MODEL = 0, PIPE_REGS_NUMBERED = 1, PIPE_REGS_NAMED = 2 };
/* Returns the command's exit status: 0 an attempt passed the requested verification, 1 none
 * did (or the twin differs), 2 usage/IO, 3 --verify gpu without a GPU. */
PG_API int pipe_generate(const pipe_gen_req *req, const pipe_notes *notes, pg_diag_sink *diag);
/* The same for bindings (the Python package, through ctypes): the request as a JSON object
 * whose keys name the flags of `ptxgen gen` ("request", "out", "task", "model", "adapter",
 * "arch", "verify": "check"|"ptxas"|"gpu", "samples", "seed", "temperature", "top_k",
 * "max_tokens", "draft", "twin", "twin_file", "plan", "name", "baseline", "kernel", "json"
 * (default true), ...); without "model" the model is "default_model" (the caller's search),
 * else $PTXGEN_MODEL, else model_default_dir(NULL) (the cwd's), loaded as gen loads its default.  What the
 * command prints on stdout is appended to `out` (the JSON report), its stderr to `log`
 * (diagnostics formatted as the CLI prints them).  Returns gen's exit status. */
PG_API int pipe_generate_json(const char *request_json, pg_buf *out, pg_buf *log);

/* ==== the nvcc wrapper's super-optimization workflow (src/pipeline/superopt.c) ============
 * After the real nvcc built the given .cu files: per file, nvcc -ptx -O3 (the build's device
 * flags, one arch) gives the baseline module, written K_baseline.ptx per kernel K; per kernel,
 * up to `tries` candidates (gen seeds 1, 17, 33 ...) from pipe_generate in super-optimization
 * mode (a forked child: a crash is a verdict, not a broken build; or `gen_bin gen ...`) go
 * through the funnel against the baseline's signature and ptxas, then the differential test on
 * the GPU (gpu_run_diff), else the gate against the baseline (eval_gate_compare); the first
 * kept is K_superopt.ptx (else K_superopt.rejected.ptx), and ptxgen_report.{json,md} in
 * outdir (merged with an earlier report there) give every kernel's verdict and measures. */
typedef struct {
    const char *nvcc;                  /* the real nvcc */
    const char *const *cu; int ncu;    /* the .cu files the build compiled */
    const char *arch;                  /* one architecture for -ptx ("" or NULL: nvcc's default) */
    const char *const *ptxflags; int nptxflags;      /* the build's flags that change device code */
    const char *const *nvcc_args; int nnvcc_args;    /* the build's arguments, for the report */
    const char *outdir;                /* where the PTX files and the report go (exists) */
    long long n;                       /* elements per buffer in the differential test */
    int block, tries, timeout_s;       /* its block (0: derive), candidates per kernel, watchdog */
    const char *gen_bin;               /* a program run as `gen_bin gen ...` instead of pipe_generate (tests) */
    const char *default_model;         /* the model gen takes (the caller's search), or NULL */
    const char *version;               /* the tool's version, for the report */
} pipe_superopt_in;
/* Returns the number of kernels reported; *write_failed when a file could not be written (the
 * report is then not written either). */
PG_API int pipe_superopt_run(const pipe_superopt_in *in, const pipe_notes *notes, bool *write_failed);
/* Run argv[0] (a path) with argv; stdout/stderr to files when given, else inherited.  The exit
 * status, 128+signal, or 127 when it could not start. */
/* The real nvcc: $PTXGEN_REAL_NVCC, else the first nvcc on PATH that is not this program
 * (ptxgen-nvcc may be installed as "nvcc"), else /usr/local/cuda/bin/nvcc; false when it is
 * not an executable file. */
PG_API bool pipe_real_nvcc(char *out, size_t n);
PG_API int pipe_spawn_wait(char *const argv[], const char *out_path, const char *err_path);

/* ==== `ptxgen run`'s checks that need no GPU (src/pipeline/check.c) ======================= */
typedef struct {
    int failed;                   /* checks that failed (0: all passed) */
    bool no_kernel;               /* the kernel file does not exist: only the task was checked */
    int registers;                /* ptxas's count for the kernel (0: not run) */
    bool reference_cu_compiles;   /* nvcc found and compiled reference.cu (its signature checked) */
} pipe_static_result;
/* The kernel through the funnel's static stages (validator + the task's signature, ptxas), all
 * of them even after one failed; reference.cu through nvcc and its signature against the spec;
 * the C reference on the smallest size (every output element written).  The problems go to
 * the sink. */
PG_API pg_status pipe_static_check(const task_spec *t, const char *ptx_path, pipe_static_result *res, pg_diag_sink *diag);
/* The task folders of `suite` (those holding a task.json), sorted: *tasks = ".../task.json",
 * *kernels = ".../<kernel_name>" (both NULL-terminated, malloc'd strings); PG_ERR_IO when the
 * folder cannot be opened. */
PG_API pg_status pipe_task_list(const char *suite, const char *kernel_name, char ***tasks, char ***kernels, int *n);

#endif
