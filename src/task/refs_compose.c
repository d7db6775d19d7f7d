/* refs_compose.c — C references of the task-only compositions (src/synth/taskonly.c):
 * curriculum building blocks combined into tasks that come without a PTX
 * solution, for the model to solve by search (expert iteration, issue 16).
 *
 *   expr_rowreduce   out[r] = R over c < cols of f(a[r*cols+c], b[...], ...)
 *                    with f the spec's "expr" tree (prefix notation, as the
 *                    expr family: inputs a..d, scalars alpha, beta) and R its
 *                    "reduce": sum, mean, max or min.  f is evaluated in double
 *                    by the expression interpreter, reduced in double and
 *                    rounded once to f32.
 *   expr_rowop       out[r][c] = g(f(r, c), row r) with its "rowop": center
 *                    (f minus the row's mean of f), submax (f minus the row's
 *                    max of f) or l1norm (f / (1 + sum over the row of |f|)):
 *                    a fused row operation, two passes over each row. */
#include "ptxgen/expr.h"
#include "ptxgen/task.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int pindex(const task_spec *t, const char *name) {
    for (int i = 0; i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

static pg_status bad(task_inst *in, pg_status st, const char *msg, const char *arg) {
    pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, msg, arg);
    return st;
}

/* A size variable, or -1 when the spec has none by that name (task_var aborts). */
static int64_t var_or_none(const task_inst *in, const char *name) {
    for (int i = 0; i < in->env.n; i++)
        if (!strcmp(in->env.name[i], name)) return in->env.val[i];
    return -1;
}

/* What both references read: the spec's tree and `field` (the op name, kept in
 * root), the [rows][cols] inputs, the scalars and the output. */
typedef struct {
    json_t *root;
    expr_tree *e;
    const char *op;
    const float *ins[EXPR_MAX_INPUTS];   /* [rows][cols] each, NULL when unused */
    double sc[EXPR_MAX_SCALARS];
    int64_t rows, cols;
    float *out;
} compose;

static void compose_close(compose *c) {
    expr_free(c->e);
    json_decref(c->root);
}

/* per_element: 'out' is [rows][cols] (else [rows]). */
static pg_status compose_open(task_inst *in, const char *field, bool per_element, compose *c) {
    memset(c, 0, sizeof *c);
    const task_spec *t = in->spec;
    json_error_t jerr;
    c->root = json_load_file(t->path, 0, &jerr);
    if (!c->root) return bad(in, PG_ERR_IO, "%s", jerr.text);
    const char *ex = json_string_value(json_object_get(c->root, "expr"));
    c->op = json_string_value(json_object_get(c->root, field));
    char err[160] = "";
    if (!ex) return bad(in, PG_ERR_INVALID, "$.expr: missing string (prefix expression)%s", "");
    if (!(c->e = expr_parse(ex, err, sizeof err))) return bad(in, PG_ERR_INVALID, "$.expr: %s", err);
    if (!c->op) return bad(in, PG_ERR_INVALID, "$.%s: missing string", field);
    int po = pindex(t, "out");
    if (po < 0 || !t->params[po].is_pointer || t->params[po].dtype != TASK_T_F32)
        return bad(in, PG_ERR_INVALID, "%s needs an f32* parameter 'out'", t->ref.name);
    c->rows = var_or_none(in, "rows");
    c->cols = var_or_none(in, "cols");
    if (c->rows < 0 || c->cols < 1 || in->args[po].count < (size_t)c->rows * (per_element ? (size_t)c->cols : 1))
        return bad(in, PG_ERR_INVALID, per_element ? "%s: needs size variables rows >= 0, cols >= 1 and an 'out' of rows*cols elements"
                                                   : "%s: needs size variables rows >= 0, cols >= 1 and an 'out' of rows elements", t->ref.name);
    c->out = in->args[po].data;
    unsigned used = expr_inputs_used(c->e);
    for (int k = 0; k < EXPR_MAX_INPUTS; k++) {
        if (!(used & (1u << k))) continue;
        char nm[2] = {(char)('a' + k), 0};
        int pi = pindex(t, nm);
        if (pi < 0 || !t->params[pi].is_pointer || t->params[pi].dtype != TASK_T_F32 || in->args[pi].count < (size_t)(c->rows * c->cols))
            return bad(in, PG_ERR_INVALID, "the expression uses '%s' but there is no f32* input of rows*cols elements by that name", nm);
        c->ins[k] = in->args[pi].data;
    }
    unsigned sused = expr_scalars_used(c->e);
    for (int k = 0; k < EXPR_MAX_SCALARS; k++) {
        if (!(sused & (1u << k))) continue;
        int pi = pindex(t, expr_scalar_name(k));
        if (pi < 0 || t->params[pi].is_pointer || t->params[pi].dtype != TASK_T_F32)
            return bad(in, PG_ERR_INVALID, "the expression uses '%s' but there is no f32 scalar parameter by that name", expr_scalar_name(k));
        c->sc[k] = (double)(float)in->args[pi].scalar.f;   /* the value the kernel gets */
    }
    return PG_OK;
}

