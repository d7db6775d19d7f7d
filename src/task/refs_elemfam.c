/* refs_elemfam.c — C references of the elementwise curriculum families
 * (src/synth/family_elem*.c): optimizer steps.  Like refs_family.c, each
 * reference re-reads the spec's "family_params" (which task_load() does not
 * keep) from in->spec->path; element types come from the loaded params, so
 * one reference serves every dtype.  Math is in double from the values the
 * kernel sees (f32 scalars rounded to float), rounded once to the output. */
#include "refs_elemfam.h"
#include "refs_params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers (shared with refs_elemfam_*.c through refs_elemfam.h) ---------------- */
json_t *task_ef_params(const task_inst *in, json_t **root) {
    return task_ref_family_params(in, root);
}
const char *task_ef_str(json_t *obj, const char *k) {
    const char *s = json_string_value(json_object_get(obj, k));
    return s ? s : "";
}
int64_t task_ef_int(json_t *obj, const char *k, int64_t dflt) {
    json_t *v = json_object_get(obj, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}
bool task_ef_bool(json_t *obj, const char *k) { return json_is_true(json_object_get(obj, k)); }

int task_ef_pidx(const task_spec *t, const char *name) {
    for (int i = 0; name && i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

double task_ef_get(task_dtype t, const void *p, size_t i) {
    switch (t) {
    case TASK_T_F32: return (double)((const float *)p)[i];
    case TASK_T_F64: return ((const double *)p)[i];
    case TASK_T_F16: return (double)task_f16_to_f32(((const uint16_t *)p)[i]);
    case TASK_T_BF16: return (double)task_bf16_to_f32(((const uint16_t *)p)[i]);
    case TASK_T_S8: return ((const int8_t *)p)[i];
    case TASK_T_U8: return ((const uint8_t *)p)[i];
    case TASK_T_S16: return ((const int16_t *)p)[i];
    case TASK_T_U16: return ((const uint16_t *)p)[i];
    case TASK_T_S32: return ((const int32_t *)p)[i];
    case TASK_T_U32: return ((const uint32_t *)p)[i];
    case TASK_T_S64: return (double)((const int64_t *)p)[i];
    case TASK_T_U64: return (double)((const uint64_t *)p)[i];
    default: return NAN;
    }
}

/* Integers: v is already integral and inside the type's range (callers clamp). */
void task_ef_set(task_dtype t, void *p, size_t i, double v) {
    switch (t) {
    case TASK_T_F32: ((float *)p)[i] = (float)v; break;
    case TASK_T_F64: ((double *)p)[i] = v; break;
    case TASK_T_F16: ((uint16_t *)p)[i] = task_f32_to_f16((float)v); break;
    case TASK_T_BF16: ((uint16_t *)p)[i] = task_f32_to_bf16((float)v); break;
    case TASK_T_S8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TASK_T_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TASK_T_S16: ((int16_t *)p)[i] = (int16_t)v; break;
    case TASK_T_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case TASK_T_S32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TASK_T_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case TASK_T_S64: ((int64_t *)p)[i] = (int64_t)v; break;
    case TASK_T_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    default: break;
    }
}

bool task_ef_buf(task_inst *in, const char *name, size_t need, ef_arr *a) {
    int i = task_ef_pidx(in->spec, name);
    memset(a, 0, sizeof *a);
    if (i < 0 || !in->spec->params[i].is_pointer) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "needs a pointer parameter '%s'", name ? name : "(null)");
        return false;
    }
    if (in->args[i].count < need) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "parameter '%s' has %zu elements, the computation needs %zu", name,
                     in->args[i].count, need);
        return false;
    }
    a->t = in->spec->params[i].dtype;
    a->p = in->args[i].data;
    a->n = in->args[i].count;
    return true;
}

double task_ef_scalar(const task_inst *in, const char *name) {
    int i = task_ef_pidx(in->spec, name);
    if (i < 0) return NAN;
    double v = task_scalar_f(in, name);
    task_dtype t = in->spec->params[i].dtype;
    if (t == TASK_T_F32) return (double)(float)v;
    if (!task_dtype_is_float(t)) return (double)task_scalar_i(in, name);
    return v;
}

/* ---- optimizer ------------------------------------------------------------------------ *
 * family_params: op, clip (none/value/norm/scale), decay (coupled L2), bias
 * (none/scalars/step/torch), arrays {w, g, s1, s2} and scalars {lr, ...}:
 * the task's names of each role. */
