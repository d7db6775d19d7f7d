/* expr.c — elementwise expression trees: construction, facts, the double
 * interpreter, the printers (C, math text, prefix) and the prefix parser.
 * Below both task (the expr_eval reference) and synth (the expression
 * family); see ptxgen/expr.h. */
#include "ptxgen/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- operator table ------------------------------------------------------------ */
static const struct {
    const char *name;   /* prefix / text name */
    int arity;
} OPS[EXPR__COUNT] = {
    [EXPR_INPUT] = {"input", 0},    [EXPR_CONST] = {"const", 0},
    [EXPR_SCALAR] = {"scalar", 0},
    [EXPR_ADD] = {"add", 2},       [EXPR_SUB] = {"sub", 2},
    [EXPR_MUL] = {"mul", 2},       [EXPR_DIV] = {"div", 2},
    [EXPR_FMA] = {"fma", 3},        [EXPR_MIN] = {"min", 2},
    [EXPR_MAX] = {"max", 2},        [EXPR_ABS] = {"abs", 1},
    [EXPR_EXP] = {"exp", 1},        [EXPR_LOG] = {"log", 1},
    [EXPR_SQRT] = {"sqrt", 1},      [EXPR_RSQRT] = {"rsqrt", 1},
    [EXPR_TANH] = {"tanh", 1},      [EXPR_SIGMOID] = {"sigmoid", 1},
    [EXPR_RELU] = {"relu", 1},      [EXPR_SEL] = {"sel", 3},
};

static const char *const SCALAR_NAMES[EXPR_MAX_SCALARS] = {"alpha", "beta"};
const char *expr_scalar_name(int k) {
    return k >= 0 && k < EXPR_MAX_SCALARS ? SCALAR_NAMES[k] : "?";
}

const char *expr_op_name(expr_op op) {
    return (unsigned)op < EXPR__COUNT ? OPS[op].name : "?";
}
int expr_op_arity(expr_op op) { return (unsigned)op < EXPR__COUNT ? OPS[op].arity : 0; }

/* ---- construction --------------------------------------------------------------- */
expr_tree *expr_new(expr_op op) {
    expr_tree *e = calloc(1, sizeof *e);
    if (!e) pg_oom();
    e->op = op;
    e->nkids = OPS[op].arity;
    return e;
}
expr_tree *expr_leaf_input(int i) {
    expr_tree *e = expr_new(EXPR_INPUT);
    e->input = i;
    return e;
}
expr_tree *expr_leaf_const(float v) {
    expr_tree *e = expr_new(EXPR_CONST);
    e->value = v;
    return e;
}
expr_tree *expr_leaf_scalar(int k) {
    expr_tree *e = expr_new(EXPR_SCALAR);
    e->input = k;
    return e;
}
void expr_free(expr_tree *e) {
    if (!e) return;
    for (int i = 0; i < e->nkids; i++) expr_free(e->kid[i]);
    free(e);
}

expr_tree *expr_clone(const expr_tree *e) {
    if (!e) return NULL;
    expr_tree *c = expr_new(e->op);
    *c = *e;
    for (int i = 0; i < e->nkids; i++) c->kid[i] = expr_clone(e->kid[i]);
    return c;
}

int expr_count_nodes(const expr_tree *e) {
    int n = 1;
    for (int i = 0; i < e->nkids; i++) n += expr_count_nodes(e->kid[i]);
    return n;
}
int expr_count_ops(const expr_tree *e) {
    int n = e->nkids > 0;
    for (int i = 0; i < e->nkids; i++) n += expr_count_ops(e->kid[i]);
    return n;
}
int expr_depth(const expr_tree *e) {
    int d = 0;
    for (int i = 0; i < e->nkids; i++) {
        int k = expr_depth(e->kid[i]);
        if (k > d) d = k;
    }
    return d + 1;
}
unsigned expr_inputs_used(const expr_tree *e) {
    unsigned m = e->op == EXPR_INPUT ? 1u << e->input : 0u;
    for (int i = 0; i < e->nkids; i++) m |= expr_inputs_used(e->kid[i]);
    return m;
}
unsigned expr_scalars_used(const expr_tree *e) {
    unsigned m = e->op == EXPR_SCALAR ? 1u << e->input : 0u;
    for (int i = 0; i < e->nkids; i++) m |= expr_scalars_used(e->kid[i]);
    return m;
}
int expr_nscalars(const expr_tree *e) {
    int n = 0;
    for (unsigned m = expr_scalars_used(e); m; m >>= 1) n++;
    return n;
}

