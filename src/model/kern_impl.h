/* kern_impl.h — f32/bf16 kernels written once, included by kernels.c once per
 * instruction set.  The includer defines:
 *   KATTR          the target attribute every function here carries
 *   KN(name)       the function name with the ISA suffix
 *   V, VL          float vector type and its lane count
 *   VZERO() VLOAD(p) VSTORE(p, v) VSET1(a) VFMA(a, b, acc) VHSUM(v) VLOAD_BF16(p)
 *   TX             x rows per prefill tile (register budget)
 * k (the inner dimension) is a multiple of VL. */

/* out[r] = w[r][0:k] . x[0:k] for 4 weight rows (decode). */
static KATTR void KN(dot4_f32)(const float *const w[4], const float *x, int k, float out[4]) {
    V a0 = VZERO(), a1 = VZERO(), a2 = VZERO(), a3 = VZERO();
    for (int i = 0; i < k; i += VL) {
        V xv = VLOAD(x + i);
        a0 = VFMA(VLOAD(w[0] + i), xv, a0);
        a1 = VFMA(VLOAD(w[1] + i), xv, a1);
        a2 = VFMA(VLOAD(w[2] + i), xv, a2);
        a3 = VFMA(VLOAD(w[3] + i), xv, a3);
    }
    out[0] = VHSUM(a0); out[1] = VHSUM(a1); out[2] = VHSUM(a2); out[3] = VHSUM(a3);
}

/* Same with bf16 weights, widened on the fly (a shift: bf16 is the top half of f32). */
static KATTR void KN(dot4_bf16)(const uint16_t *const w[4], const float *x, int k, float out[4]) {
    V a0 = VZERO(), a1 = VZERO(), a2 = VZERO(), a3 = VZERO();
    for (int i = 0; i < k; i += VL) {
        V xv = VLOAD(x + i);
        a0 = VFMA(VLOAD_BF16(w[0] + i), xv, a0);
        a1 = VFMA(VLOAD_BF16(w[1] + i), xv, a1);
        a2 = VFMA(VLOAD_BF16(w[2] + i), xv, a2);
        a3 = VFMA(VLOAD_BF16(w[3] + i), xv, a3);
    }
    out[0] = VHSUM(a0); out[1] = VHSUM(a1); out[2] = VHSUM(a2); out[3] = VHSUM(a3);
}

/* Prefill tile: out[r * TX + j] = w[r] . x[j] for 4 weight rows x TX input rows.
 * 4*TX accumulators stay in registers; every loaded vector feeds TX or 4 FMAs. */
static KATTR void KN(tile_f32)(const float *const w[4], const float *const *x, int k, float *out) {
    V acc[4][TX];
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++)
#pragma GCC unroll 8
        for (int j = 0; j < TX; j++) acc[r][j] = VZERO();
    for (int i = 0; i < k; i += VL) {
        V xv[TX];
#pragma GCC unroll 8
        for (int j = 0; j < TX; j++) xv[j] = VLOAD(x[j] + i);
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++) {
            V wv = VLOAD(w[r] + i);
#pragma GCC unroll 8
            for (int j = 0; j < TX; j++) acc[r][j] = VFMA(wv, xv[j], acc[r][j]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 4; r++)
#pragma GCC unroll 8
        for (int j = 0; j < TX; j++) out[r * TX + j] = VHSUM(acc[r][j]);
}

/* y[0:k] += a * x[0:k] (attention: weighted sum of values). */
static KATTR void KN(axpy)(float *y, float a, const float *x, int k) {
    for (int i = 0; i < k; i += VL) VSTORE(y + i, VFMA(VSET1(a), VLOAD(x + i), VLOAD(y + i)));
}
