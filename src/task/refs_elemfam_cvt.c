/* refs_elemfam_cvt.c — references of the number-format families
 * (src/synth/family_elem_cvt.c): convert, quantize.  Every result is exact,
 * so each reference reproduces the kernel's single-precision steps (a float
 * multiply or divide is the double result rounded once to float, which is
 * the correctly rounded float result) and the rounding modes bit for bit. */
#include "refs_elemfam.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { RN, RZ, RM, RP };

static int mode_of(const char *m) { return !strcmp(m, "rz") ? RZ : !strcmp(m, "rm") ? RM : !strcmp(m, "rp") ? RP : RN; }

/* Neighbours of a 16-bit sign-magnitude float (f16 or bf16) bit pattern. */
static uint16_t h_down(uint16_t h) { return h == 0x0000 ? 0x8001 : (h & 0x8000) ? (uint16_t)(h + 1) : (uint16_t)(h - 1); }
static uint16_t h_up(uint16_t h) { return h == 0x8000 ? 0x0001 : (h & 0x8000) ? (uint16_t)(h - 1) : (uint16_t)(h + 1); }

/* x rounded to f16 (bf16 when bf) with mode: the nearest-even result, moved
 * one step when it lies on the wrong side of x for a directed mode. */
uint16_t task_ef_round16(float x, int mode, bool bf) {
    uint16_t h = bf ? task_f32_to_bf16(x) : task_f32_to_f16(x);
    if (isnan(x) || mode == RN) return h;
    double hv = bf ? task_bf16_to_f32(h) : task_f16_to_f32(h), xv = x;
    if (mode == RZ && fabs(hv) > fabs(xv)) h = (uint16_t)(h - 1);   /* magnitude one step down */
    if (mode == RM && hv > xv) h = h_down(h);
    if (mode == RP && hv < xv) h = h_up(h);
    return h;
}