/* ---- the interpreter ---------------------------------------------------------------- */
/* One formula per operator, shared by the scalar and the chunked evaluators so
 * both round identically. */
static inline double apply1(expr_op op, double x) {
    switch (op) {
    case EXPR_ABS: return fabs(x);
    case EXPR_EXP: return exp(x);
    case EXPR_LOG: return log(x);
    case EXPR_SQRT: return sqrt(x);
    case EXPR_RSQRT: return 1.0 / sqrt(x);
    case EXPR_TANH: return tanh(x);
    case EXPR_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case EXPR_RELU: return fmax(x, 0.0);
    default: return NAN;
    }
}
static inline double apply2(expr_op op, double x, double y) {
    switch (op) {
    case EXPR_ADD: return x + y;
    case EXPR_SUB: return x - y;
    case EXPR_MUL: return x * y;
    case EXPR_DIV: return x / y;
    case EXPR_MIN: return fmin(x, y);
    case EXPR_MAX: return fmax(x, y);
    default: return NAN;
    }
}
static inline double apply3(double x, double y, double z) {
    double p = x * y;   /* two roundings, as written: x*y+z */
    return p + z;
}

static inline double apply_sel(double c, double x, double y) { return c > 0 ? x : y; }

double expr_eval(const expr_tree *e, const double *inputs, const double *scalars) {
    switch (e->op) {
    case EXPR_INPUT: return inputs[e->input];
    case EXPR_CONST: return (double)e->value;
    case EXPR_SCALAR: return scalars ? scalars[e->input] : NAN;
    case EXPR_FMA:
        return apply3(expr_eval(e->kid[0], inputs, scalars), expr_eval(e->kid[1], inputs, scalars),
                      expr_eval(e->kid[2], inputs, scalars));
    case EXPR_SEL:   /* both branches are evaluated, as the kernel does */
        return apply_sel(expr_eval(e->kid[0], inputs, scalars), expr_eval(e->kid[1], inputs, scalars),
                         expr_eval(e->kid[2], inputs, scalars));
    default:
        if (e->nkids == 1) return apply1(e->op, expr_eval(e->kid[0], inputs, scalars));
        return apply2(e->op, expr_eval(e->kid[0], inputs, scalars), expr_eval(e->kid[1], inputs, scalars));
    }
}

enum { CHUNK = 256 };

/* Evaluate e for m (<= CHUNK) elements into dst; scratch holds 2*CHUNK doubles
 * per remaining tree level. */
static void chunk_eval(const expr_tree *e, const float *const *in, const double *sc, size_t base, size_t m,
                       double *dst, double *scratch) {
    switch (e->op) {
    case EXPR_INPUT: {
        const float *s = in[e->input] + base;
        for (size_t i = 0; i < m; i++) dst[i] = (double)s[i];
        return;
    }
    case EXPR_CONST:
        for (size_t i = 0; i < m; i++) dst[i] = (double)e->value;
        return;
    case EXPR_SCALAR: {
        double v = sc ? sc[e->input] : NAN;
        for (size_t i = 0; i < m; i++) dst[i] = v;
        return;
    }
    default: break;
    }
    double *y = scratch, *z = scratch + CHUNK, *deeper = scratch + 2 * CHUNK;
    chunk_eval(e->kid[0], in, sc, base, m, dst, scratch);
    if (e->nkids >= 2) chunk_eval(e->kid[1], in, sc, base, m, y, deeper);
    if (e->nkids >= 3) chunk_eval(e->kid[2], in, sc, base, m, z, deeper);
    if (e->op == EXPR_FMA)
        for (size_t i = 0; i < m; i++) dst[i] = apply3(dst[i], y[i], z[i]);
    else if (e->op == EXPR_SEL)
        for (size_t i = 0; i < m; i++) dst[i] = apply_sel(dst[i], y[i], z[i]);
    else if (e->nkids == 1)
        for (size_t i = 0; i < m; i++) dst[i] = apply1(e->op, dst[i]);
    else
        for (size_t i = 0; i < m; i++) dst[i] = apply2(e->op, dst[i], y[i]);
}

