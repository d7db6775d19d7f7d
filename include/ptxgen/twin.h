/* ptxgen/twin.h — CUDA C twins of generated kernels.
 *
 * A twin is the CUDA C of the same kernel as a PTX module: one
 * `extern "C" __global__` function with the entry's name and parameters.
 * People read and maintain the twin; nvcc's PTX of it is an independent
 * implementation to test the PTX against when no task spec says what the
 * kernel should compute.  This module:
 *
 *   - reads the twin's kernel declaration (twin_parse): parameters, their C
 *     types, `const` on pointees, __launch_bounds__, the body;
 *   - compiles it with nvcc (twin_compile: -ptx and a cubin; nvcc found as
 *     ptx_cuda_tool_find finds it: $NVCC, PATH, $CUDA_HOME/bin,
 *     /usr/local/cuda/bin);
 *   - infers a task spec from the twin and a PTX module (twin_infer_task):
 *     parameter roles from `const` and the PTX's stores (task_ptx_params),
 *     element counts as expressions in the integer size parameters (read off
 *     the twin's bounds checks and subscripts), a launch rule, sizes that are
 *     not multiples of the block, and the twin itself as the reference
 *     ({"kind": "cu", "file": <twin>}), so the GPU harness runs the PTX
 *     against the twin on every input set (`ptxgen run TASK.json K.ptx`);
 *   - words the verdict (twin_verdict_line) so that it never claims more
 *     than was shown.
 *
 * The inference is a heuristic over the twin's text; it says so in the
 * task's "inferred" notes, and the user corrects the task.json and reruns.
 *
 * Ownership: twin_kernel and twin_build own their strings (free with
 * twin_kernel_free / twin_build_free); outputs in pg_buf are appended and
 * owned by the caller.  Errors go to the diagnostics sink (E704 for a twin
 * that cannot be read); nothing here prints.
 */
#ifndef PTXGEN_TWIN_H
#define PTXGEN_TWIN_H

#include "ptxgen/common.h"
#include "ptxgen/task.h"

typedef struct {
    char *name;
    char *ctype;               /* the C type as written, normalized ("const float *") */
    bool is_pointer;
    bool is_const;             /* pointers: the pointee is const (an input) */
    task_dtype dtype;          /* element type (pointers) or scalar type; TASK_T_NONE: void* or unknown */
    int line;
} twin_param;

typedef struct {
    char *kernel;              /* the function's name (the PTX entry's name) */
    twin_param *params; int nparams;
    int line;                  /* of its __global__ */
    int launch_bounds;         /* __launch_bounds__(N): N, else 0 */
    char *body;                /* the body between its braces, comments blanked */
    bool dynamic_smem;         /* the file declares `extern __shared__` memory */
    char *defines;             /* the file's numeric object-like macros, "NAME=VALUE\n" each ("BX=32\n") */
} twin_kernel;

/* Read the `extern "C" __global__` kernel named `kernel` (NULL: the only one)
 * from CUDA C source `src` (diagnostics name `file`).  PG_ERR_PARSE with a
 * located E704 diagnostic when there is none, it is not extern "C", several
 * match, or a parameter is not a plain scalar or a pointer to one. */
PG_API pg_status twin_parse(const char *src, const char *file, const char *kernel, twin_kernel *out, pg_diag_sink *diag);
PG_API void twin_kernel_free(twin_kernel *k);
/* The PTX entry header for this kernel, in the canonical printer's form (what
 * gen forces): ".visible .entry k(\n\t.param .u64 x,\n\t.param .f32 a\n)".
 * false when a parameter's type is unknown (void* or a struct): then the
 * model writes the signature. */
PG_API bool twin_ptx_signature(const twin_kernel *k, pg_buf *out);
/* The CUDA C of a twin the model fenced ("```cuda" ... "```", with or without
 * prose around it), appended to out: the lines of the first fenced block (an
 * opening line is ``` and an optional tag of letters, digits and _+#.-; a
 * closing line is ``` alone; spaces and tabs around either), trailing newlines
 * folded into one; a block the token limit cut keeps everything after its
 * opening line.  Text without an opening fence line is appended as it is.
 * gen --twin and train/generate.py --twin write their twins through it. */
