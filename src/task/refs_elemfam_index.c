/* refs_elemfam_index.c — references of the indexed memory families
 * (src/synth/family_elem_index.c): gather, scatter.  Copies are exact;
 * accumulations are summed in double (the kernels' atomics add in any
 * order, hence the float tolerance of those tasks). */
#include "refs_elemfam.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Index rule: the position to read for index v in [0, m), or -1 for "use the fill". */
static int64_t rule(const char *bounds, double v, int64_t m) {
    int64_t j = (int64_t)v;
    if (!strcmp(bounds, "clamp")) return j < 0 ? 0 : j >= m ? m - 1 : j;
    if (!strcmp(bounds, "fill")) return j < 0 || j >= m ? -1 : j;
    return j;
}

static bool bad_index(const task_inst *in, double v, int64_t m) {
    pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "index %.0f outside [0, %lld) for a task whose index rule does not allow it", v, (long long)m);
    return false;
}

/* ---- gather: 1D, embedding rows, where, masked fill */
pg_status task_ref_fam_elem_gather(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *kind = task_ef_str(fp, "kind"), *fn = json_string_value(json_object_get(fp, "fill"));
    double fill = fn ? task_ef_scalar(in, fn) : 0;
    if (!strcmp(kind, "gather") || !strcmp(kind, "embedding_gather")) {
        bool rows_k = kind[0] == 'e';
        const char *bounds = task_ef_str(fp, "bounds"), *sn = json_string_value(json_object_get(fp, "scale"));
        int64_t n = rows_k ? task_scalar_i(in, "rows") : task_scalar_i(in, "n"), m = rows_k ? task_scalar_i(in, "vocab") : task_scalar_i(in, "m");
        int64_t dim = rows_k ? task_scalar_i(in, "dim") : 1;
        double scale = sn ? task_ef_scalar(in, sn) : 1;
        ef_arr src, idx, o;
        if (!task_ef_buf(in, task_ef_str(fp, "src"), (size_t)(m * dim), &src) || !task_ef_buf(in, task_ef_str(fp, "idx"), (size_t)n, &idx) || !task_ef_buf(in, task_ef_str(fp, "out"), (size_t)(n * dim), &o))
            goto out;
        for (int64_t i = 0; i < n; i++) {
            double v = task_ef_get(idx.t, idx.p, (size_t)i);
            int64_t j = rule(bounds, v, m);
            if (j >= m || j < -1 || (j == -1 && strcmp(bounds, "fill"))) { bad_index(in, v, m); goto out; }
            for (int64_t e = 0; e < dim; e++) {
                double x = j < 0 ? fill : task_ef_get(src.t, src.p, (size_t)(j * dim + e));
                if (j >= 0 && sn) x = (double)(float)(x * scale);   /* the kernel's float multiply */
                task_ef_set(o.t, o.p, (size_t)(i * dim + e), x);
            }
        }
    } else {
        bool where = !strcmp(kind, "where");
        const char *bn = json_string_value(json_object_get(fp, "b"));
        size_t n = (size_t)task_scalar_i(in, "n");
        ef_arr mask, a, b = {0}, o;
        if (!task_ef_buf(in, task_ef_str(fp, "mask"), n, &mask) || !task_ef_buf(in, task_ef_str(fp, "a"), n, &a) || !task_ef_buf(in, task_ef_str(fp, "out"), n, &o) || (bn && !task_ef_buf(in, bn, n, &b))) goto out;
        for (size_t i = 0; i < n; i++) {
            bool mset = task_ef_get(mask.t, mask.p, i) != 0;
            double v = where ? (mset ? task_ef_get(a.t, a.p, i) : bn ? task_ef_get(b.t, b.p, i) : fill) : (mset ? fill : task_ef_get(a.t, a.p, i));
            if (o.t == TASK_T_S32) v = trunc(v);   /* a float fill stored into ints truncates, like the kernel's conversion */
            task_ef_set(o.t, o.p, i, v);
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- scatter: unique set, add / max / min / count with atomics, embedding backward */
pg_status task_ref_fam_elem_scatter(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    double *acc = NULL;
    if (!fp) goto out;
    const char *kind = task_ef_str(fp, "kind"), *op = task_ef_str(fp, "op"), *xn = json_string_value(json_object_get(fp, "x"));
    const char *an = json_string_value(json_object_get(fp, "alpha"));
    bool skip = task_ef_bool(fp, "skip"), rows_k = !strcmp(kind, "embedding_backward"), uniq = !strcmp(kind, "scatter");
    int64_t n = rows_k ? task_scalar_i(in, "rows") : task_scalar_i(in, "n");
    int64_t m = rows_k ? task_scalar_i(in, "vocab") : uniq ? n : task_scalar_i(in, "m"), dim = rows_k ? task_scalar_i(in, "dim") : 1;
    double alpha = an ? task_ef_scalar(in, an) : 1;
    ef_arr x = {0}, idx, o;
    if ((xn && !task_ef_buf(in, xn, (size_t)(n * dim), &x)) || !task_ef_buf(in, task_ef_str(fp, "idx"), (size_t)n, &idx) || !task_ef_buf(in, task_ef_str(fp, "out"), (size_t)(m * dim), &o)) goto out;
    /* the output's current values, accumulated in double */
    acc = malloc(sizeof *acc * (size_t)(m * dim > 0 ? m * dim : 1));
    if (!acc) { st = PG_ERR_NOMEM; goto out; }
    for (int64_t k = 0; k < m * dim; k++) acc[k] = uniq ? NAN : task_ef_get(o.t, o.p, (size_t)k);
    for (int64_t i = 0; i < n; i++) {
        double v = task_ef_get(idx.t, idx.p, (size_t)i);
        if (v < 0 || v >= (double)m) {
            if (skip) continue;
            bad_index(in, v, m);
            goto out;
        }
        int64_t j = (int64_t)v;
        for (int64_t e = 0; e < dim; e++) {
            double u = xn ? task_ef_get(x.t, x.p, (size_t)(i * dim + e)) : 1;
            if (an) u = o.t == TASK_T_F64 ? alpha * u : (double)(float)(alpha * u);   /* the kernel multiplies in its type */
            double *t = &acc[j * dim + e];
            if (uniq) *t = u;
            else if (!strcmp(op, "max")) *t = fmax(*t, u);
            else if (!strcmp(op, "min")) *t = fmin(*t, u);
            else *t += u;
        }
    }
    for (int64_t k = 0; k < m * dim; k++)
        if (!isnan(acc[k])) task_ef_set(o.t, o.p, (size_t)k, acc[k]);
    st = PG_OK;
out:
    free(acc);
    json_decref(root);
    return st;
}
