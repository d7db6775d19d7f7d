/* size.c — integer size expressions ("cdiv(n,256)") over a task's size
 * variables; see ptxgen/expr.h. */
#include "ptxgen/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Recursive descent with two guards: nesting deeper than EXPR_SIZE_MAX_DEPTH is
 * an error (a hostile "((((...))))" must not overflow the C stack), and every
 * operation checks for 64-bit overflow (signed overflow is undefined in C, and
 * a wrapped length would read as "negative" instead of "too large"). */
enum { EXPR_SIZE_MAX_DEPTH = 200 };
typedef struct { const char *p; const expr_env *env; char *err; size_t errn; bool bad; int depth; } xparser;

static void xfail(xparser *x, const char *msg) {
    if (!x->bad && x->err) snprintf(x->err, x->errn, "%s at '%.20s'", msg, x->p);
    x->bad = true;
}
static void xskip(xparser *x) { while (isspace((unsigned char)*x->p)) x->p++; }
static int64_t xovf(xparser *x) { xfail(x, "overflows a 64-bit integer"); return 0; }
static int64_t xsum(xparser *x);
static int64_t xatom_(xparser *x);
static int64_t xatom(xparser *x) {
    if (x->bad) return 0;
    if (++x->depth > EXPR_SIZE_MAX_DEPTH) {
        if (!x->bad && x->err) snprintf(x->err, x->errn, "nested deeper than %d levels", EXPR_SIZE_MAX_DEPTH);
        x->bad = true;
        return 0;
    }
    int64_t v = xatom_(x);
    x->depth--;
    return v;
}
static int64_t xatom_(xparser *x) {
    xskip(x);
    if (*x->p == '(') {
        x->p++;
        int64_t v = xsum(x);
        xskip(x);
        if (x->bad) return 0;
        if (*x->p != ')') { xfail(x, "expected ')'"); return 0; }
        x->p++;
        return v;
    }
    if (*x->p == '-') {
        x->p++;
        int64_t v = xatom(x);
        return v == INT64_MIN ? xovf(x) : -v;
    }
    if (isdigit((unsigned char)*x->p)) {
        char *end;
        errno = 0;
        long long v = strtoll(x->p, &end, 0);
        if (errno == ERANGE) return xovf(x);
        x->p = end;
        return v;
    }
    if (isalpha((unsigned char)*x->p) || *x->p == '_') {
        const char *s = x->p;
        while (isalnum((unsigned char)*x->p) || *x->p == '_') x->p++;
        size_t n = (size_t)(x->p - s);
        xskip(x);
        if (*x->p == '(') {   /* function */
            x->p++;
            int64_t a = xsum(x);
            xskip(x);
            if (x->bad) return 0;
            if (*x->p != ',') { xfail(x, "expected ',' in function call"); return 0; }
            x->p++;
            int64_t b = xsum(x);
            xskip(x);
            if (x->bad) return 0;
            if (*x->p != ')') { xfail(x, "expected ')'"); return 0; }
            x->p++;
            if (n == 4 && !strncmp(s, "cdiv", 4)) {
                if (b == 0) { xfail(x, "division by zero"); return 0; }
                int64_t t;
                if (__builtin_add_overflow(a, b - 1, &t)) return xovf(x);
                return t / b;
            }
            if (n == 3 && !strncmp(s, "min", 3)) return a < b ? a : b;
            if (n == 3 && !strncmp(s, "max", 3)) return a > b ? a : b;
            xfail(x, "unknown function (cdiv, min, max)");
            return 0;
        }
        for (int i = 0; i < x->env->n; i++)
            if (strlen(x->env->name[i]) == n && !strncmp(x->env->name[i], s, n)) return x->env->val[i];
        if (x->err && !x->bad) snprintf(x->err, x->errn, "unknown size variable '%.*s'", (int)n, s);
        x->bad = true;
        return 0;
    }
    xfail(x, "expected a number, variable or '('");
    return 0;
}
static int64_t xprod(xparser *x) {
    int64_t v = xatom(x);
    for (;;) {
        xskip(x);
        char op = *x->p;
        if (x->bad || (op != '*' && op != '/' && op != '%')) return v;
        x->p++;
        int64_t r = xatom(x);
        if (x->bad) return 0;
        if (op == '*') { if (__builtin_mul_overflow(v, r, &v)) return xovf(x); }
        else if (r == 0) { xfail(x, "division by zero"); return 0; }
        else if (v == INT64_MIN && r == -1) return xovf(x);
        else v = op == '/' ? v / r : v % r;
    }
}
static int64_t xsum(xparser *x) {
    int64_t v = xprod(x);
    for (;;) {
        xskip(x);
        char op = *x->p;
        if (x->bad || (op != '+' && op != '-')) return v;
        x->p++;
        int64_t r = xprod(x);
        if (x->bad) return 0;
        if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v)) return xovf(x);
    }
}

bool expr_size_eval(const char *expr, const expr_env *env, int64_t *out, char *err, size_t errn) {
    xparser x = {expr, env, err, errn, false, 0};
    int64_t v = xsum(&x);
    xskip(&x);
    if (!x.bad && *x.p) xfail(&x, "unexpected text");
    if (x.bad) return false;
    *out = v;
    return true;
}
