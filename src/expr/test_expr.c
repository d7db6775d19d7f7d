/* test_expr.c — the expression module: size expressions (values, errors,
 * hostile nesting, 64-bit overflow) and expression trees (interpreter values,
 * the three printers, prefix round trip, tree facts, parse errors). */
#include "common/test.h"
#include "ptxgen/expr.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_size(void) {
    expr_env e = {{"n", "m"}, {1000, 7}, 2};
    int64_t v;
    char err[128];
    CHECK(expr_size_eval("cdiv(n,256)", &e, &v, err, sizeof err) && v == 4, "cdiv: %lld", (long long)v);
    CHECK(expr_size_eval("2 + 3 * m - (n % 300) / 2", &e, &v, err, sizeof err) && v == 2 + 21 - 50, "precedence: %lld", (long long)v);
    CHECK(expr_size_eval("min(n, m*100) + max(1, -5)", &e, &v, err, sizeof err) && v == 701, "min/max: %lld", (long long)v);
    CHECK(!expr_size_eval("n / (m - 7)", &e, &v, err, sizeof err) && strstr(err, "division by zero"), "division by zero: %s", err);
    CHECK(!expr_size_eval("k + 1", &e, &v, err, sizeof err) && strstr(err, "unknown size variable 'k'"), "unknown var: %s", err);
    CHECK(!expr_size_eval("n +", &e, &v, err, sizeof err), "dangling operator rejected");
    CHECK(!expr_size_eval("foo(1,2)", &e, &v, err, sizeof err), "unknown function rejected");
    /* hostile input: 50k nested parentheses must be an error, not a stack overflow */
    size_t depth = 50000;
    char *deep = malloc(2 * depth + 2);
    memset(deep, '(', depth);
    deep[depth] = 'n';
    memset(deep + depth + 1, ')', depth);
    deep[2 * depth + 1] = 0;
    CHECK(!expr_size_eval(deep, &e, &v, err, sizeof err) && strstr(err, "nested deeper"), "deep nesting: %s", err);
    memset(deep, '-', 2 * depth);
    deep[2 * depth] = '1';
    deep[2 * depth + 1] = 0;
    CHECK(!expr_size_eval(deep, &e, &v, err, sizeof err) && strstr(err, "nested deeper"), "deep negation: %s", err);
    free(deep);
    CHECK(expr_size_eval("((((((((((n))))))))))", &e, &v, err, sizeof err) && v == 1000, "modest nesting is fine");
    /* 64-bit overflow is an error (not a wrapped, "negative" length) */
    const char *ovf[] = {"n*n*n*n*n*n*n", "9223372036854775807 + 1", "-9223372036854775807 - 2", "99999999999999999999",
                         "(-9223372036854775807 - 1) / -1", "-(-9223372036854775807 - 1)", "cdiv(9223372036854775807, 2)"};
    for (size_t i = 0; i < sizeof ovf / sizeof ovf[0]; i++)
        CHECK(!expr_size_eval(ovf[i], &e, &v, err, sizeof err) && strstr(err, "overflows"), "'%s' overflows: %s", ovf[i], err);
    CHECK(expr_size_eval("9223372036854775807 - 1 + 1", &e, &v, err, sizeof err) && v == INT64_MAX, "INT64_MAX itself is fine");
}

static expr_tree *P(const char *s) {
    char err[160];
    expr_tree *e = expr_parse(s, err, sizeof err);
    if (!e) fprintf(stderr, "parse '%s': %s\n", s, err);
    return e;
}

static const double SC[2] = {0.25, -1.5};   /* alpha, beta in the hand-checked values */

static void check_value(const char *s, const double *in, double want) {
    expr_tree *e = P(s);
    CHECK(e != NULL, "parse %s", s);
    if (!e) return;
    double got = expr_eval(e, in, SC);
    CHECK(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want)), "%s = %.17g, want %.17g", s, got, want);
    expr_free(e);
}

