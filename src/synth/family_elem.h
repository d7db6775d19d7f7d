/* family_elem.h — shared pieces of the elementwise curriculum families
 * (src/synth/family_elem*.c, internal to src/synth):
 *
 *   fe_kernel   a CUDA-C elementwise kernel builder: arrays indexed by the
 *               element index i, V = 1/2/4 elements per thread with vector
 *               loads/stores (a scalar tail past the last full vector), one
 *               element (vector) per thread or a grid-stride loop;
 *   fe_*        task.json pieces in the corpus layout (params, 1D sizes and
 *               launch, tolerance, the C reference, cost) and the five
 *               descriptions through describe.h.
 *
 * Element types are task type names: "f32" "f64" "f16" "bf16" "s8" "u8"
 * "s32" "u32".  In a kernel body every indexed array `x` is a local `x_e`:
 * float for f32/f16/bf16 (converted on load, rounded to nearest on store),
 * double for f64, the stored integer for integer types and, for an array
 * marked raw, the stored bits (unsigned short for f16/bf16) so the body can
 * choose its own rounding.  The body also sees `i`, the element index.
 * Nothing here prints; buffers are appended to and owned by the caller. */
#ifndef PTXGEN_SYNTH_FAMILY_ELEM_H
#define PTXGEN_SYNTH_FAMILY_ELEM_H

#include "describe.h"
#include "family_internal.h"

#include <jansson.h>

enum { FE_IN = 'i', FE_OUT = 'o', FE_INOUT = 'b' };

typedef struct {
    const char *name;   /* parameter name */
    const char *dt;     /* element type */
    int role;           /* FE_IN, FE_OUT, FE_INOUT */
    bool raw;           /* the local holds the stored bits / integer, no conversion */
} fe_arr;

typedef struct {
    const char *name;        /* entry name */
    const char *comment;     /* one line saying what the kernel computes */
    const char *sig;         /* the whole parameter list in task order, from fe_sig_* */
    fe_arr arr[8];           /* arrays indexed by i (their pointer params are in sig) */
    int narr;
    const char *n;           /* element count parameter ("n") */
    const char *prologue;    /* per-thread statements before the loop, or NULL */
    const char *body;        /* per-element statements over the *_e locals and i */
    int V;                   /* 1, 2 or 4 elements per thread (f64: 1 or 2) */
    bool grid_stride;        /* loop over the grid, else one step per thread */
} fe_kernel;

/* The C type of a pointer parameter: "const float* __restrict__". */
const char *synth_fe_ctype(const char *dt);
/* Append "<const >T* __restrict__ name" (role decides const) to a signature. */
void synth_fe_sig_ptr(pg_buf *sig, const char *name, const char *dt, int role);
/* Append "T name" for a scalar (dt "f32" "f64" "u32" "s32"). */
void synth_fe_sig_scal(pg_buf *sig, const char *name, const char *dt);
/* Expressions for code outside the builder: the value of stored element
 * `elem` ("bias[c]") as float/double, and the stored form of value `v`. */
void synth_fe_ld(pg_buf *b, const char *dt, const char *elem);
void synth_fe_st(pg_buf *b, const char *dt, const char *v);
/* Plan style variants (docs/LITERATE.md, "Plan styles"): the same kernel as people write it.
 *   shape  FE_SHAPE_FIXED   `if (i >= n) return;` and x_e locals (the house style, always for V > 1)
 *          FE_SHAPE_INLINE  `if (i < n) y[i] = <expression with the loads inlined>;` where the body
 *                           is one assignment to the one output (else a block)
 *          FE_SHAPE_BLOCK   `if (i < n) { float v = x[i]; ... y[i] = r; }`, locals named naturally
 *          FE_SHAPE_RETURN  `if (i >= n) return;` with natural names (FE_SHAPE_FIXED with names > 0 too)
 *   index  unsigned int (the house style), int, const int (not as a loop variable), size_t. */
enum { FE_SHAPE_FIXED, FE_SHAPE_INLINE, FE_SHAPE_BLOCK, FE_SHAPE_RETURN };
enum { FE_IDX_UINT, FE_IDX_INT, FE_IDX_CINT, FE_IDX_SIZE };
typedef struct { int shape, index, names; } fe_style;   /* names: 0 x_e, 1..4 the natural schemes */
/* The style of the sample of `seed`: the fixed one unless s->plan_style is SYNTH_PLAN_VARIED, then
 * drawn from a stream of the seed that no family draws from (the task does not change). */
