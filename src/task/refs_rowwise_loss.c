/* refs_rowwise_loss.c — C references of the loss families (src/synth/family_rowwise_loss.c):
 * task_ref_fam_xent (cross-entropy / NLL per row) and task_ref_fam_loss (elementwise
 * losses), each with reduction none / sum / mean. */
#include "refs_rowwise.h"

#include <math.h>
#include <string.h>

/* family_params: op ce | nll, x / labels / loss (names), reduction, ignore_negative
 * (a negative label gives loss 0), smoothing (the scalar's name or ""), lse
 * (name of the per-row logsumexp output or "").  reduction sum / mean adds to
 * loss[0], which holds its starting value. */
pg_status task_ref_fam_xent(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_ref_rw_str(fp, "op", ""), *red = task_ref_rw_str(fp, "reduction", "none");
    bool nll = !strcmp(op, "nll"), ce = !strcmp(op, "ce");
    int rk = !strcmp(red, "none") ? 0 : !strcmp(red, "sum") ? 1 : !strcmp(red, "mean") ? 2 : -1;
    if (!(nll || ce) || rk < 0) { st = task_ref_rw_bad(in, "$.family_params: op must be ce or nll and reduction none, sum or mean"); goto out; }
    task_dtype tx, tl, to, te = TASK_T_NONE;
    size_t nx, nl, no, ne = 0;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), true, &tx, &nx);
    const void *lab = task_ref_rw_buf(in, task_ref_rw_str(fp, "labels", "labels"), false, &tl, &nl);
    void *lo = task_ref_rw_buf(in, task_ref_rw_str(fp, "loss", "loss"), true, &to, &no);
    const char *lsen = task_ref_rw_str(fp, "lse", ""), *smn = task_ref_rw_str(fp, "smoothing", "");
    void *lse = lsen[0] ? task_ref_rw_buf(in, lsen, true, &te, &ne) : NULL;
    size_t rows = task_ref_rw_size(in, "rows"), cols = task_ref_rw_size(in, "cols");
    if (!x || !lab || !lo || (lsen[0] && !lse)) goto out;
    if (nx < rows * cols || nl < rows || no < (rk ? 1 : rows) || (lse && ne < rows)) { st = task_ref_rw_bad(in, "xent: buffers too small"); goto out; }
    bool ignore = task_ref_rw_bool(fp, "ignore_negative");
    double eps = smn[0] ? task_ref_rw_fscalar(in, smn, 0.0) : 0.0;
    long double total = 0;
    for (size_t r = 0; r < rows; r++) {
        int64_t l = task_ref_rw_geti(tl, lab, r);
        if (l >= (int64_t)cols || (l < 0 && !ignore)) { st = task_ref_rw_bad(in, "xent: label %lld of row %zu outside [0, cols)", (long long)l, r); goto out; }
        size_t o = r * cols;
        double loss, lsum = 0;
        if (nll) loss = l < 0 ? 0.0 : -task_ref_rw_getf(tx, x, o + (size_t)l);
        else {
            double m = -INFINITY;
            long double s = 0, xs = 0;
            for (size_t c = 0; c < cols; c++) m = fmax(m, task_ref_rw_getf(tx, x, o + c));
            for (size_t c = 0; c < cols; c++) {
                double v = task_ref_rw_getf(tx, x, o + c);
                s += exp(v - m);   /* double exp, long double sum */
                xs += v;
            }
            lsum = m + log((double)s);
            loss = l < 0 ? 0.0 : lsum - (1 - eps) * task_ref_rw_getf(tx, x, o + (size_t)l) - eps / (double)cols * (double)xs;
        }
        if (lse) task_ref_rw_setf(te, lse, r, lsum);
        if (rk == 0) task_ref_rw_setf(to, lo, r, loss);
        else total += loss;
    }
    if (rk) task_ref_rw_setf(to, lo, 0, task_ref_rw_getf(to, lo, 0) + (double)(rk == 2 && rows ? total / (long double)rows : total));
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* family_params: op mse | l1 | huber | smooth_l1 | bce_logits | log_cosh, reduction,
 * pred / target / out / weight (names; weight "" when unweighted), scalar (the
 * name of delta or beta, or ""). */
pg_status task_ref_fam_loss(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    static const char *OPS[] = {"mse", "l1", "huber", "smooth_l1", "bce_logits", "log_cosh"};
    const char *op = task_ref_rw_str(fp, "op", ""), *red = task_ref_rw_str(fp, "reduction", "none");
    int k = -1, rk = !strcmp(red, "none") ? 0 : !strcmp(red, "sum") ? 1 : !strcmp(red, "mean") ? 2 : -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(op, OPS[i])) k = i;
    if (k < 0 || rk < 0) { st = task_ref_rw_bad(in, "$.family_params: unknown loss op '%s' or reduction '%s'", op, red); goto out; }
    task_dtype tp, tt, to, tw = TASK_T_NONE;
    size_t np, nt, no, nw = 0;
    const char *wn = task_ref_rw_str(fp, "weight", ""), *scn = task_ref_rw_str(fp, "scalar", "");
    const void *p = task_ref_rw_buf(in, task_ref_rw_str(fp, "pred", "pred"), true, &tp, &np);
    const void *t = task_ref_rw_buf(in, task_ref_rw_str(fp, "target", "target"), true, &tt, &nt);
    const void *w = wn[0] ? task_ref_rw_buf(in, wn, true, &tw, &nw) : NULL;
    void *o = task_ref_rw_buf(in, task_ref_rw_str(fp, "out", "out"), true, &to, &no);
    size_t n = task_ref_rw_size(in, "n");
    if (!p || !t || !o || (wn[0] && !w)) goto out;
    if (np < n || nt < n || (w && nw < n) || no < (rk ? 1 : n)) { st = task_ref_rw_bad(in, "loss: buffers smaller than n"); goto out; }
    double sc = scn[0] ? task_ref_rw_fscalar(in, scn, 1.0) : 1.0;
    long double total = 0;
    for (size_t i = 0; i < n; i++) {
        double a = task_ref_rw_getf(tp, p, i), b = task_ref_rw_getf(tt, t, i), dd = a - b, ad = fabs(dd), l;
        switch (k) {
        case 0: l = dd * dd; break;
        case 1: l = ad; break;
        case 2: l = ad <= sc ? 0.5 * dd * dd : sc * (ad - 0.5 * sc); break;
        case 3: l = ad < sc ? 0.5 * dd * dd / sc : ad - 0.5 * sc; break;
        case 4: l = fmax(a, 0.0) - a * b + log1p(exp(-fabs(a))); break;
        default: l = log(cosh(dd)); break;
        }
        if (w) l *= task_ref_rw_getf(tw, w, i);
        if (rk == 0) task_ref_rw_setf(to, o, i, l);
        else total += l;
    }
    if (rk) task_ref_rw_setf(to, o, 0, task_ref_rw_getf(to, o, 0) + (double)(rk == 2 && n ? total / (long double)n : total));
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
