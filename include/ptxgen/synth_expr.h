/* ptxgen/synth_expr.h — the random elementwise expression-tree family.
 *
 * An expr_tree (ptxgen/expr.h) is a small tree over the inputs a, b, c, d (f32 arrays of n
 * elements), up to two scalar parameters alpha, beta (f32 kernel arguments
 * passed by value), f32 constants and the operators
 *     add sub mul div fma min max abs exp log sqrt rsqrt tanh sigmoid relu sel.
 * From one tree the family produces a task: a PTX kernel written by a PTX
 * template (no nvcc), the equivalent CUDA C kernel (the nvcc baseline), and a
 * task.json whose C reference ("expr_eval", src/task/refs_expr.c) evaluates
 * the tree with the double-precision interpreter of ptxgen/expr.h.  The spec carries the
 * tree in prefix notation in a top-level "expr" field, e.g.
 *     "expr": "(max (add (mul a b) 1.5) 0)"
 *     "expr": "(sel a a (mul alpha a))"
 * and each scalar the tree uses as a parameter {"name": "alpha", "type":
 * "f32", "value": "0.25"} after "out" and before "n".
 *
 * Semantics (interpreter, CUDA text and PTX agree up to rounding):
 *     sigmoid(x) = 1/(1+exp(-x)), relu(x) = max(x,0), rsqrt(x) = 1/sqrt(x),
 *     fma(x,y,z) = x*y+z, min/max as fmin/fmax,
 *     sel(c,x,y) = c > 0 ? x : y   (PTX setp.gt.f32 + selp.f32; C c > 0.0f ? x : y).
 * The operators themselves are total; numerical safety is a property of the
 * trees synth_expr_random() builds: log/sqrt/rsqrt arguments are abs(x)+c
 * (c > 0 a constant, never a scalar), division denominators are abs(x)+1 or a
 * nonzero constant, exp arguments are min(x,10), and every subtree's value
 * stays within ±1e6 for inputs in [-10,10] and scalars in
 * [SYNTH_EXPR_SCALAR_MIN, SYNTH_EXPR_SCALAR_MAX] = [-4,4] (interval bound; the
 * scalar values synth_expr_scalar_values() draws lie in that range), so
 * neither the double reference nor the f32 kernel produces inf/NaN there.
 * Select conditions are chosen so the f32 kernel and the double reference take
 * the same branch: the condition is an input leaf, or the difference of two
 * leaves (p - q > 0, i.e. p > q; the sign of a rounded difference is exact), or
 * the select is continuous at the switch (sel t t (mul s t)) / (sel t (mul s t) t).
 *
 * Determinism: synth_expr_random() depends only on its arguments.
 * Ownership: trees are malloc'd, freed with expr_free(); text goes into
 * caller-owned pg_bufs (appended).  Nothing here prints.
 */
#ifndef PTXGEN_SYNTH_EXPR_H
#define PTXGEN_SYNTH_EXPR_H

#include "ptxgen/expr.h"   /* the trees: expr_tree, the printers, the interpreter */

/* The range scalar parameters are assumed to lie in (the interval bound). */
#define SYNTH_EXPR_SCALAR_MIN (-4.0)
#define SYNTH_EXPR_SCALAR_MAX 4.0

/* Generator options; NULL = defaults. */
typedef struct {
    /* Relative weight of each operator when an inner node is drawn (leaves
     * ignored); all zero = the default weights. */
    unsigned op_weight[EXPR__COUNT];
    double const_prob;      /* chance that a leaf is a constant (default 0.25) */
    double leaf_prob;       /* chance that a node above max depth is a leaf (default 0.3) */
    double scalar_prob;     /* chance that a tree takes scalar parameters (default 0.35; < 0: never) */
    int max_scalars;        /* how many at most, 1..2 (0 = default 2) */
} synth_expr_opts;

/* A random tree over `ninputs` inputs (1..4; every input is used at least
 * once, the root is an operator) with at most max_depth (1..12) levels of
 * drawn operators; the safety wrappers (abs(x)+c, min(x,10), abs(y)+1) and
 * the s*t of a continuous select do not count.  A tree with scalars uses
 * scalars 0..k-1 (alpha, then beta), each at least once.  The generator never
 * returns the held-out suite's leaky_relu tree, (sel a a (mul alpha a)).
 * Deterministic for (seed, ninputs, max_depth, opts).  NULL on bad arguments. */
