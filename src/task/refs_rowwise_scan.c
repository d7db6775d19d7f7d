/* refs_rowwise_scan.c — C references of the scan, compaction and histogram
 * families (src/synth/family_rowwise_scan.c). */
#include "refs_rowwise.h"

#include <math.h>
#include <string.h>

/* family_params: dtype, exclusive, level (warp | block | blelloch restart every
 * `segment` elements; row: rows x cols, restart every row and, when "flags"
 * names a u8 array, wherever it is nonzero), x / y (names).  Integers wrap
 * at 32 bits; f32 sums are accumulated in double and rounded once. */
pg_status task_ref_fam_scan(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    bool excl = task_ref_rw_bool(fp, "exclusive"), row = !strcmp(task_ref_rw_str(fp, "level", ""), "row");
    int64_t seg = task_ref_rw_int(fp, "segment", 0);
    const char *fn = task_ref_rw_str(fp, "flags", "");
    task_dtype tx, ty, tf = TASK_T_NONE;
    size_t nx, ny, nf = 0;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), false, &tx, &nx);
    void *y = task_ref_rw_buf(in, task_ref_rw_str(fp, "y", "y"), false, &ty, &ny);
    const void *fl = fn[0] ? task_ref_rw_buf(in, fn, false, &tf, &nf) : NULL;
    if (!x || !y || (fn[0] && !fl)) goto out;
    size_t n = row ? task_ref_rw_size(in, "rows") * task_ref_rw_size(in, "cols") : task_ref_rw_size(in, "n");
    size_t period = row ? task_ref_rw_size(in, "cols") : (size_t)(seg > 0 ? seg : 0);
    if (!period && n) { st = task_ref_rw_bad(in, "scan: family_params.segment must be > 0"); goto out; }
    if (nx < n || ny < n || (fl && nf < n)) { st = task_ref_rw_bad(in, "scan: buffers smaller than the problem"); goto out; }
    bool flt = task_dtype_is_float(tx);
    double accf = 0;
    uint32_t acci = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % period == 0 || (fl && task_ref_rw_geti(tf, fl, i) != 0)) { accf = 0; acci = 0; }
        double xf = flt ? task_ref_rw_getf(tx, x, i) : 0;
        uint32_t xi = flt ? 0 : (uint32_t)task_ref_rw_geti(tx, x, i);
        if (excl) {
            if (flt) task_ref_rw_setf(ty, y, i, accf);
            else task_ref_rw_seti(ty, y, i, (int64_t)(tx == TASK_T_S32 ? (int64_t)(int32_t)acci : (int64_t)acci));
        }
        accf += xf;
        acci += xi;
        if (!excl) {
            if (flt) task_ref_rw_setf(ty, y, i, accf);
            else task_ref_rw_seti(ty, y, i, (int64_t)(tx == TASK_T_S32 ? (int64_t)(int32_t)acci : (int64_t)acci));
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* family_params: pred gt | lt | absgt | nz (against the scalar thr), tile, x /
 * out / counts (names), indices (out holds the kept elements' global indices,
 * fill -1; else their values, fill 0). */
pg_status task_ref_fam_compact(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *pr = task_ref_rw_str(fp, "pred", "");
    int k = !strcmp(pr, "gt") ? 0 : !strcmp(pr, "lt") ? 1 : !strcmp(pr, "absgt") ? 2 : !strcmp(pr, "nz") ? 3 : -1;
    int64_t tile = task_ref_rw_int(fp, "tile", 0);
    bool idx = task_ref_rw_bool(fp, "indices");
    if (k < 0 || tile <= 0) { st = task_ref_rw_bad(in, "$.family_params: pred must be gt, lt, absgt or nz and tile > 0"); goto out; }
    task_dtype tx, to, tc;
    size_t nx, no, nc;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), false, &tx, &nx);
    void *o = task_ref_rw_buf(in, task_ref_rw_str(fp, "out", "out"), false, &to, &no);
    void *cn = task_ref_rw_buf(in, task_ref_rw_str(fp, "counts", "counts"), false, &tc, &nc);
    size_t n = task_ref_rw_size(in, "n"), T = (size_t)tile, nt = (n + T - 1) / T;
    if (!x || !o || !cn) goto out;
    if (nx < n || no < n || nc < nt) { st = task_ref_rw_bad(in, "compact: buffers too small"); goto out; }
    bool flt = task_dtype_is_float(tx);
    double thr = k == 3 ? 0 : flt ? task_ref_rw_fscalar(in, "thr", 0) : (double)task_scalar_i(in, "thr");
    for (size_t t = 0; t < nt; t++) {
        size_t end = (t + 1) * T < n ? (t + 1) * T : n, kept = 0;
        for (size_t i = t * T; i < end; i++) {
            double v = flt ? task_ref_rw_getf(tx, x, i) : (double)task_ref_rw_geti(tx, x, i);
            bool keep = k == 0 ? v > thr : k == 1 ? v < thr : k == 2 ? fabs(v) > thr : v != 0;
            if (!keep) continue;
            size_t j = t * T + kept++;
            if (idx) task_ref_rw_seti(to, o, j, (int64_t)i);
            else if (flt) task_ref_rw_setf(to, o, j, v);
            else task_ref_rw_seti(to, o, j, task_ref_rw_geti(tx, x, i));
        }
        for (size_t j = t * T + kept; j < end; j++) {
            if (idx) task_ref_rw_seti(to, o, j, -1);
            else task_ref_rw_setf(to, o, j, 0);
        }
        task_ref_rw_seti(tc, cn, t, (int64_t)kept);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* family_params: bins, map shift | mod | mask (integers) or range |
 * clamp (with scalars lo, hi), x / hist (names).  Counts are added to hist.
 * f32 binning repeats the kernel's float arithmetic exactly:
 * scale = bins / (hi - lo), t = (x - lo) * scale, each rounded to float. */
pg_status task_ref_fam_histogram(task_inst *in) {
    json_t *root = NULL, *fp = task_ref_rw_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    int64_t nb = task_ref_rw_int(fp, "bins", 0);
    const char *map = task_ref_rw_str(fp, "map", "");
    task_dtype tx, th;
    size_t nx, nh;
    const void *x = task_ref_rw_buf(in, task_ref_rw_str(fp, "x", "x"), false, &tx, &nx);
    void *h = task_ref_rw_buf(in, task_ref_rw_str(fp, "hist", "bins"), false, &th, &nh);
    size_t n = task_ref_rw_size(in, "n");
    if (!x || !h) goto out;
    if (nb <= 0 || nx < n || nh < (size_t)nb) { st = task_ref_rw_bad(in, "histogram: bins must be > 0 and the buffers large enough"); goto out; }
    int m = !strcmp(map, "shift") ? 1 : !strcmp(map, "mod") ? 2 : !strcmp(map, "mask") ? 3 : !strcmp(map, "range") ? 4 : !strcmp(map, "clamp") ? 5 : -1;
    if (m < 0) { st = task_ref_rw_bad(in, "$.family_params.map: unknown '%s'", map); goto out; }
    bool flt = task_dtype_is_float(tx);
    int sh = 0;
    while ((256 >> sh) > nb) sh++;
    int64_t loi = 0, hii = 1;
    float lof = 0, hif = 1, scale = 1;
    if (m >= 4) {
        if (flt) {
            lof = (float)task_ref_rw_fscalar(in, "lo", 0);
            hif = (float)task_ref_rw_fscalar(in, "hi", 1);
            volatile float span = hif - lof;   /* float arithmetic, as on the GPU */
            scale = (float)nb / span;
        } else {
            loi = task_scalar_i(in, "lo");
            hii = task_scalar_i(in, "hi");
            if (hii <= loi) { st = task_ref_rw_bad(in, "histogram: hi must be greater than lo"); goto out; }
        }
    }
    for (size_t i = 0; i < n; i++) {
        int64_t b;
        if (flt) {
            float v = (float)task_ref_rw_getf(tx, x, i);
            volatile float d = v - lof;
            volatile float t = d * scale;
            if (m == 4) {
                if (!(v >= lof && v < hif)) continue;
                b = (int64_t)t;
                if (b > nb - 1) b = nb - 1;
            } else {
                b = (int64_t)floorf(t);
                b = b < 0 ? 0 : b > nb - 1 ? nb - 1 : b;
            }
        } else {
            int64_t v = task_ref_rw_geti(tx, x, i);
            switch (m) {
            case 1: b = v >> sh; break;
            case 2: b = ((v % nb) + nb) % nb; break;
            case 3: b = (int64_t)((uint64_t)v & (uint64_t)(nb - 1)); break;
            default:
                if (v < loi || v >= hii) continue;
                b = (v - loi) * nb / (hii - loi);
                break;
            }
        }
        if (b < 0 || b >= nb) { st = task_ref_rw_bad(in, "histogram: value %zu maps outside the bins (family_params do not fit the input)", i); goto out; }
        task_ref_rw_seti(th, h, (size_t)b, task_ref_rw_geti(th, h, (size_t)b) + 1);
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
