/* refs_rowwise.c — C references of the row-wise normalization families
 * (src/synth/family_rowwise.c: softmax, rownorm) and the helpers of
 * refs_rowwise.h shared by refs_rowwise_*.c. */
#include "refs_rowwise.h"
#include "refs_params.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------------- */
pg_status task_ref_rw_bad(task_inst *in, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pg_diag_vemit(in->diag, PG_E_TASK, in->spec->path, 0, 0, fmt, ap);
    va_end(ap);
    return PG_ERR_INVALID;
}

json_t *task_ref_rw_fparams(task_inst *in, json_t **root) {
    return task_ref_family_params(in, root);
}
const char *task_ref_rw_str(json_t *fp, const char *key, const char *dflt) {
    const char *s = json_string_value(json_object_get(fp, key));
    return s ? s : dflt;
}
bool task_ref_rw_bool(json_t *fp, const char *key) { return json_is_true(json_object_get(fp, key)); }
int64_t task_ref_rw_int(json_t *fp, const char *key, int64_t dflt) {
    json_t *v = json_object_get(fp, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

int task_ref_rw_pidx(const task_spec *t, const char *name) {
    for (int i = 0; name && i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

void *task_ref_rw_buf(task_inst *in, const char *name, bool want_float, task_dtype *t, size_t *count) {
    int i = task_ref_rw_pidx(in->spec, name);
    if (i < 0 || !in->spec->params[i].is_pointer || (want_float && !task_dtype_is_float(in->spec->params[i].dtype))) {
        task_ref_rw_bad(in, "needs a %s pointer parameter '%s'", want_float ? "float" : "", name ? name : "(null)");
        return NULL;
    }
    *t = in->spec->params[i].dtype;
    *count = in->args[i].count;
    return in->args[i].data;
}

double task_ref_rw_getf(task_dtype t, const void *p, size_t i) {
    switch (t) {
    case TASK_T_F32: return (double)((const float *)p)[i];
    case TASK_T_F64: return ((const double *)p)[i];
    case TASK_T_F16: return (double)task_f16_to_f32(((const uint16_t *)p)[i]);
    case TASK_T_BF16: return (double)task_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return (double)task_ref_rw_geti(t, p, i);
    }
}
void task_ref_rw_setf(task_dtype t, void *p, size_t i, double v) {
    switch (t) {
    case TASK_T_F32: ((float *)p)[i] = (float)v; break;
    case TASK_T_F64: ((double *)p)[i] = v; break;
    case TASK_T_F16: ((uint16_t *)p)[i] = task_f32_to_f16((float)v); break;
    case TASK_T_BF16: ((uint16_t *)p)[i] = task_f32_to_bf16((float)v); break;
    default: task_ref_rw_seti(t, p, i, (int64_t)v); break;
    }
}
int64_t task_ref_rw_geti(task_dtype t, const void *p, size_t i) {
    switch (t) {
    case TASK_T_S8: return ((const int8_t *)p)[i];
    case TASK_T_U8: return ((const uint8_t *)p)[i];
    case TASK_T_S16: return ((const int16_t *)p)[i];
    case TASK_T_U16: return ((const uint16_t *)p)[i];
    case TASK_T_S32: return ((const int32_t *)p)[i];
    case TASK_T_U32: return ((const uint32_t *)p)[i];
    case TASK_T_S64: return ((const int64_t *)p)[i];
    case TASK_T_U64: return (int64_t)((const uint64_t *)p)[i];
    case TASK_T_F32: return (int64_t)((const float *)p)[i];
    case TASK_T_F64: return (int64_t)((const double *)p)[i];
    default: return 0;
    }
}
void task_ref_rw_seti(task_dtype t, void *p, size_t i, int64_t v) {
    switch (t) {
    case TASK_T_S8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TASK_T_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TASK_T_S16: ((int16_t *)p)[i] = (int16_t)v; break;
    case TASK_T_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case TASK_T_S32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(uint64_t)v; break;   /* wraps like the GPU */
    case TASK_T_U32: ((uint32_t *)p)[i] = (uint32_t)(uint64_t)v; break;
    case TASK_T_S64: ((int64_t *)p)[i] = v; break;
    case TASK_T_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    default: task_ref_rw_setf(t, p, i, (double)v); break;
    }
}

double task_ref_rw_fscalar(const task_inst *in, const char *name, double dflt) {
    int i = task_ref_rw_pidx(in->spec, name);
    if (i < 0 || in->spec->params[i].is_pointer) return dflt;
    double v = task_scalar_f(in, name);
    return in->spec->params[i].dtype == TASK_T_F64 ? v : (double)(float)v;
}
size_t task_ref_rw_size(const task_inst *in, const char *name) {
    int64_t v = task_scalar_i(in, name);
    return v > 0 ? (size_t)v : 0;
}

/* ---- softmax ------------------------------------------------------------------------ *
 * family_params: op, log (write log-probabilities), x / y (parameter names;
 * equal when in place), mask "none" | "keep" (u8 mask, nonzero keeps) |
 * "drop" (nonzero masks out) | "causal" (column > row masked).  Values are
 * x*scale when the spec has a "scale" scalar.  Masked entries and fully
 * masked rows are 0. */
pg_status task_ref_fam_softmax(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *mk = task_ref_rw_str(fp, "mask", "none");
    bool lg = task_ref_rw_bool(fp, "log");
    int mkind = !strcmp(mk, "none") ? 0 : !strcmp(mk, "keep") ? 1 : !strcmp(mk, "drop") ? 2 : !strcmp(mk, "causal") ? 3 : -1;
    if (mkind < 0) { st = task_ref_rw_bad(in, "$.family_params.mask: unknown '%s' (none, keep, drop, causal)", mk); goto out; }
    task_dtype tx, ty, tm = TASK_T_NONE;
    size_t nx, ny, nm = 0;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), true, &tx, &nx);
    void *y = task_ref_rw_buf(in, task_ref_rw_str(fp, "y", "y"), true, &ty, &ny);
    const void *mask = mkind == 1 || mkind == 2 ? task_ref_rw_buf(in, "mask", false, &tm, &nm) : NULL;
    size_t rows = task_ref_rw_size(in, "rows"), cols = task_ref_rw_size(in, "cols");
    if (!x || !y || ((mkind == 1 || mkind == 2) && !mask)) goto out;
    if (nx < rows * cols || ny < rows * cols || (mask && nm < rows * cols)) { st = task_ref_rw_bad(in, "softmax: buffers smaller than rows*cols"); goto out; }
    double scale = task_ref_rw_fscalar(in, "scale", 1.0);
    for (size_t r = 0; r < rows; r++) {
        size_t o = r * cols;
        double m = -INFINITY;
#define KEPT(c) (mkind == 0 || (mkind == 1 && task_ref_rw_geti(tm, mask, o + (c)) != 0) || (mkind == 2 && task_ref_rw_geti(tm, mask, o + (c)) == 0) || \
                 (mkind == 3 && (c) <= r))
        for (size_t c = 0; c < cols; c++)
            if (KEPT(c)) m = fmax(m, task_ref_rw_getf(tx, x, o + c) * scale);
        long double sum = 0;
        for (size_t c = 0; c < cols; c++)
            if (KEPT(c)) sum += exp(task_ref_rw_getf(tx, x, o + c) * scale - m);
        double lse = m + log((double)sum);
        for (size_t c = 0; c < cols; c++) {
            double v = task_ref_rw_getf(tx, x, o + c) * scale;
            double res = !KEPT(c) ? 0.0 : lg ? v - lse : exp(v - m) / (double)sum;
            task_ref_rw_setf(ty, y, o + c, res);
        }
#undef KEPT
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- rownorm ------------------------------------------------------------------------ *
 * family_params: op layernorm | rmsnorm | l2norm, x / y (names; equal when in
 * place), eps (the scalar's name), affine (layernorm: 0 none, 1 * weight,
 * 2 * weight + bias; rmsnorm: 0 none, 1 * weight, 2 * (1 + weight)), weight
 * / bias names, l2add (l2norm: / sqrt(sumsq + eps) instead of
 * / max(norm, eps)), mean / rstd (optional per-row outputs of layernorm). */
pg_status task_ref_fam_rownorm(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_ref_rw_str(fp, "op", "");
    int kind = !strcmp(op, "layernorm") ? 0 : !strcmp(op, "rmsnorm") ? 1 : !strcmp(op, "l2norm") ? 2 : -1;
    if (kind < 0) { st = task_ref_rw_bad(in, "$.family_params.op: unknown '%s' (layernorm, rmsnorm, l2norm)", op); goto out; }
    int affine = (int)task_ref_rw_int(fp, "affine", 0);
    bool l2add = task_ref_rw_bool(fp, "l2add");
    task_dtype tx, ty, tw = TASK_T_NONE, tb = TASK_T_NONE, tm = TASK_T_NONE, ts = TASK_T_NONE;
    size_t nx, ny, nw = 0, nb = 0, nm = 0, ns = 0;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), true, &tx, &nx);
    void *y = task_ref_rw_buf(in, task_ref_rw_str(fp, "y", "y"), true, &ty, &ny);
    const void *w = affine ? task_ref_rw_buf(in, task_ref_rw_str(fp, "weight", "w"), true, &tw, &nw) : NULL;
    const void *b = kind == 0 && affine == 2 ? task_ref_rw_buf(in, task_ref_rw_str(fp, "bias", "b"), true, &tb, &nb) : NULL;
    const char *mn = task_ref_rw_str(fp, "mean", NULL), *rn = task_ref_rw_str(fp, "rstd", NULL);
    void *mo = mn ? task_ref_rw_buf(in, mn, true, &tm, &nm) : NULL, *ro = rn ? task_ref_rw_buf(in, rn, true, &ts, &ns) : NULL;
    size_t rows = task_ref_rw_size(in, "rows"), cols = task_ref_rw_size(in, "cols");
    if (!x || !y || (affine && !w) || (kind == 0 && affine == 2 && !b) || (mn && !mo) || (rn && !ro)) goto out;
    if (nx < rows * cols || ny < rows * cols || (w && nw < cols) || (b && nb < cols) || (mo && nm < rows) || (ro && ns < rows)) {
        st = task_ref_rw_bad(in, "rownorm: buffers smaller than rows*cols / cols / rows");
        goto out;
    }
    double eps = task_ref_rw_fscalar(in, task_ref_rw_str(fp, "eps", "eps"), 0.0);
    for (size_t r = 0; r < rows; r++) {
        size_t o = r * cols;
        long double s1 = 0, s2 = 0;
        for (size_t c = 0; c < cols; c++) s1 += task_ref_rw_getf(tx, x, o + c);
        double mean = cols ? (double)(s1 / (long double)cols) : 0.0;
        for (size_t c = 0; c < cols; c++) {
            long double v = task_ref_rw_getf(tx, x, o + c) - (kind == 0 ? mean : 0.0);
            s2 += v * v;
        }
        double scale;   /* what multiplies (x - mean) or x */
        if (kind == 0) scale = 1.0 / sqrt((double)(s2 / (long double)cols) + eps);
        else if (kind == 1) scale = 1.0 / sqrt((double)(s2 / (long double)cols) + eps);
        else scale = l2add ? 1.0 / sqrt((double)s2 + eps) : 1.0 / fmax(sqrt((double)s2), eps);
        if (mo) task_ref_rw_setf(tm, mo, r, mean);
        if (ro) task_ref_rw_setf(ts, ro, r, scale);
        for (size_t c = 0; c < cols; c++) {
            double v = (task_ref_rw_getf(tx, x, o + c) - (kind == 0 ? mean : 0.0)) * scale;
            if (affine == 1) v *= task_ref_rw_getf(tw, w, c);
            else if (affine == 2 && kind == 0) v = v * task_ref_rw_getf(tw, w, c) + task_ref_rw_getf(tb, b, c);
            else if (affine == 2) v *= 1.0 + task_ref_rw_getf(tw, w, c);
            task_ref_rw_setf(ty, y, o + c, v);
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
