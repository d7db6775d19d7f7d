/* ptxgen/expr.h — the two small expression languages shared by task and synth.
 *
 * 1. Size expressions: integer arithmetic over a task's problem-size variables
 *    ("cdiv(n,256)", "rows*cols"), used by task.json's lengths, grid, block,
 *    shared memory and cost, and by synth when it prices a sample.
 * 2. Elementwise expression trees: a small tree over the inputs a, b, c, d
 *    (f32 arrays of n elements), up to two scalar parameters alpha, beta,
 *    f32 constants and the operators
 *        add sub mul div fma min max abs exp log sqrt rsqrt tanh sigmoid relu sel,
 *    with printers (C, math text, human math, prefix), a prefix parser and a double
 *    interpreter.  The synth module's expression family (ptxgen/synth_expr.h)
 *    draws random trees and writes kernels from them; the task module's
 *    "expr_eval" reference (src/task/refs_expr.c) parses the task's "expr"
 *    field and runs the interpreter.  This module sits below both, so neither
 *    needs the other.
 *
 * Tree semantics (interpreter, CUDA text and PTX agree up to rounding):
 *     sigmoid(x) = 1/(1+exp(-x)), relu(x) = max(x,0), rsqrt(x) = 1/sqrt(x),
 *     fma(x,y,z) = x*y+z, min/max as fmin/fmax,
 *     sel(c,x,y) = c > 0 ? x : y.
 * The operators are total (numerical safety is a property of the trees the
 * generator builds; see synth_expr.h).
 *
 * Ownership: trees are malloc'd, freed with expr_free(); text goes into
 * caller-owned pg_bufs (appended).  Nothing here prints.
 */
#ifndef PTXGEN_EXPR_H
#define PTXGEN_EXPR_H

#include "ptxgen/common.h"

/* ---- size expressions ------------------------------------------------------ */
/* Integer expressions over the problem-size variables: + - * / % ( ),
 * cdiv(a,b), min(a,b), max(a,b), integers.  "cdiv(n,256)".  Nesting deeper
 * than 200 levels and 64-bit overflow are errors (never a crash or a wrapped value). */
enum { EXPR_MAX_VARS = 16 };
/* The variables' names (not owned) and values; n of them. */
typedef struct { const char *name[EXPR_MAX_VARS]; int64_t val[EXPR_MAX_VARS]; int n; } expr_env;
/* Evaluate; on error writes a message into err (if non-NULL) and returns false. */
PG_API bool expr_size_eval(const char *expr, const expr_env *env, int64_t *out, char *err, size_t errn);

/* ---- elementwise expression trees --------------------------------------------- */
typedef enum {
    EXPR_INPUT,   /* leaf: input `input` (0..3 = a..d) */
    EXPR_CONST,   /* leaf: f32 constant `value` */
    EXPR_SCALAR,  /* leaf: scalar parameter `input` (0..1 = alpha, beta) */
    EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_DIV,
    EXPR_FMA,     /* kid[0]*kid[1]+kid[2] */
    EXPR_MIN, EXPR_MAX,
    EXPR_ABS, EXPR_EXP, EXPR_LOG, EXPR_SQRT, EXPR_RSQRT,
    EXPR_TANH, EXPR_SIGMOID, EXPR_RELU,
    EXPR_SEL,     /* kid[0] > 0 ? kid[1] : kid[2] */
    EXPR__COUNT
} expr_op;

enum { EXPR_MAX_INPUTS = 4, EXPR_MAX_SCALARS = 2 };
typedef struct expr_tree expr_tree;
struct expr_tree {
    expr_op op;
    int input;              /* INPUT: 0..3; SCALAR: 0..1 */
    float value;            /* CONST */
    int nkids;              /* 0..3 */
    expr_tree *kid[3];
};

/* Operator name in prefix notation ("add", "sigmoid"; "input"/"const"/"scalar" for leaves). */
PG_API const char *expr_op_name(expr_op op);
/* Number of operands of an operator (0 for leaves). */
PG_API int expr_op_arity(expr_op op);

/* A node of operator op with its operand slots (expr_op_arity) still empty;
 * the caller fills kid[].  Aborts when out of memory (trees are tiny). */
PG_API expr_tree *expr_new(expr_op op);
PG_API expr_tree *expr_leaf_input(int i);     /* input i (0..3 = a..d) */
PG_API expr_tree *expr_leaf_const(float v);
PG_API expr_tree *expr_leaf_scalar(int k);    /* scalar k (0..1 = alpha, beta) */
PG_API void expr_free(expr_tree *e);
PG_API expr_tree *expr_clone(const expr_tree *e);
/* True when x and y are the same tree: operators, inputs, scalars and constants (bit for bit). */
PG_API bool expr_equal(const expr_tree *x, const expr_tree *y);

