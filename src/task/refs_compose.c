/* refs_compose.c — C references of the task-only compositions (src/synth/taskonly.c):
 * curriculum building blocks combined into tasks that come without a PTX
 * solution, for the model to solve by search (expert iteration, issue 16).
 *
 *   expr_rowreduce   out[r] = R over c < cols of f(a[r*cols+c], b[...], ...)
 *                    with f the spec's "expr" tree (prefix notation, as the
 *                    expr family: inputs a..d, scalars alpha, beta) and R its
 *                    "reduce": sum, mean, max or min.  f is evaluated in double
 *                    by the expression interpreter, reduced in double and
 *                    rounded once to f32. */
#include "ptxgen/synth_expr.h"
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

pg_status ref_expr_rowreduce(task_inst *in) {
    const task_spec *t = in->spec;
    json_error_t jerr;
    json_t *root = json_load_file(t->path, 0, &jerr);
    if (!root) return bad(in, PG_ERR_IO, "%s", jerr.text);
    const char *ex = json_string_value(json_object_get(root, "expr"));
    const char *rd = json_string_value(json_object_get(root, "reduce"));
    static const char *const OPS[] = {"sum", "mean", "max", "min"};
    int op = -1;
    for (int i = 0; rd && i < 4; i++)
        if (!strcmp(rd, OPS[i])) op = i;
    char err[160] = "";
    synth_expr *e = ex ? synth_expr_parse(ex, err, sizeof err) : NULL;
    pg_status st = PG_OK;   /* root stays alive to the end: ex and rd point into it */
    if (!ex) { st = bad(in, PG_ERR_INVALID, "$.expr: missing string (prefix expression)%s", ""); goto out; }
    if (!e) { st = bad(in, PG_ERR_INVALID, "$.expr: %s", err); goto out; }
    if (op < 0) { st = bad(in, PG_ERR_INVALID, "$.reduce: want sum, mean, max or min, not '%s'", rd ? rd : "(missing)"); goto out; }
    int po = pindex(t, "out");
    if (po < 0 || !t->params[po].is_pointer || t->params[po].dtype != TASK_T_F32) {
        st = bad(in, PG_ERR_INVALID, "expr_rowreduce needs an f32* parameter 'out'%s", "");
        goto out;
    }
    int64_t rows = var_or_none(in, "rows"), cols = var_or_none(in, "cols");
    if (rows < 0 || cols < 1 || in->args[po].count < (size_t)rows) {
        st = bad(in, PG_ERR_INVALID, "expr_rowreduce: needs size variables rows >= 0, cols >= 1 and an 'out' of rows elements%s", "");
        goto out;
    }
    const float *ins[SYNTH_EXPR_MAX_INPUTS] = {0};   /* [rows][cols] each */
    unsigned used = synth_expr_inputs_used(e);
    for (int k = 0; k < SYNTH_EXPR_MAX_INPUTS; k++) {
        if (!(used & (1u << k))) continue;
        char nm[2] = {(char)('a' + k), 0};
        int pi = pindex(t, nm);
        if (pi < 0 || !t->params[pi].is_pointer || t->params[pi].dtype != TASK_T_F32 || in->args[pi].count < (size_t)(rows * cols)) {
            st = bad(in, PG_ERR_INVALID, "the expression uses '%s' but there is no f32* input of rows*cols elements by that name", nm);
            goto out;
        }
        ins[k] = in->args[pi].data;
    }
    double sc[SYNTH_EXPR_MAX_SCALARS] = {0};
    unsigned sused = synth_expr_scalars_used(e);
    for (int k = 0; k < SYNTH_EXPR_MAX_SCALARS; k++) {
        if (!(sused & (1u << k))) continue;
        int pi = pindex(t, synth_expr_scalar_name(k));
        if (pi < 0 || t->params[pi].is_pointer || t->params[pi].dtype != TASK_T_F32) {
            st = bad(in, PG_ERR_INVALID, "the expression uses '%s' but there is no f32 scalar parameter by that name", synth_expr_scalar_name(k));
            goto out;
        }
        sc[k] = (double)(float)in->args[pi].scalar.f;   /* the value the kernel gets */
    }
    float *o = in->args[po].data;   /* [rows] */
    for (int64_t r = 0; r < rows; r++) {
        double acc = op == 2 ? -INFINITY : op == 3 ? INFINITY : 0;
        for (int64_t c = 0; c < cols; c++) {
            double v[SYNTH_EXPR_MAX_INPUTS] = {0};
            for (int k = 0; k < SYNTH_EXPR_MAX_INPUTS; k++)
                if (ins[k]) v[k] = ins[k][r * cols + c];
            double f = synth_expr_eval(e, v, sc);
            if (op <= 1) acc += f;
            else if (op == 2) acc = f > acc ? f : acc;
            else acc = f < acc ? f : acc;
        }
        o[r] = (float)(op == 1 ? acc / (double)cols : acc);
    }
out:
    synth_expr_free(e);
    json_decref(root);
    return st;
}
