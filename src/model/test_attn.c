/* test_attn.c — the attention kernels (kernels.c): model_kern_attn_rows, n query rows of one
 * context read against the cache once, gives every row the values of model_kern_attn_group
 * for that row alone, bit for bit, on every kernel family this CPU runs; and the AVX-512
 * kernel for 5..8 query heads per KV head (Qwen2's 7) gives the values of the AVX2 path it
 * replaced (AVX2 scores, scalar softmax), bit for bit, so generated text does not change;
 * the AVX2 SiLU gives the scalar loop's values.  All against a double-precision reference within 1e-5.  Every bit comparison is memcmp. */
#include "common/test.h"
#include "model/kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TMAX = 400, NMAX = 11, NGMAX = 8, HDMAX = 64, NKV = 2 };

static uint64_t rng = 88172645463325252ull;
static float frand(void) {   /* uniform in [-1, 1) */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((double)(rng >> 40) / (double)(1ull << 23) - 1.0);
}

/* One cache of TMAX positions, NKV KV heads: K of head h in blocks of 16 ([TMAX/16][hd][16]),
 * V rows [TMAX][NKV * hd]; queries [NMAX][NKV * ng][hd] as the model lays them out (a row's
 * KV head h reads query heads h*ng .. h*ng+ng-1). */
static float kt[NKV][TMAX * HDMAX], vc[TMAX * NKV * HDMAX], q[NMAX * NKV * NGMAX * HDMAX];

static void fill(int hd) {
    for (int h = 0; h < NKV; h++)
        for (int i = 0; i < TMAX * hd; i++) kt[h][i] = frand();
    for (size_t i = 0; i < sizeof vc / sizeof *vc; i++) vc[i] = frand();
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) q[i] = 2 * frand();   /* scores of a few units: a peaked softmax */
}

/* row t, query head g of KV head h, over T positions, in double */
static void reference(int ng, int hd, int h, const float *qg, int T, double *o) {
    double sc[TMAX], mx = -INFINITY, sum = 0;
    for (int p = 0; p < T; p++) {
        double s = 0;
        for (int d = 0; d < hd; d++) s += (double)qg[d] * kt[h][(size_t)(p / 16) * 16 * hd + (size_t)d * 16 + p % 16];
        sc[p] = s / sqrt((double)hd);
        mx = sc[p] > mx ? sc[p] : mx;
    }
    for (int p = 0; p < T; p++) sum += sc[p] = exp(sc[p] - mx);
    for (int d = 0; d < hd; d++) {
        o[d] = 0;
        for (int p = 0; p < T; p++) o[d] += sc[p] / sum * vc[(size_t)p * NKV * hd + (size_t)h * hd + d];
    }
    (void)ng;
}

/* out[n][NKV][ng][hd] of n rows at T0 .. T0+n-1 positions: rows together (rows) or one by one */
static void run(int ng, int hd, int T0, int n, bool rows, float *out, float *sc) {
    size_t qs = (size_t)NKV * ng * hd, os = qs;
    float scale = 1.0f / sqrtf((float)hd);
    for (int h = 0; h < NKV; h++) {
        const float *qh = q + (size_t)h * ng * hd;
        float *oh = out + (size_t)h * ng * hd;
        if (rows) model_kern_attn_rows(qh, qs, n, ng, kt[h], vc + (size_t)h * hd, (size_t)NKV * hd, T0, hd, scale, sc, oh, os);
        else
            for (int t = 0; t < n; t++)
                model_kern_attn_group(qh + t * qs, ng, kt[h], vc + (size_t)h * hd, (size_t)NKV * hd, T0 + t, hd, scale, sc, oh + t * os);
    }
}

static const int T0s[] = {1, 2, 15, 16, 17, 31, 33, 100, 257, TMAX - NMAX + 1};
static const int ns[] = {1, 2, 5, 9, NMAX};
#define NT0 (sizeof T0s / sizeof *T0s)
#define NN (sizeof ns / sizeof *ns)
/* the best family's results of the rows kernel, kept for the comparison with the AVX2 path */
static float *kept[2][NGMAX + 1][NT0][NN];

