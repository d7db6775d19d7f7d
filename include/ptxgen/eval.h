/* ptxgen/eval.h — evaluation: the CI performance gate (`ptxgen gate`) and the
 * suite evaluation (`ptxgen eval`).
 *
 * Ownership: result structs are filled by the library and released with the
 * matching *_free; they own every string and array they point to.
 * Errors: functions return pg_status; details go to the pg_diag_sink with
 * E951 (eval) / E952 (gate).  Nothing here prints.
 */
#ifndef PTXGEN_EVAL_H
#define PTXGEN_EVAL_H

#include "ptxgen/common.h"
#include "ptxgen/ptx.h"

/* ---- performance gate (ptxgen gate) -------------------------------------------
 * Compares a baseline and a candidate PTX module kernel by kernel (matched by
 * entry name, or paired: see eval_gate_opts.pairs).  Linear in the number of
 * kernels (sorted lookups).  The rule (docs/GATE.md):
 *   - fail      instructions rise above fail_inst_ratio (default 1.05), a kernel
 *               is missing on either side, the candidate does not parse/validate
 *               or ptxas rejects it, or its floating-point precision changed
 *               (e.g. a float computation silently turned into double);
 *   - improved  instructions drop to <= max_inst_ratio (0.95) while registers
 *               stay <= max_reg_ratio (1.05) of the baseline;
 *   - regressed passes, but a resource got worse: registers above
 *               max_reg_ratio, more spills, or more shared memory;
 *   - neutral   everything else (passes).
 * The gate passes when no kernel failed. */

typedef struct {
    double max_inst_ratio;     /* improvement when cand/base instructions <= this (0.95) */
    double max_reg_ratio;      /* ... and cand/base registers <= this (1.05) */
    double fail_inst_ratio;    /* fail when cand/base instructions > this (1.05) */
    const char *arch;          /* ptxas -arch=...; NULL = each module's .target */
    bool no_ptxas;             /* do not run ptxas even when it is installed */
    bool allow_precision_change; /* do not fail on new float widths (default false) */
    const char *baseline_name; /* shown in messages and reports ("baseline" when NULL) */
    const char *candidate_name;
    /* Pairing.  Kernels are matched by entry name, except: "A=B" entries of
     * pairs compare baseline kernel A with candidate kernel B (both must
     * exist, else PG_ERR_USAGE); without pairs, when each side has exactly one
     * kernel, those two are compared whatever their names.  only_paired:
     * compare the pairs only (other kernels are not part of the comparison). */
    const char *const *pairs; int npairs;
    bool only_paired;
} eval_gate_opts;

PG_API void eval_gate_opts_default(eval_gate_opts *o);

typedef enum {
    EVAL_GATE_IMPROVED,
    EVAL_GATE_NEUTRAL,
    EVAL_GATE_REGRESSED,       /* passes, with a resource warning */
    EVAL_GATE_FAILED,
} eval_gate_verdict;
PG_API const char *eval_gate_verdict_name(eval_gate_verdict v);   /* "improved", ... */

/* Float widths whose use is tracked for the precision check. */
enum { EVAL_FW_F16, EVAL_FW_F32, EVAL_FW_F64, EVAL_FW__COUNT };

typedef struct {
    char name[256];                 /* entry name */
    bool in_baseline, in_candidate;
    int insts_base, insts_cand;     /* static instruction count (libptx stats) */
    int regs_base, regs_cand;       /* ptxas registers, or the declared-register estimate */
    int64_t smem_base, smem_cand;   /* shared memory bytes (ptxas, else declared) */
    int spills_base, spills_cand;   /* ptxas spill stores + loads (0 without ptxas) */
    int float_base[EVAL_FW__COUNT]; /* instructions that compute or convert at each float width */
    int float_cand[EVAL_FW__COUNT];
    double inst_ratio, reg_ratio, smem_ratio;   /* cand/base; 1.0 when both are 0; 0 when missing */
    eval_gate_verdict verdict;
    char reasons[1024];             /* "; "-separated, human-readable; "" when none */
    char candidate[256];            /* the candidate's kernel when paired under another name, else "" */
} eval_gate_kernel;

typedef struct {
    eval_gate_kernel *kernels; int nkernels;   /* baseline order, then candidate-only ones */
    bool pass;                      /* no kernel failed and the candidate was usable */
    int nimproved, nneutral, nregressed, nfailed;
    bool ptxas_used;                /* registers/smem/spills come from ptxas -v */
    char ptxas_note[256];           /* why ptxas was not used, or "" */
    char error[1024];               /* whole-candidate failure (invalid PTX: first diagnostic), or "" */
    char baseline_name[256], candidate_name[256];
    eval_gate_opts opts;            /* copy of the options (names point into this struct) */
} eval_gate_result;