pg_status task_ref_fam_elem_optim(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    json_t *an = json_object_get(fp, "arrays"), *sn = json_object_get(fp, "scalars");
    const char *op = task_ef_str(fp, "op"), *clip = task_ef_str(fp, "clip"), *bias = task_ef_str(fp, "bias");
    bool decay = task_ef_bool(fp, "decay");
    int o = !strcmp(op, "sgd") ? 0 : !strcmp(op, "momentum") ? 1 : !strcmp(op, "nesterov") ? 2 : !strcmp(op, "adam") ? 3 : !strcmp(op, "adamw") ? 4
          : !strcmp(op, "adagrad") ? 5 : !strcmp(op, "rmsprop") ? 6 : -1;
    if (o < 0) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown optimizer '%s'", op);
        goto out;
    }
    size_t n = (size_t)task_scalar_i(in, "n");
    ef_arr w, g, s1 = {0}, s2 = {0};
    bool adam = o == 3 || o == 4;
    if (!task_ef_buf(in, task_ef_str(an, "w"), n, &w) || !task_ef_buf(in, task_ef_str(an, "g"), n, &g)) goto out;
    if (o != 0 && !task_ef_buf(in, task_ef_str(an, "s1"), n, &s1)) goto out;
    if (adam && !task_ef_buf(in, task_ef_str(an, "s2"), n, &s2)) goto out;
#define S(k) task_ef_scalar(in, task_ef_str(sn, k))
    double lr = S("lr"), wd = decay || o == 4 ? S("wd") : 0, mu = o == 1 || o == 2 ? S("mu") : 0, rho = o == 6 ? S("rho") : 0;
    double b1 = adam ? S("beta1") : 0, b2 = adam ? S("beta2") : 0, eps = adam || o >= 5 ? S("eps") : 0;
    double cmax = !strcmp(clip, "value") ? S("clip") : 0, coef = 1, scale = !strcmp(clip, "scale") ? S("scale") : 1;
    if (!strcmp(clip, "norm")) coef = fmin(1.0, S("max_norm") / (S("gnorm") + 1e-6));
    double c1 = 1, c2 = 1, bc1 = 1, bc2 = 1;
    if (adam && !strcmp(bias, "scalars")) { c1 = S("c1"); c2 = S("c2"); }
    if (adam && (!strcmp(bias, "step") || !strcmp(bias, "torch"))) {
        double t = S("step");
        bc1 = 1 - pow(b1, t);
        bc2 = 1 - pow(b2, t);
    }
#undef S
    if (isnan(lr) || isnan(wd) || isnan(mu) || isnan(rho) || isnan(b1) || isnan(b2) || isnan(eps) || isnan(cmax) || isnan(coef) || isnan(scale) ||
        isnan(c1) || isnan(c2) || isnan(bc1) || isnan(bc2)) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "fam_elem_optim: a scalar named in $.family_params.scalars is missing");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        double wv = task_ef_get(w.t, w.p, i), gr = task_ef_get(g.t, g.p, i), a = s1.p ? task_ef_get(s1.t, s1.p, i) : 0, b = s2.p ? task_ef_get(s2.t, s2.p, i) : 0;
        if (cmax) gr = fmin(fmax(gr, -cmax), cmax);
        gr *= coef * scale;
        if (decay) gr += wd * wv;
        switch (o) {
        case 0: wv -= lr * gr; break;
        case 1: a = mu * a + gr; wv -= lr * a; break;
        case 2: a = mu * a + gr; wv -= lr * (gr + mu * a); break;
        case 5: a += gr * gr; wv -= lr * gr / (sqrt(a) + eps); break;
        case 6: a = rho * a + (1 - rho) * gr * gr; wv -= lr * gr / (sqrt(a) + eps); break;
        default:
            if (o == 4) wv *= 1 - lr * wd;
            a = b1 * a + (1 - b1) * gr;
            b = b2 * b + (1 - b2) * gr * gr;
            if (!strcmp(bias, "torch")) wv -= (lr / bc1) * a / (sqrt(b) / sqrt(bc2) + eps);
            else wv -= lr * (a * c1 / bc1) / (sqrt(b * c2 / bc2) + eps);
            break;
        }
        task_ef_set(w.t, w.p, i, wv);
        if (s1.p) task_ef_set(s1.t, s1.p, i, a);
        if (s2.p) task_ef_set(s2.t, s2.p, i, b);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
