/* refs_sparse_stencil.c — reference of the "stencil_bc" family
 * (src/synth/family_sparse_stencil.c): radius-1 stencils in 2D/3D with the
 * boundary rules zero, clamp, periodic, reflect and copy, in double. */
#include "refs_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BZERO, BCLAMP, BPERIODIC, BREFLECT, BCOPY };

/* Coordinate v of an axis of extent n through the boundary rule; -1 means
 * "outside, value 0" (zero rule). */
static int64_t bmap(int rule, int64_t v, int64_t n) {
    if (v >= 0 && v < n) return v;
    switch (rule) {
    case BCLAMP: return v < 0 ? 0 : n - 1;
    case BPERIODIC: return ((v % n) + n) % n;
    case BREFLECT: {
        int64_t m = v < 0 ? -v : 2 * n - 2 - v;
        return m < 0 ? 0 : m > n - 1 ? n - 1 : m;
    }
    default: return -1;
    }
}

pg_status task_ref_fam_stencil_bc(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    bool d3 = task_rsp_int(fp, "dims", 3) == 3;
    const char *shape = task_rsp_str(fp, "shape"), *bname = task_rsp_str(fp, "boundary");
    static const char *const BN[] = {"zero", "clamp", "periodic", "reflect", "copy"};
    int rule = -1;
    for (int k = 0; k < 5; k++)
        if (!strcmp(bname, BN[k])) rule = k;
    int sh = !strcmp(shape, "basic") ? 0 : !strcmp(shape, "full") ? 1 : !strcmp(shape, "varcoef") ? 2 : -1;
    if (!task_rsp_need(in, rule >= 0 && sh >= 0, "stencil_bc: unknown shape or boundary")) goto out;
    int64_t D = d3 ? task_var(in, task_rsp_stri(fp, "sizes", 0)) : 1, H = task_var(in, task_rsp_stri(fp, "sizes", 1)), W = task_var(in, task_rsp_stri(fp, "sizes", 2));
    size_t total = (size_t)(D * H * W);
    rsp_arr_t u, o, kap = {0};
    if (!task_rsp_arr(in, task_rsp_str(fp, "in"), true, &u) || !task_rsp_arr(in, task_rsp_str(fp, "out"), true, &o)) goto out;
    if (sh == 2 && !task_rsp_arr(in, task_rsp_str(fp, "kappa"), true, &kap)) goto out;
    if (!task_rsp_need(in, u.n >= total && o.n >= total && (sh != 2 || kap.n >= total), "stencil_bc: arrays shorter than the grid")) goto out;
    /* coefficients as the kernel sees them: parameters (rounded to the type) or baked literals */
    double co[4] = {0, 0, 0, 0};
    json_t *cs = json_object_get(fp, "coeffs");
    bool params = json_is_true(json_object_get(fp, "coeff_params"));
    static const char *const CN2[] = {"c0", "c1"}, *const CNF[] = {"w0", "w1", "w2", "w3"};
    for (size_t k = 0; k < json_array_size(cs) && k < 4; k++) {
        double v = json_number_value(json_array_get(cs, k));
        if (params) v = task_rsp_fscalar(in, sh == 0 ? CN2[k] : CNF[k]);
        else if (o.t == TASK_T_F32) v = (double)(float)v;
        co[k] = v;
    }
    for (int64_t z = 0; z < D; z++)
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                size_t k = (size_t)((z * H + y) * W + x);
                if (rule == BCOPY && (x == 0 || y == 0 || x == W - 1 || y == H - 1 || (d3 && (z == 0 || z == D - 1)))) {
                    task_rsp_set(&o, k, task_rsp_get(&u, k));
                    continue;
                }
                double cls[4] = {0, 0, 0, 0};
                for (int dz = d3 ? -1 : 0; dz <= (d3 ? 1 : 0); dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int c = (dz != 0) + (dy != 0) + (dx != 0);
                            if (sh != 1 && c > 1) continue;
                            int64_t zz = d3 ? bmap(rule, z + dz, D) : 0, yy = bmap(rule, y + dy, H), xx = bmap(rule, x + dx, W);
                            if (zz < 0 || yy < 0 || xx < 0) continue;   /* zero rule: outside counts 0 */
                            cls[c] += task_rsp_get(&u, (size_t)((zz * H + yy) * W + xx));
                        }
                double v;
                if (sh == 2) v = cls[0] + task_rsp_get(&kap, k) * (cls[1] - (d3 ? 6.0 : 4.0) * cls[0]);
                else if (sh == 0) v = co[0] * cls[0] + co[1] * cls[1];
                else v = co[0] * cls[0] + co[1] * cls[1] + co[2] * cls[2] + (d3 ? co[3] * cls[3] : 0);
                task_rsp_set(&o, k, v);
            }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- automaton ------------------------------------------------------------------------ */
/* One step of a 2-D life-like automaton on u8/s32 cells: n = the sum of the 4 or 8
 * neighbours (outside cells 0 for the dead boundary, wrapped for the torus); the new cell is 1
 * when bit n of the survive mask (live cell) or of the birth mask (dead cell) is set. */
static int64_t ca_get(const rsp_arr_t *a, size_t i) {
    if (a->t == TASK_T_U8) return ((const uint8_t *)a->p)[i];
    return ((const int32_t *)a->p)[i];
}
pg_status task_ref_fam_automaton(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    bool torus = !strcmp(task_rsp_str(fp, "boundary"), "torus"), four = task_rsp_int(fp, "neighbours", 8) == 4;
    uint64_t bm = (uint64_t)task_rsp_int(fp, "birth", 0), sm = (uint64_t)task_rsp_int(fp, "survive", 0);
    int64_t H = task_var(in, task_rsp_stri(fp, "sizes", 0)), W = task_var(in, task_rsp_stri(fp, "sizes", 1));
    rsp_arr_t u, o;
    if (!task_rsp_arr(in, task_rsp_str(fp, "in"), false, &u) || !task_rsp_arr(in, task_rsp_str(fp, "out"), false, &o)) goto out;
    if (!task_rsp_need(in, (u.t == TASK_T_U8 || u.t == TASK_T_S32) && o.t == u.t, "automaton: cells must be u8 or s32 (both arrays)") ||
        !task_rsp_need(in, H >= 1 && W >= 1 && u.n >= (size_t)(H * W) && o.n >= (size_t)(H * W), "automaton: arrays shorter than the grid"))
        goto out;
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++) {
            int64_t n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    if ((!dy && !dx) || (four && dy && dx)) continue;
                    int64_t yy = bmap(torus ? BPERIODIC : BZERO, y + dy, H), xx = bmap(torus ? BPERIODIC : BZERO, x + dx, W);
                    if (yy >= 0 && xx >= 0) n += ca_get(&u, (size_t)(yy * W + xx));
                }
            size_t i = (size_t)(y * W + x);
            uint64_t m = ca_get(&u, i) != 0 ? sm : bm;
            int v = n >= 0 && n < 64 ? (int)((m >> n) & 1u) : 0;
            if (o.t == TASK_T_U8) ((uint8_t *)o.p)[i] = (uint8_t)v;
            else ((int32_t *)o.p)[i] = v;
        }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