PG_API void twin_strip_fence(const char *text, pg_buf *out);

/* ---- nvcc ---------------------------------------------------------------------- */
typedef enum {
    TWIN_BUILD_NO_NVCC,        /* nvcc not found: not compiled */
    TWIN_BUILD_FAILED,         /* nvcc rejected it (log says why) */
    TWIN_BUILD_OK,             /* -ptx and -cubin both succeeded */
} twin_build_status;
typedef struct {
    twin_build_status status;
    char nvcc[1024];           /* the nvcc used ("" when none) */
    char *ptx;                 /* nvcc -ptx -O3 output (TWIN_BUILD_OK) */
    char *log;                 /* nvcc's messages (may be empty) */
} twin_build;
/* Compile cu_path for arch ("sm_80") with nvcc -O3: -ptx (kept in out->ptx)
 * and -cubin (checked, not kept).  Returns PG_OK whenever the outcome is in
 * out->status (also "no nvcc" and "rejected"); PG_ERR_IO when temp files
 * cannot be made. */
PG_API pg_status twin_compile(const char *cu_path, const char *arch, twin_build *out, pg_diag_sink *diag);
PG_API void twin_build_free(twin_build *b);
/* The line of nvcc's log that says what is wrong (the first containing "error", else the first
 * line), into out (truncated to n); what a verdict shows for a rejected twin. */
PG_API void twin_log_first_error(const char *log, char *out, size_t n);

/* ---- task inference -------------------------------------------------------------- */
typedef struct {
    const char *request;       /* the user's request (goes into descriptions) */
    const twin_kernel *twin;   /* parsed twin */
    const char *twin_file;     /* the twin's file name relative to the task.json's folder ("k.cu"),
                                * a plain file name: the reference */
    const char *ptx;           /* a PTX module with the entry (the twin's nvcc PTX, else the
                                * candidate's) for roles and element types; may be NULL */
    int block_hint;            /* a block size to use when neither the twin nor the PTX fixes one (0: 256) */
} twin_infer_in;
/* A task.json (indented JSON text, appended to out) that loads with
 * task_load from the folder holding twin_file.  PG_ERR_USAGE with a
 * diagnostic when twin_file is not a plain file name or a parameter cannot be
 * given synthetic inputs. */
PG_API pg_status twin_infer_task(const twin_infer_in *in, pg_buf *out, pg_diag_sink *diag);
/* A few lines for people: each parameter with its role and element count,
 * the launch rule and the sizes, from a loaded spec. */
PG_API void twin_task_summary(const task_spec *t, pg_buf *out);
/* A view of spec t whose reference is the CUDA C file `file` in folder `dir`
 * (borrowed strings; the view borrows t's arrays and must not be passed to
 * task_free).  For checking PTX against a twin on a task that has its own
 * reference (ptxgen eval with twins). */
PG_API void twin_task_view(const task_spec *t, const char *dir, const char *file, task_spec *view);

/* ---- the verdict ------------------------------------------------------------------ */
typedef enum {
    TWIN_V_NO_NVCC,            /* "twin written; nvcc not found; not compiled" */
    TWIN_V_NVCC_FAILED,        /* "twin written; nvcc rejects it; not run" */
    TWIN_V_NOT_RUN,            /* compiled, not run (no GPU, or the PTX failed a static check): detail says why */
    TWIN_V_AGREES,             /* "agrees with its CUDA twin on N input sets" */
    TWIN_V_DIFFERS,            /* ran, differs (wrong values, fault or hang of the PTX): detail */
    TWIN_V_NOT_COMPARED,       /* ran, but the twin or the inferred task could not run: detail */
} twin_verdict;
PG_API const char *twin_verdict_name(twin_verdict v);   /* "no-nvcc", "nvcc-failed", "not-run", "agrees", "differs", "not-compared" */
/* The sentence, appended to out; sets = input sets compared (TWIN_V_AGREES). */
PG_API void twin_verdict_line(twin_verdict v, int sets, const char *detail, pg_buf *out);

#endif