/* Compare two PTX texts (need not be NUL-terminated).  Returns PG_OK when a
 * verdict was reached, including failing ones (result->pass false: invalid
 * candidate, missing kernel, regression ...).  Returns PG_ERR_INVALID (E952)
 * when the baseline itself does not parse/validate or ptxas rejects it (no
 * comparison is possible), PG_ERR_USAGE for bad options.  *result is always
 * initialised; free it with eval_gate_result_free. */
PG_API pg_status eval_gate_compare(const char *baseline_text, size_t baseline_len,
                            const char *candidate_text, size_t candidate_len,
                            const eval_gate_opts *opts, eval_gate_result *result,
                            pg_diag_sink *diag);
/* The same on files (names default to the paths); PG_ERR_IO when unreadable. */
PG_API pg_status eval_gate_compare_files(const char *baseline_path, const char *candidate_path,
                                  const eval_gate_opts *opts, eval_gate_result *result,
                                  pg_diag_sink *diag);
PG_API void eval_gate_result_free(eval_gate_result *r);
/* Add src's kernels and counts to dst (one report for several comparisons);
 * pass is the AND of both.  src is unchanged (free it separately). */
PG_API void eval_gate_result_append(eval_gate_result *dst, const eval_gate_result *src);

/* A Markdown report for a PR comment: verdict line, a table per kernel, reasons. */
PG_API void eval_gate_markdown(const eval_gate_result *r, pg_buf *out);
/* The same as a JSON object (pass, counts, ptxas, kernels[...]). */
PG_API void eval_gate_json(const eval_gate_result *r, pg_buf *out);

/* ---- evaluation (ptxgen eval) ---- */
/* The held-out suite through the funnel of docs/DESIGN.md:
 *   generated -> validator (+ signature) -> ptxas -> loads -> correct on every input set -> speed vs nvcc
 * per task x description style (terse, detailed, card, zh, prose) x config x sample.
 * Configs: "full" (constraint + performance bias), "no_constraint" (the raw
 * model; header and signature still forced), "no_bias".  Without a GPU the GPU
 * columns read "not run" - never passed.  Results: one JSON document
 * (top-level device, model, date, tasks, validator_pass_rate, ptxas_pass_rate,
 * load_rate, correct_rate, fast_1, fast_1_2, geomean_speedup, configs{},
 * failures{task: [first failing stage per description]}, rows[]) rewritten
 * atomically after every case; --resume skips cases already in the file. */
#include "ptxgen/decode.h"
#include "ptxgen/task.h"
#include <jansson.h>

enum { EVAL_FULL, EVAL_NO_CONSTRAINT, EVAL_NO_BIAS, EVAL_NCONFIGS };
PG_API extern const char *const eval_configs[EVAL_NCONFIGS];
/* "terse,zh" -> a mask of task_styles bits (ptxgen/task.h); 0 (and *bad names the first unknown one) when a name
 * is not a style or the list is empty. */
PG_API unsigned eval_styles_parse(const char *list, char *bad, size_t badsz);

typedef struct {
    const char *suite_dir;
    const char *out_path;      /* results JSON (NULL = only returned) */
    const char *keep_dir;      /* also write every generated kernel here (NULL = no) */
    const char *only;          /* comma-separated task names, or NULL for all */
    int shard, nshards;        /* run tasks i with i % nshards == shard (nshards <= 1: all) */
    int samples;               /* per case, for pass@k (default 1) */
    unsigned configs;          /* bit EVAL_FULL etc. (default all three: the ablations run in one go) */
    unsigned styles;           /* bit i: description style task_styles[i] is evaluated (default all five;
                                * a style left out is neither run nor counted, e.g. a pool sampled in two) */
    bool timing;               /* time correct kernels of the full config against nvcc (default true) */
    bool no_gpu, resume, progress;
    gen_opts gen;              /* arch, sampling settings, max_tokens (constrained/bias set per config) */
    /* Kernels generated elsewhere (e.g. PyTorch on a GPU under the same constraint,
     * train/generate.py): read KERNELS_DIR/<task>.<style>.<config>.<sample>.ptx instead of
     * running the model (eval_ctx.model may then be NULL); a missing file is a
     * "generation" failure.  An optional .json beside each kernel carries the
     * generator's tokens, seconds and finished flag. */
    const char *kernels_dir;
    /* With twins beside the kernels and a GPU: also run each twin's own nvcc PTX against the
     * task's real reference (row "twin_own": {"correct", "stage"}; aggregate own_run/own_correct):
     * how often the model's CUDA C is itself right. */
    bool twin_own;
    /* Leave the twins beside the kernels alone (no twin row, nothing compiled): for a folder whose
     * <case>.cu is what the PTX was compiled from (a two-stage model's plans, nvcc's PTX of each beside
     * it), where running it against its own PTX measures nothing and doubles the GPU work. */
    bool no_twins;
    const char *model_name;    /* the results' "model" when there is no model_model */
} eval_opts;
PG_API void eval_opts_default(eval_opts *o);

