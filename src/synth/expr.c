/* expr.c — the random elementwise expression-tree family: generator and the
 * task emitter (PTX template, CUDA C, task.json).  The trees themselves
 * (printers, parser, interpreter) are src/expr.  See ptxgen/synth_expr.h. */
#include "ptxgen/synth.h"   /* synth_task_json_write is defined here */
#include "ptxgen/synth_expr.h"
#include "describe.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default generator weight of each operator (leaves 0). */
static const unsigned WEIGHT[EXPR__COUNT] = {
    [EXPR_ADD] = 10, [EXPR_SUB] = 8, [EXPR_MUL] = 10, [EXPR_DIV] = 4, [EXPR_FMA] = 5,
    [EXPR_MIN] = 4,  [EXPR_MAX] = 4, [EXPR_ABS] = 3,  [EXPR_EXP] = 3, [EXPR_LOG] = 3,
    [EXPR_SQRT] = 3, [EXPR_RSQRT] = 2, [EXPR_TANH] = 3, [EXPR_SIGMOID] = 3, [EXPR_RELU] = 3,
    [EXPR_SEL] = 5,
};
static const char INPUT_NAMES[] = "abcd";

static expr_tree *node1(expr_op op, expr_tree *x) {
    expr_tree *e = expr_new(op);
    e->kid[0] = x;
    return e;
}
static expr_tree *node2(expr_op op, expr_tree *x, expr_tree *y) {
    expr_tree *e = expr_new(op);
    e->kid[0] = x;
    e->kid[1] = y;
    return e;
}

/* Short decimals in [-4, 4]: slopes, offsets, thresholds, scales. */
static const float SCALAR_VALUES[] = {0.01f, 0.1f,  0.2f,  0.25f, 0.5f,  0.75f, 1.5f,  2.0f,
                                      2.5f,  3.0f,  -0.5f, -1.0f, -1.5f, -2.0f, 0.05f, 1.25f};
void synth_expr_scalar_values(uint64_t seed, int n, float *out) {
    uint64_t z = seed ^ 0x5CA1A2ull;
    int prev = -1;
    for (int k = 0; k < n; k++) {
        z = (z + 0x9E3779B97F4A7C15ull);
        uint64_t x = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        x ^= x >> 31;
        int nv = (int)(sizeof SCALAR_VALUES / sizeof SCALAR_VALUES[0]);
        int i = (int)(x % (uint64_t)nv);
        if (i == prev) i = (i + 1) % nv;
        out[k] = SCALAR_VALUES[i];
        prev = i;
    }
}

