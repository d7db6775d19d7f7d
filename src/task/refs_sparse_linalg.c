/* refs_sparse_linalg.c — references of the dense small/pairwise families
 * of the sparse group: pairdist, rowpair, gemvt, batched, smallmat
 * (src/synth/family_sparse_*.c).  Double precision, one rounding to the
 * output type; buffers are looked up by the names the generator drew and
 * recorded in "family_params". */
#include "refs_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- pairdist ---------------------------------------------------------------------- */
pg_status task_ref_fam_pairdist(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *metric = task_rsp_str(fp, "metric");
    bool self = json_is_true(json_object_get(fp, "self")), soa = !strcmp(task_rsp_str(fp, "layout"), "coord-major");
    size_t n = (size_t)task_var(in, "n"), m = self ? n : (size_t)task_var(in, "m");
    int64_t dim = task_rsp_int(fp, "dim", 0);
    size_t d = dim > 0 ? (size_t)dim : (size_t)task_var(in, "d");
    int met = !strcmp(metric, "sqeuclid") ? 0 : !strcmp(metric, "euclid") ? 1 : !strcmp(metric, "l1") ? 2 : -1;
    if (!task_rsp_need(in, met >= 0, "pairdist: unknown metric (sqeuclid, euclid, l1)")) goto out;
    rsp_arr_t X, Y, D;
    if (!task_rsp_arr(in, task_rsp_str(fp, "x"), true, &X) || !task_rsp_arr(in, task_rsp_str(fp, "y"), true, &Y) || !task_rsp_arr(in, task_rsp_str(fp, "out"), true, &D)) goto out;
    if (!task_rsp_need(in, X.n >= n * d && Y.n >= m * d && D.n >= n * m, "pairdist: buffers shorter than n*d, m*d, n*m")) goto out;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double acc = 0;
            for (size_t k = 0; k < d; k++) {
                double t = task_rsp_get(&X, soa ? k * n + i : i * d + k) - task_rsp_get(&Y, soa ? k * m + j : j * d + k);
                acc += met == 2 ? fabs(t) : t * t;
            }
            task_rsp_set(&D, i * m + j, met == 1 ? sqrt(acc) : acc);
        }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- rowpair ----------------------------------------------------------------------- */
