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
 * Ownership: pipe_out owns its strings (pipe_out_free).  Errors go to the diagnostics sink
 * (E9xx); nothing here prints. */
#ifndef PTXGEN_PIPELINE_H
#define PTXGEN_PIPELINE_H

#include "ptxgen/common.h"
#include "ptxgen/decode.h"
#include "ptxgen/model.h"
#include "ptxgen/task.h"

typedef struct {
    const char *request;       /* the user's description (or card) */
    const task_spec *task;     /* optional: its C signature goes into the plan turn, its PTX signature is forced */
    const char *plan;          /* optional: the user's plan (CUDA C text): no plan turn */
    gen_opts gen;              /* arch, sampler, max_tokens (PTX turn), format (must be ChatML), block, bias ... */
    int plan_max_tokens;       /* the plan turn's token limit (0 = 1024) */
    int plan_samples;          /* plans drawn until one passes (0 = 4) */
    bool need_nvcc;            /* refuse when nvcc is missing, instead of taking an unchecked plan */
} pipe_in;

typedef struct {
    char *plan;                /* the plan kept (malloc'd); NULL when none passed */
    int plan_attempts;         /* plans drawn (0: the user's) */
    int plan_tokens;           /* tokens of the plan kept */
    double plan_seconds;       /* the plan stage, all attempts and nvcc */
    bool nvcc_ran;             /* nvcc was found and compiled the plan kept */
    char plan_note[400];       /* why the last rejected plan was rejected (nvcc's first error, ...), or "" */
    char *kernel;              /* the plan's kernel name (malloc'd) */
    char *signature;           /* the PTX signature of the PTX turn: the task's, else the plan's (malloc'd) */
    gen_result ptx;            /* the PTX turn (pipe_ptx) */
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
 * which must outlive o), the signature (or the plan's kernel name) and plan comments. */
PG_API void pipe_ptx_opts(const pipe_in *in, const pipe_out *out, gen_opts *o, pg_buf *prompt);
PG_API void pipe_out_free(pipe_out *o);

/* Does the model folder's base.json say "pipeline": "plan-literate"?  (false for a folder
 * without one, a GGUF file, or another pipeline.) */
PG_API bool pipe_model_is_two_stage(const char *model_path);

#endif