/* ---- the generator ---------------------------------------------------------------------- */
typedef struct { uint64_t s; } rng_t;
static uint64_t rng_next(rng_t *r) {   /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rng_unit(rng_t *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static int rng_int(rng_t *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

enum { BOUND_LIMIT = 1000000 };   /* |value| of every subtree for inputs in [-10,10], scalars in [-4,4] */
static const double INPUT_LO = -10.0, INPUT_HI = 10.0;

/* Conservative value interval of a tree for inputs in [INPUT_LO, INPUT_HI];
 * false when the tree may leave the finite, in-domain range. */
static bool interval(const expr_tree *e, double *lo, double *hi) {
    double l[3] = {0}, h[3] = {0};
    for (int i = 0; i < e->nkids; i++)
        if (!interval(e->kid[i], &l[i], &h[i])) return false;
    switch (e->op) {
    case EXPR_INPUT: *lo = INPUT_LO; *hi = INPUT_HI; break;
    case EXPR_CONST: *lo = *hi = e->value; break;
    case EXPR_SCALAR: *lo = SYNTH_EXPR_SCALAR_MIN; *hi = SYNTH_EXPR_SCALAR_MAX; break;
    case EXPR_SEL: *lo = fmin(l[1], l[2]); *hi = fmax(h[1], h[2]); break;
    case EXPR_ADD: *lo = l[0] + l[1]; *hi = h[0] + h[1]; break;
    case EXPR_SUB: *lo = l[0] - h[1]; *hi = h[0] - l[1]; break;
    case EXPR_MUL:
    case EXPR_FMA:
    case EXPR_DIV: {
        double c[4];
        if (e->op == EXPR_DIV) {
            if (l[1] <= 0 && h[1] >= 0) return false;
            c[0] = l[0] / l[1]; c[1] = l[0] / h[1]; c[2] = h[0] / l[1]; c[3] = h[0] / h[1];
        } else {
            c[0] = l[0] * l[1]; c[1] = l[0] * h[1]; c[2] = h[0] * l[1]; c[3] = h[0] * h[1];
        }
        *lo = fmin(fmin(c[0], c[1]), fmin(c[2], c[3]));
        *hi = fmax(fmax(c[0], c[1]), fmax(c[2], c[3]));
        if (e->op == EXPR_FMA) { *lo += l[2]; *hi += h[2]; }
        break;
    }
    case EXPR_MIN: *lo = fmin(l[0], l[1]); *hi = fmin(h[0], h[1]); break;
    case EXPR_MAX: *lo = fmax(l[0], l[1]); *hi = fmax(h[0], h[1]); break;
    case EXPR_ABS:
        if (l[0] >= 0) { *lo = l[0]; *hi = h[0]; }
        else if (h[0] <= 0) { *lo = -h[0]; *hi = -l[0]; }
        else { *lo = 0; *hi = fmax(-l[0], h[0]); }
        break;
    case EXPR_EXP:
        if (h[0] > 40) return false;
        *lo = exp(l[0]); *hi = exp(h[0]);
        break;
    case EXPR_LOG:
        if (l[0] <= 1e-6) return false;
        *lo = log(l[0]); *hi = log(h[0]);
        break;
    case EXPR_SQRT:
        if (l[0] < 0) return false;
        *lo = sqrt(l[0]); *hi = sqrt(h[0]);
        break;
    case EXPR_RSQRT:
        if (l[0] <= 1e-6) return false;
        *lo = 1 / sqrt(h[0]); *hi = 1 / sqrt(l[0]);
        break;
    case EXPR_TANH: *lo = tanh(l[0]); *hi = tanh(h[0]); break;
    case EXPR_SIGMOID: *lo = 1 / (1 + exp(-l[0])); *hi = 1 / (1 + exp(-h[0])); break;
    case EXPR_RELU: *lo = fmax(l[0], 0); *hi = fmax(h[0], 0); break;
    default: return false;
    }
    return isfinite(*lo) && isfinite(*hi) && fabs(*lo) <= BOUND_LIMIT && fabs(*hi) <= BOUND_LIMIT;
}

typedef struct {
    rng_t rng;
    rng_t sq;           /* squares of compound terms: a stream of its own, so every other draw stays as it was */
    int ninputs;
    unsigned weights[EXPR__COUNT];
    unsigned wsum;
    double const_prob, leaf_prob;
    int nscalars;       /* scalar parameters this tree may use (0..2) */
} gen_t;

/* Constants: multiples of 1/4 in [-4, 4] (exact in f32, short in decimal). */
static float rand_const(gen_t *g) { return (float)(rng_int(&g->rng, 33) - 16) / 4.0f; }
static float rand_pos_const(gen_t *g) {
    static const float c[] = {1.0f, 0.5f, 2.0f, 0.25f, 1.5f};
    return c[rng_int(&g->rng, (int)(sizeof c / sizeof c[0]))];
}
static float rand_divisor(gen_t *g) {
    static const float c[] = {2.0f, 4.0f, 0.5f, -2.0f, 3.0f, 8.0f, -0.5f, 1.5f};
    return c[rng_int(&g->rng, (int)(sizeof c / sizeof c[0]))];
}

/* Scalars take the place of constants: only where a constant may stand (an
 * operand of a binary/ternary operator next to a non-constant one), never
 * inside a safety wrapper. */
static expr_tree *gen_leaf(gen_t *g, bool allow_const) {
    if (allow_const && rng_unit(&g->rng) < g->const_prob) return expr_leaf_const(rand_const(g));
    if (allow_const && g->nscalars && rng_unit(&g->rng) < 0.5) return expr_leaf_scalar(rng_int(&g->rng, g->nscalars));
    return expr_leaf_input(rng_int(&g->rng, g->ninputs));
}
static bool is_leaf(const expr_tree *e) { return e->nkids == 0; }
static bool const_like(const expr_tree *e) { return e->op == EXPR_CONST || e->op == EXPR_SCALAR; }

static expr_tree *gen(gen_t *g, int depth, bool allow_const, bool is_root);

/* abs(x) + c */
static expr_tree *wrap_pos(gen_t *g, expr_tree *x) {
    return node2(EXPR_ADD, node1(EXPR_ABS, x), expr_leaf_const(rand_pos_const(g)));
}

/* A select whose branch taken by the f32 kernel and by the double reference
 * is the same (see the header): three shapes. */
static void gen_sel(gen_t *g, expr_tree *e, int depth) {
    double u = rng_unit(&g->rng);
    if (u < 0.4) {
        /* continuous at the switch: t > 0 ? t : s*t (or the mirror), s a scalar or a constant */
        expr_tree *t = gen(g, depth - 1, false, false);
        expr_tree *s = g->nscalars && rng_unit(&g->rng) < 0.7 ? expr_leaf_scalar(rng_int(&g->rng, g->nscalars))
                                                               : expr_leaf_const(rand_const(g));
        if (s->op == EXPR_CONST && (s->value == 0.0f || s->value == 1.0f)) s->value = 0.25f;
        expr_tree *st = node2(EXPR_MUL, s, expr_clone(t));
        bool mirror = rng_unit(&g->rng) < 0.25;
        e->kid[0] = t;
        e->kid[1] = mirror ? st : expr_clone(t);
        e->kid[2] = mirror ? expr_clone(t) : st;
        return;
    }
    if (u < 0.7) {
        /* a comparison of two leaves: p - q > 0, i.e. p > q */
        expr_tree *p = expr_leaf_input(rng_int(&g->rng, g->ninputs)), *q;
        double v = rng_unit(&g->rng);
        if (g->ninputs > 1 && v < 0.5) q = expr_leaf_input((p->input + 1 + rng_int(&g->rng, g->ninputs - 1)) % g->ninputs);
        else if (g->nscalars && v < 0.8) q = expr_leaf_scalar(rng_int(&g->rng, g->nscalars));
        else {
            q = expr_leaf_const(rand_const(g));
            if (q->value == 0.0f) q->value = 0.5f;
        }
        e->kid[0] = node2(EXPR_SUB, p, q);
    } else {
        /* an input's sign */
        e->kid[0] = expr_leaf_input(rng_int(&g->rng, g->ninputs));
    }
    e->kid[1] = gen(g, depth - 1, true, false);
    e->kid[2] = gen(g, depth - 1, true, false);
    expr_tree *x = e->kid[1], *y = e->kid[2];
    if (is_leaf(x) && is_leaf(y) && x->op == y->op && x->input == y->input && x->value == y->value) {
        /* no (sel c x x) */
        expr_free(y);
        e->kid[2] = expr_leaf_const(x->op == EXPR_CONST && x->value == 0.0f ? 1.0f : 0.0f);
    }
}

static expr_tree *gen_op(gen_t *g, expr_op op, int depth) {
    expr_tree *e = expr_new(op);
    switch (op) {
    case EXPR_SEL:
        gen_sel(g, e, depth);
        break;
    case EXPR_LOG:
    case EXPR_SQRT:
    case EXPR_RSQRT:
        e->kid[0] = wrap_pos(g, gen(g, depth - 1, false, false));
        break;
    case EXPR_EXP:
        e->kid[0] = node2(EXPR_MIN, gen(g, depth - 1, false, false), expr_leaf_const(10.0f));
        break;
    case EXPR_DIV:
        if (rng_unit(&g->rng) < 0.3) {
            e->kid[0] = gen(g, depth - 1, false, false);
            e->kid[1] = expr_leaf_const(rand_divisor(g));
        } else {
            e->kid[0] = gen(g, depth - 1, true, false);
            e->kid[1] = node2(EXPR_ADD, node1(EXPR_ABS, gen(g, depth - 1, false, false)),
                              expr_leaf_const(1.0f));
        }
        break;
    default: {
        /* at most arity-1 constant operands; unary operators never get a constant */
        bool all_const = true;
        for (int i = 0; i < e->nkids; i++) {
            bool last = i == e->nkids - 1;
            e->kid[i] = gen(g, depth - 1, e->nkids > 1 && !(last && all_const), false);
            if (!const_like(e->kid[i])) all_const = false;
        }
        /* no (max c c) / (sub b b): a second leaf naming the same input names another */
        if (e->nkids == 2 && g->ninputs > 1 && e->kid[0]->op == EXPR_INPUT &&
            e->kid[1]->op == EXPR_INPUT && e->kid[0]->input == e->kid[1]->input && op != EXPR_MUL)
            e->kid[1]->input = (e->kid[0]->input + 1 + rng_int(&g->rng, g->ninputs - 1)) % g->ninputs;
        /* a share of the products of a compound term square it, (a - b)*(a - b): people write (a - b)^2 */
        if (op == EXPR_MUL && !is_leaf(e->kid[0]) && rng_unit(&g->sq) < 0.2) {
            expr_free(e->kid[1]);
            e->kid[1] = expr_clone(e->kid[0]);
        }
        break;
    }
    }
    return e;
}

static expr_tree *gen(gen_t *g, int depth, bool allow_const, bool is_root) {
    if (depth <= 1 || (!is_root && rng_unit(&g->rng) < g->leaf_prob)) return gen_leaf(g, allow_const);
    for (int attempt = 0; attempt < 6; attempt++) {
        unsigned r = (unsigned)(rng_next(&g->rng) % g->wsum);
        expr_op op = EXPR_ADD;
        for (int k = EXPR_ADD; k < EXPR__COUNT; k++) {
            if (r < g->weights[k]) { op = (expr_op)k; break; }
            r -= g->weights[k];
        }
        expr_tree *e = gen_op(g, op, depth);
        double lo, hi;
        if (interval(e, &lo, &hi)) return e;
        expr_free(e);
    }
    /* fall back to a bounded operator over a leaf */
    return node1(EXPR_TANH, gen_leaf(g, false));
}

/* Reassign duplicated input leaves to inputs that do not occur yet; not
 * below a select (its condition must stay a leaf, a leaf difference or a copy
 * of a branch). */
static void collect_inputs(expr_tree *e, expr_tree **leaves, int *n, int cap) {
    if (e->op == EXPR_INPUT && *n < cap) leaves[(*n)++] = e;
    if (e->op == EXPR_SEL) return;
    for (int i = 0; i < e->nkids; i++) collect_inputs(e->kid[i], leaves, n, cap);
}

/* The held-out suite's leaky_relu, y = x > 0 ? x : alpha*x, as a whole tree. */
static bool is_heldout_shape(const expr_tree *e) {
    if (e->op != EXPR_SEL || e->kid[0]->op != EXPR_INPUT) return false;
    int x = e->kid[0]->input;
    const expr_tree *t = e->kid[1], *m = e->kid[2];
    if (t->op != EXPR_INPUT || t->input != x || m->op != EXPR_MUL) return false;
    const expr_tree *p = m->kid[0], *q = m->kid[1];
    return (p->op == EXPR_SCALAR && q->op == EXPR_INPUT && q->input == x) ||
           (q->op == EXPR_SCALAR && p->op == EXPR_INPUT && p->input == x);
}

/* Make sure scalars 0..g->nscalars-1 all occur: a missing one scales the tree
 * (s*tree) when the bound allows, else is added (tree + s). */
static expr_tree *add_missing_scalars(gen_t *g, expr_tree *e) {
    for (int k = 0; k < g->nscalars; k++) {
        if (expr_scalars_used(e) & (1u << k)) continue;
        expr_tree *m = node2(EXPR_MUL, expr_leaf_scalar(k), e);
        double lo, hi;
        if (rng_unit(&g->rng) < 0.5 && interval(m, &lo, &hi)) { e = m; continue; }
        m->kid[1] = NULL;
        m->nkids = 1;
        expr_free(m);
        e = node2(EXPR_ADD, e, expr_leaf_scalar(k));
    }
    return e;
}

expr_tree *synth_expr_random(uint64_t seed, int ninputs, int max_depth, const synth_expr_opts *o) {
    if (ninputs < 1 || ninputs > EXPR_MAX_INPUTS || max_depth < 1 || max_depth > 12) return NULL;
    gen_t g;
    memset(&g, 0, sizeof g);
    g.rng.s = seed ^ 0x5EED0E1Bull;
    g.sq.s = seed ^ 0x5351554152450000ull;
    g.ninputs = ninputs;
    g.const_prob = o && o->const_prob > 0 ? o->const_prob : 0.25;
    g.leaf_prob = o && o->leaf_prob > 0 ? o->leaf_prob : 0.3;
    for (int k = EXPR_ADD; k < EXPR__COUNT; k++) {
        g.weights[k] = o ? o->op_weight[k] : 0;
        g.wsum += g.weights[k];
    }
    if (!g.wsum)
        for (int k = EXPR_ADD; k < EXPR__COUNT; k++) g.wsum += (g.weights[k] = WEIGHT[k]);
    /* scalar parameters: a share of the trees takes one or two */
    double scalar_prob = o && o->scalar_prob != 0 ? o->scalar_prob : 0.35;
    int max_scalars = o && o->max_scalars >= 1 && o->max_scalars <= EXPR_MAX_SCALARS ? o->max_scalars
                                                                                        : EXPR_MAX_SCALARS;
    if (rng_unit(&g.rng) < scalar_prob) g.nscalars = max_scalars > 1 && rng_unit(&g.rng) < 0.35 ? 2 : 1;
    expr_tree *e = NULL;
    unsigned all = (1u << ninputs) - 1;
    for (int attempt = 0; attempt < 8; attempt++) {
        expr_free(e);
        e = gen(&g, max_depth < 2 ? 2 : max_depth, false, true);
        if (e->nkids == 0) e = node1(EXPR_RELU, e);   /* only when max_depth forces it */
        if ((expr_inputs_used(e) & all) == all && !is_heldout_shape(e)) return add_missing_scalars(&g, e);
    }
    /* Still missing inputs: reuse duplicated input leaves, else add the input
     * at the root (inputs share one interval, so bounds are unchanged or +10). */
    expr_tree *leaves[256];
    int nl = 0;
    collect_inputs(e, leaves, &nl, 256);
    for (int m = 0; m < ninputs; m++) {
        if (expr_inputs_used(e) & (1u << m)) continue;
        bool done = false;
        for (int i = 0; i < nl && !done; i++) {
            int cnt = 0;
            for (int j = 0; j < nl; j++) cnt += leaves[j]->input == leaves[i]->input;
            if (cnt > 1) { leaves[i]->input = m; done = true; }
        }
        if (!done) e = node2(EXPR_ADD, e, expr_leaf_input(m));
    }
    e = add_missing_scalars(&g, e);
    if (is_heldout_shape(e)) e = node2(EXPR_ADD, e, expr_leaf_const(rand_pos_const(&g)));
    return e;
}

/* ---- PTX template ---------------------------------------------------------------------- */
typedef struct {
    pg_buf *b;
    int nf;         /* last %f register used */
    int np;         /* last %p register used */
    int sreg[EXPR_MAX_SCALARS];   /* %f registers holding the scalar parameters */
} pemit;

static const double LOG2E = 1.4426950408889634074, LN2 = 0.69314718055994530942;

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static void imm(char *t, size_t n, float f) { snprintf(t, n, "0f%08X", (unsigned)f32_bits(f)); }

/* Emit code for e; the operand text (register or immediate) goes into t. */
static void emit_tree(pemit *p, const expr_tree *e, const int *inreg, char *t, size_t tn);

static int emit_reg(pemit *p, const expr_tree *e, const int *inreg) {
    char t[32];
    emit_tree(p, e, inreg, t, sizeof t);
    if (t[0] == '%') return atoi(t + 2);
    int r = ++p->nf;
    pg_buf_printf(p->b, "\tmov.f32 %%f%d, %s;\n", r, t);
    return r;
}

/* Does the branch x use the condition's value: x == c, or x == s*c / c*s? */
static bool uses_cond(const expr_tree *x, const expr_tree *c) {
    return expr_equal(x, c) ||
           (x->op == EXPR_MUL && (expr_equal(x->kid[0], c) || expr_equal(x->kid[1], c)));
}

/* sel(c, x, y): setp.gt.f32 + selp.f32.  A condition p - q compares p > q
 * directly (the same predicate: without flush-to-zero, p - q > 0 exactly when
 * p > q) unless a branch needs its value; t > 0 ? t : s*t computes t once. */
static void emit_sel(pemit *p, const expr_tree *e, const int *inreg, char *t, size_t tn) {
    pg_buf *b = p->b;
    const expr_tree *c = e->kid[0];
    char k[3][32];
    int pr = ++p->np;
    bool need_value = uses_cond(e->kid[1], c) || uses_cond(e->kid[2], c);
    if (c->op == EXPR_SUB && !need_value) {
        char q[32];
        int pa = emit_reg(p, c->kid[0], inreg);
        emit_tree(p, c->kid[1], inreg, q, sizeof q);
        pg_buf_printf(b, "\tsetp.gt.f32 %%p%d, %%f%d, %s;\n", pr, pa, q);
        k[0][0] = 0;
    } else {
        snprintf(k[0], sizeof k[0], "%%f%d", emit_reg(p, c, inreg));
        pg_buf_printf(b, "\tsetp.gt.f32 %%p%d, %s, 0f00000000;\n", pr, k[0]);
    }
    for (int i = 1; i <= 2; i++) {
        const expr_tree *x = e->kid[i];
        if (k[0][0] && expr_equal(x, c)) {
            memcpy(k[i], k[0], sizeof k[i]);
        } else if (k[0][0] && x->op == EXPR_MUL && (expr_equal(x->kid[0], c) || expr_equal(x->kid[1], c))) {
            bool first = expr_equal(x->kid[0], c);
            char o[32];
            emit_tree(p, x->kid[first ? 1 : 0], inreg, o, sizeof o);
            int r = ++p->nf;
            pg_buf_printf(b, "\tmul.rn.f32 %%f%d, %s, %s;\n", r, first ? k[0] : o, first ? o : k[0]);
            snprintf(k[i], sizeof k[i], "%%f%d", r);
        } else {
            emit_tree(p, x, inreg, k[i], sizeof k[i]);
        }
    }
    int r = ++p->nf;
    pg_buf_printf(b, "\tselp.f32 %%f%d, %s, %s, %%p%d;\n", r, k[1], k[2], pr);
    snprintf(t, tn, "%%f%d", r);
}

static void emit_tree(pemit *p, const expr_tree *e, const int *inreg, char *t, size_t tn) {
    pg_buf *b = p->b;
    if (e->op == EXPR_INPUT) { snprintf(t, tn, "%%f%d", inreg[e->input]); return; }
    if (e->op == EXPR_CONST) { imm(t, tn, e->value); return; }
    if (e->op == EXPR_SCALAR) { snprintf(t, tn, "%%f%d", p->sreg[e->input]); return; }
    if (e->op == EXPR_SEL) { emit_sel(p, e, inreg, t, tn); return; }
    char k[3][32];
    bool any_reg = false;
    for (int i = 0; i < e->nkids; i++) {
        if (e->nkids == 1) snprintf(k[i], sizeof k[i], "%%f%d", emit_reg(p, e->kid[i], inreg));
        else emit_tree(p, e->kid[i], inreg, k[i], sizeof k[i]);
        if (k[i][0] == '%') any_reg = true;
    }
    if (!any_reg) {   /* every operand is a constant: the first goes to a register */
        int r0 = ++p->nf;
        pg_buf_printf(b, "\tmov.f32 %%f%d, %s;\n", r0, k[0]);
        snprintf(k[0], sizeof k[0], "%%f%d", r0);
    }
    char c1[16], c2[16];
    int r = ++p->nf;
    switch (e->op) {
    case EXPR_ADD: pg_buf_printf(b, "\tadd.rn.f32 %%f%d, %s, %s;\n", r, k[0], k[1]); break;
    case EXPR_SUB: pg_buf_printf(b, "\tsub.rn.f32 %%f%d, %s, %s;\n", r, k[0], k[1]); break;
    case EXPR_MUL: pg_buf_printf(b, "\tmul.rn.f32 %%f%d, %s, %s;\n", r, k[0], k[1]); break;
    case EXPR_DIV: pg_buf_printf(b, "\tdiv.rn.f32 %%f%d, %s, %s;\n", r, k[0], k[1]); break;
    case EXPR_FMA: pg_buf_printf(b, "\tfma.rn.f32 %%f%d, %s, %s, %s;\n", r, k[0], k[1], k[2]); break;
    case EXPR_MIN: pg_buf_printf(b, "\tmin.f32 %%f%d, %s, %s;\n", r, k[0], k[1]); break;
    case EXPR_MAX: pg_buf_printf(b, "\tmax.f32 %%f%d, %s, %s;\n", r, k[0], k[1]); break;
    case EXPR_ABS: pg_buf_printf(b, "\tabs.f32 %%f%d, %s;\n", r, k[0]); break;
    case EXPR_RELU: pg_buf_printf(b, "\tmax.f32 %%f%d, %s, 0f00000000;\n", r, k[0]); break;
    case EXPR_SQRT: pg_buf_printf(b, "\tsqrt.rn.f32 %%f%d, %s;\n", r, k[0]); break;
    case EXPR_RSQRT: pg_buf_printf(b, "\trsqrt.approx.f32 %%f%d, %s;\n", r, k[0]); break;
    case EXPR_EXP:   /* e^x = 2^(x*log2(e)) */
        imm(c1, sizeof c1, (float)LOG2E);
        pg_buf_printf(b, "\tmul.rn.f32 %%f%d, %s, %s;\n", r, k[0], c1);
        pg_buf_printf(b, "\tex2.approx.f32 %%f%d, %%f%d;\n", r + 1, r);
        r = ++p->nf;
        break;
    case EXPR_LOG:   /* ln x = log2(x)*ln(2) */
        imm(c1, sizeof c1, (float)LN2);
        pg_buf_printf(b, "\tlg2.approx.f32 %%f%d, %s;\n", r, k[0]);
        pg_buf_printf(b, "\tmul.rn.f32 %%f%d, %%f%d, %s;\n", r + 1, r, c1);
        r = ++p->nf;
        break;
    case EXPR_TANH:  /* tanh x = 1 - 2/(e^(2x)+1); saturates to ±1 */
        imm(c1, sizeof c1, (float)(2.0 * LOG2E));
        imm(c2, sizeof c2, -2.0f);
        pg_buf_printf(b, "\tmul.rn.f32 %%f%d, %s, %s;\n", r, k[0], c1);
        pg_buf_printf(b, "\tex2.approx.f32 %%f%d, %%f%d;\n", r + 1, r);
        pg_buf_printf(b, "\tadd.rn.f32 %%f%d, %%f%d, 0f3F800000;\n", r + 2, r + 1);
        pg_buf_printf(b, "\trcp.approx.f32 %%f%d, %%f%d;\n", r + 3, r + 2);
        pg_buf_printf(b, "\tfma.rn.f32 %%f%d, %%f%d, %s, 0f3F800000;\n", r + 4, r + 3, c2);
        p->nf += 4;
        r = p->nf;
        break;
    case EXPR_SIGMOID:   /* 1/(1 + 2^(-x*log2(e))) */
        imm(c1, sizeof c1, (float)-LOG2E);
        pg_buf_printf(b, "\tmul.rn.f32 %%f%d, %s, %s;\n", r, k[0], c1);
        pg_buf_printf(b, "\tex2.approx.f32 %%f%d, %%f%d;\n", r + 1, r);
        pg_buf_printf(b, "\tadd.rn.f32 %%f%d, %%f%d, 0f3F800000;\n", r + 2, r + 1);
        pg_buf_printf(b, "\trcp.approx.f32 %%f%d, %%f%d;\n", r + 3, r + 2);
        p->nf += 3;
        r = p->nf;
        break;
    default: break;
    }
    snprintf(t, tn, "%%f%d", r);
}

static int count_op(const expr_tree *e, expr_op op) {
    int n = e->op == op;
    for (int i = 0; i < e->nkids; i++) n += count_op(e->kid[i], op);
    return n;
}

static bool uses_op(const expr_tree *e, expr_op op) {
    if (e->op == op) return true;
    for (int i = 0; i < e->nkids; i++)
        if (uses_op(e->kid[i], op)) return true;
    return false;
}

static void emit_ptx(const expr_tree *e, const char *name, int ninputs, int block, int per_thread, pg_buf *out) {
    pg_buf body = {0};
    pemit p = {&body, 0, 0, {0}};
    pg_buf text = {0};
    expr_to_text(e, &text);
    const int K = ninputs, S = expr_nscalars(e);
    /* %rd1..K inputs, %rd(K+1) out (params); %rd(K+2)..(2K+2) global; %rd(2K+3) offset; %rd(2K+4).. addresses */
    int rg = K + 2, roff = 2 * K + 3, ra = 2 * K + 4, nrd = 3 * K + 5;
    for (int i = 0; i < K; i++) pg_buf_printf(&body, "\tld.param.u64 %%rd%d, [%c];\n", i + 1, INPUT_NAMES[i]);
    pg_buf_printf(&body, "\tld.param.u64 %%rd%d, [out];\n", K + 1);
    for (int s = 0; s < S; s++) {
        p.sreg[s] = ++p.nf;
        pg_buf_printf(&body, "\tld.param.f32 %%f%d, [%s];\n", p.sreg[s], expr_scalar_name(s));
    }
    pg_buf_puts(&body, "\tld.param.u32 %r1, [n];\n\n");
    pg_buf_puts(&body, "\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n");
    int nr, np;
    const char *ireg;
    if (per_thread == 1) {
        pg_buf_puts(&body, "\tmad.lo.u32 %r5, %r2, %r3, %r4;          // i = global thread index\n");
        pg_buf_puts(&body, "\tsetp.ge.u32 %p1, %r5, %r1;\n\t@%p1 bra DONE;\n\n");
        ireg = "%r5";
        nr = 6;
        np = 2;
    } else {
        pg_buf_puts(&body, "\tmad.lo.u32 %r5, %r2, %r3, %r4;\n");
        pg_buf_puts(&body, "\tshl.b32 %r6, %r5, 2;                    // i0 = 4 * global thread index\n");
        pg_buf_puts(&body, "\tsetp.ge.u32 %p1, %r6, %r1;\n\t@%p1 bra DONE;\n");
        pg_buf_puts(&body, "\tsub.u32 %r7, %r1, %r6;                  // elements left from i0\n\n");
        ireg = "%r6";
        nr = 8;
        np = 4;
    }
    p.np = np - 1;   /* selects take predicates from here on */
    for (int i = 0; i <= K; i++) pg_buf_printf(&body, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", rg + i, i + 1);
    pg_buf_printf(&body, "\tmul.wide.u32 %%rd%d, %s, 4;\n", roff, ireg);
    for (int i = 0; i <= K; i++)
        pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;               // &%s[i]\n", ra + i, rg + i, roff,
                      i < K ? (char[]){INPUT_NAMES[i], 0} : "out");
    pg_buf_putc(&body, '\n');
    int inreg[EXPR_MAX_INPUTS];
    if (per_thread == 1) {
        for (int i = 0; i < K; i++) {
            inreg[i] = ++p.nf;
            pg_buf_printf(&body, "\tld.global.nc.f32 %%f%d, [%%rd%d];\n", inreg[i], ra + i);
        }
        pg_buf_printf(&body, "\t// out = %s\n", text.data);
        int res = emit_reg(&p, e, inreg);
        pg_buf_printf(&body, "\tst.global.f32 [%%rd%d], %%f%d;\n", ra + K, res);
    } else {
        pg_buf_puts(&body, "\tsetp.lt.u32 %p2, %r7, 4;\n\t@%p2 bra TAIL;                        // fewer than 4 left\n");
        int lanes[EXPR_MAX_INPUTS][4];
        for (int i = 0; i < K; i++) {
            for (int l = 0; l < 4; l++) lanes[i][l] = ++p.nf;
            pg_buf_printf(&body, "\tld.global.nc.v4.f32 {%%f%d, %%f%d, %%f%d, %%f%d}, [%%rd%d];\n", lanes[i][0],
                          lanes[i][1], lanes[i][2], lanes[i][3], ra + i);
        }
        int res[4];
        for (int l = 0; l < 4; l++) {
            for (int i = 0; i < K; i++) inreg[i] = lanes[i][l];
            pg_buf_printf(&body, "\t// lane %d: out = %s\n", l, text.data);
            res[l] = emit_reg(&p, e, inreg);
        }
        pg_buf_printf(&body, "\tst.global.v4.f32 [%%rd%d], {%%f%d, %%f%d, %%f%d, %%f%d};\n\tret;\n", ra + K, res[0],
                      res[1], res[2], res[3]);
        pg_buf_puts(&body, "TAIL:                                       // 1..3 elements, one at a time\n");
        for (int i = 0; i < K; i++) {
            inreg[i] = ++p.nf;
            pg_buf_printf(&body, "\tld.global.nc.f32 %%f%d, [%%rd%d];\n", inreg[i], ra + i);
        }
        int r1 = emit_reg(&p, e, inreg);
        pg_buf_printf(&body, "\tst.global.f32 [%%rd%d], %%f%d;\n", ra + K, r1);
        for (int i = 0; i <= K; i++) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, 4;\n", ra + i, ra + i);
        pg_buf_puts(&body, "\tsub.u32 %r7, %r7, 1;\n\tsetp.ne.u32 %p3, %r7, 0;\n\t@%p3 bra TAIL;\n");
    }
    pg_buf_puts(&body, "DONE:\n\tret;\n}\n");

    pg_buf_puts(out, "// GENERATED_BY: ptxgen synth/expr\n");
    pg_buf_printf(out, "// %s: out[i] = %s for i < n (f32), %s.\n", name, text.data,
                  per_thread == 1 ? "one element per thread" : "4 elements per thread (v4 loads/stores, scalar tail)");
    if (S) pg_buf_printf(out, "// %s%s%s: f32 scalar parameter%s, passed by value.\n", expr_scalar_name(0), S > 1 ? ", " : "",
                         S > 1 ? expr_scalar_name(1) : "", S > 1 ? "s" : "");
    if (uses_op(e, EXPR_EXP) || uses_op(e, EXPR_LOG) || uses_op(e, EXPR_TANH) ||
        uses_op(e, EXPR_SIGMOID) || uses_op(e, EXPR_RSQRT))
        pg_buf_puts(out, "// exp/log/tanh/sigmoid/rsqrt use ex2.approx, lg2.approx, rcp.approx and rsqrt.approx.\n");
    pg_buf_puts(out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    pg_buf_printf(out, ".visible .entry %s(\n", name);
    for (int i = 0; i < K; i++) pg_buf_printf(out, "\t.param .u64 %c,\n", INPUT_NAMES[i]);
    pg_buf_puts(out, "\t.param .u64 out,\n");
    for (int s = 0; s < S; s++) pg_buf_printf(out, "\t.param .f32 %s,\n", expr_scalar_name(s));
    pg_buf_puts(out, "\t.param .u32 n\n)\n");
    pg_buf_printf(out, ".maxntid %d, 1, 1\n{\n", block);
    pg_buf_printf(out, "\t.reg .pred %%p<%d>;\n\t.reg .b32 %%r<%d>;\n\t.reg .f32 %%f<%d>;\n\t.reg .b64 %%rd<%d>;\n\n",
                  p.np + 1, nr, p.nf + 1, nrd);
    pg_buf_puts(out, body.data);
    pg_buf_free(&body);
    pg_buf_free(&text);
}

/* ---- CUDA C ------------------------------------------------------------------------- */
static void emit_cu(const expr_tree *e, const char *name, int ninputs, int per_thread, pg_buf *out) {
    pg_buf cx = {0}, text = {0};
    expr_to_c(e, &cx);
    expr_to_text(e, &text);
    const int S = expr_nscalars(e);
    char sargs[64] = "";   /* ", alpha, beta" */
    for (int s = 0; s < S; s++)
        snprintf(sargs + strlen(sargs), sizeof sargs - strlen(sargs), ", %s", expr_scalar_name(s));
    pg_buf_printf(out, "// %s: out[i] = %s for i < n (f32), %s.\n", name, text.data,
                  per_thread == 1 ? "one element per thread" : "4 elements per thread");
    pg_buf_printf(out, "__device__ __forceinline__ float %s_f(", name);
    for (int i = 0; i < ninputs; i++) pg_buf_printf(out, "%sfloat %c", i ? ", " : "", INPUT_NAMES[i]);
    for (int s = 0; s < S; s++) pg_buf_printf(out, ", float %s", expr_scalar_name(s));
    pg_buf_printf(out, ")\n{\n    return %s;\n}\n\n", cx.data);
    pg_buf_printf(out, "extern \"C\" __global__ void %s(", name);
    for (int i = 0; i < ninputs; i++) pg_buf_printf(out, "const float* __restrict__ %c, ", INPUT_NAMES[i]);
    pg_buf_puts(out, "float* __restrict__ out,\n    ");
    for (int s = 0; s < S; s++) pg_buf_printf(out, "float %s, ", expr_scalar_name(s));
    pg_buf_puts(out, "unsigned int n)\n{\n");
    if (per_thread == 1) {
        pg_buf_puts(out, "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n");
        pg_buf_printf(out, "    if (i < n) out[i] = %s_f(", name);
        for (int i = 0; i < ninputs; i++) pg_buf_printf(out, "%s%c[i]", i ? ", " : "", INPUT_NAMES[i]);
        pg_buf_printf(out, "%s);\n}\n", sargs);
    } else {
        pg_buf_puts(out, "    unsigned int i0 = 4u * (blockIdx.x * blockDim.x + threadIdx.x);\n");
        pg_buf_puts(out, "    if (i0 >= n) return;\n    if (n - i0 >= 4) {\n");
        for (int i = 0; i < ninputs; i++)
            pg_buf_printf(out, "        float4 v%c = *reinterpret_cast<const float4*>(%c + i0);\n", INPUT_NAMES[i],
                          INPUT_NAMES[i]);
        pg_buf_puts(out, "        float4 r;\n");
        static const char lane[] = "xyzw";
        for (int l = 0; l < 4; l++) {
            pg_buf_printf(out, "        r.%c = %s_f(", lane[l], name);
            for (int i = 0; i < ninputs; i++) pg_buf_printf(out, "%sv%c.%c", i ? ", " : "", INPUT_NAMES[i], lane[l]);
            pg_buf_printf(out, "%s);\n", sargs);
        }
        pg_buf_puts(out, "        *reinterpret_cast<float4*>(out + i0) = r;\n    } else {\n");
        pg_buf_printf(out, "        for (unsigned int i = i0; i < n; i++) out[i] = %s_f(", name);
        for (int i = 0; i < ninputs; i++) pg_buf_printf(out, "%s%c[i]", i ? ", " : "", INPUT_NAMES[i]);
        pg_buf_printf(out, "%s);\n    }\n}\n", sargs);
    }
    pg_buf_free(&cx);
    pg_buf_free(&text);
}

/* ---- task.json ---------------------------------------------------------------------- */
/* The corpus layout: one top-level field per line; "descriptions" one entry
 * per line, arrays of objects ("params") one element per line. */
static void put_json(pg_buf *out, const json_t *v) {
    char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    if (!t) pg_oom();
    pg_buf_puts(out, t);
    free(t);
}
void synth_task_json_write(json_t *root, pg_buf *out) {
    const char *key;
    json_t *v;
    size_t left = json_object_size(root);
    pg_buf_puts(out, "{\n");
    json_object_foreach(root, key, v) {
        json_t *k = json_string(key);
        pg_buf_puts(out, "  ");
        put_json(out, k);
        json_decref(k);
        pg_buf_puts(out, ": ");
        if (!strcmp(key, "descriptions") && json_is_object(v)) {
            const char *k2;
            json_t *v2;
            size_t left2 = json_object_size(v);
            pg_buf_puts(out, "{\n");
            json_object_foreach(v, k2, v2) {
                json_t *kk = json_string(k2);
                pg_buf_puts(out, "    ");
                put_json(out, kk);
                json_decref(kk);
                pg_buf_puts(out, ": ");
                put_json(out, v2);
                pg_buf_puts(out, --left2 ? ",\n" : "\n");
            }
            pg_buf_puts(out, "  }");
        } else if (!strcmp(key, "params") && json_is_array(v)) {
            pg_buf_puts(out, "[\n");
            for (size_t i = 0; i < json_array_size(v); i++) {
                pg_buf_puts(out, "    ");
                put_json(out, json_array_get(v, i));
                pg_buf_puts(out, i + 1 < json_array_size(v) ? ",\n" : "\n");
            }
            pg_buf_puts(out, "  ]");
        } else {
            put_json(out, v);
        }
        pg_buf_puts(out, --left ? ",\n" : "\n");
    }
    pg_buf_puts(out, "}\n");
}

/* The shortest decimal that reads back as the same f32 ("0.01", not "0.00999999978"). */
static void f32_short(float v, char *t, size_t n) {
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(t, n, "%.*g", digits, (double)v);
        if (strtof(t, NULL) == v) return;
    }
}

/* Every select of the tree in words, pre-order: en gets "X where C > 0,
 * otherwise Y" clauses joined by "; ", zh "当 C > 0 时取 X，否则取 Y" joined by
 * "；".  A condition p - q reads "p > q".  The parts are in the formula's
 * notation (synth_expr_notation_text). */
static void sel_words(const expr_tree *e, bool human, unsigned fl, pg_buf *en, pg_buf *zh) {
    if (e->op == EXPR_SEL) {
        pg_buf c = {0}, x = {0}, y = {0};
        const expr_tree *k = e->kid[0];
        fl &= ~(unsigned)EXPR_MATH_SQUARED;   /* parts of a formula */
        if (k->op == EXPR_SUB) {
            synth_expr_notation_text(k->kid[0], human, fl, &c);
            pg_buf_puts(&c, " > ");
            synth_expr_notation_text(k->kid[1], human, fl, &c);
        } else {
            synth_expr_notation_text(k, human, fl, &c);
            pg_buf_puts(&c, " > 0");
        }
        synth_expr_notation_text(e->kid[1], human, fl, &x);
        synth_expr_notation_text(e->kid[2], human, fl, &y);
        pg_buf_printf(en, "%s%s where %s, otherwise %s", en->len ? "; " : "", x.data, c.data, y.data);
        pg_buf_printf(zh, "%s当 %s 时取 %s，否则取 %s", zh->len ? "；" : "", c.data, x.data, y.data);
        pg_buf_free(&c);
        pg_buf_free(&x);
        pg_buf_free(&y);
    }
    for (int i = 0; i < e->nkids; i++) sel_words(e->kid[i], human, fl, en, zh);
}

/* The tree in plain words (describe.h's explanations), English or Chinese.
 * Exact without precedence rules: every operand that is not a leaf is put in
 * parentheses, except a one-argument function applied to another ("the
 * square root of the absolute value of a", "a 的绝对值的平方根").  idx:
 * inputs read "a[i]". */
static bool is_leaf_word(const expr_tree *e) { return e->nkids == 0; }
static bool is_unary_fn(const expr_tree *e) { return e->nkids == 1; }
/* roles: the inputs by position and some constants in words (synth_expr_recipe's), NULL: names */
typedef struct recipe_ctx recipe_ctx;
static void recipe_leaf(const expr_tree *e, const recipe_ctx *c, pg_buf *b);
static void words(const expr_tree *e, bool zh, bool idx, const recipe_ctx *roles, pg_buf *b);
static void words_sub(const expr_tree *e, bool zh, bool idx, const recipe_ctx *roles, bool chain_ok, pg_buf *b) {
    bool bare = is_leaf_word(e) || (chain_ok && is_unary_fn(e));
    if (!bare) pg_buf_puts(b, zh ? "（" : "(");
    words(e, zh, idx, roles, b);
    if (!bare) pg_buf_puts(b, zh ? "）" : ")");
}
static void words(const expr_tree *e, bool zh, bool idx, const recipe_ctx *roles, pg_buf *b) {
    static const char *UN_EN[EXPR__COUNT] = {
        [EXPR_ABS] = "the absolute value of ", [EXPR_EXP] = "e raised to the power ", [EXPR_LOG] = "the natural log of ",
        [EXPR_SQRT] = "the square root of ", [EXPR_RSQRT] = "one over the square root of ",
        [EXPR_TANH] = "the hyperbolic tangent of ", [EXPR_SIGMOID] = "the sigmoid of ", [EXPR_RELU] = "the ReLU of "};
    static const char *UN_ZH[EXPR__COUNT] = {
        [EXPR_ABS] = "的绝对值", [EXPR_LOG] = "的自然对数", [EXPR_SQRT] = "的平方根", [EXPR_RSQRT] = "的平方根的倒数",
        [EXPR_TANH] = "的双曲正切", [EXPR_SIGMOID] = " 的 sigmoid", [EXPR_RELU] = " 的 ReLU"};
    switch (e->op) {
    case EXPR_INPUT:
        if (roles) recipe_leaf(e, roles, b);
        else pg_buf_printf(b, idx ? "%c[i]" : "%c", INPUT_NAMES[e->input & 3]);
        return;
    case EXPR_CONST:
        if (roles) recipe_leaf(e, roles, b);
        else expr_put_const(b, e->value, false);
        return;
    case EXPR_SCALAR: pg_buf_puts(b, expr_scalar_name(e->input)); return;
    case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: {
        if (e->op == EXPR_MUL && expr_equal(e->kid[0], e->kid[1]) && is_leaf_word(e->kid[0])) {
            if (!zh) pg_buf_puts(b, "the square of ");
            words(e->kid[0], zh, idx, roles, b);
            if (zh) pg_buf_puts(b, " 的平方");
            return;
        }
        static const char *EN[] = {" plus ", " minus ", " times ", " divided by "}, *ZH[] = {" 加 ", " 减 ", " 乘 ", " 除以 "};
        int k = e->op - EXPR_ADD;
        words_sub(e->kid[0], zh, idx, roles, false, b);
        pg_buf_puts(b, zh ? ZH[k] : EN[k]);
        words_sub(e->kid[1], zh, idx, roles, false, b);
        return;
    }
    case EXPR_FMA:
        words_sub(e->kid[0], zh, idx, roles, false, b);
        pg_buf_puts(b, zh ? " 乘 " : " times ");
        words_sub(e->kid[1], zh, idx, roles, false, b);
        pg_buf_puts(b, zh ? " 再加 " : " plus ");
        words_sub(e->kid[2], zh, idx, roles, false, b);
        return;
    case EXPR_MIN: case EXPR_MAX:
        if (!zh) pg_buf_puts(b, e->op == EXPR_MIN ? "the smaller of " : "the larger of ");
        words_sub(e->kid[0], zh, idx, roles, false, b);
        pg_buf_puts(b, zh ? " 与 " : " and ");
        words_sub(e->kid[1], zh, idx, roles, false, b);
        if (zh) pg_buf_puts(b, e->op == EXPR_MIN ? " 中的较小值" : " 中的较大值");
        return;
    case EXPR_SEL: {
        const expr_tree *c = e->kid[0];
        if (zh) pg_buf_puts(b, "当 ");
        else { words_sub(e->kid[1], zh, idx, roles, false, b); pg_buf_puts(b, " if "); }
        if (c->op == EXPR_SUB) {
            words_sub(c->kid[0], zh, idx, roles, false, b);
            pg_buf_puts(b, zh ? " 大于 " : " is greater than ");
            words_sub(c->kid[1], zh, idx, roles, false, b);
        } else {
            words_sub(c, zh, idx, roles, false, b);
            pg_buf_puts(b, zh ? " 大于 0" : " is positive");
        }
        if (zh) {
            pg_buf_puts(b, " 时取 ");
            words_sub(e->kid[1], zh, idx, roles, false, b);
            pg_buf_puts(b, "，否则取 ");
        } else pg_buf_puts(b, ", otherwise ");
        words_sub(e->kid[2], zh, idx, roles, false, b);
        return;
    }
    case EXPR_EXP:
        if (zh) {
            pg_buf_puts(b, "e 的 ");
            words_sub(e->kid[0], zh, idx, roles, true, b);
            pg_buf_puts(b, " 次方");
            return;
        }
        break;
    default: break;
    }
    if (!zh) pg_buf_puts(b, UN_EN[e->op] ? UN_EN[e->op] : expr_op_name(e->op));
    words_sub(e->kid[0], zh, idx, roles, true, b);
    if (zh) pg_buf_puts(b, UN_ZH[e->op] ? UN_ZH[e->op] : expr_op_name(e->op));
}

/* "a" -> "a[i]" in the math text: the inputs are the only one-letter names. */
static void index_inputs(const char *text, pg_buf *out) {
    for (const char *p = text; *p; p++) {
        bool l = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
        if (l && *p >= 'a' && *p <= 'd' && !(isalnum((unsigned char)p[1]) || p[1] == '_')) pg_buf_printf(out, "%c[i]", *p);
        else pg_buf_putc(out, *p);
    }
}

/* ---- the recipe: the tree in words, the inputs by position ------------------------------- */
/* bench/suite's prose descriptions of expressions name no array and write no symbol: they say
 * which array by its position and the operations as steps in words, while every expr prose the
 * synth wrote named a, b, c and wrote a[i].  Round 13's plans computed another formula for 6 of
 * those 12 tasks' prose (bench/results/2026-12-07-styles-h109-cpu.md).  So part of the prose
 * states the tree as a recipe: a running value, one step per operator, the inputs by their
 * position in the signature ("the third input"), some constants in words.  Exact by
 * construction: each step applies one operator to the running value. */
static const char *const ORDINAL[EXPR_MAX_INPUTS] = {"first", "second", "third", "fourth"};

/* The constants people write in words (the generator's are quarters in [-4, 4], plus the
 * safety wrappers' 0.5, 1, 10); others stay digits. */
static const char *const_word(float v) {
    static const struct { float v; const char *w; } W[] = {
        {0.0f, "zero"}, {0.25f, "a quarter"}, {0.5f, "one half"}, {0.75f, "three quarters"}, {1.0f, "one"},
        {2.0f, "two"}, {3.0f, "three"}, {4.0f, "four"}, {10.0f, "ten"}};
    for (size_t k = 0; k < sizeof W / sizeof W[0]; k++)
        if (W[k].v == v) return W[k].w;
    return NULL;
}

struct recipe_ctx {
    int ninputs;
    int noun;        /* the inputs' noun phrase form, one per description */
    bool num_words;  /* constants in words where const_word has them */
    rng_t r;         /* the synonyms' draws */
};

/* A leaf as a noun phrase: "the third input", "one half", "alpha". */
static void recipe_leaf(const expr_tree *e, const recipe_ctx *c, pg_buf *b) {
    if (e->op == EXPR_INPUT) {
        static const char *const ONE[] = {"the input value", "the value", "the input element"};
        static const char *const MANY[] = {"the %s input", "the %s operand", "the element of the %s array", "the %s array's element"};
        if (c->ninputs == 1) pg_buf_puts(b, ONE[c->noun % 3]);
        else pg_buf_printf(b, MANY[c->noun % 4], ORDINAL[e->input & 3]);
    } else if (e->op == EXPR_CONST) {
        const char *w = c->num_words ? const_word(e->value < 0 ? -e->value : e->value) : NULL;
        if (w) pg_buf_printf(b, "%s%s", e->value < 0 ? "minus " : "", w);
        else expr_put_const(b, e->value, false);
    } else pg_buf_puts(b, expr_scalar_name(e->input));
}

/* The kid the running value comes from, or -1 when the node is no link of a chain (two
 * compound operands that differ, a select). */
static int recipe_run(const expr_tree *e) {
    if (e->op == EXPR_SEL) return -1;
    if (e->nkids == 1) return 0;
    int nonleaf = -1, count = 0;
    for (int i = 0; i < e->nkids; i++)
        if (!is_leaf(e->kid[i])) { nonleaf = i; count++; }
    if (count == 1) return nonleaf;
    if (count == 2 && e->nkids == 2 && e->op == EXPR_MUL && expr_equal(e->kid[0], e->kid[1])) return 0;   /* square it */
    if (count) return -1;
    /* all leaves: start from the first input among them ("take the first input, subtract it from
     * three", not "take three, subtract the first input"); each step names its operands' order */
    for (int i = 0; i < e->nkids; i++)
        if (e->kid[i]->op == EXPR_INPUT) return i;
    return 0;
}
static bool recipe_chain(const expr_tree *e) {
    if (is_leaf(e)) return true;
    int k = recipe_run(e);
    return k >= 0 && recipe_chain(e->kid[k]);
}
#define RPICK(c, arr) ((arr)[rng_int(&(c)->r, (int)(sizeof(arr) / sizeof((arr)[0])))])
/* One step: the operator e applied to the running value (kid run). */
static void recipe_step(const expr_tree *e, int run, recipe_ctx *c, pg_buf *b) {
    pg_buf x = {0}, y = {0};
    const expr_tree *o = e->nkids == 2 ? e->kid[1 - run] : NULL;   /* the other operand */
    if (o) recipe_leaf(o, c, &x);
    switch (e->op) {
    case EXPR_ADD:
        if (o->op == EXPR_CONST && o->value < 0) {   /* x + (-2) == x - 2 exactly */
            expr_tree pos = *o;
            pos.value = -o->value;
            recipe_leaf(&pos, c, &y);
            pg_buf_printf(b, "subtract %s", y.data);
        } else pg_buf_printf(b, "add %s", x.data);
        break;
    case EXPR_SUB:
        if (run == 0) pg_buf_printf(b, "subtract %s", x.data);
        else pg_buf_printf(b, "subtract it from %s", x.data);
        break;
    case EXPR_MUL:
        if (expr_equal(e->kid[0], e->kid[1])) pg_buf_puts(b, RPICK(c, ((const char *const[]){"square it", "multiply it by itself"})));
        else pg_buf_printf(b, RPICK(c, ((const char *const[]){"multiply by %s", "multiply it by %s"})), x.data);
        break;
    case EXPR_DIV:
        if (run == 0) pg_buf_printf(b, RPICK(c, ((const char *const[]){"divide by %s", "divide it by %s"})), x.data);
        else pg_buf_printf(b, RPICK(c, ((const char *const[]){"divide %s by it", "divide %s by the result"})), x.data);
        break;
    case EXPR_FMA:
        if (run == 2) {
            recipe_leaf(e->kid[0], c, &x);
            recipe_leaf(e->kid[1], c, &y);
            pg_buf_printf(b, RPICK(c, ((const char *const[]){"add %s times %s", "add the product of %s and %s"})), x.data, y.data);
        } else {
            recipe_leaf(e->kid[1 - run], c, &x);
            recipe_leaf(e->kid[2], c, &y);
            pg_buf_printf(b, "multiply by %s and add %s", x.data, y.data);
        }
        break;
    case EXPR_MIN: pg_buf_printf(b, RPICK(c, ((const char *const[]){"take the smaller of it and %s", "cap it at %s"})), x.data); break;
    case EXPR_MAX:
        pg_buf_printf(b, RPICK(c, ((const char *const[]){"take the larger of it and %s", "clamp it from below at %s"})), x.data);
        break;
    case EXPR_ABS: pg_buf_puts(b, RPICK(c, ((const char *const[]){"take the absolute value", "take its magnitude"}))); break;
    case EXPR_EXP: pg_buf_puts(b, RPICK(c, ((const char *const[]){"raise e to that power", "take the exponential"}))); break;
    case EXPR_LOG: pg_buf_puts(b, RPICK(c, ((const char *const[]){"take the natural logarithm", "apply the natural logarithm"}))); break;
    case EXPR_SQRT: pg_buf_puts(b, "take the square root"); break;
    case EXPR_RSQRT:
        pg_buf_puts(b, RPICK(c, ((const char *const[]){"take one over the square root", "take the reciprocal square root"})));
        break;
    case EXPR_TANH:
        pg_buf_puts(b, RPICK(c, ((const char *const[]){"apply tanh", "take the hyperbolic tangent"})));
        break;
    case EXPR_SIGMOID:
        pg_buf_puts(b, RPICK(c, ((const char *const[]){"apply the sigmoid", "pass it through the logistic function"})));
        break;
    case EXPR_RELU:
        pg_buf_puts(b, RPICK(c, ((const char *const[]){"apply ReLU", "replace it by zero if it is negative", "clamp negatives to zero"})));
        break;
    default: break;
    }
    pg_buf_free(&x);
    pg_buf_free(&y);
}
/* The steps of a chain, innermost first; *start gets the leaf the running value starts from. */
static void recipe_steps(const expr_tree *e, recipe_ctx *c, const expr_tree **start, pg_buf *steps) {
    if (is_leaf(e)) { *start = e; return; }
    int run = recipe_run(e);
    recipe_steps(e->kid[run], c, start, steps);
    pg_buf_puts(steps, ", ");
    if (steps->len > 2 && rng_int(&c->r, 6) == 0) pg_buf_puts(steps, "then ");
    recipe_step(e, run, c, steps);
}

static const uint64_t RECIPE_SALT = 0x7265636970650000ull;   /* "recipe" */
bool synth_expr_recipe(const expr_tree *e, int ninputs, uint64_t seed, pg_buf *out) {
    if (!e || ninputs < 1 || ninputs > EXPR_MAX_INPUTS || is_leaf(e) || !recipe_chain(e)) return false;
    recipe_ctx c = {.ninputs = ninputs, .r = {seed ^ RECIPE_SALT}};
    c.noun = rng_int(&c.r, 12);
    c.num_words = rng_int(&c.r, 3) != 0;
    static const char *const POST[] = {"", "", " (for every index)", ", one index at a time", ", element by element"};
    static const char *const START[] = {"take %s", "start from %s", "begin with %s"};
    static const char *const END[] = {"write the result to the output array", "store it in the output array",
                                      "put the result in the output array", "write that to the output"};
    const expr_tree *start = NULL;
    pg_buf steps = {0}, leaf = {0};
    const char *post = RPICK(&c, POST), *st = RPICK(&c, START), *end = RPICK(&c, END);
    recipe_steps(e, &c, &start, &steps);
    recipe_leaf(start, &c, &leaf);
    pg_buf_printf(out, st, leaf.data);
    pg_buf_printf(out, "%s, and %s%s", steps.data ? steps.data : "", end, post);
    pg_buf_free(&steps);
    pg_buf_free(&leaf);
    return true;
}

bool synth_expr_words_by_position(const expr_tree *e, int ninputs, uint64_t seed, pg_buf *out) {
    if (!e || ninputs < 1 || ninputs > EXPR_MAX_INPUTS || is_leaf(e)) return false;
    recipe_ctx c = {.ninputs = ninputs, .r = {seed ^ RECIPE_SALT ^ 0x6e6573746564ull}};   /* "nested" */
    c.noun = rng_int(&c.r, 12);
    c.num_words = rng_int(&c.r, 3) != 0;
    static const char *const FRAME[] = {"compute %s at every index and write it to the output array",
                                        "set each element of the output array to %s",
                                        "fill the output array with %s, one index at a time",
                                        "write %s to the output array at every position"};
    const char *fr = RPICK(&c, FRAME);
    pg_buf w = {0};
    words(e, false, false, &c, &w);
    pg_buf_printf(out, fr, w.data);
    pg_buf_free(&w);
    return true;
}

/* ---- the formula's notation ---------------------------------------------------------- */
/* The suite's descriptions write |c|, (a - b)^2, a*b + c*d; the model that only
 * met abs(c), (a - b)*(a - b) and fma(a, b, c*d) misread them.  So about half of
 * the styles of each task state the formula as people write it.  The draws come
 * from a stream of their own (seed ^ NOTATION_SALT, one per style), so the
 * frames, synonyms and everything else a description draws stay as they were,
 * and a style that keeps the function-call text is byte for byte the old one. */
static const uint64_t NOTATION_SALT = 0x6e6f746174696f6eull;   /* "notation" */
static rng_t notation_rng(uint64_t seed, int style) {
    rng_t r = {seed ^ NOTATION_SALT ^ ((uint64_t)(style + 1) * 0x9E3779B97F4A7C15ull)};
    return r;
}
bool synth_expr_notation(uint64_t seed, int style, unsigned *flags) {
    rng_t r = notation_rng(seed, style);
    double u[6];
    for (int k = 0; k < 6; k++) u[k] = rng_unit(&r);   /* always six: each form its own draw */
    unsigned fl = 0;
    bool human = u[0] < 0.5;
    if (human) {
        if (u[1] < 0.3) fl |= EXPR_MATH_SUPERSCRIPT;
        if (u[2] < 0.4) fl |= EXPR_MATH_SPACED;
        if (u[3] < 0.35) fl |= EXPR_MATH_RELU_MAX;
        if (u[4] < 0.3) fl |= EXPR_MATH_RSQRT_DIV;
        if (style == TASK_STYLE_PROSE && u[5] < 0.5) fl |= EXPR_MATH_SQUARED;
    }
    if (flags) *flags = fl;
    return human;
}
void synth_expr_notation_text(const expr_tree *e, bool human, unsigned flags, pg_buf *out) {
    if (human) expr_to_math(e, flags, out);
    else expr_to_text(e, out);
}
/* How a human-notation formula reads: 0 "out[i] = a[i]*b[i] for every i < n"
 * (the form of the function-call text), 1 "out = a*b", 2 "out[i] = a[i]*b[i]". */
static int notation_form(uint64_t seed, int style) {
    rng_t r = notation_rng(seed ^ 0x666f726dull, style);   /* "form" */
    return rng_int(&r, 3);
}

/* The notes: the selects in symbols, the scalars, what the function names that
 * the formula uses mean (a human-notation formula has no fma(), and no relu()
 * or rsqrt() when the flags wrote them out). */
static void expr_notes(const expr_tree *e, char val[][32], bool human, unsigned fl, pg_buf *notes, pg_buf *notes_zh) {
    pg_buf selw = {0}, selw_zh = {0};
    sel_words(e, human, fl, &selw, &selw_zh);
    int nsel = count_op(e, EXPR_SEL);
    if (selw.len) {
        pg_buf_printf(notes, "the select%s: %s", nsel > 1 ? "s" : "", selw.data);
        pg_buf_printf(notes_zh, "其中逐元素选择：%s", selw_zh.data);
    }
    for (int k = 0; k < expr_nscalars(e); k++) {
        pg_buf_printf(notes, "%sthe scalar %s is a float kernel parameter (%s here)", notes->len ? "; " : "", expr_scalar_name(k), val[k]);
        pg_buf_printf(notes_zh, "%s标量参数 %s 为按值传入的 float（这里 %s = %s）", notes_zh->len ? "；" : "", expr_scalar_name(k), expr_scalar_name(k), val[k]);
    }
    static const struct { expr_op op; unsigned gone; const char *en, *zh; } DEF[] = {
        {EXPR_SIGMOID, 0, "sigmoid(x) = 1/(1+exp(-x))", "sigmoid(x) = 1/(1+exp(-x))"},
        {EXPR_RELU, EXPR_MATH_RELU_MAX, "relu(x) = max(x, 0)", "relu(x) = max(x, 0)"},
        {EXPR_RSQRT, EXPR_MATH_RSQRT_DIV, "rsqrt(x) = 1/sqrt(x)", "rsqrt(x) = 1/sqrt(x)"},
        {EXPR_FMA, ~0u, "fma(x, y, z) = x*y + z", "fma(x, y, z) = x*y + z"},
        {EXPR_LOG, 0, "log is the natural logarithm", "log 为自然对数"},
    };
    for (size_t k = 0; k < sizeof DEF / sizeof DEF[0]; k++)
        if (uses_op(e, DEF[k].op) && !(human && DEF[k].gone && (DEF[k].gone == ~0u || (fl & DEF[k].gone)))) {
            pg_buf_printf(notes, "%s%s", notes->len ? "; " : "", DEF[k].en);
            pg_buf_printf(notes_zh, "%s%s", notes_zh->len ? "；" : "", DEF[k].zh);
        }
    pg_buf_free(&selw);
    pg_buf_free(&selw_zh);
}

/* Does a description of the family state what out gets: the formula (out[i] = ..., out = ...) or
 * an explanation (each writes out[i]; zh: 写入 out, 令 out[i])? */
static bool expr_semantics_stated(const char *t) {
    return t && (strstr(t, "out[i]") || strstr(t, "out = ") || strstr(t, "写入 out"));
}

/* The descriptions (describe.h). */
static json_t *expr_describe(const expr_tree *e, const char *text, int ninputs, char val[][32], int per_thread, uint64_t seed,
                             const json_t *task) {
    pg_buf formula = {0}, w = {0}, wi = {0}, wz = {0}, wzi = {0}, ins = {0}, ins_zh = {0}, notes = {0}, notes_zh = {0};
    pg_buf shape = {0}, shape_zh = {0};
    pg_buf_puts(&formula, "out[i] = ");
    index_inputs(text, &formula);
    pg_buf_puts(&formula, " for every i < n");
    words(e, false, false, NULL, &w);
    words(e, false, true, NULL, &wi);
    words(e, true, false, NULL, &wz);
    words(e, true, true, NULL, &wzi);
    for (int i = 0; i < ninputs; i++) {
        pg_buf_printf(&ins, "%s%c", i ? (i == ninputs - 1 ? " and " : ", ") : "", INPUT_NAMES[i]);
        pg_buf_printf(&ins_zh, "%s%c", i ? "、" : "", INPUT_NAMES[i]);
    }
    for (int i = 0; i < ninputs; i++) pg_buf_printf(&shape, "%c, ", INPUT_NAMES[i]);
    shape.len -= 2;   /* "a, b, c and out" */
    shape.data[shape.len] = 0;
    pg_buf_puts(&shape, " and out are float arrays of n elements");
    pg_buf_printf(&shape_zh, "%s 和 out 都是长度为 n 的 float 数组", ins_zh.data);
    /* notes: the selects in symbols, the scalars, what the function names mean */
    expr_notes(e, val, false, 0, &notes, &notes_zh);
    pg_buf ex[3] = {{0}}, ez[2] = {{0}};   /* as long as the tree needs */
    pg_buf_printf(&ex[0], "set every out[i] to %s", wi.data);
    pg_buf_printf(&ex[1], "compute %s for every index i, with %s read at i, and store it in out[i]", w.data, ins.data);
    pg_buf_printf(&ex[2], "write %s into out[i] for every index i below n", wi.data);
    pg_buf_printf(&ez[0], "对每个下标 i，令 out[i] 等于 %s", wzi.data);
    pg_buf_printf(&ez[1], "逐元素计算 %s（%s 取第 i 个元素），结果写入 out", wz.data, ins_zh.data);
    static const char *const NE[] = {"elementwise expression", "fused elementwise op", "pointwise map", "element-wise formula",
                                     "custom elementwise op", NULL};
    static const char *const NZ[] = {"逐元素表达式", "逐元素运算", "融合的逐元素计算", "逐点映射", NULL};
    const char *e_en[] = {ex[0].data, ex[1].data, ex[2].data, NULL}, *e_zh[] = {ez[0].data, ez[1].data, NULL};
    const char *hw[3], *hz[2];
    if (per_thread == 4) {
        hw[0] = "4 consecutive elements per thread with float4 loads and stores when all four are in range, one at a time for the tail";
        hz[0] = "每个线程处理 4 个连续元素（四个都在范围内时用 float4 向量读写，尾部逐个处理）";
    } else {
        hw[0] = "one element per thread; threads with i >= n do nothing";
        hz[0] = "每个线程处理一个元素，i >= n 的线程不做任何事";
    }
    hw[1] = "memory-bound; approximate ex2/lg2/rcp/rsqrt are accurate enough (tolerance 1e-4)";
    hw[2] = hz[1] = NULL;
    desc_facts f = {.name_en = NE, .name_zh = NZ, .formula = formula.data, .explain_en = e_en, .explain_zh = e_zh, .how_en = hw, .how_zh = hz,
                    .shape_en = shape.data, .shape_zh = shape_zh.data, .notes_en = notes.data, .notes_zh = notes_zh.data,
                    .elems_per_thread = per_thread, .vec_width = per_thread == 4 ? 4 : 0, .data = DESC_DATA_VECTOR,
                    .hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND};
    /* synth_desc_render_all, one style at a time: a style in the human notation
     * (synth_expr_notation) gets its own formula and notes, the same seed */
    json_t *d = json_object(), *fr = json_object();
    for (int st = 0; st < TASK_NSTYLES; st++) {
        unsigned fl;
        desc_facts fs = f;
        pg_buf hform = {0}, hn = {0}, hnz = {0}, m = {0}, b = {0};
        if (synth_expr_notation(seed, st, &fl)) {
            expr_to_math(e, fl, &m);
            int form = notation_form(seed, st);
            if (form == 1) {
                pg_buf_printf(&hform, "out = %s", m.data);
            } else {
                pg_buf_puts(&hform, "out[i] = ");
                index_inputs(m.data, &hform);
                if (form == 0) pg_buf_puts(&hform, " for every i < n");
            }
            expr_notes(e, val, true, fl, &hn, &hnz);
            fs.formula = hform.data;
            fs.notes_en = hn.data;
            fs.notes_zh = hnz.data;
        }
        /* prose: half of the trees a recipe can state are stated as one and a quarter of all
         * trees in nested words, without a name or a symbol (synth_expr_recipe,
         * synth_expr_words_by_position); a stream of its own, so the other draws stay */
        pg_buf rec = {0}, rnotes = {0}, rshape = {0};
        rng_t rr = {seed ^ RECIPE_SALT ^ 0x70726f7365ull};   /* "prose" */
        const char *rec_en[2] = {NULL, NULL};
        int rdraw = rng_int(&rr, 8);   /* a chain: 4 in 8 a recipe; any tree: 2 in 8 the nested words by position */
        if (st == TASK_STYLE_PROSE &&
            ((rdraw < 4 && synth_expr_recipe(e, ninputs, seed, &rec)) || (rdraw >= 6 && synth_expr_words_by_position(e, ninputs, seed, &rec)))) {
            rec_en[0] = rec.data;
            fs.explain_en = rec_en;
            fs.formula = NULL;
            for (int k = 0; k < expr_nscalars(e); k++)
                pg_buf_printf(&rnotes, "%s%s is a scalar parameter (%s here)", rnotes.len ? "; " : "", expr_scalar_name(k), val[k]);
            fs.notes_en = rnotes.data;
            if (ninputs == 1) pg_buf_puts(&rshape, "the input and the output are float arrays of n elements");
            else pg_buf_printf(&rshape, "the %d inputs and the output are float arrays of n elements", ninputs);
            fs.shape_en = rshape.data;
            fs.explain_zh = NULL;   /* the Chinese explanations name the arrays: a frame that needs one is skipped */
            fs.nameless = true;
        }
        char id[48];
        synth_desc_render_framed(&fs, task, st, seed, &b, id, sizeof id);
        /* terse: the suite's terse descriptions of expressions all state the formula; a frame
         * that says only "pointwise map (float32)" leaves the kernel to a guess, so terse draws
         * its frame again (another seed, same facts) until it carries the semantics */
        for (uint64_t t = 1; st == TASK_STYLE_TERSE && t <= 32 && !expr_semantics_stated(b.data); t++) {
            b.len = 0;
            if (b.data) b.data[0] = 0;
            synth_desc_render_framed(&fs, task, st, seed ^ (t * 0x7465727365000000ull), &b, id, sizeof id);   /* "terse" */
        }
        pg_buf_free(&rec);
        pg_buf_free(&rnotes);
        pg_buf_free(&rshape);
        json_object_set_new(d, task_styles[st], json_string(b.data ? b.data : ""));
        json_object_set_new(fr, task_styles[st], json_string(id));
        pg_buf *tmp[] = {&hform, &hn, &hnz, &m, &b};
        for (size_t k = 0; k < sizeof tmp / sizeof tmp[0]; k++) pg_buf_free(tmp[k]);
    }
    json_object_set_new(d, "frames", fr);
    pg_buf *bufs[] = {&formula, &w, &wi, &wz, &wzi, &ins, &ins_zh, &notes, &notes_zh, &shape, &shape_zh,
                      &ex[0], &ex[1], &ex[2], &ez[0], &ez[1]};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++) pg_buf_free(bufs[k]);
    return d;
}

static void emit_json(const expr_tree *e, const char *name, int ninputs, const float *sv, int block, int per_thread,
                      pg_buf *out) {
    pg_buf text = {0}, pre = {0};
    const int S = expr_nscalars(e);
    char val[EXPR_MAX_SCALARS][32];
    for (int k = 0; k < S; k++) f32_short(sv[k], val[k], sizeof val[k]);
    expr_to_text(e, &text);
    expr_to_prefix(e, &pre);
    int tile = block * per_thread;
    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string("expr"));
    json_object_set_new(root, "kernel", json_string(name));
    json_object_set_new(root, "expr", json_string(pre.data));

    json_object_set_new(root, "descriptions", json_null());   /* rendered below, from params and launch */

    json_t *ps = json_array();
    for (int i = 0; i < ninputs; i++)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", (char[]){INPUT_NAMES[i], 0}, "type", "f32*",
                                            "role", "in", "len", "n"));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "out", "type", "f32*", "role", "out", "len", "n"));
    for (int k = 0; k < S; k++)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", expr_scalar_name(k), "type", "f32", "value", val[k]));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", "n", "type", "u32", "value", "n"));
    json_object_set_new(root, "params", ps);

    json_t *sz = json_array();
    json_array_append_new(sz, json_pack("{s:i, s:b}", "n", 16777216, "time", 1));
    static const int more[] = {1000003, 4099, 777, 33};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) json_array_append_new(sz, json_pack("{s:i}", "n", more[i]));
    json_object_set_new(root, "sizes", sz);
    char blk[32], grd[64];
    snprintf(blk, sizeof blk, "%d", block);
    snprintf(grd, sizeof grd, "cdiv(n,%d)", tile);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grd, "smem", "0"));
    json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-2,2)", "normal(0,1)"));
    json_object_set_new(root, "tolerance", json_pack("{s:f}", "f32", 1e-4));
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", "expr_eval"));
    char bytes[64], flops[64];
    snprintf(bytes, sizeof bytes, "%d*n", 4 * (ninputs + 1));
    int nops = expr_count_ops(e);
    snprintf(flops, sizeof flops, "%d*n", nops > 0 ? nops : 1);
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));

    /* the descriptions' seed: a pure function of the kernel (name and tree) */
    uint64_t seed = pg_hash64_add(pg_hash64_add(PG_HASH64_INIT_SHORT, name, strlen(name)), pre.data, strlen(pre.data));
    json_object_set_new(root, "descriptions", expr_describe(e, text.data, ninputs, val, per_thread, seed, root));
    synth_task_json_write(root, out);
    json_decref(root);
    pg_buf_free(&text);
    pg_buf_free(&pre);
}

