/* refs_elemfam_math.c — references of the complex and polynomial families
 * (src/synth/family_elem_math.c), in double. */
#include "refs_elemfam.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A complex array: interleaved NAME (2n reals) or split NAME_re / NAME_im. */
typedef struct { ef_arr re, im; bool split; } cplx;

static bool cbuf(task_inst *in, const char *name, bool split, size_t n, cplx *c) {
    c->split = split;
    if (!split) return task_ef_buf(in, name, 2 * n, &c->re);
    char a[80], b[80];
    snprintf(a, sizeof a, "%s_re", name);
    snprintf(b, sizeof b, "%s_im", name);
    return task_ef_buf(in, a, n, &c->re) && task_ef_buf(in, b, n, &c->im);
}
static void cget(const cplx *c, size_t k, double *re, double *im) {
    if (c->split) { *re = task_ef_get(c->re.t, c->re.p, k); *im = task_ef_get(c->im.t, c->im.p, k); }
    else { *re = task_ef_get(c->re.t, c->re.p, 2 * k); *im = task_ef_get(c->re.t, c->re.p, 2 * k + 1); }
}
static void cset(const cplx *c, size_t k, double re, double im) {
    if (c->split) { task_ef_set(c->re.t, c->re.p, k, re); task_ef_set(c->im.t, c->im.p, k, im); }
    else { task_ef_set(c->re.t, c->re.p, 2 * k, re); task_ef_set(c->re.t, c->re.p, 2 * k + 1, im); }
}

/* ---- complex: op mul / conjmul / mac / scale / axpy / abs / abs2 over n numbers */
pg_status task_ref_fam_elem_complex(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_ef_str(fp, "op");
    bool split = task_ef_bool(fp, "split");
    size_t n = (size_t)task_scalar_i(in, "n");
    int o = !strcmp(op, "mul") ? 0 : !strcmp(op, "conjmul") ? 1 : !strcmp(op, "mac") ? 2 : !strcmp(op, "scale") ? 3 : !strcmp(op, "axpy") ? 4
          : !strcmp(op, "abs") ? 5 : !strcmp(op, "abs2") ? 6 : -1;
    if (o < 0) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown complex op '%s'", op);
        goto out;
    }
    cplx a, b = {0}, c = {0};
    ef_arr mag = {0};
    if (!cbuf(in, task_ef_str(fp, "a"), split, n, &a) || (o <= 2 && !cbuf(in, task_ef_str(fp, "b"), split, n, &b))) goto out;
    if (o >= 5 ? !task_ef_buf(in, task_ef_str(fp, "c"), n, &mag) : !cbuf(in, task_ef_str(fp, "c"), split, n, &c)) goto out;
    double wr = o == 3 || o == 4 ? task_ef_scalar(in, task_ef_str(fp, "wr")) : 0, wi = o == 3 || o == 4 ? task_ef_scalar(in, task_ef_str(fp, "wi")) : 0;
    for (size_t k = 0; k < n; k++) {
        double ar, ai, br = 0, bi = 0, cr = 0, ci = 0;
        cget(&a, k, &ar, &ai);
        if (o <= 2) cget(&b, k, &br, &bi);
        if (o == 2 || o == 4) cget(&c, k, &cr, &ci);
        switch (o) {
        case 0: cset(&c, k, ar * br - ai * bi, ar * bi + ai * br); break;
        case 1: cset(&c, k, ar * br + ai * bi, ai * br - ar * bi); break;
        case 2: cset(&c, k, cr + ar * br - ai * bi, ci + ar * bi + ai * br); break;
        case 3: cset(&c, k, wr * ar - wi * ai, wr * ai + wi * ar); break;
        case 4: cset(&c, k, cr + wr * ar - wi * ai, ci + wr * ai + wi * ar); break;
        case 5: task_ef_set(mag.t, mag.p, k, sqrt(ar * ar + ai * ai)); break;
        default: task_ef_set(mag.t, mag.p, k, ar * ar + ai * ai); break;
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- poly: Horner (power basis, optional derivative) or a Chebyshev series */
pg_status task_ref_fam_elem_poly(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    int D = (int)task_ef_int(fp, "degree", -1);
    bool cheb = !strcmp(task_ef_str(fp, "kind"), "chebyshev"), mapped = task_ef_bool(fp, "mapped");
    const char *cn = json_string_value(json_object_get(fp, "coef")), *dn = json_string_value(json_object_get(fp, "dy"));
    size_t n = (size_t)task_scalar_i(in, "n");
    if (D < 0 || D > 16) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.degree: want 0..16");
        goto out;
    }
    ef_arr x, y, dy = {0}, ca = {0};
    if (!task_ef_buf(in, task_ef_str(fp, "x"), n, &x) || !task_ef_buf(in, task_ef_str(fp, "y"), n, &y) || (dn && !task_ef_buf(in, dn, n, &dy)) || (cn && !task_ef_buf(in, cn, (size_t)D + 1, &ca))) goto out;
    double c[17];
    for (int k = 0; k <= D; k++) {
        char nm[8];
        snprintf(nm, sizeof nm, "c%d", k);
        c[k] = cn ? task_ef_get(ca.t, ca.p, (size_t)k) : task_ef_scalar(in, nm);
        if (isnan(c[k])) {
            pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "fam_elem_poly: coefficient c%d missing", k);
            goto out;
        }
    }
    double lo = mapped ? task_ef_scalar(in, "lo") : -1, hi = mapped ? task_ef_scalar(in, "hi") : 1;
    for (size_t i = 0; i < n; i++) {
        double t = task_ef_get(x.t, x.p, i);
        if (mapped) t = (2 * t - (lo + hi)) / (hi - lo);
        if (cheb) {   /* sum c_k T_k(t), T_0 = 1, T_1 = t, T_{k+1} = 2t T_k - T_{k-1} */
            double t0 = 1, t1 = t, p = c[0] + (D >= 1 ? c[1] * t : 0);
            for (int k = 2; k <= D; k++) {
                double t2 = 2 * t * t1 - t0;
                p += c[k] * t2;
                t0 = t1;
                t1 = t2;
            }
            task_ef_set(y.t, y.p, i, p);
        } else {
            double p = c[D], dp = 0;
            for (int k = D - 1; k >= 0; k--) {
                dp = dp * t + p;
                p = p * t + c[k];
            }
            task_ef_set(y.t, y.p, i, p);
            if (dn) task_ef_set(dy.t, dy.p, i, dp);
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