typedef struct gpu_memo gpu_memo;   /* ptxgen/gpu.h */
typedef struct {
    const eval_opts *o;
    model_model *model;
    const tok_tokenizer *tok;
    const dec_vocab *vocab;
    const dec_bias *bias;
    json_t **result;           /* if non-NULL, receives a new reference to the results document */
    /* filled by eval_run */
    bool have_ptxas, have_gpu;
    double ridge;              /* flop/byte of the roofline's knee (measured FP32 peak / copy bandwidth) */
    const char *tmpdir;
    gpu_memo *memo;            /* the task being checked: one harness worker for all its kernels, so its
                                * input sets, references and nvcc's baseline are built once a task, not once
                                * a kernel (gpu_memo_new; $PTXGEN_GPU_MEMO=0 or no GPU: NULL, one process a kernel) */
} eval_ctx;

PG_API pg_status eval_run(const eval_ctx *c, pg_diag_sink *diag);
/* Time, one at a time, the correct sample-0 kernels of a (merged) results file
 * from o->keep_dir against nvcc (o->out_path, o->suite_dir, o->keep_dir). */
PG_API pg_status eval_time_pass(const eval_opts *o, pg_diag_sink *diag);
/* ---- the verification funnel: the one checking path -------------------------------
 * Shared by `eval`, `gen --verify`, `run --dry-run` and the nvcc wrapper (src/eval/funnel.c).
 * A module, given as text or already parsed, through: validator (+ the task's entry
 * signature when `task` is given, + a baseline entry's parameters with same_as) ->
 * ptxas -> GPU: loads, correct on every input set (smallest sizes first, stopping at
 * the first wrong one), and with time_it timed against nvcc's PTX of the task.  A stage
 * runs only when the ones before it passed, unless keep_going (then validator, signature
 * and ptxas all run, to report every problem; the GPU still needs all of them to pass). */
typedef struct gpu_memo gpu_memo;   /* ptxgen/gpu.h */
typedef struct {
    const char *arch;          /* ptxas -arch=... (NULL = the module's .target) */
    bool ptxas;                /* run ptxas (the caller checked ptx_ptxas_find) */
    bool gpu;                  /* run it on the GPU (needs a task; the caller checked gpu_available) */
    bool time_it;              /* time a correct kernel against nvcc */
    double ridge;              /* flop/byte of the roofline's knee, for memory_bound (0 = unknown) */
    bool keep_going;           /* run every static stage even after one failed (run --dry-run) */
    pg_diag_sink *diag;        /* also gets the validator's, the signature checks' and ptxas's
                                * diagnostics (NULL = only the result's one-line detail) */
    gpu_memo *gpu_memo;        /* the GPU stage's answers shared across calls (gpu_run_opts.memo; NULL: none) */
    const ptx_func *same_as;   /* a baseline entry: the module must define an .entry of that name
                                * with the same parameter types (the nvcc wrapper's candidates) */
} eval_funnel_opts;

typedef struct {
    const char *text;          /* the module's PTX, NUL-terminated; or NULL when `module` is set */
    ptx_module *module;        /* an already parsed module (borrowed; the funnel validates it) */
    const char *path;          /* a file holding exactly this module, read by ptxas and the GPU
                                * harness; NULL = the funnel writes a temporary copy when needed */
    const char *name;          /* the file name in diagnostics (NULL = path, else "<ptx>") */
} eval_funnel_in;

typedef struct {
    /* the last stage reached: "generation" (set by callers), "validator", "ptxas",
     * "gpu-not-run", "load", "fault", "timeout", "wrong", "correct" or "timed" */
    const char *stage;
    bool check, ptxas_ran, ptxas_ok, gpu_ran, loads, correct;
    bool missing_entry, signature_differs;   /* same_as: why the check failed */
    int registers, spill_bytes;        /* ptxas -v of the first function; -1 when unknown */
    const char *gpu_status;            /* gpu_status_name(); NULL when the GPU did not run */
    double worst_rel_l2;               /* when correct */
    double speedup, ms, baseline_ms, pct_of_ceiling;   /* when timed (speedup > 0) */
    bool faster_than_light, memory_bound;
    char detail[700];                  /* the first failure in one line; "" when none */
    ptx_module *module;                /* the module parsed from text, even partly (owned; NULL when given) */
    ptxas_report ptxas;                /* ptxas's full report when it ran (owned) */
    const char *hygiene;               /* gpu_hyg_name() of a reward-hygiene rejection or flag; NULL when none */
    int gpu_sets;                      /* input sets (size x distribution x seed) run and passed on the GPU */
    double static_s, ptxas_s, gpu_s;   /* wall seconds of the validator (with the signature checks), ptxas
                                        * and the GPU stage (0 when a stage did not run): where the
                                        * time of a verification goes */
    double gpu_probe_s, gpu_nvcc_s, gpu_kernel_s, gpu_baseline_s;   /* gpu_s in parts: the GPU probe and device info,
                                                                     * nvcc's PTX of the reference, the kernel's process
                                                                     * and nvcc's kernel's process (gpu_task_result) */
    double gpu_setup_s, gpu_sets_s, gpu_timing_s;      /* gpu_kernel_s in parts: context and module load, the input
                                                        * sets, the timing loop (gpu_kernel_result) */
    int gpu_cuda_starts, gpu_refs, gpu_baseline_runs;  /* harness processes started (CUDA initialised), input sets
                                                        * built with their reference, nvcc baseline runs (gpu_task_result) */
    long long gpu_htod_bytes, gpu_dtoh_bytes, gpu_dtod_bytes, gpu_allocs, gpu_syncs, gpu_resident_refreshed;   /* what the kernel's and the
                                                        * baseline's checks asked of the device (gpu_task_result) */
    double gpu_prep_wait_s;            /* seconds those checks waited for sets gen's preparation was still building */
} eval_funnel_result;