void expr_eval_f32(const expr_tree *e, const float *const *in, const double *scalars, float *out, size_t n) {
    int depth = expr_depth(e);
    double *buf = malloc(sizeof(double) * CHUNK * (size_t)(1 + 2 * depth));
    if (!buf) pg_oom();
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t m = n - base < CHUNK ? n - base : CHUNK;
        chunk_eval(e, in, scalars, base, m, buf, buf + CHUNK);
        for (size_t i = 0; i < m; i++) out[base + i] = (float)buf[i];
    }
    free(buf);
}

/* ---- printers ------------------------------------------------------------------------ */
static const char INPUT_NAMES[] = "abcd";

void expr_put_const(pg_buf *b, float v, bool c_suffix) {
    char t[48];
    if (v == floorf(v) && fabsf(v) < 1e7f) snprintf(t, sizeof t, c_suffix ? "%.1f" : "%.0f", (double)v);
    else snprintf(t, sizeof t, "%.9g", (double)v);
    if (v < 0 && c_suffix) pg_buf_putc(b, '(');
    pg_buf_puts(b, t);
    if (c_suffix) pg_buf_putc(b, 'f');
    if (v < 0 && c_suffix) pg_buf_putc(b, ')');
}

/* Precedence: -1 for the select (c > 0 ? x : y), 1 for + -, 2 for * /, 3 for
 * atoms and calls. */
static int prec(const expr_tree *e) {
    switch (e->op) {
    case EXPR_SEL: return -1;
    case EXPR_ADD: case EXPR_SUB: return 1;
    case EXPR_MUL: case EXPR_DIV: return 2;
    case EXPR_CONST: return e->value < 0 ? 0 : 3;   /* text form: (-1.5) */
    default: return 3;
    }
}

static void print_infix(const expr_tree *e, pg_buf *b, bool c);
static void print_sub(const expr_tree *e, pg_buf *b, bool c, int need) {
    bool par = prec(e) < need && !(c && e->op == EXPR_CONST);
    if (par) pg_buf_putc(b, '(');
    print_infix(e, b, c);
    if (par) pg_buf_putc(b, ')');
}

static void print_infix(const expr_tree *e, pg_buf *b, bool c) {
    static const char *cfn[EXPR__COUNT] = {
        [EXPR_FMA] = "fmaf", [EXPR_MIN] = "fminf", [EXPR_MAX] = "fmaxf",
        [EXPR_ABS] = "fabsf", [EXPR_EXP] = "expf", [EXPR_LOG] = "logf",
        [EXPR_SQRT] = "sqrtf", [EXPR_RSQRT] = "rsqrtf", [EXPR_TANH] = "tanhf",
    };
    switch (e->op) {
    case EXPR_INPUT: pg_buf_putc(b, INPUT_NAMES[e->input & 3]); return;
    case EXPR_CONST: expr_put_const(b, e->value, c); return;
    case EXPR_SCALAR: pg_buf_puts(b, expr_scalar_name(e->input)); return;
    case EXPR_SEL:
        if (e->kid[0]->op == EXPR_SUB) {   /* p - q > 0 is p > q (no flush to zero) */
            print_sub(e->kid[0]->kid[0], b, c, 1);
            pg_buf_puts(b, " > ");
            print_sub(e->kid[0]->kid[1], b, c, 1);
            pg_buf_puts(b, " ? ");
        } else {
            print_sub(e->kid[0], b, c, 1);
            pg_buf_puts(b, c ? " > 0.0f ? " : " > 0 ? ");
        }
        print_sub(e->kid[1], b, c, 1);
        pg_buf_puts(b, " : ");
        print_sub(e->kid[2], b, c, 1);
        return;
    case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: {
        int p = prec(e);
        const char *sym = e->op == EXPR_ADD ? " + " : e->op == EXPR_SUB ? " - "
                        : e->op == EXPR_MUL ? "*" : "/";
        /* left-associative; the right operand of the same level keeps its parentheses
         * so the evaluation order (and f32 rounding) is exactly the tree's */
        print_sub(e->kid[0], b, c, p);
        pg_buf_puts(b, sym);
        print_sub(e->kid[1], b, c, p + 1);
        return;
    }
    case EXPR_SIGMOID:
        if (c) {
            pg_buf_puts(b, "(1.0f/(1.0f + expf(-(");
            print_infix(e->kid[0], b, c);
            pg_buf_puts(b, "))))");
            return;
        }
        break;
    case EXPR_RELU:
        if (c) {
            pg_buf_puts(b, "fmaxf(");
            print_infix(e->kid[0], b, c);
            pg_buf_puts(b, ", 0.0f)");
            return;
        }
        break;
    default: break;
    }
    pg_buf_puts(b, c ? cfn[e->op] : OPS[e->op].name);
    pg_buf_putc(b, '(');
    for (int i = 0; i < e->nkids; i++) {
        if (i) pg_buf_puts(b, ", ");
        print_infix(e->kid[i], b, c);
    }
    pg_buf_putc(b, ')');
}

