/* refs_sparse.c — C references of the sparse group's synthesis families
 * (src/synth/family_sparse*.c): spmv.  Like refs_family.c, each reference
 * re-reads the spec's "family_params" (operator, layout, the parameter
 * names the generator drew) and computes in double, rounding once to the
 * output type.  Index arrays are range-checked: an index the harness could
 * not have generated is reported to the diagnostics sink, never followed. */
#include "refs_sparse.h"
#include "refs_params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers (shared with refs_sparse_*.c through refs_sparse.h) -------------------- */
json_t *task_rsp_fparams(const task_inst *in, json_t **root) {
    return task_ref_family_params(in, root);
}
const char *task_rsp_str(json_t *fp, const char *k) {
    const char *s = json_string_value(json_object_get(fp, k));
    return s ? s : "";
}
const char *task_rsp_stri(json_t *fp, const char *k, size_t i) {
    const char *s = json_string_value(json_array_get(json_object_get(fp, k), i));
    return s ? s : "";
}
int64_t task_rsp_int(json_t *fp, const char *k, int64_t dflt) {
    json_t *v = json_object_get(fp, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}
static int pidx(const task_spec *t, const char *name) {
    for (int i = 0; i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

bool task_rsp_arr(task_inst *in, const char *name, bool want_float, rsp_arr_t *a) {
    memset(a, 0, sizeof *a);
    int i = pidx(in->spec, name);
    if (i < 0 || !in->spec->params[i].is_pointer || task_dtype_is_float(in->spec->params[i].dtype) != want_float) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "needs a%s pointer parameter '%s'", want_float ? " float" : "n integer", name);
        return false;
    }
    a->t = in->spec->params[i].dtype;
    a->n = in->args[i].count;
    a->p = in->args[i].data;
    return true;
}

double task_rsp_get(const rsp_arr_t *a, size_t i) {
    switch (a->t) {
    case TASK_T_F32: return (double)((const float *)a->p)[i];
    case TASK_T_F64: return ((const double *)a->p)[i];
    case TASK_T_F16: return (double)task_f16_to_f32(((const uint16_t *)a->p)[i]);
    case TASK_T_BF16: return (double)task_bf16_to_f32(((const uint16_t *)a->p)[i]);
    case TASK_T_S32: return (double)((const int32_t *)a->p)[i];
    case TASK_T_U32: return (double)((const uint32_t *)a->p)[i];
    default: return NAN;
    }
}
static int64_t rsp_geti(const rsp_arr_t *a, size_t i) {
    switch (a->t) {
    case TASK_T_S32: return ((const int32_t *)a->p)[i];
    case TASK_T_U32: return ((const uint32_t *)a->p)[i];
    case TASK_T_S64: return ((const int64_t *)a->p)[i];
    case TASK_T_U64: return (int64_t)((const uint64_t *)a->p)[i];
    default: return (int64_t)task_rsp_get(a, i);
    }
}
void task_rsp_set(rsp_arr_t *a, size_t i, double v) {
    switch (a->t) {
    case TASK_T_F32: ((float *)a->p)[i] = (float)v; break;
    case TASK_T_F64: ((double *)a->p)[i] = v; break;
    case TASK_T_F16: ((uint16_t *)a->p)[i] = task_f32_to_f16((float)v); break;
    case TASK_T_BF16: ((uint16_t *)a->p)[i] = task_f32_to_bf16((float)v); break;
    case TASK_T_S32: ((int32_t *)a->p)[i] = (int32_t)v; break;
    case TASK_T_U32: ((uint32_t *)a->p)[i] = (uint32_t)v; break;
    default: break;
    }
}

double task_rsp_fscalar(const task_inst *in, const char *name) {
    int i = pidx(in->spec, name);
    double v = task_scalar_f(in, name);
    return i >= 0 && in->spec->params[i].dtype == TASK_T_F64 ? v : (double)(float)v;
}

bool task_rsp_need(task_inst *in, bool ok, const char *what) {
    if (!ok) pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "%s", what);
    return ok;
}

