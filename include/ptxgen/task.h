/* ptxgen/task.h — task specs: what a kernel computes and how to check it.
 *
 * A task spec (task.json, read with jansson) names the kernel signature, the
 * problem sizes, the launch rule, input distributions, tolerances, the
 * reference (a C function in the registry, or the task folder's reference.cu
 * run on the GPU) and a cost model.  See docs/TASKS.md for the format.
 *
 * Ownership: task_load() returns a task_spec owned by the caller, freed with
 * task_free().  Buffers in a task_inst are owned by the instance
 * (task_inst_free).  Errors name the file and the JSON path
 * ("corpus/saxpy/task.json: $.params[1].type: unknown type 'f33'") through
 * the diagnostics sink; nothing here prints.
 */
#ifndef PTXGEN_TASK_H
#define PTXGEN_TASK_H

#include "ptxgen/common.h"
#include "ptxgen/expr.h"

/* ---- element types ------------------------------------------------------ */
typedef enum {
    TASK_T_NONE, TASK_T_F16, TASK_T_BF16, TASK_T_F32, TASK_T_F64,
    TASK_T_S8, TASK_T_S16, TASK_T_S32, TASK_T_S64,
    TASK_T_U8, TASK_T_U16, TASK_T_U32, TASK_T_U64, TASK_T__COUNT
} task_dtype;
PG_API const char *task_dtype_name(task_dtype t);      /* "f32" */
PG_API task_dtype task_dtype_parse(const char *s);     /* TASK_T_NONE if unknown */
PG_API int task_dtype_size(task_dtype t);              /* bytes */
PG_API bool task_dtype_is_float(task_dtype t);
/* half/bfloat16 conversions (round to nearest even) */
PG_API uint16_t task_f32_to_f16(float f);
PG_API float task_f16_to_f32(uint16_t h);
PG_API uint16_t task_f32_to_bf16(float f);
PG_API float task_bf16_to_f32(uint16_t h);

/* Size expressions (lengths, grid, block, smem, cost) are ptxgen/expr.h's
 * expr_size_eval over an expr_env of the problem's size variables. */

/* ---- the spec ----------------------------------------------------------------- */
/* ---- description styles ------------------------------------------------------------------------
 * The one table of the five ways a task is described: task.json's "descriptions" keys, the
 * synth's renderers (src/synth/describe.h), eval's rows and --styles, the per-style reports. */
enum { TASK_STYLE_TERSE, TASK_STYLE_DETAILED, TASK_STYLE_CARD, TASK_STYLE_ZH, TASK_STYLE_PROSE, TASK_NSTYLES };
PG_API extern const char *const task_styles[TASK_NSTYLES];   /* "terse", "detailed", "card", "zh", "prose" */

typedef enum { TASK_ROLE_IN, TASK_ROLE_OUT, TASK_ROLE_INOUT } task_role;

typedef struct {
    char *name;
    bool is_pointer;
    task_dtype dtype;          /* element type (pointer) or scalar type */
    task_role role;            /* pointers only */
    char *len;                 /* pointers: element-count expression */
    char *value;               /* scalars: expression (integer) or number literal text */
    char **dists; int ndists;  /* pointers (in/inout): generator per distribution index; empty = spec default */
} task_param;

typedef struct {
    expr_env env;              /* size variables of this problem */
    bool time_it;              /* the size used for timing (the first unless "time": true marks another) */
} task_size;

typedef struct {
    char *kind;                /* "c" or "cu" */
    char *name;                /* registry name (kind "c") */
    char *file;                /* reference.cu path (kind "cu"), relative to the spec */
    bool high_precision;       /* "cu": compile the reference with doubles where it asks */
    bool must_write;           /* "cu" ("must_write": true in task.json): an input set on which the
                                * oracle leaves every out buffer as uploaded is a setup error, not a
                                * comparison (CUDA twins: a twin that writes nothing "agrees" with a
                                * PTX that writes nothing); inferred tasks carry it, twin_task_view sets it */
} task_ref;

typedef struct {
    char *path;                /* the task.json path */
    char *dir;                 /* its folder */
    char *name;                /* task name */
    char *kernel;              /* entry point name (in kernel.ptx and reference.cu) */
    char *desc[TASK_NSTYLES];  /* indexed by TASK_STYLE_*; NULL when the spec lacks that style (generated
                                * tasks carry all five; a hand-written request only the one it was
                                * written in; prose names no template keywords) */
    task_param *params; int nparams;
    task_size *sizes; int nsizes;
    char *block[3], *grid[3];  /* launch rule expressions ("1" when absent) */
    char *smem;                /* dynamic shared memory bytes expression */
    char **dists; int ndists;  /* default input distributions (>= 2) */
    double tol[TASK_T__COUNT]; /* relative L2 error allowed per output dtype */
    task_ref ref;
    char *cost_bytes, *cost_flops;   /* expressions; "" when absent */
    char *family;              /* optional family tag */
} task_spec;

/* Load and check a spec.  Every problem is reported with its JSON path.
 * Beyond the format (docs/TASKS.md) it refuses: a name that is not one plain
 * file name (it names kept kernels and reports) or a kernel that is not a PTX
 * identifier; integer scalars out of their type's range and buffers over
 * 1 TiB for any size; launch dimensions over the CUDA limits (block 1024 x
 * 1024 x 64 and 1024 threads, grid 2^31-1 x 65535 x 65535); dynamic shared
 * memory over 227 KiB; generator arguments that are not finite or out of
 * their domain (uniform(1,-1), normal(0,-1)) for any size. */
PG_API pg_status task_load(const char *path, task_spec **out, pg_diag_sink *diag);
/* The same from task.json text (a synth sample's "task"); path names it in
 * diagnostics and is the folder its "cu" references are relative to. */