void expr_to_c(const expr_tree *e, pg_buf *out) { print_infix(e, out, true); }
void expr_to_text(const expr_tree *e, pg_buf *out) { print_infix(e, out, false); }

/* ---- the human notation (expr_to_math) ----------------------------------------------- */
bool expr_equal(const expr_tree *x, const expr_tree *y) {
    if (x->op != y->op || x->nkids != y->nkids) return false;
    if ((x->op == EXPR_INPUT || x->op == EXPR_SCALAR) && x->input != y->input) return false;
    if (x->op == EXPR_CONST && memcmp(&x->value, &y->value, sizeof x->value)) return false;
    for (int i = 0; i < x->nkids; i++)
        if (!expr_equal(x->kid[i], y->kid[i])) return false;
    return true;
}
static bool is_square(const expr_tree *e) { return e->op == EXPR_MUL && expr_equal(e->kid[0], e->kid[1]); }

/* Precedence in the human notation: -1 select, 0 a negative constant, 1 + -
 * (and x*y + z for fma), 2 * / (and 1/sqrt(x)), 3 a power (x^2), 4 atoms,
 * calls and |x|. */
static int mprec(const expr_tree *e, unsigned fl) {
    switch (e->op) {
    case EXPR_SEL: return -1;
    case EXPR_ADD: case EXPR_SUB: case EXPR_FMA: return 1;
    case EXPR_MUL: return is_square(e) ? 3 : 2;
    case EXPR_DIV: return 2;
    case EXPR_RSQRT: return fl & EXPR_MATH_RSQRT_DIV ? 2 : 4;
    case EXPR_CONST: return e->value < 0 ? 0 : 4;
    default: return 4;
    }
}

static void print_math(const expr_tree *e, pg_buf *b, unsigned fl, bool root);
static void math_sub(const expr_tree *e, pg_buf *b, unsigned fl, int need) {
    bool par = mprec(e, fl) < need;
    if (par) pg_buf_putc(b, '(');
    print_math(e, b, fl, false);
    if (par) pg_buf_putc(b, ')');
}
/* x*y: the left operand of a product or quotient is parenthesized when it is
 * itself a quotient ("(a/b)*c"), which is how people write it. */
static void math_product(const expr_tree *x, const expr_tree *y, bool div, pg_buf *b, unsigned fl) {
    math_sub(x, b, fl, mprec(x, fl) == 2 && (x->op == EXPR_DIV || x->op == EXPR_RSQRT) ? 3 : 2);
    pg_buf_puts(b, fl & EXPR_MATH_SPACED ? (div ? " / " : " * ") : (div ? "/" : "*"));
    math_sub(y, b, fl, 3);
}
static void math_call(const char *fn, const expr_tree *x, pg_buf *b, unsigned fl) {
    pg_buf_puts(b, fn);
    pg_buf_putc(b, '(');
    print_math(x, b, fl, false);
    pg_buf_putc(b, ')');
}