/* Tree facts. */
PG_API int expr_count_nodes(const expr_tree *e);     /* operators + leaves */
PG_API int expr_count_ops(const expr_tree *e);       /* operators only */
PG_API int expr_depth(const expr_tree *e);           /* a leaf has depth 1 */
PG_API unsigned expr_inputs_used(const expr_tree *e); /* bit i = input i appears */
PG_API unsigned expr_scalars_used(const expr_tree *e); /* bit k = scalar k appears */
/* The kernel's scalar parameters: 1 + the highest scalar used (0 if none). */
PG_API int expr_nscalars(const expr_tree *e);
/* Name of scalar k ("alpha", "beta"). */
PG_API const char *expr_scalar_name(int k);

/* Text forms (appended to `out`):
 *   to_c:      CUDA/C expression over a,b,c,d:      "fmaxf(a*b + 1.5f, 0.0f)"
 *   to_text:   math for descriptions:                "max(a*b + 1.5, 0)"
 *   to_prefix: the spec's "expr" field, parseable:  "(max (add (mul a b) 1.5) 0)"
 * (and expr_to_math below: the notation people write, "|a - b|", "(a + b)^2").
 * A select prints as "c > 0 ? x : y" (C: "c > 0.0f ? x : y"), parenthesized
 * unless it is the whole expression or a function argument; scalars print as
 * their names.  Constants print exactly (round trip to the same f32). */
PG_API void expr_to_c(const expr_tree *e, pg_buf *out);
PG_API void expr_to_text(const expr_tree *e, pg_buf *out);
PG_API void expr_to_prefix(const expr_tree *e, pg_buf *out);

/* The tree as people write it, for descriptions (appended to `out`):
 *     |x| for abs (abs(x) when x prints a |y| outside parentheses: never
 *     "||a| - b|", but "|min(a, |b|)|"),
 *     x^2 for a product of two identical subtrees ("(a - b)^2", "a^2"),
 *     x*y + z for fma(x, y, z) (x^2 + z when x and y are identical),
 *     exp log sqrt tanh sigmoid rsqrt relu min max as calls, the select as
 *     in expr_to_text.
 * Parentheses follow the usual precedence (a power binds tighter than * and
 * /, those tighter than + and -); the right operand of a + - * / of its own
 * level keeps its parentheses ("a - (b - c)", "a*(b*c)") and a quotient on
 * the left of * or / gets them ("(a/b)*c"), so the text's evaluation order is
 * the tree's.  flags (EXPR_MATH_*) pick among forms people use:
 *     SUPERSCRIPT  x² (UTF-8) instead of x^2
 *     SPACED       "a * b", "a / b" instead of "a*b", "a/b"
 *     RELU_MAX     max(x, 0) instead of relu(x)
 *     RSQRT_DIV    1/sqrt(x) instead of rsqrt(x)
 *     SQUARED      "x squared" when the whole expression is a square
 * Constants and scalars print as in expr_to_text. */
enum {
    EXPR_MATH_SUPERSCRIPT = 1u << 0,
    EXPR_MATH_SPACED = 1u << 1,
    EXPR_MATH_RELU_MAX = 1u << 2,
    EXPR_MATH_RSQRT_DIV = 1u << 3,
    EXPR_MATH_SQUARED = 1u << 4,
};
PG_API void expr_to_math(const expr_tree *e, unsigned flags, pg_buf *out);

/* Parse prefix text: atoms a b c d, alpha beta and numbers, lists (OP ARG...).
 * On error returns NULL and writes a message (with the byte offset) into err. */
PG_API expr_tree *expr_parse(const char *prefix_text, char *err, size_t errn);

/* The interpreter: evaluate in double.  inputs[i] is input i (a..d),
 * scalars[k] scalar k (alpha, beta; pass the f32 values the kernel gets);
 * inputs and scalars the tree does not use may be absent (scalars NULL when
 * the tree has none). */
PG_API double expr_eval(const expr_tree *e, const double *inputs, const double *scalars);
/* Evaluate n elements: out[i] = (float)expr_eval(e, {in[0][i], ...}, scalars),
 * bit-identical to the scalar interpreter, but several times faster
 * (evaluates node by node over chunks).  in[k] may be NULL for unused inputs. */
PG_API void expr_eval_f32(const expr_tree *e, const float *const *in, const double *scalars, float *out, size_t n);
/* One constant as the printers write it (c_suffix: C form "1.5f", "(-2.0f)"). */
PG_API void expr_put_const(pg_buf *out, float v, bool c_suffix);

#endif