/* f at (r, col), in double. */
static double compose_f(const compose *c, int64_t r, int64_t col) {
    double v[EXPR_MAX_INPUTS] = {0};
    for (int k = 0; k < EXPR_MAX_INPUTS; k++)
        if (c->ins[k]) v[k] = c->ins[k][r * c->cols + col];
    return expr_eval(c->e, v, c->sc);
}

pg_status task_ref_expr_rowreduce(task_inst *in) {
    compose c;
    pg_status st = compose_open(in, "reduce", false, &c);
    static const char *const OPS[] = {"sum", "mean", "max", "min"};
    int op = -1;
    for (int i = 0; st == PG_OK && i < 4; i++)
        if (!strcmp(c.op, OPS[i])) op = i;
    if (st == PG_OK && op < 0) st = bad(in, PG_ERR_INVALID, "$.reduce: want sum, mean, max or min, not '%s'", c.op);
    for (int64_t r = 0; st == PG_OK && r < c.rows; r++) {
        double acc = op == 2 ? -INFINITY : op == 3 ? INFINITY : 0;
        for (int64_t col = 0; col < c.cols; col++) {
            double f = compose_f(&c, r, col);
            if (op <= 1) acc += f;
            else if (op == 2) acc = f > acc ? f : acc;
            else acc = f < acc ? f : acc;
        }
        c.out[r] = (float)(op == 1 ? acc / (double)c.cols : acc);   /* out: [rows] */
    }
    compose_close(&c);
    return st;
}

pg_status task_ref_expr_rowop(task_inst *in) {
    compose c;
    pg_status st = compose_open(in, "rowop", true, &c);
    static const char *const OPS[] = {"center", "submax", "l1norm"};
    int op = -1;
    for (int i = 0; st == PG_OK && i < 3; i++)
        if (!strcmp(c.op, OPS[i])) op = i;
    if (st == PG_OK && op < 0) st = bad(in, PG_ERR_INVALID, "$.rowop: want center, submax or l1norm, not '%s'", c.op);
    for (int64_t r = 0; st == PG_OK && r < c.rows; r++) {
        double stat = op == 1 ? -INFINITY : 0;   /* the row statistic: sum of f, max of f, or sum of |f| */
        for (int64_t col = 0; col < c.cols; col++) {
            double f = compose_f(&c, r, col);
            stat = op == 0 ? stat + f : op == 1 ? (f > stat ? f : stat) : stat + fabs(f);
        }
        if (op == 0) stat /= (double)c.cols;
        for (int64_t col = 0; col < c.cols; col++) {   /* out: [rows][cols] */
            double f = compose_f(&c, r, col);
            c.out[r * c.cols + col] = (float)(op == 2 ? f / (1.0 + stat) : f - stat);
        }
    }
    compose_close(&c);
    return st;
}