static bool ident_ok(const char *s) {
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

pg_status synth_expr_kernel(const expr_tree *e, const char *kernel_name, int ninputs, const float *scalar_values,
                            int block, int per_thread, pg_buf *ptx_out, pg_buf *cu_out, pg_buf *task_json_out,
                            pg_diag_sink *diag) {
    if (!e || !ident_ok(kernel_name) || strlen(kernel_name) > 200) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_expr_kernel: missing tree or bad kernel name");
        return PG_ERR_USAGE;
    }
    if (ninputs < 1 || ninputs > EXPR_MAX_INPUTS || block < 1 || block > 1024 ||
        (per_thread != 1 && per_thread != 4)) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0,
                     "synth_expr_kernel: ninputs %d (1..4), block %d (1..1024), per_thread %d (1 or 4)", ninputs, block,
                     per_thread);
        return PG_ERR_USAGE;
    }
    if (expr_inputs_used(e) >> ninputs) {
        pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_expr_kernel: the tree uses an input beyond the %d given",
                     ninputs);
        return PG_ERR_USAGE;
    }
    int S = expr_nscalars(e);
    float sv[EXPR_MAX_SCALARS];
    if (scalar_values) memcpy(sv, scalar_values, sizeof(float) * (size_t)S);
    else synth_expr_scalar_values(0, S, sv);
    for (int k = 0; k < S; k++)
        if (!(sv[k] >= SYNTH_EXPR_SCALAR_MIN && sv[k] <= SYNTH_EXPR_SCALAR_MAX)) {
            pg_diag_emit(diag, PG_E_TASK, NULL, 0, 0, "synth_expr_kernel: scalar %s = %g outside [%g, %g]",
                         expr_scalar_name(k), (double)sv[k], SYNTH_EXPR_SCALAR_MIN, SYNTH_EXPR_SCALAR_MAX);
            return PG_ERR_USAGE;
        }
    if (ptx_out) emit_ptx(e, kernel_name, ninputs, block, per_thread, ptx_out);
    if (cu_out) emit_cu(e, kernel_name, ninputs, per_thread, cu_out);
    if (task_json_out) emit_json(e, kernel_name, ninputs, sv, block, per_thread, task_json_out);
    return PG_OK;
}