pg_status task_ref_fam_rowpair(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    int k = !strcmp(op, "dot") ? 0 : !strcmp(op, "cosine") ? 1 : !strcmp(op, "sqdist") ? 2 : !strcmp(op, "l2dist") ? 3 : -1;
    if (!task_rsp_need(in, k >= 0, "rowpair: unknown op (dot, cosine, sqdist, l2dist)")) goto out;
    bool epsmax = !strcmp(task_rsp_str(fp, "eps_rule"), "max");
    size_t rows = (size_t)task_var(in, "rows"), cols = (size_t)task_var(in, "cols");
    rsp_arr_t a, b, o;
    if (!task_rsp_arr(in, task_rsp_str(fp, "a"), true, &a) || !task_rsp_arr(in, task_rsp_str(fp, "b"), true, &b) || !task_rsp_arr(in, task_rsp_str(fp, "out"), true, &o)) goto out;
    if (!task_rsp_need(in, a.n >= rows * cols && b.n >= rows * cols && o.n >= rows, "rowpair: buffers shorter than rows*cols / rows")) goto out;
    double eps = k == 1 ? task_rsp_fscalar(in, "eps") : 0;
    for (size_t r = 0; r < rows; r++) {
        double s0 = 0, s1 = 0, s2 = 0;
        for (size_t c = 0; c < cols; c++) {
            double x = task_rsp_get(&a, r * cols + c), y = task_rsp_get(&b, r * cols + c);
            if (k <= 1) { s0 += x * y; s1 += x * x; s2 += y * y; }
            else s0 += (x - y) * (x - y);
        }
        double v = s0;
        if (k == 1) v = epsmax ? s0 / fmax(sqrt(s1) * sqrt(s2), eps) : s0 / (sqrt(s1) * sqrt(s2) + eps);
        else if (k == 3) v = sqrt(s0);
        task_rsp_set(&o, r, v);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- gemvt -------------------------------------------------------------------------- */
pg_status task_ref_fam_gemvt(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    bool scaled = json_is_true(json_object_get(fp, "scaled"));
    size_t rows = (size_t)task_var(in, "rows"), cols = (size_t)task_var(in, "cols");
    rsp_arr_t A, x, y;
    if (!task_rsp_arr(in, task_rsp_str(fp, "A"), true, &A) || !task_rsp_arr(in, task_rsp_str(fp, "x"), true, &x) || !task_rsp_arr(in, task_rsp_str(fp, "y"), true, &y)) goto out;
    if (!task_rsp_need(in, A.n >= rows * cols, "gemvt: matrix shorter than rows*cols")) goto out;
    double alpha = scaled ? task_rsp_fscalar(in, "alpha") : 1.0;
    if (!strcmp(op, "gemv_t")) {
        if (!task_rsp_need(in, x.n >= rows && y.n >= cols, "gemvt: x shorter than rows or y shorter than cols")) goto out;
        double beta = scaled ? task_rsp_fscalar(in, "beta") : 0.0;
        double *acc = calloc(cols ? cols : 1, sizeof *acc);
        if (!acc) { st = PG_ERR_NOMEM; goto out; }
        for (size_t r = 0; r < rows; r++) {
            double xv = task_rsp_get(&x, r);
            for (size_t c = 0; c < cols; c++) acc[c] += task_rsp_get(&A, r * cols + c) * xv;
        }
        for (size_t c = 0; c < cols; c++) task_rsp_set(&y, c, scaled ? alpha * acc[c] + beta * task_rsp_get(&y, c) : acc[c]);
        free(acc);
    } else if (!strcmp(op, "ger") || !strcmp(op, "outer")) {
        if (!task_rsp_need(in, x.n >= rows && y.n >= cols, "gemvt: x shorter than rows or y shorter than cols")) goto out;
        bool ger = !strcmp(op, "ger");
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++) {
                double v = alpha * task_rsp_get(&x, i) * task_rsp_get(&y, j);
                task_rsp_set(&A, i * cols + j, ger ? task_rsp_get(&A, i * cols + j) + v : v);
            }
    } else {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown '%s' (gemv_t, ger, outer)", op);
        goto out;
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- batched ------------------------------------------------------------------------ */
pg_status task_ref_fam_batched(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    int k = !strcmp(op, "mv") ? 0 : !strcmp(op, "mvt") ? 1 : !strcmp(op, "mm") ? 2 : -1;
    if (!task_rsp_need(in, k >= 0, "batched: unknown op (mv, mvt, mm)")) goto out;
    size_t nb = (size_t)task_var(in, task_rsp_str(fp, "batch")), M = (size_t)task_var(in, "M"), K = (size_t)task_var(in, "K");
    size_t N = k == 2 ? (size_t)task_var(in, "N") : 1;
    rsp_arr_t A, x, y;
    if (!task_rsp_arr(in, task_rsp_str(fp, "a"), true, &A) || !task_rsp_arr(in, task_rsp_str(fp, "x"), true, &x) || !task_rsp_arr(in, task_rsp_str(fp, "y"), true, &y)) goto out;
    size_t nv = k == 0 ? K : k == 1 ? M : K * N, ny = k == 0 ? M : k == 1 ? K : M * N;
    if (!task_rsp_need(in, A.n >= nb * M * K && x.n >= nb * nv && y.n >= nb * ny, "batched: buffers shorter than the batch")) goto out;
    for (size_t b = 0; b < nb; b++) {
        size_t a0 = b * M * K, v0 = b * nv, y0 = b * ny;
        for (size_t o = 0; o < ny; o++) {
            double acc = 0;
            if (k == 0)
                for (size_t j = 0; j < K; j++) acc += task_rsp_get(&A, a0 + o * K + j) * task_rsp_get(&x, v0 + j);
            else if (k == 1)
                for (size_t i = 0; i < M; i++) acc += task_rsp_get(&A, a0 + i * K + o) * task_rsp_get(&x, v0 + i);
            else {
                size_t i = o / N, j = o % N;
                for (size_t q = 0; q < K; q++) acc += task_rsp_get(&A, a0 + i * K + q) * task_rsp_get(&x, v0 + q * N + j);
            }
            task_rsp_set(&y, y0 + o, acc);
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- smallmat ------------------------------------------------------------------------ */
/* Determinant of an n x n matrix (n <= 4) by elimination with partial pivoting, in double. */
static double det_small(double m[4][4], int n) {
    double det = 1;
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(m[i][k]) > fabs(m[piv][k])) piv = i;
        if (m[piv][k] == 0) return 0;
        if (piv != k) {
            det = -det;
            for (int j = 0; j < n; j++) { double t = m[k][j]; m[k][j] = m[piv][j]; m[piv][j] = t; }
        }
        det *= m[k][k];
        for (int i = k + 1; i < n; i++) {
            double f = m[i][k] / m[k][k];
            for (int j = k; j < n; j++) m[i][j] -= f * m[k][j];
        }
    }
    return det;
}

/* Solve m v = rhs for nc right-hand sides (columns of v, in place) by
 * Gauss-Jordan with partial pivoting in double. */
static void gj_small(double m[4][4], double v[4][4], int n, int nc) {
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(m[i][k]) > fabs(m[piv][k])) piv = i;
        for (int j = 0; j < 4; j++) {
            double t = m[k][j]; m[k][j] = m[piv][j]; m[piv][j] = t;
            t = v[k][j]; v[k][j] = v[piv][j]; v[piv][j] = t;
        }
        double inv = 1.0 / m[k][k];
        for (int j = 0; j < n; j++) m[k][j] *= inv;
        for (int j = 0; j < nc; j++) v[k][j] *= inv;
        for (int i = 0; i < n; i++) {
            if (i == k) continue;
            double f = m[i][k];
            for (int j = 0; j < n; j++) m[i][j] -= f * m[k][j];
            for (int j = 0; j < nc; j++) v[i][j] -= f * v[k][j];
        }
    }
}

pg_status task_ref_fam_smallmat(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    double *cp = NULL, *xs = NULL;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    size_t nb = (size_t)task_var(in, "batch");
    if (!strcmp(op, "tridiag")) {
        size_t n = (size_t)task_var(in, "n");
        bool inter = !strcmp(task_rsp_str(fp, "layout"), "interleaved");
        rsp_arr_t a, b, c, d, x;
        if (!task_rsp_arr(in, task_rsp_stri(fp, "names", 0), true, &a) || !task_rsp_arr(in, task_rsp_stri(fp, "names", 1), true, &b) ||
            !task_rsp_arr(in, task_rsp_stri(fp, "names", 2), true, &c) || !task_rsp_arr(in, task_rsp_stri(fp, "names", 3), true, &d) ||
            !task_rsp_arr(in, task_rsp_stri(fp, "names", 4), true, &x))
            goto out;
        if (!task_rsp_need(in, a.n >= nb * n && b.n >= nb * n && c.n >= nb * n && d.n >= nb * n && x.n >= nb * n, "smallmat: tridiagonal arrays shorter than batch*n"))
            goto out;
        cp = calloc(n + 1, sizeof *cp);
        xs = calloc(n + 1, sizeof *xs);
        if (!cp || !xs) { st = PG_ERR_NOMEM; goto out; }
        for (size_t s = 0; s < nb && n > 0; s++) {
#define IX(i) (inter ? (size_t)(i) * nb + s : s * n + (size_t)(i))
            double m = task_rsp_get(&b, IX(0));
            cp[0] = task_rsp_get(&c, IX(0)) / m;
            xs[0] = task_rsp_get(&d, IX(0)) / m;
            for (size_t i = 1; i < n; i++) {
                m = task_rsp_get(&b, IX(i)) - task_rsp_get(&a, IX(i)) * cp[i - 1];
                cp[i] = task_rsp_get(&c, IX(i)) / m;
                xs[i] = (task_rsp_get(&d, IX(i)) - task_rsp_get(&a, IX(i)) * xs[i - 1]) / m;
            }
            for (size_t i = n - 1; i-- > 0;) xs[i] -= cp[i] * xs[i + 1];
            for (size_t i = 0; i < n; i++) task_rsp_set(&x, IX(i), xs[i]);
#undef IX
        }
        st = PG_OK;
        goto out;
    }
    int n = (int)task_rsp_int(fp, "n", 0);
    if (!task_rsp_need(in, n >= 2 && n <= 4, "smallmat: n must be 2, 3 or 4")) goto out;
    size_t nn = (size_t)(n * n);
    rsp_arr_t A, O, R = {0};
    bool solve = !strcmp(op, "solve"), inv = !strcmp(op, "inverse"), det = !strcmp(op, "det");
    if (!task_rsp_need(in, solve || inv || det, "smallmat: unknown op (det, inverse, solve, tridiag)")) goto out;
    if (!task_rsp_arr(in, task_rsp_stri(fp, "names", 0), true, &A) || !task_rsp_arr(in, task_rsp_stri(fp, "names", 1), true, &O)) goto out;
    if (solve && !task_rsp_arr(in, task_rsp_stri(fp, "names", 2), true, &R)) goto out;
    size_t per = det ? 1 : inv ? nn : (size_t)n;
    if (!task_rsp_need(in, A.n >= nb * nn && O.n >= nb * per && (!solve || R.n >= nb * (size_t)n), "smallmat: buffers shorter than the batch")) goto out;
    double lambda = det ? 0 : task_rsp_fscalar(in, "lambda");
    for (size_t b = 0; b < nb; b++) {
        double m[4][4] = {{0}}, v[4][4] = {{0}};
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) m[i][j] = task_rsp_get(&A, b * nn + (size_t)(i * n + j)) + (i == j ? lambda : 0);
        if (det) { task_rsp_set(&O, b, det_small(m, n)); continue; }
        for (int i = 0; i < n; i++) {
            if (inv) v[i][i] = 1;
            else v[i][0] = task_rsp_get(&R, b * (size_t)n + (size_t)i);
        }
        gj_small(m, v, n, inv ? n : 1);
        for (int i = 0; i < n; i++) {
            if (inv)
                for (int j = 0; j < n; j++) task_rsp_set(&O, b * nn + (size_t)(i * n + j), v[i][j]);
            else task_rsp_set(&O, b * (size_t)n + (size_t)i, v[i][0]);
        }
    }
    st = PG_OK;
out:
    free(cp);
    free(xs);
    json_decref(root);
    return st;
}