/* Always fills *r (free it with eval_funnel_result_free, even after a failure). */
PG_API void eval_funnel(const eval_funnel_in *in, const task_spec *task, const eval_funnel_opts *o, eval_funnel_result *r);
PG_API void eval_funnel_result_free(eval_funnel_result *r);
/* Its fields into a results row: check, ptxas, loads, correct (true/false or "not run"),
 * registers, spill_bytes, gpu_status, worst_rel_l2, the timing fields, last_stage, detail. */
PG_API void eval_funnel_json(const eval_funnel_result *r, json_t *row);

/* Does doc have the shape eval_finalize and eval_markdown read (an object with
 * model/device/date/arch strings and a rows array of objects with string
 * task/description/config/family/last_stage and an integer sample)?  Else
 * `why` names the JSON path.  Call it on every results file read from disk. */
PG_API bool eval_doc_check(json_t *doc, char *why, size_t n);

/* Merging results files (`eval --merge`): the rows of DOCS[1..n-1] into DOCS[0], in place (the
 * others are only read; DOCS[0] shares their row objects).  A row is identified by its key
 * task/description/config/sample; shards, ablation runs and runs of other sample indexes never
 * repeat one, a re-verification run does.  A repeated key, without `replace`, fails: false, with
 * info->first/second the documents that hold info->key (the same one when a file repeats a key
 * itself), DOCS[0] unchanged.  With `replace` the later row takes the earlier one's place and
 * info->replaced counts them.  "planned" ({"samples": N, "tasks": {name: samples}}, what a run
 * meant to verify) adds up over the documents, except that a task with a row replaced by
 * another document gets the largest plan of any one document (it planned those samples again);
 * when any document lacks "planned" (a file from before it existed), DOCS[0]'s is removed,
 * since a sum over some parts would mislead. */
typedef struct {
    size_t replaced;    /* rows replaced by a later row with the same key */
    int first, second;  /* on failure: the documents, by index, that both hold key */
    char key[256];      /* on failure: task/description/config/sample */
} eval_merge_info;
PG_API bool eval_merge(json_t *const *docs, int n, bool replace, eval_merge_info *info);
/* Recompute aggregates/failures of a results document (after a merge of shards). */
PG_API void eval_finalize(json_t *doc);
/* Markdown summary table (configs x funnel) plus the per-task table. */
PG_API void eval_markdown(json_t *doc, pg_buf *out);
/* ---- learning from verification (src/eval/learn.c) ---- */
/* Rows of one config (NULL = all) counted by their "hygiene" field:
 * {"not-run": n, "copies-input": n, "constant": n, "launch": n, "faster-than-light": n, "total": n}. */
PG_API json_t *eval_hygiene_counts(json_t *rows, const char *cfg);
/* One line for the Markdown report ("" when nothing was rejected or flagged). */
PG_API void eval_hygiene_markdown(json_t *doc, pg_buf *out);
/* Is candidate a better pick than best for best-of-k (either may be NULL)?
 * Correct and not flagged beats everything; among those the faster (higher
 * speedup, then lower ms); then correct-but-flagged; then the furthest stage
 * (timed > correct > wrong/fault/timeout > load > gpu-not-run > ptxas > validator
 * > generation); ties keep the earlier one. */
PG_API bool eval_better(const eval_funnel_result *candidate, const eval_funnel_result *best);
/* The stage's rank in that order (0 for generation or unknown). */
PG_API int eval_stage_rank(const char *stage);

/* A pg_diag_sink callback keeping the first error in a pg_diag. */
PG_API void eval_keep_first_error(void *user, const pg_diag *d);

#endif