/* ---- spmv ---------------------------------------------------------------------------- */
pg_status task_ref_fam_spmv(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *fmt = task_rsp_str(fp, "format"), *op = task_rsp_str(fp, "op");
    rsp_arr_t x, y;
    if (!task_rsp_arr(in, task_rsp_str(fp, "x"), true, &x) || !task_rsp_arr(in, task_rsp_str(fp, "y"), true, &y)) goto out;
    size_t rows = (size_t)task_var(in, "rows"), cols = (size_t)task_var(in, "cols");
    if (!task_rsp_need(in, x.n >= cols && y.n >= rows, "spmv: x or y shorter than cols/rows")) goto out;
    double alpha = strcmp(op, "plain") ? task_rsp_fscalar(in, "alpha") : 1.0, beta = !strcmp(op, "axpby") ? task_rsp_fscalar(in, "beta") : 0.0;
    double *acc = calloc(rows ? rows : 1, sizeof *acc);
    if (!acc) { st = PG_ERR_NOMEM; goto out; }
    if (!strcmp(fmt, "csr")) {
        rsp_arr_t rp, ci, va;
        if (!task_rsp_arr(in, task_rsp_stri(fp, "names", 0), false, &rp) || !task_rsp_arr(in, task_rsp_stri(fp, "names", 1), false, &ci) ||
            !task_rsp_arr(in, task_rsp_stri(fp, "names", 2), true, &va) || !task_rsp_need(in, rp.n >= rows + 1, "spmv: row offsets shorter than rows+1"))
            goto done;
        for (size_t r = 0; r < rows; r++) {
            int64_t a = rsp_geti(&rp, r), b = rsp_geti(&rp, r + 1);
            if (!task_rsp_need(in, a >= 0 && a <= b && (size_t)b <= ci.n && (size_t)b <= va.n, "spmv: row offsets not monotone or past nnz")) goto done;
            for (int64_t j = a; j < b; j++) {
                int64_t c = rsp_geti(&ci, (size_t)j);
                if (!task_rsp_need(in, c >= 0 && (size_t)c < cols, "spmv: column index out of range")) goto done;
                acc[r] += task_rsp_get(&va, (size_t)j) * task_rsp_get(&x, (size_t)c);
            }
        }
    } else if (!strcmp(fmt, "ell")) {
        rsp_arr_t va, ci;
        const char *W = task_rsp_str(fp, "width");
        size_t K = (size_t)task_var(in, W);
        bool slot = !strcmp(task_rsp_str(fp, "layout"), "slot-major"), neg = !strcmp(task_rsp_str(fp, "padding"), "neg1");
        if (!task_rsp_arr(in, task_rsp_stri(fp, "names", 0), true, &va) || !task_rsp_arr(in, task_rsp_stri(fp, "names", 1), false, &ci) ||
            !task_rsp_need(in, va.n >= K * rows && ci.n >= K * rows, "spmv: ELL arrays shorter than width*rows"))
            goto done;
        for (size_t r = 0; r < rows; r++)
            for (size_t k = 0; k < K; k++) {
                size_t e = slot ? k * rows + r : r * K + k;
                int64_t c = rsp_geti(&ci, e);
                if (neg && c < 0) continue;   /* padding slot */
                if (!task_rsp_need(in, c >= 0 && (size_t)c < cols, "spmv: ELL column index out of range")) goto done;
                acc[r] += task_rsp_get(&va, e) * task_rsp_get(&x, (size_t)c);
            }
    } else if (!strcmp(fmt, "coo")) {
        rsp_arr_t ri, ci, va;
        size_t nnz = (size_t)task_var(in, "nnz");
        if (!task_rsp_arr(in, task_rsp_stri(fp, "names", 0), false, &ri) || !task_rsp_arr(in, task_rsp_stri(fp, "names", 1), false, &ci) ||
            !task_rsp_arr(in, task_rsp_stri(fp, "names", 2), true, &va) || !task_rsp_need(in, ri.n >= nnz && ci.n >= nnz && va.n >= nnz, "spmv: COO arrays shorter than nnz"))
            goto done;
        for (size_t i = 0; i < nnz; i++) {
            int64_t rr = rsp_geti(&ri, i), c = rsp_geti(&ci, i);
            if (!task_rsp_need(in, rr >= 0 && (size_t)rr < rows && c >= 0 && (size_t)c < cols, "spmv: COO index out of range")) goto done;
            acc[rr] += task_rsp_get(&va, i) * task_rsp_get(&x, (size_t)c);
        }
        beta = 1.0;   /* y += alpha * A x */
    } else {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.format: unknown '%s' (csr, ell, coo)", fmt);
        goto done;
    }
    for (size_t r = 0; r < rows; r++) task_rsp_set(&y, r, alpha * acc[r] + (beta != 0 ? beta * task_rsp_get(&y, r) : 0.0));
    st = PG_OK;
done:
    free(acc);
out:
    json_decref(root);
    return st;
}