static void family(const char *isa, bool keep, bool compare_kept) {
    float *a = malloc(sizeof(float) * NMAX * NKV * NGMAX * HDMAX), *b = malloc(sizeof(float) * NMAX * NKV * NGMAX * HDMAX);
    float *sc = malloc(sizeof(float) * NMAX * NGMAX * TMAX);
    if (!a || !b || !sc) { CHECK(0, "out of memory"); return; }
    int bad_rows = 0, bad_ref = 0, bad_kept = 0, cases = 0, kept_cases = 0;
    double worst = 0;
    for (int hi = 0; hi < 2; hi++) {
        int hd = hi ? 64 : 32;
        rng = 88172645463325252ull + (uint64_t)hd;
        fill(hd);
        for (int ng = 1; ng <= NGMAX; ng++)
            for (size_t i = 0; i < NT0; i++)
                for (size_t j = 0; j < NN; j++) {
                    int T0 = T0s[i], n = ns[j];
                    size_t bytes = sizeof(float) * (size_t)n * NKV * ng * hd;
                    memset(a, 0x7f, bytes);
                    memset(b, 0x3f, bytes);
                    run(ng, hd, T0, n, true, a, sc);
                    run(ng, hd, T0, n, false, b, sc);
                    cases++;
                    if (memcmp(a, b, bytes)) {
                        if (!bad_rows++) printf("  %s ng %d hd %d T0 %d n %d: rows differ from one by one\n", isa, ng, hd, T0, n);
                    }
                    for (int t = 0; t < n; t++)   /* within 1e-5 of the double reference */
                        for (int h = 0; h < NKV; h++)
                            for (int g = 0; g < ng; g++) {
                                double o[HDMAX];
                                const size_t at = ((size_t)t * NKV + h) * ng * hd + (size_t)g * hd;
                                reference(ng, hd, h, q + at, T0 + t, o);
                                for (int d = 0; d < hd; d++) {
                                    double e = fabs(a[at + d] - o[d]);
                                    worst = e > worst ? e : worst;
                                    if (!(e <= 1e-5) && !bad_ref++)
                                        printf("  %s ng %d hd %d T0 %d row %d: %g against %g\n", isa, ng, hd, T0, t, a[at + d], o[d]);
                                }
                            }
                    if (keep) {
                        kept[hi][ng][i][j] = malloc(bytes);
                        if (kept[hi][ng][i][j]) memcpy(kept[hi][ng][i][j], a, bytes);
                    }
                    if (compare_kept && ng > 4 && kept[hi][ng][i][j]) {
                        kept_cases++;
                        if (memcmp(kept[hi][ng][i][j], a, bytes) && !bad_kept++)
                            printf("  ng %d hd %d T0 %d n %d: the AVX-512 rows differ from the AVX2 path\n", ng, hd, T0, n);
                    }
                }
    }
    printf("%s: %d cases, largest difference from double %.2e\n", isa, cases, worst);
    CHECK(!bad_rows, "%s: %d of %d cases: model_kern_attn_rows equals row-by-row model_kern_attn_group bit for bit", isa, bad_rows, cases);
    CHECK(!bad_ref, "%s: %d values off the double reference by more than 1e-5", isa, bad_ref);
    if (compare_kept)
        CHECK(kept_cases > 0 && !bad_kept, "%d of %d cases: AVX-512 (5..8 heads) equals the AVX2 path bit for bit", bad_kept, kept_cases);
    free(a);
    free(b);
    free(sc);
}

int main(void) {
    const char *best = model_kernels_isa();
    bool avx512 = !strcmp(best, "avx512");
    /* the softmax's vector expf: taken only where it is the C library's expf (then on a dense set too) */
    printf("vector expf in the softmax: %s\n", model_kernels_vexp() ? "yes" : "no");
    if (model_kernels_vexp()) CHECK(model_kernels_vexp_check(101), "the vector expf equals expf on every 101st float of [-88, -0]");
    family(best, avx512, false);
    /* the lesser families this CPU can run (forcing only goes down) */
    /* SiLU x up (the MLP): the AVX2 kernel (vector expf where it is expf) gives the scalar loop's
     * values bit for bit, over arguments past expf's special-case bound (|g| >= 88) and a tail */
    enum { NS = 1003 };
    static float g[NS], u[NS], h2[NS], hs[NS];
    for (int i = 0; i < NS; i++) {
        g[i] = frand() * (i % 5 == 0 ? 120.0f : 12.0f);
        u[i] = frand();
    }
    bool have_avx2 = model_kernels_force("avx2");
    if (have_avx2) {
        model_kern_silu_mul(h2, g, u, NS);
        family("avx2", false, avx512);
    } else printf("avx2: not on this CPU\n");
    if (model_kernels_force("scalar")) {
        family("scalar", false, false);
        model_kern_silu_mul(hs, g, u, NS);
        if (have_avx2) CHECK(!memcmp(h2, hs, sizeof hs), "SiLU: the AVX2 kernel equals the scalar loop bit for bit");
    }
    for (int hi = 0; hi < 2; hi++)
        for (int ng = 0; ng <= NGMAX; ng++)
            for (size_t i = 0; i < NT0; i++)
                for (size_t j = 0; j < NN; j++) free(kept[hi][ng][i][j]);
    return TEST_DONE();
}