static void print_math(const expr_tree *e, pg_buf *b, unsigned fl, bool root) {
    switch (e->op) {
    case EXPR_INPUT: case EXPR_CONST: case EXPR_SCALAR:
        print_infix(e, b, false);
        return;
    case EXPR_SEL:
        if (e->kid[0]->op == EXPR_SUB) {
            math_sub(e->kid[0]->kid[0], b, fl, 1);
            pg_buf_puts(b, " > ");
            math_sub(e->kid[0]->kid[1], b, fl, 1);
            pg_buf_puts(b, " ? ");
        } else {
            math_sub(e->kid[0], b, fl, 1);
            pg_buf_puts(b, " > 0 ? ");
        }
        math_sub(e->kid[1], b, fl, 1);
        pg_buf_puts(b, " : ");
        math_sub(e->kid[2], b, fl, 1);
        return;
    case EXPR_ADD: case EXPR_SUB:
        /* the right operand of the same level keeps its parentheses: a - (b - c) */
        math_sub(e->kid[0], b, fl, 1);
        pg_buf_puts(b, e->op == EXPR_ADD ? " + " : " - ");
        math_sub(e->kid[1], b, fl, 2);
        return;
    case EXPR_FMA:   /* x*y + z */
        if (expr_equal(e->kid[0], e->kid[1])) {
            math_sub(e->kid[0], b, fl, 4);
            pg_buf_puts(b, fl & EXPR_MATH_SUPERSCRIPT ? "\xc2\xb2" : "^2");
        } else {
            math_product(e->kid[0], e->kid[1], false, b, fl);
        }
        pg_buf_puts(b, " + ");
        math_sub(e->kid[2], b, fl, 2);
        return;
    case EXPR_MUL:
        if (is_square(e)) {
            math_sub(e->kid[0], b, fl, 4);
            pg_buf_puts(b, root && (fl & EXPR_MATH_SQUARED) ? " squared" : fl & EXPR_MATH_SUPERSCRIPT ? "\xc2\xb2" : "^2");
            return;
        }
        math_product(e->kid[0], e->kid[1], false, b, fl);
        return;
    case EXPR_DIV:
        math_product(e->kid[0], e->kid[1], true, b, fl);
        return;
    case EXPR_ABS: {   /* |x|, but abs(x) around a |y| outside parentheses (no "||a| - b|") */
        pg_buf in = {0};
        print_math(e->kid[0], &in, fl, false);
        bool bars = true;
        int depth = 0;
        for (const char *p = in.data; *p; p++) {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            if (*p == '|' && depth == 0) bars = false;
        }
        pg_buf_puts(b, bars ? "|" : "abs(");
        pg_buf_puts(b, in.data);
        pg_buf_puts(b, bars ? "|" : ")");
        pg_buf_free(&in);
        return;
    }
    case EXPR_RELU:
        if (fl & EXPR_MATH_RELU_MAX) {
            pg_buf_puts(b, "max(");
            print_math(e->kid[0], b, fl, false);
            pg_buf_puts(b, ", 0)");
            return;
        }
        math_call("relu", e->kid[0], b, fl);
        return;
    case EXPR_RSQRT:
        if (fl & EXPR_MATH_RSQRT_DIV) {
            math_call(fl & EXPR_MATH_SPACED ? "1 / sqrt" : "1/sqrt", e->kid[0], b, fl);
            return;
        }
        math_call("rsqrt", e->kid[0], b, fl);
        return;
    case EXPR_MIN: case EXPR_MAX:
        pg_buf_puts(b, e->op == EXPR_MIN ? "min(" : "max(");
        print_math(e->kid[0], b, fl, false);
        pg_buf_puts(b, ", ");
        print_math(e->kid[1], b, fl, false);
        pg_buf_putc(b, ')');
        return;
    default:   /* exp log sqrt tanh sigmoid */
        math_call(OPS[e->op].name, e->kid[0], b, fl);
        return;
    }
}

void expr_to_math(const expr_tree *e, unsigned flags, pg_buf *out) { print_math(e, out, flags, true); }