PG_API pg_status task_load_text(const char *text, size_t len, const char *path, task_spec **out, pg_diag_sink *diag);
PG_API void task_free(task_spec *t);
/* The launch's block, per dimension the largest over the sizes (what a
 * kernel's .maxntid/.reqntid must admit); 1 where an expression fails. */
PG_API void task_block_max(const task_spec *t, int out[3]);

/* ---- instances: concrete buffers for one size and one seed ------------------- */
typedef struct {
    void *data;                /* host buffer (pointers) */
    size_t count;              /* elements */
    size_t bytes;
    union { int64_t i; uint64_t u; double f; } scalar;  /* scalars */
} task_arg;

typedef struct {
    const task_spec *spec;
    int size_index, dist_index;
    uint64_t seed;
    expr_env env;
    task_arg *args;            /* one per param */
    unsigned grid[3], block[3];
    size_t smem;
    double bytes, flops;       /* cost model for this size (0 when absent) */
    pg_diag_sink *diag;        /* where a C reference reports a spec it cannot run (E7xx); set by
                                * task_reference_run, may be NULL */
} task_inst;

/* Build the inputs for (size, distribution, seed): deterministic for the
 * same arguments; outputs are allocated and filled with a poison pattern. */
PG_API pg_status task_inst_make(const task_spec *t, int size_index, int dist_index, uint64_t seed, task_inst *out,
                         pg_diag_sink *diag);
PG_API void task_inst_free(task_inst *in);
/* Poison: NaN for floats, 0xA5 bytes for integers. */
PG_API void task_poison(task_dtype t, void *data, size_t count);

/* Run the C reference on a copy of the instance: fills ref->args outputs.
 * PG_ERR_USAGE if the spec's reference is not a registered C function. */
PG_API pg_status task_reference_run(const task_inst *in, task_inst *ref, pg_diag_sink *diag);
/* Deep copy of an instance (all buffers). */
PG_API pg_status task_inst_clone(const task_inst *in, task_inst *out);

/* ---- comparison ------------------------------------------------------------------ */
typedef struct {
    char param[64];
    double rel_l2, max_abs;
    size_t nan_count, mismatches, count;
    size_t first_bad;          /* index of the first bad element, or SIZE_MAX */
    double tol;
    bool ok;
} task_cmp;
/* Compare output `got` against `want` for param p (relative L2, max-abs,
 * NaN never passes; integers exact). */
PG_API task_cmp task_compare(const task_spec *t, int p, const task_arg *got, const task_arg *want);
/* Inputs must be unchanged by a launch: byte-compare. */
PG_API bool task_inputs_unchanged(const task_spec *t, const task_inst *before, const task_inst *after, int *bad_param);

/* ---- the C reference registry --------------------------------------------------- */
/* A reference reads inputs and writes outputs of `in` (its own copy); a spec it
 * cannot run is reported to in->diag (PG_E_TASK) with a non-OK status. */
typedef pg_status (*task_ref_fn)(task_inst *in);
PG_API task_ref_fn task_ref_lookup(const char *name);
PG_API int task_ref_count(void);
PG_API const char *task_ref_name(int i);

/* Argument accessors for reference functions (by parameter name). */
PG_API void *task_buf(task_inst *in, const char *param);          /* aborts if missing: a bug in the reference */
PG_API double task_scalar_f(const task_inst *in, const char *param);
PG_API int64_t task_scalar_i(const task_inst *in, const char *param);
PG_API int64_t task_var(const task_inst *in, const char *var);     /* size variable */

/* ---- the kernel's signature against the spec (no GPU needed) -------------------- */
#include "ptxgen/ptx.h"
/* Does module m have an .entry named t->kernel whose parameters match the
 * spec's in count, width (pointers are 64-bit) and kind (a float scalar
 * needs a float or bit type)?  PG_OK, or PG_ERR_INVALID with one diagnostic
 * (PG_E_TASK) per problem, located in `name` (the module's file name). */
PG_API pg_status task_check_signature(const task_spec *t, const ptx_module *m, const char *name, pg_diag_sink *diag);

/* ---- a task read off a PTX entry (no task.json) ------------------------------------ */
enum { TASK_PTX_MAX_PARAMS = 64 };
typedef struct {
    bool is_pointer;
    bool unsupported;          /* a by-value array/struct, or beyond TASK_PTX_MAX_PARAMS */
    task_dtype dtype;          /* element type (pointers: the most frequent access type) or scalar type */
    int bytes;                 /* the parameter's size as declared */
    bool loaded, stored;       /* pointers: the code loads / stores (st, atom, red) through it */
} task_ptx_param;
/* What each parameter of entry f is, read off its code by a taint analysis from
 * ld.param through address arithmetic to loads and stores.  out: [f->nparams]. */
PG_API void task_ptx_params(const ptx_func *f, task_ptx_param *out);
/* f's .reqntid/.maxntid block size (x*y*z <= 1024), else fallback. */
PG_API int task_ptx_block(const ptx_func *f, int fallback);
/* A spec to check a rewrite of f against f itself: every pointer an in/out
 * buffer of n elements (floats uniform(-1,1), integers int(0,n-1) so they are
 * safe as indices), integer scalars n, float scalars 1; one size, one
 * distribution; grid cdiv(n, block) x 1 x 1; tolerance 1e-5 (f32), 1e-12 (f64),
 * 1e-2 (f16/bf16); no reference (kind "synthetic": the caller supplies one).
 * PG_ERR_USAGE (with a diagnostic) for unsupported parameters or a bad n/block.
 * *out is freed with task_free. */
PG_API pg_status task_from_ptx(const ptx_func *f, const task_ptx_param *params, int64_t n, int block, task_spec **out,
                        pg_diag_sink *diag);

#endif