static void test_ops(void) {
    const double in[4] = {2.0, -3.0, 0.5, 4.0};
    check_value("(add a b)", in, -1.0);
    check_value("(sub a b)", in, 5.0);
    check_value("(mul a b)", in, -6.0);
    check_value("(div a d)", in, 0.5);
    check_value("(fma a b c)", in, -5.5);
    check_value("(min a b)", in, -3.0);
    check_value("(max a b)", in, 2.0);
    check_value("(abs b)", in, 3.0);
    check_value("(exp c)", in, exp(0.5));
    check_value("(log d)", in, log(4.0));
    check_value("(sqrt d)", in, 2.0);
    check_value("(rsqrt d)", in, 0.5);
    check_value("(tanh c)", in, tanh(0.5));
    check_value("(sigmoid b)", in, 1.0 / (1.0 + exp(3.0)));
    check_value("(relu b)", in, 0.0);
    check_value("(relu a)", in, 2.0);
    check_value("(max (add (mul a b) 1.5) 0)", in, 0.0);
    check_value("(max (add (mul a c) 1.5) 0)", in, 2.5);
    check_value("(log (add (abs b) 1))", in, log(4.0));
    check_value("(exp (min a 10))", in, exp(2.0));
    check_value("-0.25", in, -0.25);
    check_value("  ( sub\t a\n(div b 0.5) ) ", in, 8.0);
    /* scalars and the select: a=2 b=-3 c=0.5 d=4, alpha=0.25 beta=-1.5 */
    check_value("alpha", in, 0.25);
    check_value("(mul alpha b)", in, -0.75);
    check_value("(fma a beta alpha)", in, -2.75);
    check_value("(sel a c d)", in, 0.5);
    check_value("(sel b c d)", in, 4.0);
    check_value("(sel 0 c d)", in, 4.0);   /* 0 > 0 is false */
    check_value("(sel b b (mul alpha b))", in, -0.75);   /* leaky: b < 0 */
    check_value("(sel a a (mul alpha a))", in, 2.0);
    check_value("(sel (sub a d) 1 -1)", in, -1.0);       /* a > d? no */
    check_value("(sel (sub a beta) (add a alpha) (sel c beta 7))", in, 2.25);
    check_value("(sel (sub beta alpha) a (sel (sub c alpha) beta 7))", in, -1.5);

    /* printers */
    expr_tree *e = P("(max (add (mul a b) 1.5) 0)");
    pg_buf c = {0}, t = {0}, p = {0};
    expr_to_c(e, &c);
    expr_to_text(e, &t);
    expr_to_prefix(e, &p);
    CHECK(!strcmp(c.data, "fmaxf(a*b + 1.5f, 0.0f)"), "C text: %s", c.data);
    CHECK(!strcmp(t.data, "max(a*b + 1.5, 0)"), "math text: %s", t.data);
    CHECK(!strcmp(p.data, "(max (add (mul a b) 1.5) 0)"), "prefix: %s", p.data);
    expr_free(e);
    pg_buf_free(&c); pg_buf_free(&t); pg_buf_free(&p);
    e = P("(sub a (sub b (mul c (div d -2))))");
    expr_to_c(e, &c);
    expr_to_text(e, &t);
    CHECK(!strcmp(c.data, "a - (b - c*(d/(-2.0f)))"), "C text: %s", c.data);
    CHECK(!strcmp(t.data, "a - (b - c*(d/(-2)))"), "math text: %s", t.data);
    expr_free(e);
    pg_buf_free(&c); pg_buf_free(&t);
    /* the select and scalars in the three printers */
    struct { const char *prefix, *c, *text; } sp[] = {
        {"(sel a a (mul alpha a))", "a > 0.0f ? a : alpha*a", "a > 0 ? a : alpha*a"},
        {"(add (sel (sub a b) a (mul -0.5 b)) beta)", "(a > b ? a : (-0.5f)*b) + beta", "(a > b ? a : (-0.5)*b) + beta"},
        {"(max (sel c (sel d a b) (add a alpha)) 0)", "fmaxf(c > 0.0f ? (d > 0.0f ? a : b) : a + alpha, 0.0f)",
         "max(c > 0 ? (d > 0 ? a : b) : a + alpha, 0)"},
        {"(sel (sub a -1.5) 1 -1)", "a > (-1.5f) ? 1.0f : (-1.0f)", "a > (-1.5) ? 1 : (-1)"},
        {"(sel (sub (add a b) c) (sub (add a b) c) (mul beta (sub (add a b) c)))",
         "a + b > c ? a + b - c : beta*(a + b - c)", "a + b > c ? a + b - c : beta*(a + b - c)"},
        {"(mul (sel (sel a b c) alpha beta) d)", "((a > 0.0f ? b : c) > 0.0f ? alpha : beta)*d",
         "((a > 0 ? b : c) > 0 ? alpha : beta)*d"},
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        e = P(sp[i].prefix);
        CHECK(e != NULL, "parse %s", sp[i].prefix);
        if (!e) continue;
        expr_to_c(e, &c);
        expr_to_text(e, &t);
        expr_to_prefix(e, &p);
        CHECK(!strcmp(c.data, sp[i].c), "C text: %s", c.data);
        CHECK(!strcmp(t.data, sp[i].text), "math text: %s", t.data);
        CHECK(!strcmp(p.data, sp[i].prefix), "prefix round trip: %s -> %s", sp[i].prefix, p.data);
        expr_free(e);
        pg_buf_free(&c); pg_buf_free(&t); pg_buf_free(&p);
    }
    e = P("(sel (sub a beta) (mul alpha b) c)");
    CHECK(e && expr_scalars_used(e) == 3u && expr_nscalars(e) == 2 && expr_inputs_used(e) == 7u,
          "scalars/inputs used");
    expr_free(e);
    e = P("(mul beta a)");
    CHECK(e && expr_scalars_used(e) == 2u && expr_nscalars(e) == 2, "beta alone: two kernel scalars");
    expr_free(e);
    /* parse errors */
    const char *bad[] = {"", "(", "(add a)", "(add a b c)", "(foo a)", "e", "(add a b))", "(exp)", "ab", "nan",
                         "(sel a b)", "(sel a b c d)", "gamma", "alphabet", "(mul alpha_ a)", "scalar", "(scalar a)", NULL};
    for (int i = 0; bad[i]; i++) {
        char err[160] = "";
        expr_tree *x = expr_parse(bad[i], err, sizeof err);
        CHECK(x == NULL && err[0], "'%s' must not parse", bad[i]);
        expr_free(x);
    }
}

