/* refs_rowwise_reduce.c — C references of the reduction families
 * (src/synth/family_rowwise_reduce.c): task_ref_fam_reduce_all (one value into a
 * one-element accumulator) and task_ref_fam_rowreduce (per row or per column). */
#include "refs_rowwise.h"

#include <math.h>
#include <string.h>

/* family_params: op sum | asum | sumsq | dot | max | min | absmax, x / y / out (names).
 * Sums are added to out[0]; max/min/absmax are combined with it. */
pg_status task_ref_fam_reduce_all(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    static const char *OPS[] = {"sum", "asum", "sumsq", "dot", "max", "min", "absmax"};
    const char *op = task_ref_rw_str(fp, "op", "");
    int k = -1;
    for (int i = 0; i < 7; i++)
        if (!strcmp(op, OPS[i])) k = i;
    if (k < 0) { st = task_ref_rw_bad(in, "$.family_params.op: unknown reduction '%s'", op); goto out; }
    task_dtype tx, ty = TASK_T_NONE, to;
    size_t nx, ny = 0, no;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), true, &tx, &nx);
    const void *y = k == 3 ? task_ref_rw_buf(in, task_ref_rw_str(fp, "y", "y"), true, &ty, &ny) : NULL;
    void *o = task_ref_rw_buf(in, task_ref_rw_str(fp, "out", "out"), true, &to, &no);
    size_t n = task_ref_rw_size(in, "n");
    if (!x || !o || (k == 3 && !y)) goto out;
    if (nx < n || (y && ny < n) || no < 1) { st = task_ref_rw_bad(in, "reduce_all: buffers smaller than n"); goto out; }
    long double acc = k >= 4 ? (long double)task_ref_rw_getf(to, o, 0) : 0;
    for (size_t i = 0; i < n; i++) {
        double v = task_ref_rw_getf(tx, x, i);
        switch (k) {
        case 0: acc += v; break;
        case 1: acc += fabs(v); break;
        case 2: acc += (long double)v * v; break;
        case 3: acc += (long double)v * task_ref_rw_getf(ty, y, i); break;
        case 4: acc = v > acc ? v : acc; break;
        case 5: acc = v < acc ? v : acc; break;
        default: acc = fabs(v) > acc ? fabs(v) : acc; break;
        }
    }
    task_ref_rw_setf(to, o, 0, k >= 4 ? (double)acc : task_ref_rw_getf(to, o, 0) + (double)acc);
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* family_params: op sum | mean | max | min | absmax | sumsq | norm2 | argmax | argmin,
 * axis "cols" (one result per row) or "rows" (one per column), x / out / idx
 * (names; out "" for a bare argmax, idx "" for value ops).  argmax/argmin
 * give the first index of the extreme value. */
pg_status task_ref_fam_rowreduce(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    static const char *OPS[] = {"sum", "mean", "max", "min", "absmax", "sumsq", "norm2", "argmax", "argmin"};
    const char *op = task_ref_rw_str(fp, "op", ""), *axis = task_ref_rw_str(fp, "axis", "cols");
    int k = -1;
    for (int i = 0; i < 9; i++)
        if (!strcmp(op, OPS[i])) k = i;
    if (k < 0) { st = task_ref_rw_bad(in, "$.family_params.op: unknown row reduction '%s'", op); goto out; }
    bool bycol = !strcmp(axis, "rows");
    const char *on = task_ref_rw_str(fp, "out", ""), *inm = task_ref_rw_str(fp, "idx", "");
    task_dtype tx, to = TASK_T_NONE, ti = TASK_T_NONE;
    size_t nx, no = 0, ni = 0;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), true, &tx, &nx);
    void *o = on[0] ? task_ref_rw_buf(in, on, true, &to, &no) : NULL;
    void *ix = inm[0] ? task_ref_rw_buf(in, inm, false, &ti, &ni) : NULL;
    size_t rows = task_ref_rw_size(in, "rows"), cols = task_ref_rw_size(in, "cols");
    size_t nout = bycol ? cols : rows, len = bycol ? rows : cols;
    if (!x || (on[0] && !o) || (inm[0] && !ix) || (!o && !ix)) goto out;
    if (nx < rows * cols || (o && no < nout) || (ix && ni < nout) || (k >= 7 && !ix)) { st = task_ref_rw_bad(in, "rowreduce: buffers too small or no index output"); goto out; }
    for (size_t j = 0; j < nout; j++) {
        long double acc = k == 2 || k == 4 ? -INFINITY : k == 3 ? INFINITY : 0;
        double best = 0;
        size_t bi = 0;
        for (size_t t = 0; t < len; t++) {
            double v = task_ref_rw_getf(tx, x, bycol ? t * cols + j : j * cols + t);
            if (k >= 7) {
                if (t == 0 || (k == 7 ? v > best : v < best)) { best = v; bi = t; }
                continue;
            }
            switch (k) {
            case 0: case 1: acc += v; break;
            case 2: acc = v > acc ? v : acc; break;
            case 3: acc = v < acc ? v : acc; break;
            case 4: acc = fabs(v) > acc ? fabs(v) : acc; break;
            default: acc += (long double)v * v; break;
            }
        }
        if (k >= 7) {
            task_ref_rw_seti(ti, ix, j, (int64_t)bi);
            if (o) task_ref_rw_setf(to, o, j, best);
        } else {
            double v = k == 1 ? (double)(acc / (long double)len) : k == 6 ? sqrt((double)acc) : (double)acc;
            task_ref_rw_setf(to, o, j, v);
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
