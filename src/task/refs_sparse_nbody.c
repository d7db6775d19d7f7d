/* refs_sparse_nbody.c — reference of the "nbody" family
 * (src/synth/family_sparse_nbody.c): all pairs in double from the inputs as
 * stored, the same per-pair rules as the kernel (j != i, cutoff tested on
 * the unclamped r^2, LJ r^2 clamped below at sigma^2/4, softening added to
 * r^2), one rounding to the output type. */
#include "refs_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pg_status task_ref_fam_nbody(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    double *buf = NULL;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    const char *layout = task_rsp_str(fp, "layout");
    bool aos = !strcmp(layout, "aos4"), aos3 = !strcmp(layout, "aos3"), cutoff = json_is_true(json_object_get(fp, "cutoff"));
    bool shifted = json_is_true(json_object_get(fp, "shifted"));
    bool lj = !strncmp(op, "lj_", 3), coul = !strncmp(op, "coulomb_", 8), grav = !strncmp(op, "grav_", 5);
    bool vec = !strcmp(op, "grav_accel") || !strcmp(op, "coulomb_force") || !strcmp(op, "lj_force");
    if (!task_rsp_need(in, lj || coul || grav, "nbody: unknown op (grav_accel, grav_potential, coulomb_force, coulomb_energy, lj_force, lj_energy)")) goto out;
    size_t N = (size_t)task_var(in, "N");
    /* positions and weights as doubles: [N][4] */
    buf = calloc(N * 4 + 1, sizeof *buf);
    if (!buf) { st = PG_ERR_NOMEM; goto out; }
    if (aos) {
        rsp_arr_t p;
        if (!task_rsp_arr(in, task_rsp_str(fp, "pos"), true, &p) || !task_rsp_need(in, p.n >= 4 * N, "nbody: positions shorter than 4*N")) goto out;
        for (size_t i = 0; i < 4 * N; i++) buf[i] = task_rsp_get(&p, i);
    } else if (aos3) {   /* xyz triples, the weights (not LJ) in an array of their own */
        rsp_arr_t p;
        if (!task_rsp_arr(in, task_rsp_str(fp, "pos"), true, &p) || !task_rsp_need(in, p.n >= 3 * N, "nbody: positions shorter than 3*N")) goto out;
        for (size_t i = 0; i < N; i++)
            for (size_t k = 0; k < 3; k++) buf[4 * i + k] = task_rsp_get(&p, 3 * i + k);
        if (!lj) {
            rsp_arr_t w;
            if (!task_rsp_arr(in, task_rsp_str(fp, "weight"), true, &w) || !task_rsp_need(in, w.n >= N, "nbody: weights shorter than N")) goto out;
            for (size_t i = 0; i < N; i++) buf[4 * i + 3] = task_rsp_get(&w, i);
        }
    } else {
        for (int k = 0; k < 3; k++) {
            rsp_arr_t p;
            if (!task_rsp_arr(in, task_rsp_stri(fp, "pos", (size_t)k), true, &p) || !task_rsp_need(in, p.n >= N, "nbody: coordinates shorter than N")) goto out;
            for (size_t i = 0; i < N; i++) buf[4 * i + (size_t)k] = task_rsp_get(&p, i);
        }
        if (!lj) {
            rsp_arr_t w;
            if (!task_rsp_arr(in, task_rsp_str(fp, "weight"), true, &w) || !task_rsp_need(in, w.n >= N, "nbody: weights shorter than N")) goto out;
            for (size_t i = 0; i < N; i++) buf[4 * i + 3] = task_rsp_get(&w, i);
        }
    }
    double s2 = 0, rc2 = INFINITY, ke = 1, eps = 0, sig2 = 0, ec = 0;
    if (!lj) {
        const char *soft = task_rsp_str(fp, "softening");
        double sv = task_rsp_fscalar(in, soft);
        s2 = !strcmp(soft, "eps") ? sv * sv : sv;
        if (coul) ke = task_rsp_fscalar(in, "ke");
    } else {
        eps = task_rsp_fscalar(in, "lj_eps");
        double sg = task_rsp_fscalar(in, "sigma");
        sig2 = sg * sg;
    }
    if (cutoff) {
        double c = task_rsp_fscalar(in, "cutoff");
        rc2 = c * c;
    }
    if (shifted) {
        double src6 = pow(sig2 / rc2, 3);
        ec = 4.0 * eps * (src6 * src6 - src6);
    }
    rsp_arr_t o[3];
    int nout = vec ? 3 : 1;
    bool out3 = vec && json_is_string(json_object_get(fp, "out"));
    for (int k = 0; k < (out3 ? 1 : nout); k++) {
        const char *nm = vec && !out3 ? task_rsp_stri(fp, "out", (size_t)k) : task_rsp_str(fp, "out");
        if (!task_rsp_arr(in, nm, true, &o[k])) goto out;
        if (!task_rsp_need(in, o[k].n >= (out3 ? 3 * N : N), "nbody: output too short")) goto out;
    }
    enum { GACC, GPOT, CFORCE, CENERGY, LJFORCE, LJENERGY } kind =
        !strcmp(op, "grav_accel")       ? GACC
        : !strcmp(op, "grav_potential") ? GPOT
        : !strcmp(op, "coulomb_force")  ? CFORCE
        : !strcmp(op, "coulomb_energy") ? CENERGY
        : !strcmp(op, "lj_force")       ? LJFORCE
                                        : LJENERGY;
    for (size_t i = 0; i < N; i++) {
        const double *pi = &buf[4 * i];
        double a[3] = {0, 0, 0}, e = 0;
        for (size_t j = 0; j < N; j++) {
            const double *pj = &buf[4 * j];
            double d[3] = {pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]};   /* p_j - p_i */
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (kind == GACC) {   /* the j = i term is zero */
                double inv = 1.0 / sqrt(r2 + s2), sc = pj[3] * inv * inv * inv;
                for (int k = 0; k < 3; k++) a[k] += sc * d[k];
                continue;
            }
            if (j == i || !(r2 < rc2)) continue;
            if (kind == GPOT) e -= pj[3] / sqrt(r2 + s2);
            else if (kind == CENERGY) e += pj[3] / sqrt(r2 + s2);
            else if (kind == CFORCE) {
                double inv = 1.0 / sqrt(r2 + s2), sc = pj[3] * inv * inv * inv;
                for (int k = 0; k < 3; k++) a[k] -= sc * d[k];
            } else {
                double r2c = r2 > 0.25 * sig2 ? r2 : 0.25 * sig2, sr2 = sig2 / r2c, sr6 = sr2 * sr2 * sr2;
                if (kind == LJENERGY) e += 4.0 * eps * (sr6 * sr6 - sr6) - ec;
                else {
                    double sc = 24.0 * eps * (2.0 * sr6 * sr6 - sr6) / r2c;
                    for (int k = 0; k < 3; k++) a[k] -= sc * d[k];
                }
            }
        }
        double scale = coul ? ke * pi[3] : 1.0;
        if (!vec) task_rsp_set(&o[0], i, scale * e);
        else if (out3)
            for (int k = 0; k < 3; k++) task_rsp_set(&o[0], 3 * i + (size_t)k, scale * a[k]);
        else
            for (int k = 0; k < 3; k++) task_rsp_set(&o[k], i, scale * a[k]);
    }
    st = PG_OK;
out:
    free(buf);
    json_decref(root);
    return st;
}