void expr_to_prefix(const expr_tree *e, pg_buf *out) {
    if (e->op == EXPR_INPUT) { pg_buf_putc(out, INPUT_NAMES[e->input & 3]); return; }
    if (e->op == EXPR_CONST) { expr_put_const(out, e->value, false); return; }
    if (e->op == EXPR_SCALAR) { pg_buf_puts(out, expr_scalar_name(e->input)); return; }
    pg_buf_putc(out, '(');
    pg_buf_puts(out, OPS[e->op].name);
    for (int i = 0; i < e->nkids; i++) {
        pg_buf_putc(out, ' ');
        expr_to_prefix(e->kid[i], out);
    }
    pg_buf_putc(out, ')');
}

/* ---- prefix parser ------------------------------------------------------------------- */
typedef struct {
    const char *s, *p;
    char *err; size_t errn;
    bool bad;
    int depth;
} pparse;

static void perr(pparse *x, const char *msg) {
    if (x->bad) return;
    x->bad = true;
    if (x->err && x->errn) snprintf(x->err, x->errn, "offset %d: %s", (int)(x->p - x->s), msg);
}
static void skip_ws(pparse *x) { while (isspace((unsigned char)*x->p)) x->p++; }

static expr_tree *parse_node(pparse *x) {
    skip_ws(x);
    if (++x->depth > 200) { perr(x, "nesting too deep"); return NULL; }
    expr_tree *r = NULL;
    if (*x->p == '(') {
        x->p++;
        skip_ws(x);
        const char *w = x->p;
        while (isalpha((unsigned char)*x->p)) x->p++;
        size_t wn = (size_t)(x->p - w);
        int op = -1;
        for (int k = EXPR_ADD; k < EXPR__COUNT; k++)
            if (strlen(OPS[k].name) == wn && !strncmp(OPS[k].name, w, wn)) op = k;
        if (op < 0) { x->p = w; perr(x, "unknown operator"); goto out; }
        r = expr_new((expr_op)op);
        for (int i = 0; i < r->nkids; i++) {
            r->kid[i] = parse_node(x);
            if (!r->kid[i]) {
                r->nkids = i;   /* free what was built */
                expr_free(r);
                r = NULL;
                goto out;
            }
        }
        skip_ws(x);
        if (*x->p != ')') { perr(x, "expected ')' (wrong number of operands?)"); expr_free(r); r = NULL; goto out; }
        x->p++;
    } else if (isalpha((unsigned char)*x->p)) {
        const char *w = x->p;
        while (isalnum((unsigned char)*x->p) || *x->p == '_') x->p++;
        size_t wn = (size_t)(x->p - w);
        if (wn == 1 && *w >= 'a' && *w <= 'd') r = expr_leaf_input(*w - 'a');
        for (int k = 0; k < EXPR_MAX_SCALARS && !r; k++)
            if (strlen(SCALAR_NAMES[k]) == wn && !strncmp(SCALAR_NAMES[k], w, wn)) r = expr_leaf_scalar(k);
        if (!r) { x->p = w; perr(x, "unknown name (inputs a b c d, scalars alpha beta)"); }
    } else if (*x->p == '-' || *x->p == '+' || *x->p == '.' || isdigit((unsigned char)*x->p)) {
        char *end;
        double v = strtod(x->p, &end);
        if (end == x->p || !isfinite(v) || fabs(v) > 3.4e38) { perr(x, "bad number"); goto out; }
        x->p = end;
        r = expr_leaf_const((float)v);
    } else {
        perr(x, *x->p ? "unexpected character" : "unexpected end of text");
    }
out:
    x->depth--;
    return r;
}

expr_tree *expr_parse(const char *prefix_text, char *err, size_t errn) {
    pparse x = {prefix_text, prefix_text, err, errn, false, 0};
    if (err && errn) err[0] = 0;
    if (!prefix_text) { perr(&x, "no text"); return NULL; }
    expr_tree *e = parse_node(&x);
    if (!e) { perr(&x, "syntax error"); return NULL; }
    skip_ws(&x);
    if (*x.p) { perr(&x, "trailing text"); expr_free(e); return NULL; }
    return e;
}
