/* refs_elemfam_act.c — references of the activation families
 * (src/synth/family_elem_act.c): activation, bias_act, glu. */
#include "refs_elemfam.h"

#include <math.h>
#include <string.h>

bool task_ef_act(const char *id, double v, double a, double b, double *out) {
    double y;
    if (!strcmp(id, "leaky_relu")) y = v > 0 ? v : a * v;
    else if (!strcmp(id, "elu")) y = v > 0 ? v : a * expm1(v);
    else if (!strcmp(id, "selu")) y = 1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * expm1(v));
    else if (!strcmp(id, "celu")) y = fmax(v, 0) + fmin(0, a * expm1(v / a));
    /* GELU in forms without cancellation for negative v: 1 + erf(z) = erfc(-z), 0.5(1 + tanh u) = 1/(1 + e^(-2u)) */
    else if (!strcmp(id, "gelu_erf")) y = 0.5 * v * erfc(-v / sqrt(2.0));
    else if (!strcmp(id, "gelu_tanh")) y = v / (1 + exp(-1.5957691216057308 * (v + 0.044715 * v * v * v)));
    else if (!strcmp(id, "quick_gelu")) y = v / (1 + exp(-1.702 * v));
    else if (!strcmp(id, "silu")) y = v / (1 + exp(-v));
    else if (!strcmp(id, "swish")) y = v / (1 + exp(-a * v));
    else if (!strcmp(id, "mish")) y = v * tanh(v > 30 ? v : log1p(exp(v)));   /* softplus(v) == v in double past 30 */
    else if (!strcmp(id, "softplus")) y = a * v > b ? v : log1p(exp(a * v)) / a;
    else if (!strcmp(id, "hardswish")) y = v * fmin(fmax(v + 3, 0), 6) / 6;
    else if (!strcmp(id, "hardsigmoid")) y = fmin(fmax(v + 3, 0), 6) / 6;
    else if (!strcmp(id, "relu6")) y = fmin(fmax(v, 0), 6);
    else if (!strcmp(id, "relu")) y = fmax(v, 0);
    else if (!strcmp(id, "sigmoid")) y = 1 / (1 + exp(-v));
    else if (!strcmp(id, "tanh")) y = tanh(v);
    else if (!strcmp(id, "hardtanh")) y = fmin(fmax(v, a), b);
    else return false;
    *out = y;
    return true;
}

/* The activation's scalars named in family_params.scalars {a, b}. */
static void act_scalars(const task_inst *in, json_t *fp, double *a, double *b) {
    json_t *sc = json_object_get(fp, "scalars");
    const char *na = json_string_value(json_object_get(sc, "a")), *nb = json_string_value(json_object_get(sc, "b"));
    *a = na ? task_ef_scalar(in, na) : 0;
    *b = nb ? task_ef_scalar(in, nb) : 0;
}

static bool bad_act(const task_inst *in, const char *id) {
    pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.act: unknown activation '%s'", id);
    return false;
}

/* ---- activation: y[i] = act(x[i]) (y may be x: in place) */
pg_status task_ref_fam_elem_act(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    size_t n = (size_t)task_scalar_i(in, "n");
    ef_arr x, y;
    if (!task_ef_buf(in, task_ef_str(fp, "x"), n, &x) || !task_ef_buf(in, task_ef_str(fp, "y"), n, &y)) goto out;
    double a, b, v;
    act_scalars(in, fp, &a, &b);
    const char *id = task_ef_str(fp, "act");
    for (size_t i = 0; i < n; i++) {
        if (!task_ef_act(id, task_ef_get(x.t, x.p, i), a, b, &v)) { bad_act(in, id); goto out; }
        task_ef_set(y.t, y.p, i, v);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- bias_act: y[r][c] = [scale *] act(x[r][c] + bias[c or r]) [+ res[r][c]] */
pg_status task_ref_fam_elem_bias_act(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    size_t rows = (size_t)task_scalar_i(in, "rows"), cols = (size_t)task_scalar_i(in, "cols");
    bool per_row = !strcmp(task_ef_str(fp, "bias_per"), "row");
    const char *rn = json_string_value(json_object_get(fp, "res")), *sn = json_string_value(json_object_get(fp, "scale"));
    ef_arr x, bias, y, res = {0};
    if (!task_ef_buf(in, task_ef_str(fp, "x"), rows * cols, &x) || !task_ef_buf(in, task_ef_str(fp, "bias"), per_row ? rows : cols, &bias) ||
        !task_ef_buf(in, task_ef_str(fp, "y"), rows * cols, &y) || (rn && !task_ef_buf(in, rn, rows * cols, &res)))
        goto out;
    double a, b, scale = sn ? task_ef_scalar(in, sn) : 1, v;
    act_scalars(in, fp, &a, &b);
    const char *id = task_ef_str(fp, "act");
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c;
            /* the kernel adds in float: x + bias rounded once before the activation */
            double u = (double)(float)(task_ef_get(x.t, x.p, i) + task_ef_get(bias.t, bias.p, per_row ? r : c));
            if (!task_ef_act(id, u, a, b, &v)) { bad_act(in, id); goto out; }
            v *= scale;
            if (rn) v += task_ef_get(res.t, res.p, i);
            task_ef_set(y.t, y.p, i, v);
        }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- glu: fused out[r][j] = value * act(gate) from rows x 2H input, or split out[i] = act(gate[i]) * up[i] */
pg_status task_ref_fam_elem_glu(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *id = task_ef_str(fp, "act");
    double v;
    if (!strcmp(task_ef_str(fp, "layout"), "split")) {
        size_t n = (size_t)task_scalar_i(in, "n");
        ef_arr g, u, o;
        if (!task_ef_buf(in, task_ef_str(fp, "gate"), n, &g) || !task_ef_buf(in, task_ef_str(fp, "up"), n, &u) || !task_ef_buf(in, task_ef_str(fp, "out"), n, &o)) goto out;
        for (size_t i = 0; i < n; i++) {
            if (!task_ef_act(id, task_ef_get(g.t, g.p, i), 0, 0, &v)) { bad_act(in, id); goto out; }
            task_ef_set(o.t, o.p, i, v * task_ef_get(u.t, u.p, i));
        }
    } else {
        size_t rows = (size_t)task_scalar_i(in, "rows"), H = (size_t)task_scalar_i(in, "H");
        bool gf = task_ef_bool(fp, "gate_first");
        ef_arr x, o;
        if (!task_ef_buf(in, task_ef_str(fp, "in"), rows * 2 * H, &x) || !task_ef_buf(in, task_ef_str(fp, "out"), rows * H, &o)) goto out;
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < H; j++) {
                double gt = task_ef_get(x.t, x.p, r * 2 * H + (gf ? j : H + j)), val = task_ef_get(x.t, x.p, r * 2 * H + (gf ? H + j : j));
                if (!task_ef_act(id, gt, 0, 0, &v)) { bad_act(in, id); goto out; }
                task_ef_set(o.t, o.p, r * H + j, val * v);
            }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