fe_style synth_fe_style(uint64_t seed, const synth_family_sample *s);
/* The kernel's CUDA C (with the cuda_fp16/bf16 includes) in style st (NULL: the fixed style); the
 * variant written goes to variant[0..n) ("" for the fixed style; variant may be NULL). */
void synth_fe_emit_styled(const fe_kernel *k, const fe_style *st, pg_buf *cu, char *variant, size_t n);
/* The family generators' call: the style of (seed, s), the variant recorded in s->plan_variant. */
void synth_fe_emit(const fe_kernel *k, uint64_t seed, synth_family_sample *s, pg_buf *cu);

/* ---- task.json -------------------------------------------------------------------- */
json_t *synth_fe_root(const char *name, const char *family);
void synth_fe_ptr(json_t *ps, const char *name, const char *dt, int role, const char *len);
/* A pointer with its own distributions d0, d1 (and d2 when not NULL). */
void synth_fe_ptr_dist(json_t *ps, const char *name, const char *dt, int role, const char *len, const char *d0, const char *d1,
                 const char *d2);
void synth_fe_scal(json_t *ps, const char *name, const char *dt, const char *value);
/* A float literal as people write it: "-100.0", "0.125", "1e-08". */
void synth_fe_lit(char *t, size_t n, double v);
void synth_fe_scal_f(json_t *ps, const char *name, const char *dt, double value);   /* a float literal */
/* Sizes over one variable: a timed big one, then the others (0-terminated). */
json_t *synth_fe_sizes1(const char *var, const long *vals);
/* 1D launch: block B; grid cdiv(COUNT,B*V) or, grid-stride, min(cdiv(COUNT,B*V*mult),cap): the
 * kernel's loop steps by gridDim.x * blockDim.x (times V) whatever the grid, so mult > 1 gives
 * grids whose divisor is not the loop's step (mult <= 1: 1; unused without grid_stride). */
void synth_fe_launch1(json_t *root, int block, int V, bool grid_stride, int cap, int mult, const char *count);
/* The sample's mult for synth_fe_launch1: 1 (40%), 2, 4 or 8, drawn from a stream of the seed that
 * no family draws from (so every other parameter of a sample stays what it was). */
int synth_fe_grid_mult(uint64_t seed);
/* distributions, tolerance {dt: tol, dt2: tol2 (dt2 may be NULL)}, reference,
 * cost, and the descriptions rendered from facts; writes the corpus layout. */
void synth_fe_finish(json_t *root, const desc_facts *f, uint64_t seed, const char *dt, double tol, const char *dt2, double tol2,
               const char *ref, const char *bytes, const char *flops, pg_buf *out);

/* Text with {key} slots filled from kv = {"key", "value", ..., NULL}
 * (unknown slots are copied).  The strings live in the fe_strs until
 * synth_fe_strs_free; at most FE_NSTRS per set. */
enum { FE_NSTRS = 96 };
typedef struct { pg_buf b[FE_NSTRS]; int n; } fe_strs;
const char *synth_fe_t(fe_strs *s, const char *const *kv, const char *tmpl);
void synth_fe_strs_free(fe_strs *s);

/* "4 consecutive elements per thread with 4-wide vector loads ..." for V
 * and grid-stride, English and Chinese (strings kept in T). */
const char *synth_fe_how_en(fe_strs *T, int V, bool gs);
const char *synth_fe_how_zh(fe_strs *T, int V, bool gs);

/* Element size in bytes of a task type name. */
int synth_fe_size(const char *dt);
bool synth_fe_is_half(const char *dt);   /* f16 or bf16 */
/* "single precision", "half precision" ... for descriptions. */
const char *synth_fe_prec_en(const char *dt);
const char *synth_fe_prec_zh(const char *dt);
/* Relative L2 tolerance of an f32-math result stored as dt. */
double synth_fe_tol(const char *dt);
/* The same for results that can cancel (a - b, polynomials near a root,
 * residual adds): a task of one element is checked by that element's
 * relative error, so f32 gets 1e-4 and f64 1e-10. */
double synth_fe_tol_cancel(const char *dt);
/* One of the grid-stride caps people use. */
int synth_fe_cap(fam_rng *r);

#endif