/* The human notation: golden strings, precedence and the forms the flags pick. */
static void test_math(void) {
    enum { SUP = EXPR_MATH_SUPERSCRIPT, SP = EXPR_MATH_SPACED, RM = EXPR_MATH_RELU_MAX, RD = EXPR_MATH_RSQRT_DIV,
           SQ = EXPR_MATH_SQUARED };
    static const struct { const char *prefix; unsigned fl; const char *want; } g[] = {
        {"(sub a (sub b c))", 0, "a - (b - c)"},
        {"(sub (sub a b) c)", 0, "a - b - c"},
        {"(add a (add b c))", 0, "a + (b + c)"},
        {"(mul (add a b) (add a b))", 0, "(a + b)^2"},
        {"(mul (add a b) (add a b))", SUP, "(a + b)\xc2\xb2"},
        {"(mul (add a b) (add a b))", SQ, "(a + b) squared"},
        {"(mul (sub a b) (sub a b))", 0, "(a - b)^2"},
        {"(mul a a)", 0, "a^2"},
        {"(mul a a)", SQ | SUP, "a squared"},
        {"(add (mul a a) b)", SQ, "a^2 + b"},                 /* "squared" only for the whole expression */
        {"(add (mul a a) b)", SQ | SUP, "a\xc2\xb2 + b"},
        {"(mul (mul a b) (mul a b))", 0, "(a*b)^2"},
        {"(mul (mul a a) (mul a a))", 0, "(a^2)^2"},
        {"(mul (abs a) (abs a))", 0, "|a|^2"},
        {"(mul -1.5 -1.5)", 0, "(-1.5)^2"},
        {"(div a (mul b b))", 0, "a/b^2"},
        {"(mul (mul a a) b)", 0, "a^2*b"},
        {"(abs (sub a b))", 0, "|a - b|"},
        {"(abs (sub (abs a) b))", 0, "abs(|a| - b)"},        /* nested: never "||a| - b|" */
        {"(abs (abs a))", 0, "abs(|a|)"},
        {"(add (abs a) (abs b))", 0, "|a| + |b|"},
        {"(abs (mul a (abs b)))", SP, "abs(a * |b|)"},
        {"(abs (min a (abs b)))", 0, "|min(a, |b|)|"},        /* the inner bars are inside parentheses */
        {"(abs (log (add (abs b) 0.5)))", 0, "|log(|b| + 0.5)|"},
        {"(abs (sub (abs (sub a b)) (abs c)))", 0, "abs(|a - b| - |c|)"},
        {"(sqrt (add (abs (mul a (abs b))) 1))", 0, "sqrt(abs(a*|b|) + 1)"},
        {"(log (add (abs (sub a b)) 1))", 0, "log(|a - b| + 1)"},
        {"(relu (fma a b (mul (sqrt (add (abs c) 0.25)) d)))", 0, "relu(a*b + sqrt(|c| + 0.25)*d)"},
        {"(relu (fma a b (mul (sqrt (add (abs c) 0.25)) d)))", RM, "max(a*b + sqrt(|c| + 0.25)*d, 0)"},
        {"(fma (sub b a) c a)", 0, "(b - a)*c + a"},
        {"(fma a b (add c d))", 0, "a*b + (c + d)"},
        {"(fma a (mul b c) d)", 0, "a*(b*c) + d"},
        {"(mul (fma a b c) d)", 0, "(a*b + c)*d"},
        {"(fma b b c)", 0, "b^2 + c"},
        {"(mul a (rsqrt (add (abs (fma b b c)) 0.5)))", 0, "a*rsqrt(|b^2 + c| + 0.5)"},
        {"(mul a (rsqrt (add (abs (fma b b c)) 0.5)))", RD | SP, "a * (1 / sqrt(|b^2 + c| + 0.5))"},
        {"(mul (rsqrt a) b)", RD, "(1/sqrt(a))*b"},
        {"(div (sub a b) (add (abs (sub c d)) 1))", SP, "(a - b) / (|c - d| + 1)"},
        {"(div (sub a b) (add (abs (sub c d)) 1))", 0, "(a - b)/(|c - d| + 1)"},
        {"(mul (div a b) c)", 0, "(a/b)*c"},
        {"(div a (mul b c))", 0, "a/(b*c)"},
        {"(mul a (div b c))", 0, "a*(b/c)"},
        {"(mul a -2)", 0, "a*(-2)"},
        {"(add (mul a b) (mul c d))", 0, "a*b + c*d"},
        {"(mul (tanh a) (sigmoid b))", SP, "tanh(a) * sigmoid(b)"},
        {"(min (max a b) c)", 0, "min(max(a, b), c)"},
        {"(mul a (tanh (log (add (abs (exp (min a 10))) 1))))", 0, "a*tanh(log(|exp(min(a, 10))| + 1))"},
        {"(sel (sub a b) (abs a) (mul alpha b))", 0, "a > b ? |a| : alpha*b"},
        {"(add (sel c (abs a) b) beta)", 0, "(c > 0 ? |a| : b) + beta"},
        {"(relu a)", RM | SP, "max(a, 0)"},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        expr_tree *e = P(g[i].prefix);
        CHECK(e != NULL, "parse %s", g[i].prefix);
        if (!e) continue;
        pg_buf m = {0};
        expr_to_math(e, g[i].fl, &m);
        CHECK(m.data && !strcmp(m.data, g[i].want), "math %s (flags %u): '%s', want '%s'", g[i].prefix, g[i].fl,
              m.data ? m.data : "", g[i].want);
        /* appends, like the other printers */
        pg_buf_puts(&m, "; ");
        expr_to_math(e, g[i].fl, &m);
        CHECK(m.data && strlen(m.data) == 2 * strlen(g[i].want) + 2, "expr_to_math appends: %s", m.data);
        pg_buf_free(&m);
        expr_free(e);
    }
}

static void test_new(void) {
    expr_tree *e = expr_new(EXPR_ADD);
    CHECK(e->nkids == 2 && !e->kid[0] && !e->kid[1], "expr_new leaves the operand slots empty");
    e->kid[0] = expr_leaf_input(1);
    e->kid[1] = expr_leaf_scalar(0);
    expr_tree *c = expr_clone(e);
    pg_buf p = {0};
    expr_to_prefix(c, &p);
    CHECK(!strcmp(p.data, "(add b alpha)"), "built tree prints: %s", p.data);
    CHECK(expr_count_nodes(c) == 3 && expr_count_ops(c) == 1 && expr_depth(c) == 2, "facts of (add b alpha)");
    pg_buf_free(&p);
    expr_put_const(&p, -2.0f, true);
    pg_buf_puts(&p, " ");
    expr_put_const(&p, 1.5f, false);
    CHECK(!strcmp(p.data, "(-2.0f) 1.5"), "constants: %s", p.data);
    pg_buf_free(&p);
    expr_free(e);
    expr_free(c);
}

int main(void) {
    test_size();
    test_ops();
    test_new();
    test_math();
    return TEST_DONE();
}