/* ---- csrrow ----------------------------------------------------------------------------- */
/* Per-row operations over a CSR matrix's values (sum, maxabs, l1norm, l2norm, scale), in
 * double, rounded once per output; or "offsets": row_ptr[0] = 0, row_ptr[r+1] = row_ptr[r] +
 * count[r] in 64-bit integers (the counts are small; the s32 store is exact). */
pg_status task_ref_fam_csrrow(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    size_t rows = (size_t)task_var(in, "rows");
    if (!strcmp(op, "offsets")) {
        rsp_arr_t cnt, rp;
        if (!task_rsp_arr(in, task_rsp_str(fp, "counts"), false, &cnt) || !task_rsp_arr(in, task_rsp_str(fp, "row_ptr"), false, &rp) ||
            !task_rsp_need(in, cnt.n >= rows && rp.n >= rows + 1, "csrrow: counts shorter than rows or row_ptr shorter than rows+1"))
            goto out;
        int64_t run = 0;
        task_rsp_set(&rp, 0, 0.0);
        for (size_t r = 0; r < rows; r++) {
            run += rsp_geti(&cnt, r);
            task_rsp_set(&rp, r + 1, (double)(int32_t)run);
        }
        st = PG_OK;
        goto out;
    }
    static const char *const OPS[] = {"sum", "maxabs", "l1norm", "l2norm", "scale"};
    int k = -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(op, OPS[i])) k = i;
    if (!task_rsp_need(in, k >= 0, "csrrow: unknown op (sum, maxabs, l1norm, l2norm, scale, offsets)")) goto out;
    bool inplace = json_is_true(json_object_get(fp, "inplace"));
    rsp_arr_t rp, va, o, sc;
    if (!task_rsp_arr(in, task_rsp_str(fp, "row_ptr"), false, &rp) || !task_rsp_arr(in, task_rsp_str(fp, "vals"), true, &va) ||
        !task_rsp_need(in, rp.n >= rows + 1, "csrrow: row offsets shorter than rows+1"))
        goto out;
    if (inplace) o = va;
    else if (!task_rsp_arr(in, task_rsp_str(fp, "out"), true, &o)) goto out;
    if (k == 4 && !task_rsp_arr(in, task_rsp_str(fp, "scale"), true, &sc)) goto out;
    if (!task_rsp_need(in, k >= 2 || o.n >= rows, "csrrow: output shorter than rows") || !task_rsp_need(in, k != 4 || sc.n >= rows, "csrrow: scale shorter than rows"))
        goto out;
    for (size_t r = 0; r < rows; r++) {
        int64_t a = rsp_geti(&rp, r), b = rsp_geti(&rp, r + 1);
        if (!task_rsp_need(in, a >= 0 && a <= b && (size_t)b <= va.n && (k < 2 || (size_t)b <= o.n), "csrrow: row offsets not monotone or past nnz")) goto out;
        double acc = 0;
        for (int64_t j = a; j < b; j++) {
            double v = task_rsp_get(&va, (size_t)j);
            if (k == 0) acc += v;
            else if (k == 1) acc = fmax(acc, fabs(v));
            else if (k == 2) acc += fabs(v);
            else if (k == 3) acc += v * v;
        }
        if (k < 2) { task_rsp_set(&o, r, acc); continue; }
        double f = k == 4 ? task_rsp_get(&sc, r) : k == 3 ? sqrt(acc) : acc;
        for (int64_t j = a; j < b; j++) {
            double v = task_rsp_get(&va, (size_t)j);
            task_rsp_set(&o, (size_t)j, k == 4 ? v * f : f > 0 ? v / f : v);
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