PG_API expr_tree *synth_expr_random(uint64_t seed, int ninputs, int max_depth, const synth_expr_opts *o);
/* Values for n scalar parameters, drawn deterministically from seed among
 * short decimals in [SYNTH_EXPR_SCALAR_MIN, SYNTH_EXPR_SCALAR_MAX] (0.01, 0.2,
 * 0.5, -1.5, 2.5, ...); distinct when n == 2. */
PG_API void synth_expr_scalar_values(uint64_t seed, int n, float *out);

/* Emit one task of the family:
 *   ptx_out:       PTX kernel `kernel_name(.u64 a.., .u64 out, .f32 alpha.., .u32 n)`
 *                  (the scalars 0..expr_nscalars(e)-1 by value),
 *                  block threads/block; per_thread 1 (one element per thread,
 *                  grid cdiv(n,block)) or 4 (ld/st .v4 per thread with a scalar
 *                  tail, grid cdiv(n,4*block));
 *   cu_out:        the same kernel in CUDA C (extern "C" __global__);
 *   task_json_out: the task.json (family "expr", reference expr_eval, "expr",
 *                  the scalars' values from scalar_values).
 * scalar_values[k] is the value of scalar k (NULL: synth_expr_scalar_values(0, ..));
 * each must lie in [SYNTH_EXPR_SCALAR_MIN, SYNTH_EXPR_SCALAR_MAX].
 * Any of the outputs may be NULL.  PG_ERR_USAGE (with a diagnostic) when the
 * tree uses an input >= ninputs or an argument is out of range. */
PG_API pg_status synth_expr_kernel(const expr_tree *e, const char *kernel_name, int ninputs, const float *scalar_values,
                            int block, int per_thread, pg_buf *ptx_out, pg_buf *cu_out, pg_buf *task_json_out,
                            pg_diag_sink *diag);

/* The notation a description of `style` (TASK_STYLE_*, ptxgen/task.h) states the
 * tree in, drawn from `seed` (the task's description seed) on a stream of its own:
 * true for about half of the (seed, style) pairs, with *flags the EXPR_MATH_* forms
 * for expr_to_math (|x|, x^2, a*b + c; "squared" only in prose); false: the
 * function-call text of expr_to_text (*flags 0).  The expr family's task.json and
 * the task-only tasks use it; the kernels, the CUDA plan and its comments keep
 * expr_to_text / expr_to_c. */
PG_API bool synth_expr_notation(uint64_t seed, int style, unsigned *flags);
/* The tree in the notation synth_expr_notation drew (human: expr_to_math(e, flags),
 * else expr_to_text), appended to out. */
PG_API void synth_expr_notation_text(const expr_tree *e, bool human, unsigned flags, pg_buf *out);
/* The tree as a recipe in plain words, appended to out: a running value that starts
 * at a leaf, one step per operator applied to it, the inputs by their position in
 * the signature ("the first input" is a), no parameter name but the scalars', no
 * symbol ("take the first input, square it, add the second input, apply tanh,
 * multiply by the third input, and write the result to the output array").
 * Only a chain has one: every operator has at most one compound operand (or squares
 * one, (x)*(x)), and no select; false (out untouched) otherwise.  The words are drawn
 * from seed; a lower-case imperative clause without a final period (describe.h's
 * explain_en).  The expr family's prose uses it for half of the chains (about a fifth
 * of its tasks). */
PG_API bool synth_expr_recipe(const expr_tree *e, int ninputs, uint64_t seed, pg_buf *out);
/* The tree in nested plain words with the inputs by position, for any tree that is
 * not a leaf (selects and two compound operands included): "set each element of the
 * output array to (the first input minus the second input) divided by ((the absolute
 * value of ...) plus one)"; every operand that is not a leaf in parentheses, as the
 * named words are.  No parameter name but the scalars'.  false for a leaf. */
PG_API bool synth_expr_words_by_position(const expr_tree *e, int ninputs, uint64_t seed, pg_buf *out);

#endif
