/* refs_family.c — C references of the parametric synthesis families
 * (src/synth/family*.c, ptxgen/synth_family.h).
 *
 * The family-specific facts (operator, radius, coefficients, tile, ...) are
 * in the spec's top-level "family_params" object, which task_load() does not
 * keep; like task_ref_expr_eval, each reference re-reads the spec at
 * in->spec->path (specs are small).  Element types come from the loaded
 * params, so one reference serves every dtype of a family.  Values are
 * computed in double and rounded once to the output type. */
#include "ptxgen/task.h"
#include "refs_params.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------- */
json_t *task_ref_family_params(const task_inst *in, json_t **root) {
    json_error_t jerr;
    *root = json_load_file(in->spec->path, 0, &jerr);
    if (!*root) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "%s", jerr.text);
        return NULL;
    }
    json_t *fp = json_object_get(*root, "family_params");
    if (!json_is_object(fp)) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params: missing object (parameters of the synthesis family)");
        return NULL;
    }
    return fp;
}
static const char *fp_str(json_t *fp, const char *k) {
    const char *s = json_string_value(json_object_get(fp, k));
    return s ? s : "";
}
static int64_t fp_int(json_t *fp, const char *k, int64_t dflt) {
    json_t *v = json_object_get(fp, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static int pidx(const task_spec *t, const char *name) {
    for (int i = 0; i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

/* Element i of a float buffer of type t, as double. */
static double getv(task_dtype t, const void *p, size_t i) {
    switch (t) {
    case TASK_T_F32: return (double)((const float *)p)[i];
    case TASK_T_F64: return ((const double *)p)[i];
    case TASK_T_F16: return (double)task_f16_to_f32(((const uint16_t *)p)[i]);
    case TASK_T_BF16: return (double)task_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return NAN;
    }
}
static void setv(task_dtype t, void *p, size_t i, double v) {
    switch (t) {
    case TASK_T_F32: ((float *)p)[i] = (float)v; break;
    case TASK_T_F64: ((double *)p)[i] = v; break;
    case TASK_T_F16: ((uint16_t *)p)[i] = task_f32_to_f16((float)v); break;
    case TASK_T_BF16: ((uint16_t *)p)[i] = task_f32_to_bf16((float)v); break;
    default: break;
    }
}

/* A float buffer param: data, dtype, count; NULL when missing/not float. */
static void *fbuf(task_inst *in, const char *name, task_dtype *t, size_t *count) {
    int i = pidx(in->spec, name);
    if (i < 0 || !in->spec->params[i].is_pointer || !task_dtype_is_float(in->spec->params[i].dtype)) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "needs a float pointer parameter '%s'", name);
        return NULL;
    }
    *t = in->spec->params[i].dtype;
    *count = in->args[i].count;
    return in->args[i].data;
}

/* A float scalar as the kernel sees it (f32 scalars are rounded to float). */
static double fscalar(const task_inst *in, const char *name) {
    int i = pidx(in->spec, name);
    double v = task_scalar_f(in, name);
    return i >= 0 && in->spec->params[i].dtype == TASK_T_F64 ? v : (double)(float)v;
}

/* ---- map ------------------------------------------------------------------------ */
pg_status task_ref_fam_map(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_family_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = fp_str(fp, "op");
    bool inplace = !strcmp(op, "axpy");
    bool two = inplace || !strcmp(op, "add") || !strcmp(op, "mul") || !strcmp(op, "axpby") || !strcmp(op, "absdiff");
    task_dtype tx, ty = TASK_T_NONE, to;
    size_t nx, ny = 0, no;
    const void *x = fbuf(in, "x", &tx, &nx);
    const void *y = two ? fbuf(in, "y", &ty, &ny) : NULL;
    void *o = fbuf(in, inplace ? "y" : "out", &to, &no);
    size_t n = (size_t)task_scalar_i(in, "n");
    if (!x || !o || (two && !y) || nx < n || no < n || (two && ny < n)) goto out;
    double a = 0, b = 0;
    if (!strcmp(op, "scale") || !strcmp(op, "axpy") || !strcmp(op, "axpby")) a = fscalar(in, "a");
    if (!strcmp(op, "axpby")) b = fscalar(in, "b");
    if (!strcmp(op, "clamp")) { a = fscalar(in, "lo"); b = fscalar(in, "hi"); }
    for (size_t i = 0; i < n; i++) {
        double xv = getv(tx, x, i), yv = two ? getv(ty, y, i) : 0, v;
        if (!strcmp(op, "scale")) v = a * xv;
        else if (!strcmp(op, "add")) v = xv + yv;
        else if (!strcmp(op, "mul")) v = xv * yv;
        else if (!strcmp(op, "axpy")) v = a * xv + yv;
        else if (!strcmp(op, "axpby")) v = a * xv + b * yv;
        else if (!strcmp(op, "relu")) v = xv > 0 ? xv : 0;
        else if (!strcmp(op, "clamp")) v = fmin(fmax(xv, a), b);
        else if (!strcmp(op, "absdiff")) v = fabs(xv - yv);
        else {
            pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown map op '%s'", op);
            goto out;
        }
        setv(to, o, i, v);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- reduce ---------------------------------------------------------------------- *
 * out[b] (b < G = grid) = OP over tiles b, b+G, b+2G, ... of `tile` elements
 * (one tile per block: G = cdiv(n,tile), so tile b only).  "atomic": out[0]
 * (inout, holding its input) += the sum of all n elements. */
pg_status task_ref_fam_reduce(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_family_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = fp_str(fp, "op");
    int64_t tile = fp_int(fp, "tile", 0);
    bool atomic = json_is_true(json_object_get(fp, "atomic"));
    task_dtype tx, to;
    size_t nx, no;
    const void *x = fbuf(in, "x", &tx, &nx);
    void *o = fbuf(in, "out", &to, &no);
    size_t n = (size_t)task_scalar_i(in, "n");
    int sum = !strcmp(op, "sum"), mx = !strcmp(op, "max"), mn = !strcmp(op, "min");
    if (!x || !o || nx < n || tile <= 0 || !(sum || mx || mn)) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "fam_reduce needs x, out, n, family_params.op sum/max/min and tile > 0");
        goto out;
    }
    if (atomic) {
        double acc = getv(to, o, 0);
        for (size_t i = 0; i < n; i++) acc += getv(tx, x, i);
        setv(to, o, 0, acc);
        st = PG_OK;
        goto out;
    }
    size_t G = in->grid[0];
    if (no < G) goto out;
    for (size_t b = 0; b < G; b++) {
        double acc = sum ? 0.0 : mx ? -INFINITY : INFINITY;
        for (size_t t0 = b * (size_t)tile; t0 < n; t0 += G * (size_t)tile) {
            size_t hi = t0 + (size_t)tile < n ? t0 + (size_t)tile : n;
            for (size_t i = t0; i < hi; i++) {
                double v = getv(tx, x, i);
                if (sum) acc += v;
                else if (mx) acc = v > acc ? v : acc;
                else acc = v < acc ? v : acc;
            }
        }
        setv(to, o, b, acc);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- stencils --------------------------------------------------------------------- *
 * family_params: "taps": [[dy, dx], ...] (1D: [[0,-R] ... [0,R]]), "coeffs":
 * [c...] (used when the spec has no scalar c0, c1, ...), "boundary":
 * "zero" (outside values are 0), "clamp" (indices clamped into the array)
 * or "copy" (out = x wherever the footprint leaves the array); optional
 * "tap_coeff": [j...], tap k's scalar is c<j> (symmetric stencils share one
 * parameter between the taps at the same distance), else c<k>. */
static pg_status stencil(task_inst *in, bool two_d) {
    json_t *root = NULL, *fp = task_ref_family_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    json_t *taps = json_object_get(fp, "taps"), *co = json_object_get(fp, "coeffs"), *tc = json_object_get(fp, "tap_coeff");
    const char *bnd = fp_str(fp, "boundary");
    size_t nt = json_array_size(taps);
    if (!nt || nt > 64 || json_array_size(co) != nt) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params: taps and coeffs must be arrays of the same length (1..64)");
        goto out;
    }
    if (tc && json_array_size(tc) != nt) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.tap_coeff: must have one entry per tap (%zu)", nt);
        goto out;
    }
    int dy[64], dx[64];
    double c[64];
    for (size_t k = 0; k < nt; k++) {
        json_t *tp = json_array_get(taps, k);
        dy[k] = (int)json_integer_value(json_array_get(tp, 0));
        dx[k] = (int)json_integer_value(json_array_get(tp, 1));
        char nm[16];
        if (tc) snprintf(nm, sizeof nm, "c%d", (int)json_integer_value(json_array_get(tc, k)));
        else snprintf(nm, sizeof nm, "c%zu", k);
        c[k] = pidx(in->spec, nm) >= 0 ? fscalar(in, nm) : json_number_value(json_array_get(co, k));
    }
    task_dtype tx, to;
    size_t nx, no;
    const void *x = fbuf(in, "x", &tx, &nx);
    void *o = fbuf(in, "out", &to, &no);
    int64_t rows = two_d ? task_scalar_i(in, "rows") : 1, cols = two_d ? task_scalar_i(in, "cols") : task_scalar_i(in, "n");
    if (!x || !o || rows < 0 || cols < 0 || nx < (size_t)(rows * cols) || no < (size_t)(rows * cols)) goto out;
    int zero = !strcmp(bnd, "zero"), clampb = !strcmp(bnd, "clamp"), copy = !strcmp(bnd, "copy");
    if (!(zero || clampb || copy)) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.boundary: unknown '%s'", bnd);
        goto out;
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            bool inside = true;
            for (size_t k = 0; k < nt; k++) {
                int64_t yi = i + dy[k], xj = j + dx[k];
                if (yi < 0 || yi >= rows || xj < 0 || xj >= cols) inside = false;
            }
            double acc = 0;
            if (copy && !inside) acc = getv(tx, x, (size_t)(i * cols + j));
            else
                for (size_t k = 0; k < nt; k++) {
                    int64_t yi = i + dy[k], xj = j + dx[k];
                    if (clampb) {
                        yi = yi < 0 ? 0 : yi >= rows ? rows - 1 : yi;
                        xj = xj < 0 ? 0 : xj >= cols ? cols - 1 : xj;
                    } else if (yi < 0 || yi >= rows || xj < 0 || xj >= cols) continue;   /* zero */
                    acc += c[k] * getv(tx, x, (size_t)(yi * cols + xj));
                }
            setv(to, o, (size_t)(i * cols + j), acc);
        }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
pg_status task_ref_fam_stencil1d(task_inst *in) { return stencil(in, false); }
pg_status task_ref_fam_stencil2d(task_inst *in) { return stencil(in, true); }

/* ---- gemv: y[r] = alpha * sum_c A[r*cols + c] * x[c] (+ beta*y[r] when y is inout) */
pg_status task_ref_fam_gemv(task_inst *in) {
    task_dtype ta, tx, ty;
    size_t na, nx, ny;
    const void *A = fbuf(in, "A", &ta, &na), *x = fbuf(in, "x", &tx, &nx);
    void *y = fbuf(in, "y", &ty, &ny);
    int64_t rows = task_scalar_i(in, "rows"), cols = task_scalar_i(in, "cols");
    if (!A || !x || !y || rows < 0 || cols < 0 || na < (size_t)(rows * cols) || nx < (size_t)cols || ny < (size_t)rows)
        return PG_ERR_INVALID;
    double alpha = pidx(in->spec, "alpha") >= 0 ? fscalar(in, "alpha") : 1.0;
    int bi = pidx(in->spec, "beta");
    double beta = bi >= 0 ? fscalar(in, "beta") : 0.0;
    for (int64_t r = 0; r < rows; r++) {
        double acc = 0;
        for (int64_t c = 0; c < cols; c++) acc += getv(ta, A, (size_t)(r * cols + c)) * getv(tx, x, (size_t)c);
        double v = alpha * acc + (bi >= 0 ? beta * getv(ty, y, (size_t)r) : 0.0);
        setv(ty, y, (size_t)r, v);
    }
    return PG_OK;
}

/* ---- gemm: C[M,N] = alpha * A[M,K] B[K,N] (+ beta*C when C is inout), row-major */
pg_status task_ref_fam_gemm(task_inst *in) {
    task_dtype ta, tb, tc;
    size_t na, nb, nc;
    const void *A = fbuf(in, "A", &ta, &na), *B = fbuf(in, "B", &tb, &nb);
    void *C = fbuf(in, "C", &tc, &nc);
    int64_t M = task_scalar_i(in, "M"), N = task_scalar_i(in, "N"), K = task_scalar_i(in, "K");
    if (!A || !B || !C || M < 0 || N < 0 || K < 0 || na < (size_t)(M * K) || nb < (size_t)(K * N) || nc < (size_t)(M * N))
        return PG_ERR_INVALID;
    double alpha = pidx(in->spec, "alpha") >= 0 ? fscalar(in, "alpha") : 1.0;
    int bi = pidx(in->spec, "beta");
    double beta = bi >= 0 ? fscalar(in, "beta") : 0.0;
    double *row = calloc((size_t)(N > 0 ? N : 1), sizeof *row);
    if (!row) return PG_ERR_NOMEM;
    for (int64_t i = 0; i < M; i++) {
        memset(row, 0, sizeof *row * (size_t)N);
        for (int64_t k = 0; k < K; k++) {
            double a = getv(ta, A, (size_t)(i * K + k));
            for (int64_t j = 0; j < N; j++) row[j] += a * getv(tb, B, (size_t)(k * N + j));
        }
        for (int64_t j = 0; j < N; j++)
            setv(tc, C, (size_t)(i * N + j), alpha * row[j] + (bi >= 0 ? beta * getv(tc, C, (size_t)(i * N + j)) : 0.0));
    }
    free(row);
    return PG_OK;
}

/* ---- transpose: out[c*rows + r] = in[r*cols + c] (any element size); with a
 * scalar "batch", the same for each of batch rows x cols matrices back to back */
pg_status task_ref_fam_transpose(task_inst *in) {
    int pi = pidx(in->spec, "in"), po = pidx(in->spec, "out");
    if (pi < 0 || po < 0 || in->spec->params[pi].dtype != in->spec->params[po].dtype) return PG_ERR_INVALID;
    int64_t rows = task_scalar_i(in, "rows"), cols = task_scalar_i(in, "cols");
    int64_t batch = pidx(in->spec, "batch") >= 0 ? task_scalar_i(in, "batch") : 1;
    size_t es = (size_t)task_dtype_size(in->spec->params[pi].dtype);
    if (rows < 0 || cols < 0 || batch < 0 || in->args[pi].count < (size_t)(batch * rows * cols) ||
        in->args[po].count < (size_t)(batch * rows * cols))
        return PG_ERR_INVALID;
    for (int64_t b = 0; b < batch; b++) {
        const char *s = (const char *)in->args[pi].data + (size_t)(b * rows * cols) * es;
        char *d = (char *)in->args[po].data + (size_t)(b * rows * cols) * es;
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) memcpy(d + (size_t)(c * rows + r) * es, s + (size_t)(r * cols + c) * es, es);
    }
    return PG_OK;
}
