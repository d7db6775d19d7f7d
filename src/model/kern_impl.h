/* kern_impl.h — f32/bf16 kernels written once, included by kernels.c once per
 * instruction set.  The includer defines:
 *   KATTR          the target attribute every function here carries
 *   KN(name)       the function name with the ISA suffix
 *   V, VL          float vector type and its lane count; NV = WPANEL / VL
 *   VZERO() VLOAD(p) VSTORE(p, v) VSET1(a) VFMA(a, b, acc)
 *   VBF_LO(p) VBF_HI(p)  VL 32-bit words at p (bf16 pairs) -> the low / high bf16 of each as f32
 *   TX             token rows per prefill tile (register budget: TX * 2 * NV accumulators)
 * Packed weights (see wmat in model_internal.h): a panel is [k][16] (f32) or
 * [k/2][16][2] (bf16); the kernels take a panel pair, the second panel at
 * P + k*16 elements.  axpy (attention) needs k a multiple of VL. */

/* Decode: out[0:32] = panel pair P (f32 [2][k][16]) times x[0:k].  Columns are
 * split over 2 accumulator sets so FMA latency does not serialise the stream. */
static KATTR void KN(mv_f32)(const float *P, int k, const float *x, float out[32]) {
    V acc[2][2 * NV];
#pragma GCC unroll 8
    for (int q = 0; q < 2 * NV; q++) acc[0][q] = acc[1][q] = VZERO();
    const float *P1 = P + (size_t)k * WPANEL;
    int i = 0;
    for (; i + 2 <= k; i += 2) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            V xb = VSET1(x[i + u]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                acc[u][v] = VFMA(VLOAD(P + (size_t)(i + u) * WPANEL + v * VL), xb, acc[u][v]);
                acc[u][NV + v] = VFMA(VLOAD(P1 + (size_t)(i + u) * WPANEL + v * VL), xb, acc[u][NV + v]);
            }
        }
    }
    if (i < k) {
        V xb = VSET1(x[i]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            acc[0][v] = VFMA(VLOAD(P + (size_t)i * WPANEL + v * VL), xb, acc[0][v]);
            acc[0][NV + v] = VFMA(VLOAD(P1 + (size_t)i * WPANEL + v * VL), xb, acc[0][NV + v]);
        }
    }
#pragma GCC unroll 8
    for (int q = 0; q < 2 * NV; q++) VSTORE(out + q * VL, acc[0][q] + acc[1][q]);
}

/* Same with bf16 pairs: one load gives columns i and i+1 (a shift and a mask; exact). */
static KATTR void KN(mv_bf16)(const uint16_t *P, int k, const float *x, float out[32]) {
    V acc[2][2 * NV];
#pragma GCC unroll 8
    for (int q = 0; q < 2 * NV; q++) acc[0][q] = acc[1][q] = VZERO();
    const uint16_t *P1 = P + (size_t)k * WPANEL;
    for (int i = 0; i < k; i += 2) {   /* k even (model_wmat_make keeps odd widths f32) */
        V x0 = VSET1(x[i]), x1 = VSET1(x[i + 1]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            const uint16_t *a = P + (size_t)i * WPANEL + 2 * v * VL, *b = P1 + (size_t)i * WPANEL + 2 * v * VL;
            acc[0][v] = VFMA(VBF_LO(a), x0, acc[0][v]);
            acc[1][v] = VFMA(VBF_HI(a), x1, acc[1][v]);
            acc[0][NV + v] = VFMA(VBF_LO(b), x0, acc[0][NV + v]);
            acc[1][NV + v] = VFMA(VBF_HI(b), x1, acc[1][NV + v]);
        }
    }
#pragma GCC unroll 8
    for (int q = 0; q < 2 * NV; q++) VSTORE(out + q * VL, acc[0][q] + acc[1][q]);
}

/* One weight column of a panel pair (2*NV vectors at w0 and w0 + w1) times the TX
 * packed activations at xa, into acc[TX][2*NV]; inlined so acc stays in registers. */
static inline __attribute__((always_inline)) KATTR void KN(gemm_step)(const float *w0, size_t w1, const float *xa,
                                                                      V acc[TX][2 * NV]) {
    V w[2 * NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) {
        w[v] = VLOAD(w0 + v * VL);
        w[NV + v] = VLOAD(w0 + w1 + v * VL);
    }
#pragma GCC unroll 8
    for (int j = 0; j < TX; j++) {
        V xb = VSET1(xa[j]);
#pragma GCC unroll 8
        for (int q = 0; q < 2 * NV; q++) acc[j][q] = VFMA(w[q], xb, acc[j][q]);
    }
}

/* Prefill tile: out[j][0:32] (+)= panel pair P (f32 [2][k][16]) times x[j][i0:i1], j < TX,
 * with x packed column-major for the tile: xp[i][TX] (one pointer, TX broadcasts at
 * fixed offsets); out rows at stride ldo, accumulated into when acc_in, else
 * overwritten.  TX * 2 * NV accumulators stay in registers; per column: 2*NV weight
 * loads and TX broadcasts feed TX * 2 * NV FMAs.  The caller blocks k so a weight
 * block stays in L1 while all token tiles pass over it, and names in pf the weights
 * to pull into L1 meanwhile: columns of the next block (panel pair layout, one
 * column per 8 of this call's; NULL: none). */
static KATTR void KN(gemm_f32)(const float *P, int k, int i0, int i1, const float *xp, float *out, int ldo, int acc_in,
                               const float *pf) {
    V acc[TX][2 * NV];
    if (acc_in) {
#pragma GCC unroll 8
        for (int j = 0; j < TX; j++)
#pragma GCC unroll 8
            for (int q = 0; q < 2 * NV; q++) acc[j][q] = VLOAD(out + (size_t)j * ldo + q * VL);
    } else {
#pragma GCC unroll 8
        for (int j = 0; j < TX; j++)
#pragma GCC unroll 8
            for (int q = 0; q < 2 * NV; q++) acc[j][q] = VZERO();
    }
    const float *w0 = P + (size_t)i0 * WPANEL;
    const size_t w1 = (size_t)k * WPANEL;   /* second panel, in elements */
    const float *xa = xp + (size_t)i0 * TX;
    int n = i1 - i0;
    /* 8 columns at a time with one 64-byte line of each panel of pf pulled in:
     * spread over the loop so the prefetches never pile up on the fill buffers */
    for (; n >= 8; n -= 8) {
        if (pf) {
            __builtin_prefetch(pf);
            __builtin_prefetch(pf + w1);
            pf += WPANEL;
        }
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++, w0 += WPANEL, xa += TX) KN(gemm_step)(w0, w1, xa, acc);
    }
    for (; n > 0; n--, w0 += WPANEL, xa += TX) KN(gemm_step)(w0, w1, xa, acc);
#pragma GCC unroll 8
    for (int j = 0; j < TX; j++)
#pragma GCC unroll 8
        for (int q = 0; q < 2 * NV; q++) VSTORE(out + (size_t)j * ldo + q * VL, acc[j][q]);
}

/* y[0:k] += a * x[0:k] (attention: weighted sum of values). */
static KATTR void KN(axpy)(float *y, float a, const float *x, int k) {
    for (int i = 0; i < k; i += VL) VSTORE(y + i, VFMA(VSET1(a), VLOAD(x + i), VLOAD(y + i)));
}