/* d rounded to float with mode (the same idea with nextafterf). */
static float round_f32(double d, int mode) {
    float f = (float)d;
    if (isnan(d) || mode == RN) return f;
    if (mode == RZ && fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
    if (mode == RM && (double)f > d) f = nextafterf(f, -INFINITY);
    if (mode == RP && (double)f < d) f = nextafterf(f, INFINITY);
    return f;
}

/* v rounded to an integer with mode and clamped to [lo, hi]; NaN gives 0. */
static double round_int(double v, int mode, double lo, double hi) {
    if (isnan(v)) return 0;
    double r = mode == RN ? nearbyint(v) : mode == RZ ? trunc(v) : mode == RM ? floor(v) : ceil(v);
    return r < lo ? lo : r > hi ? hi : r;
}

/* ---- convert ------------------------------------------------------------------------- */
pg_status task_ref_fam_elem_convert(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    const char *op = task_ef_str(fp, "op"), *sn = json_string_value(json_object_get(fp, "scale"));
    int mode = mode_of(task_ef_str(fp, "mode"));
    bool bf = !strcmp(task_ef_str(fp, "packed"), "bf16");
    size_t n = (size_t)task_scalar_i(in, "n");
    bool pairs = !strcmp(op, "pack_pairs"), two = !strcmp(op, "pack_two");
    ef_arr x, x2 = {0}, y;
    if (!task_ef_buf(in, task_ef_str(fp, "x"), pairs ? 2 * n : n, &x) || !task_ef_buf(in, task_ef_str(fp, "y"), n, &y) || (two && !task_ef_buf(in, task_ef_str(fp, "x2"), n, &x2))) goto out;
    double scale = sn ? task_ef_scalar(in, sn) : 1;
    for (size_t i = 0; i < n; i++) {
        double v = task_ef_get(x.t, x.p, pairs ? 2 * i : i);
        if (pairs || two) {
            double w = pairs ? task_ef_get(x.t, x.p, 2 * i + 1) : task_ef_get(x2.t, x2.p, i);
            uint32_t lo = task_ef_round16((float)v, RN, bf), hi = task_ef_round16((float)w, RN, bf);
            ((uint32_t *)y.p)[i] = lo | hi << 16;
        } else if (!strcmp(op, "f32_f16") || !strcmp(op, "f32_bf16") || !strcmp(op, "f16_bf16")) {
            ((uint16_t *)y.p)[i] = task_ef_round16((float)v, mode, y.t == TASK_T_BF16);
        } else if (!strcmp(op, "f64_f32")) {
            ((float *)y.p)[i] = round_f32(v, mode);
        } else if (!strcmp(op, "widen")) {
            ((float *)y.p)[i] = (float)v;
        } else if (!strcmp(op, "f32_s32") || !strcmp(op, "f64_s32")) {
            if (sn) v = (double)(float)(v * scale);   /* the kernel's float multiply */
            ((int32_t *)y.p)[i] = (int32_t)round_int(v, mode, -2147483648.0, 2147483647.0);
        } else if (!strcmp(op, "f32_u32")) {
            if (sn) v = (double)(float)(v * scale);
            ((uint32_t *)y.p)[i] = (uint32_t)round_int(v, mode, 0.0, 4294967295.0);
        } else {
            pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown conversion '%s'", op);
            goto out;
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}

/* ---- quantize: q = clamp(round(x * s or x / s) + zp, lo, hi); dequantize: x = (q - zp) * s */
pg_status task_ref_fam_elem_quant(task_inst *in) {
    json_t *root = NULL, *fp = task_ef_params(in, &root);
    pg_status st = PG_ERR_INVALID;
    if (!fp) goto out;
    bool deq = task_ef_bool(fp, "dequant"), per_row = task_ef_bool(fp, "per_row"), mult = task_ef_bool(fp, "mult"), away = task_ef_bool(fp, "away");
    double lo = (double)task_ef_int(fp, "lo", -128), hi = (double)task_ef_int(fp, "hi", 127);
    const char *sn = task_ef_str(fp, "scale"), *zn = json_string_value(json_object_get(fp, "zp"));
    size_t rows = per_row ? (size_t)task_scalar_i(in, "rows") : 1, cols = per_row ? (size_t)task_scalar_i(in, "cols") : (size_t)task_scalar_i(in, "n");
    size_t n = rows * cols;
    ef_arr x, q, sa = {0}, za = {0};
    if (!task_ef_buf(in, task_ef_str(fp, "x"), n, &x) || !task_ef_buf(in, task_ef_str(fp, "q"), n, &q)) goto out;
    int si = task_ef_pidx(in->spec, sn), zi = zn ? task_ef_pidx(in->spec, zn) : -1;
    bool s_arr = si >= 0 && in->spec->params[si].is_pointer, z_arr = zi >= 0 && in->spec->params[zi].is_pointer;
    if (si < 0 || (zn && zi < 0) || (s_arr && !task_ef_buf(in, sn, rows, &sa)) || (z_arr && !task_ef_buf(in, zn, rows, &za))) {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "fam_elem_quant: scale '%s' or zero point '%s' missing", sn, zn ? zn : "");
        goto out;
    }
    double s0 = s_arr ? 0 : task_ef_scalar(in, sn), z0 = zn && !z_arr ? task_ef_scalar(in, zn) : 0;
    for (size_t r = 0; r < rows; r++) {
        double s = s_arr ? task_ef_get(sa.t, sa.p, r) : s0, z = z_arr ? task_ef_get(za.t, za.p, r) : z0;
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c;
            if (deq) {
                task_ef_set(x.t, x.p, i, (double)(float)((task_ef_get(q.t, q.p, i) - z) * s));
            } else {
                double v = task_ef_get(x.t, x.p, i);
                double p = (double)(float)(mult ? v * s : v / s);   /* one float multiply / IEEE divide */
                double k = away ? round(p) : nearbyint(p);
                k = k < -2147483648.0 ? -2147483648.0 : k > 2147483647.0 ? 2147483647.0 : k;   /* the float -> int conversion saturates */
                k += z;
                task_ef_set(q.t, q.p, i, k < lo ? lo : k > hi ? hi : k);
            }
        }
    }
    st = PG_OK;
out:
    json_decref(root);
    return st;
}
