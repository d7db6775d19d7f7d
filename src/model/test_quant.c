/* test_quant.c — the GGUF block kernels (quant.c) and WT_GG matmul against the
 * reference dequantizer model_gguf_dequant_row (bit-exact with gguf-py) times f32
 * activations, summed in double.
 *
 * Data: random blocks of every type the engine computes with (F32 F16 BF16 Q4_0
 * Q4_1 Q5_0 Q8_0 Q4_K Q6_K; random code bytes, finite f16 scales of O(0.01) and
 * both signs), odd row counts, 1 and 2 threads, each kernel family this CPU has.
 *
 * Tolerances, from the one rounding the fast path adds (quant.c NUMERICS): x is
 * rounded to int8 per block with d = amax/127, so |x - x~| <= d/2 per element and
 *   |dot - ref| <= sum_blocks (amax_b / 254) * sum_{i in b} |w_i|  (+ f32 slack)
 * where blocks are 32 elements (Q4_0 Q4_1 Q5_0 Q8_0) or 256 (Q4_K Q6_K).  The
 * f32 slack is 1e-5 * sum |w_i x_i| + 1e-6 (f32 sums over <= 1024 terms).  F32 /
 * F16 / BF16 rows, the exact path and prefill (dequantized rows x f32 x) get the
 * f32 slack alone.  Dequantization must equal model_gguf_dequant_row bit for bit. */
#include "common/test.h"
#include "model/gguf.h"
#include "model/model_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (uint32_t)(rs >> 16);
}
static float frnd(void) { return (float)((rnd() & 0xffffff) / 16777216.0 * 2 - 1); }   /* [-1, 1) */

static uint16_t to_f16(float f) {   /* normal range only (the test's scales) */
    union { float f; uint32_t u; } v = {f};
    uint32_t sign = (v.u >> 16) & 0x8000, e = (v.u >> 23) & 0xff, man = v.u & 0x7fffff;
    if (e < 113 || e > 141) return (uint16_t)sign;   /* below f16's normals (or, never here, above): zero */
    return (uint16_t)(sign | ((e - 112) << 10) | (man >> 13));
}
static void put16(uint8_t *p, float f) {
    uint16_t h = to_f16(f);
    memcpy(p, &h, 2);
}

static const int TYPES[] = {GGUF_T_F32, GGUF_T_F16, GGUF_T_BF16, GGUF_T_Q4_0, GGUF_T_Q4_1,
                            GGUF_T_Q5_0, GGUF_T_Q8_0, GGUF_T_Q4_K, GGUF_T_Q6_K};
#define NTYPES (int)(sizeof TYPES / sizeof *TYPES)

/* rows x n random elements of `type` (row-major blocks); malloc'd */
static uint8_t *rand_rows(int type, int rows, int n) {
    size_t rb = model_quant_row_bytes(type, n), bb = model_gguf_type_block_bytes(type);
    uint8_t *d = malloc(rb * rows);
    for (size_t i = 0; i < rb * rows; i++) d[i] = (uint8_t)rnd();
    if (type == GGUF_T_F32)
        for (size_t i = 0; i < (size_t)rows * n; i++) { float f = frnd() * 0.1f; memcpy(d + 4 * i, &f, 4); }
    else if (type == GGUF_T_F16)
        for (size_t i = 0; i < (size_t)rows * n; i++) put16(d + 2 * i, frnd() * 0.1f);
    else if (type == GGUF_T_BF16)
        for (size_t i = 0; i < (size_t)rows * n; i++) { uint16_t h = f32_to_bf16(frnd() * 0.1f); memcpy(d + 2 * i, &h, 2); }
    else
        for (size_t b = 0; b < rb * rows / bb; b++) {
            uint8_t *p = d + b * bb;
            switch (type) {
            case GGUF_T_Q4_1: put16(p, frnd() * 0.01f); put16(p + 2, frnd() * 0.05f); break;
            case GGUF_T_Q4_K: put16(p, frnd() * 1e-3f); put16(p + 2, frnd() * 1e-3f); break;
            case GGUF_T_Q6_K: put16(p + 208, frnd() * 1e-3f); break;
            default: put16(p, frnd() * 0.01f); break;   /* Q4_0 Q5_0 Q8_0: d first */
            }
        }
    return d;
}

/* reference row . x in double, and the fast path's error bound for it */
static double ref_dot(int type, const uint8_t *row, const float *x, int n, double *bound) {
    float *w = malloc((size_t)n * sizeof *w);
    model_gguf_dequant_row(type, row, w, n);
    double s = 0, mag = 0, b = 0;
    int bs = model_quant_act_kind(type) == QACT_32 ? 32 : model_quant_act_kind(type) == QACT_256 ? 256 : 0;
    for (int i = 0; i < n; i++) { s += (double)w[i] * x[i]; mag += fabs((double)w[i] * x[i]); }
    for (int b0 = 0; bs && b0 < n; b0 += bs) {
        double amax = 0, wsum = 0;
        for (int i = b0; i < b0 + bs; i++) { amax = fmax(amax, fabs(x[i])); wsum += fabs(w[i]); }
        b += amax / 254.0 * wsum;
    }
    *bound = b + 1e-5 * mag + 1e-6;
    free(w);
    return s;
}

static void test_dequant(void) {
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t], n = 512;
        uint8_t *d = rand_rows(type, 3, n);
        float *a = malloc(3 * n * 4), *b = malloc(3 * n * 4), *c = malloc(3 * n * 4);
        size_t rb = model_quant_row_bytes(type, n);
        for (int r = 0; r < 3; r++) {
            model_gguf_dequant_row(type, d + r * rb, a + r * n, n);
            model_quant_dequant_row(type, d + r * rb, b + r * n, n);
            model_quant_dequant_fast(type, d + r * rb, c + r * n, n);
        }
        CHECK(!memcmp(a, b, 3 * n * 4), "%s: model_quant_dequant_row == model_gguf_dequant_row", model_gguf_type_name(type));
        CHECK(!memcmp(a, c, 3 * n * 4), "%s: model_quant_dequant_fast == model_gguf_dequant_row (%s)", model_gguf_type_name(type), model_kernels_isa());
        CHECK(model_quant_row_bytes(type, n) == (size_t)n / model_gguf_type_block(type) * model_gguf_type_block_bytes(type), "%s: row bytes",
              model_gguf_type_name(type));
        free(a); free(b); free(c); free(d);
    }
}

/* the AVX-512 kernels' values of test_dots' NX activations, per type and width: the K-quant
 * kernels (VNNI) must give the AVX2 kernel's values bit for bit (generated text stays the same) */
static float avx512_many[32][2][19][7];
static bool avx512_kept[32][2];

/* model_quant_dot_rows against the reference, every type, within the stated bound */
static void test_dots(void) {
    rs = 0x243f6a8885a308d3ull;   /* the same blocks and activations for every kernel family (compared above) */
    for (int t = 0; t < NTYPES; t++) {
        int type = TYPES[t];
        for (int n = 256; n <= 1024; n += 768) {   /* 256 and 1024 columns; 7 rows */
            int rows = 7;
            uint8_t *d = rand_rows(type, rows, n);
            float *x = malloc((size_t)n * 4), out[7];
            for (int i = 0; i < n; i++) x[i] = frnd() * (i % 17 == 0 ? 8.0f : 1.0f);   /* some outliers per block */
            qa32 *q32 = malloc((size_t)n / 32 * sizeof *q32);
            qa256 *q256 = malloc((size_t)n / 256 * sizeof *q256);
            model_quant_act32(x, n, q32);
            model_quant_act256(x, n, q256);
            int kind = model_quant_act_kind(type);
            model_quant_dot_rows(type, d, model_quant_row_bytes(type, n), rows, kind == QACT_32 ? (void *)q32 : kind == QACT_256 ? (void *)q256 : (void *)x,
                           n, out);
            double worst = 0;
            for (int r = 0; r < rows; r++) {
                double bound, ref = ref_dot(type, d + r * model_quant_row_bytes(type, n), x, n, &bound);
                worst = fmax(worst, fabs(out[r] - ref) / bound);
                CHECK(fabs(out[r] - ref) <= bound, "%s %s n=%d row %d: %.9g vs %.9g, bound %.3g", model_kernels_isa(),
                      model_gguf_type_name(type), n, r, out[r], ref, bound);
            }
            if (n == 1024) printf("  %-6s %-5s error / bound: worst %.3f\n", model_kernels_isa(), model_gguf_type_name(type), worst);
            /* several activations at once: each one's values equal its own call's, bit for bit (x, then
             * x scaled, then x again, ...: 19 of them, more than one QUANT_NX_MAX group) */
            enum { NX = 19 };
            float *xs = malloc((size_t)NX * n * 4), many[NX][7], one[7];
            qa32 *q32s = malloc((size_t)NX * (n / 32) * sizeof *q32s);
            qa256 *q256s = malloc((size_t)NX * (n / 256) * sizeof *q256s);
            const void *xq[NX];
            for (int j = 0; j < NX; j++) {
                for (int i = 0; i < n; i++) xs[(size_t)j * n + i] = x[i] * (1.0f + 0.37f * (float)j) + (j % 3 ? 0.0f : frnd() * 0.01f);
                model_quant_act32(xs + (size_t)j * n, n, q32s + (size_t)j * (n / 32));
                model_quant_act256(xs + (size_t)j * n, n, q256s + (size_t)j * (n / 256));
                xq[j] = kind == QACT_32 ? (void *)(q32s + (size_t)j * (n / 32)) : kind == QACT_256 ? (void *)(q256s + (size_t)j * (n / 256))
                                                                               : (void *)(xs + (size_t)j * n);
            }
            model_quant_dot_rows_nx(type, d, model_quant_row_bytes(type, n), rows, xq, NULL, NX, n, &many[0][0], 7);
            bool same = true;
            for (int j = 0; j < NX; j++) {
                model_quant_dot_rows(type, d, model_quant_row_bytes(type, n), rows, xq[j], n, one);
                same &= !memcmp(one, many[j], sizeof one);
            }
            CHECK(same, "%s %s n=%d: %d activations at once equal one at a time, bit for bit", model_kernels_isa(), model_gguf_type_name(type), n, NX);
            /* every group size (each a constant-nx copy of the kernel: a verify step of 2..16 rows) */
            bool gsame = true;
            for (int nx = 1; nx <= NX; nx++) {
                float gm[NX][7];
                model_quant_dot_rows_nx(type, d, model_quant_row_bytes(type, n), rows, xq, NULL, nx, n, &gm[0][0], 7);
                gsame &= !memcmp(gm, many, (size_t)nx * sizeof gm[0]);
            }
            CHECK(gsame, "%s %s n=%d: 1..%d activations at once equal one at a time, bit for bit", model_kernels_isa(), model_gguf_type_name(type), n, NX);
            if (!strcmp(model_kernels_isa(), "avx512")) {
                memcpy(avx512_many[t][n == 1024], many, sizeof many);
                avx512_kept[t][n == 1024] = true;
            } else if (!strcmp(model_kernels_isa(), "avx2") && kind == QACT_256 && avx512_kept[t][n == 1024])
                CHECK(!memcmp(avx512_many[t][n == 1024], many, sizeof many), "%s n=%d: the AVX-512 (VNNI) kernel equals the AVX2 kernel bit for bit",
                      model_gguf_type_name(type), n);
            /* the pair form (the AVX-512 kernels' activations, built once per matmul): the same values,
             * bit for bit, for every group size 1..NX (each a constant-nx copy of the kernel) */
            if (kind == QACT_32) {
                qa64 *zs = malloc((size_t)NX * (n / 64) * sizeof *zs);
                const qa64 *xz[NX];
                for (int j = 0; j < NX; j++) {
                    model_quant_act32_pairs(q32s + (size_t)j * (n / 32), n, zs + (size_t)j * (n / 64));
                    xz[j] = zs + (size_t)j * (n / 64);
                }
                bool zsame = true;
                for (int nx = 1; nx <= NX; nx++) {
                    float zm[NX][7];
                    model_quant_dot_rows_nx(type, d, model_quant_row_bytes(type, n), rows, xq, xz, nx, n, &zm[0][0], 7);
                    zsame &= !memcmp(zm, many, (size_t)nx * sizeof zm[0]);
                }
                CHECK(zsame, "%s %s n=%d: the pair form gives the same values for 1..%d activations, bit for bit", model_kernels_isa(),
                      model_gguf_type_name(type), n, NX);
                free(zs);
            }
            free(xs); free(q32s); free(q256s);
            free(d); free(x); free(q32); free(q256);
        }
    }
}

/* A WT_GG matrix of three stacked segments (odd row counts), through matmul for
 * decode (n 1..3) and prefill (n 5, 9), fast and exact, and model_wmat_rows_dot. */
static void test_matmul(int ta, int tb, int tc, int k, int threads) {
    int rows[3] = {33, 7, 21}, R = 61;
    uint8_t *seg[3] = {rand_rows(ta, rows[0], k), rand_rows(tb, rows[1], k), rand_rows(tc, rows[2], k)};
    int types[3] = {ta, tb, tc};
    wmat m;
    memset(&m, 0, sizeof m);
    for (int s = 0; s < 3; s++) CHECK(model_wmat_gg_add(&m, types[s], seg[s], rows[s], k), "model_wmat_gg_add");
    CHECK(m.rows == R && m.type == WT_GG && model_wmat_bytes(&m) > 0, "stacked matrix");
    CHECK(!model_wmat_gg_add(&m, ta, seg[0], 1, k), "a fourth segment is refused");
    pg_pool *p = model_pool_new(threads);
    int nmax = 9;
    float *x = malloc((size_t)nmax * k * 4), *out = malloc((size_t)nmax * R * 4);
    for (int i = 0; i < nmax * k; i++) x[i] = frnd();
    char lab[96];
    snprintf(lab, sizeof lab, "%s %s|%s|%s k=%d %dT", model_kernels_isa(), model_gguf_type_name(ta), model_gguf_type_name(tb), model_gguf_type_name(tc), k,
             threads);
    int ns[] = {1, 2, 3, 5, 9};
    for (int ex = 0; ex < 2; ex++) {
        m.exact = ex;
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
            int n = ns[ni];
            model_matmul(p, out, R, x, k, n, &m);
            bool ok = true;
            for (int j = 0; j < n; j++)
                for (int r = 0; r < R; r++) {
                    int s = r < rows[0] ? 0 : r < rows[0] + rows[1] ? 1 : 2, r0 = s == 0 ? 0 : s == 1 ? rows[0] : rows[0] + rows[1];
                    double bound, ref = ref_dot(types[s], seg[s] + (size_t)(r - r0) * model_quant_row_bytes(types[s], k), x + (size_t)j * k, k,
                                                &bound);
                    if (n >= 4 || ex) {   /* prefill and the exact path: f32 slack only */
                        double mag = 0;

                        float *w = malloc((size_t)k * 4);
                        model_gguf_dequant_row(types[s], seg[s] + (size_t)(r - r0) * model_quant_row_bytes(types[s], k), w, k);
                        for (int i = 0; i < k; i++) mag += fabs((double)w[i] * x[(size_t)j * k + i]);
                        free(w);
                        bound = 1e-5 * mag + 1e-6;
                    }
                    if (fabs(out[(size_t)j * R + r] - ref) > bound) {
                        if (ok) CHECK(0, "%s %s n=%d row %d token %d: %.9g vs %.9g (bound %.3g)", lab, ex ? "exact" : "fast", n, r, j,
                                      out[(size_t)j * R + r], ref, bound);
                        ok = false;
                    }
                }
            if (ok) CHECK(1, "%s", lab);
        }
        /* rows by id: the decode values bit for bit */
        int32_t ids[5] = {0, 60, 33, 40, 39};
        float sub[5];
        model_matmul(p, out, R, x, k, 1, &m);
        model_wmat_rows_dot(&m, ids, 5, x, sub);
        bool same = true;
        for (int i = 0; i < 5; i++) same &= sub[i] == out[ids[i]];
        CHECK(same, "%s %s: model_wmat_rows_dot equals matmul's decode rows", lab, ex ? "exact" : "fast");
        float row[1024];
        model_wmat_row_f32(&m, 36, row);   /* segment 1 holds rows 33..39 */
        float refrow[1024];
        model_gguf_dequant_row(tb, seg[1] + (size_t)(36 - 33) * model_quant_row_bytes(tb, k), refrow, k);
        CHECK(!memcmp(row, refrow, (size_t)k * 4), "%s: model_wmat_row_f32 of a middle segment", lab);
    }
    model_pool_free(p);
    free(x); free(out);
    for (int s = 0; s < 3; s++) free(seg[s]);
}

/* The 16-row kernels (Q5_0 p16, Q4_K / Q6_K k16): within the bound of every row and close to
 * the row-major kernel's value (p16: the same exact integer sums, f32 summed in another order;
 * k16: the vector row-major kernels' values bit for bit), the
 * scalar kernel's values bit for bit, each activation's values the same in groups of 1..19,
 * and through a packed WT_GG matrix (decode n 1..3 and the verify step's model_matmul_dec) the
 * same values for a token whatever the count of tokens or threads. */
static void test_p16(int type, int n) {
    enum { R = 48, NX = 19 };
    rs = 0x13198a2e03707344ull ^ (uint64_t)type;
    const char *tn = type == GGUF_T_Q5_0 ? "Q5_0" : type == GGUF_T_Q4_K ? "Q4_K" : "Q6_K";
    bool k = type != GGUF_T_Q5_0;
    size_t rb = model_quant_row_bytes(type, n), gb = model_quant_p16_bytes(type, n);
    CHECK(model_quant_p16_ok(type, n) && gb >= 16 * rb && gb <= 16 * rb * 103 / 100, "p16: %s n=%d packs into the file's bytes (+<=3%%: %zu / %zu)", tn,
          n, gb, 16 * rb);
    uint8_t *d = rand_rows(type, R, n), *pk = malloc(gb * (R / 16));
    for (int g = 0; g < R / 16; g++) model_quant_p16_pack(type, d + (size_t)g * 16 * rb, rb, n, pk + (size_t)g * gb);
    float *x = malloc((size_t)NX * n * 4);
    size_t qb = k ? (size_t)(n / 256) * sizeof(qa256) : (size_t)(n / 32) * sizeof(qa32);
    char *q = malloc((size_t)NX * qb);
    int32_t *c = malloc((size_t)NX * (n / 32) * sizeof *c);
    const void *xs[NX];
    const int32_t *cs[NX];
    for (int j = 0; j < NX; j++) {
        for (int i = 0; i < n; i++) x[(size_t)j * n + i] = frnd() * (i % 17 == 0 ? 8.0f : 1.0f) * (1.0f + 0.3f * (float)j);
        xs[j] = q + (size_t)j * qb;
        cs[j] = k ? NULL : c + (size_t)j * (n / 32);
        if (k) model_quant_act256(x + (size_t)j * n, n, (qa256 *)(void *)(q + (size_t)j * qb));
        else {
            model_quant_act32(x + (size_t)j * n, n, (qa32 *)(void *)(q + (size_t)j * qb));
            model_quant_p16_sums((const qa32 *)(const void *)(q + (size_t)j * qb), n, c + (size_t)j * (n / 32));
        }
    }
    float all[NX][R], ref[NX][R], part[NX][R], rowm[NX][R];
    for (int g = 0; g < R / 16; g++) {
        model_quant_p16_dot(type, pk + (size_t)g * gb, n, xs, cs, NX, &all[0][16 * g], R);
        model_quant_p16_dot_ref(type, pk + (size_t)g * gb, n, xs, cs, NX, &ref[0][16 * g], R);
    }
    model_quant_dot_rows_nx(type, d, rb, R, xs, NULL, NX, n, &rowm[0][0], R);
    double worst = 0, worst_rm = 0;
    bool inb = true, near = true;
    for (int j = 0; j < NX; j++)
        for (int r = 0; r < R; r++) {
            double bound, want = ref_dot(type, d + (size_t)r * rb, x + (size_t)j * n, n, &bound);
            worst = fmax(worst, fabs(all[j][r] - want) / bound);
            if (inb && fabs(all[j][r] - want) > bound)
                CHECK(0, "p16 %s %s n=%d act %d row %d: %.9g vs %.9g, bound %.3g", tn, model_kernels_isa(), n, j, r, all[j][r], want, bound);
            inb &= fabs(all[j][r] - want) <= bound;
            /* f32 summation order alone: tens of roundings of partial sums below sum_b amax_b sum_b |w|
             * (~ 254 x the bound), each 2^-24 of it */
            double slack = 1e-5 * (bound * 254) + 1e-7;
            worst_rm = fmax(worst_rm, fabs(all[j][r] - rowm[j][r]) / slack);
            near &= fabs(all[j][r] - rowm[j][r]) <= slack;
        }
    CHECK(inb, "p16 %s %s n=%d: every row within the bound (worst error / bound %.3f)", tn, model_kernels_isa(), n, worst);
    CHECK(near, "p16 %s %s n=%d: every row within f32 reordering of the row-major kernel's value (worst / slack %.3f)", tn, model_kernels_isa(), n,
          worst_rm);
    /* k16 keeps the row-major vector kernels' f32 chains: their values bit for bit (the scalar
     * family's row-major kernel sums in another order) */
    if (k && strcmp(model_kernels_isa(), "scalar"))
        CHECK(!memcmp(all, rowm, sizeof all), "k16 %s %s n=%d: the row-major kernel's values bit for bit", tn, model_kernels_isa(), n);
    CHECK(!memcmp(all, ref, sizeof all), "p16 %s %s n=%d: the scalar kernel's values bit for bit", tn, model_kernels_isa(), n);
    bool same = true;
    for (int nx = 1; nx <= NX; nx++)
        for (int j0 = 0; j0 < NX; j0 += nx) {
            int m = NX - j0 < nx ? NX - j0 : nx;
            for (int g = 0; g < R / 16; g++) model_quant_p16_dot(type, pk + (size_t)g * gb, n, xs + j0, cs + j0, m, &part[j0][16 * g], R);
            same &= !memcmp(part[j0], all[j0], (size_t)m * sizeof all[0]);
        }
    CHECK(same, "p16 %s %s n=%d: activations in groups of 1..%d give the same values, bit for bit", tn, model_kernels_isa(), n, NX);
    /* a matrix: the packed type's rows (packed where the family profits) stacked over Q8_0 rows (never packed) */
    for (int th = 1; th <= 2; th++) {
        uint8_t *d8 = rand_rows(GGUF_T_Q8_0, 16, n);
        wmat m;
        memset(&m, 0, sizeof m);
        CHECK(model_wmat_gg_add(&m, type, d, R, n) && model_wmat_gg_add(&m, GGUF_T_Q8_0, d8, 16, n), "p16: stack");
        CHECK(model_wmat_gg_pack(&m), "p16: model_wmat_gg_pack");
        CHECK((m.seg[0].p16 != NULL) == model_quant_p16_wanted() && m.seg[1].p16 == NULL, "p16 %s %s: packed where wanted, Q8_0 not", tn,
              model_kernels_isa());
        pg_pool *p = model_pool_new(th);
        float one[NX][R + 16], many[NX][R + 16];
        for (int j = 0; j < NX; j++) model_matmul(p, one[j], R + 16, x + (size_t)j * n, n, 1, &m);
        model_matmul(p, &many[0][0], R + 16, x, n, 3, &m);
        bool ms = !memcmp(many, one, 3 * sizeof one[0]);
        model_matmul_dec(p, &many[0][0], R + 16, x, n, NX, &m);
        ms &= !memcmp(many, one, sizeof one);
        bool mb = true;
        for (int j = 0; j < NX; j++)
            for (int r = 0; r < R + 16; r++) {
                double bound, want = r < R ? ref_dot(type, d + (size_t)r * rb, x + (size_t)j * n, n, &bound)
                                           : ref_dot(GGUF_T_Q8_0, d8 + (size_t)(r - R) * model_quant_row_bytes(GGUF_T_Q8_0, n), x + (size_t)j * n, n, &bound);
                mb &= fabs(one[j][r] - want) <= bound;
            }
        CHECK(ms && mb, "p16 %s %s n=%d %dT: matmul of 1, 3 and %d tokens gives each token's values bit for bit, within the bound", tn,
              model_kernels_isa(), n, th, NX);
        model_pool_free(p);
        model_wmat_free(&m);
        free(d8);
    }
    free(d); free(pk); free(x); free(q); free(c);
}

/* The k16 kernel on the real base's K-quant tensors (ffn_down and any other Q4_K / Q6_K matrix;
 * SKIPPED without the file): the first 32 rows of each, packed, against the row-major kernel
 * (bit for bit where that is the AVX2 / AVX-512 one), the reference bound and the scalar k16
 * kernel bit for bit. */
static void test_k16_real(void) {
    const char *path = getenv("PTXGEN_QWEN_GGUF") && *getenv("PTXGEN_QWEN_GGUF") ? getenv("PTXGEN_QWEN_GGUF")
                                                                                 : "models/base/qwen2.5-coder-0.5b-instruct.gguf";
    FILE *f = fopen(path, "rb");
    if (!f) { printf("SKIPPED k16 on real weights: no %s\n", path); return; }
    fclose(f);
    gguf_file *g = NULL;
    pg_diag_sink d = test_sink();
    if (model_gguf_open(path, &g, &d) != PG_OK) { CHECK(0, "k16 real: open %s", path); return; }
    enum { R = 32, NX = 5 };
    int tensors = 0;
    bool inb = true, near = true, bits = true, same_rm = true;
    double worst_rm = 0;
    for (int t = 0; t < model_gguf_tensor_count(g); t++) {
        const gguf_tensor *T = model_gguf_tensor_at(g, t);
        int type = T->type, n = (int)T->ne[0];
        if ((type != GGUF_T_Q4_K && type != GGUF_T_Q6_K) || model_gguf_tensor_rows(T) < R || !model_quant_p16_ok(type, n)) continue;
        tensors++;
        size_t rb = model_gguf_tensor_row_bytes(T), gb = model_quant_p16_bytes(type, n);
        uint8_t *pk = malloc(gb * (R / 16));
        for (int k = 0; k < R / 16; k++) model_quant_p16_pack(type, (const uint8_t *)T->data + (size_t)k * 16 * rb, rb, n, pk + (size_t)k * gb);
        float *x = malloc((size_t)NX * n * 4);
        qa256 *q = malloc((size_t)NX * (n / 256) * sizeof *q);
        const void *xs[NX];
        for (int j = 0; j < NX; j++) {
            for (int i = 0; i < n; i++) x[(size_t)j * n + i] = frnd() * (i % 13 == 0 ? 6.0f : 1.0f);
            model_quant_act256(x + (size_t)j * n, n, q + (size_t)j * (n / 256));
            xs[j] = q + (size_t)j * (n / 256);
        }
        float all[NX][R], ref[NX][R], rowm[NX][R];
        for (int k = 0; k < R / 16; k++) {
            model_quant_p16_dot(type, pk + (size_t)k * gb, n, xs, NULL, NX, &all[0][16 * k], R);
            model_quant_p16_dot_ref(type, pk + (size_t)k * gb, n, xs, NULL, NX, &ref[0][16 * k], R);
        }
        model_quant_dot_rows_nx(type, T->data, rb, R, xs, NULL, NX, n, &rowm[0][0], R);
        bits &= !memcmp(all, ref, sizeof all);
        same_rm &= !strcmp(model_kernels_isa(), "scalar") || !memcmp(all, rowm, sizeof all);
        for (int j = 0; j < NX; j++)
            for (int r = 0; r < R; r++) {
                double bound, want = ref_dot(type, (const uint8_t *)T->data + (size_t)r * rb, x + (size_t)j * n, n, &bound);
                double slack = 1e-5 * (bound * 254) + 1e-7;
                inb &= fabs(all[j][r] - want) <= bound;
                near &= fabs(all[j][r] - rowm[j][r]) <= slack;
                worst_rm = fmax(worst_rm, fabs(all[j][r] - rowm[j][r]) / slack);
            }
        free(pk); free(x); free(q);
    }
    CHECK(tensors > 0, "k16 real: %s has Q4_K / Q6_K tensors", path);
    CHECK(inb, "k16 real %s: every row within the reference bound", model_kernels_isa());
    CHECK(near, "k16 real %s: every row within f32 reordering of the row-major kernel (worst / slack %.3f)", model_kernels_isa(), worst_rm);
    CHECK(bits, "k16 real %s: the scalar kernel's values bit for bit", model_kernels_isa());
    CHECK(same_rm, "k16 real %s: the row-major vector kernel's values bit for bit", model_kernels_isa());
    printf("  %-6s k16 on %d real Q4_K/Q6_K tensors: packed - row-major worst %.3f of the reordering slack\n", model_kernels_isa(), tensors, worst_rm);
    model_gguf_close(g);
}

/* f32 matrices (LoRA factors) through the decode kernels: every output the kernel family's chain
 * (scalar: one sum in column order; vector: even and odd columns in two FMA chains, added), bit for
 * bit, for 1..9 input rows on the caller and on the pool -- rank-16 and rank-48 A matrices leave
 * the second panel of their last pair all padding, which the AVX-512 kernel then skips. */
static void test_f32_rows(void) {
    static const int Rs[] = {16, 40, 48, 64}, Ks[] = {896, 17};
    bool vec = strcmp(model_kernels_isa(), "scalar") != 0;
    for (size_t ri = 0; ri < sizeof Rs / sizeof *Rs; ri++)
        for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++) {
            enum { NX = 9 };
            int R = Rs[ri], K = Ks[ki];
            float *w = malloc((size_t)R * K * 4), *x = malloc((size_t)NX * K * 4), *ref = malloc((size_t)NX * R * 4);
            float *got = malloc((size_t)NX * R * 4);
            for (int i = 0; i < R * K; i++) w[i] = frnd();
            for (int i = 0; i < NX * K; i++) x[i] = frnd() * 4;
            for (int j = 0; j < NX; j++)
                for (int r = 0; r < R; r++) {
                    const float *wr = w + (size_t)r * K, *xj = x + (size_t)j * K;
                    float e = 0, o = 0;
                    if (vec) {
                        int i = 0;
                        for (; i + 2 <= K; i += 2) e = fmaf(wr[i], xj[i], e), o = fmaf(wr[i + 1], xj[i + 1], o);
                        if (i < K) e = fmaf(wr[i], xj[i], e);
                    } else
                        for (int i = 0; i < K; i++) e += wr[i] * xj[i];
                    ref[(size_t)j * R + r] = e + o;
                }
            wmat m;
            CHECK(model_wmat_make(&m, w, R, K, WT_F32) == PG_OK, "f32 rows: make");
            pg_pool *p = model_pool_new(2);
            for (int n = 1; n <= NX; n++) {
                memset(got, 0xff, (size_t)NX * R * 4);
                model_matmul_local(got, R, x, K, n, &m);
                bool same = !memcmp(got, ref, (size_t)n * R * 4);
                memset(got, 0xff, (size_t)NX * R * 4);
                model_matmul_dec(p, got, R, x, K, n, &m);
                same &= !memcmp(got, ref, (size_t)n * R * 4);
                CHECK(same, "f32 %s R=%d k=%d n=%d: the kernel's chains bit for bit, local and on the pool", model_kernels_isa(), R, K, n);
            }
            model_pool_free(p);
            model_wmat_free(&m);
            free(w); free(x); free(ref); free(got);
        }
}

/* A verify step's rows (quant.c's activation tiles on AVX2: 8 at a time, then the rest) against
 * the one-activation kernel a plain decode step runs, bit for bit: every 32-block type, widths
 * of an odd block count (1, 3, 7, 29 blocks: the two f32 chains of unequal length), qwen's 896
 * and 4864, and 5152 (wider than the stack tile: the fallback kernel), row counts 1, 3 and 17
 * (ragged against the matmul's 16-row calls), 1..19 activations at once (a tile of 8, a rest of
 * 1..7, more than one QUANT_NX_MAX group), outputs at an odd stride. */
static void test_verify_tiles(void) {
    static const int types[] = {GGUF_T_Q4_0, GGUF_T_Q4_1, GGUF_T_Q5_0, GGUF_T_Q8_0};
    static const int widths[] = {32, 96, 224, 928, 896, 4864, 5152};
    static const int nrows[] = {1, 3, 17};
    enum { NX = 19, LDO = 23 };
    for (int t = 0; t < 4; t++)
        for (int w = 0; w < 7; w++) {
            int type = types[t], n = widths[w];
            bool same = true;
            for (int ri = 0; ri < 3; ri++) {
                int R = nrows[ri];
                size_t rb = model_quant_row_bytes(type, n);
                uint8_t *d = rand_rows(type, R, n);
                float *x = malloc((size_t)n * NX * sizeof *x), *many = malloc((size_t)NX * LDO * sizeof *many), one[17];
                qa32 *q = malloc((size_t)NX * (n / 32) * sizeof *q);
                const void *xq[NX];
                for (int j = 0; j < NX; j++) {
                    for (int i = 0; i < n; i++) x[(size_t)j * n + i] = frnd() * (i % 13 == j % 13 ? 6.0f : 1.0f);
                    model_quant_act32(x + (size_t)j * n, n, q + (size_t)j * (n / 32));
                    xq[j] = q + (size_t)j * (n / 32);
                }
                for (int nx = 1; nx <= NX; nx++) {
                    memset(many, 0, (size_t)NX * LDO * sizeof *many);
                    model_quant_dot_rows_nx(type, d, rb, R, xq, NULL, nx, n, many, LDO);
                    for (int j = 0; j < nx; j++) {
                        model_quant_dot_rows(type, d, rb, R, xq[j], n, one);
                        same &= !memcmp(one, many + (size_t)j * LDO, (size_t)R * sizeof *one);
                    }
                }
                free(d); free(x); free(many); free(q);
            }
            CHECK(same, "%s %s n=%d: rows 1/3/17 times 1..%d activations at once equal one activation at a time, bit for bit",
                  model_kernels_isa(), model_gguf_type_name(type), n, NX);
        }
}

static void run_all(void) {
    test_verify_tiles();
    test_dequant();
    test_dots();
    for (int n = 128; n <= 896; n += 768) test_p16(GGUF_T_Q5_0, n);
    for (int n = 256; n <= 4864; n += 4608) test_p16(GGUF_T_Q4_K, n), test_p16(GGUF_T_Q6_K, n);   /* 4864: qwen's down */
    test_k16_real();
    test_f32_rows();
    for (int th = 1; th <= 2; th++) {
        test_matmul(GGUF_T_Q5_0, GGUF_T_Q5_0, GGUF_T_Q8_0, 896 - 128, th);    /* qwen's q|k|v shape of types, k % 256 != 0 */
        test_matmul(GGUF_T_Q4_K, GGUF_T_Q6_K, GGUF_T_Q4_0, 512, th);          /* K-quants and a 32-block type together */
        test_matmul(GGUF_T_Q4_1, GGUF_T_F16, GGUF_T_BF16, 256, th);
        test_matmul(GGUF_T_F32, GGUF_T_Q8_0, GGUF_T_Q6_K, 256, th);
        test_matmul(GGUF_T_F32, GGUF_T_F16, GGUF_T_BF16, 100, th);          /* a width of no whole 32-blocks */
    }
}

static void test_sha256(void) {
    char hex[65];
    model_sha256_buf("abc", 3, hex);
    CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "sha256(abc) = %s", hex);
    char *m = malloc(1000000);
    memset(m, 'a', 1000000);
    model_sha256_buf(m, 1000000, hex);   /* FIPS 180-2 appendix B.3 */
    CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"), "sha256(a x 1e6) = %s", hex);
    free(m);
    model_sha256_buf("", 0, hex);
    CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "sha256('') = %s", hex);
}

/* The activations' int8 quantization is the same bytes and scales in every kernel family
 * (the vector versions do the scalar code's operations): quantized once with the best
 * family, kept, and compared after each downgrade. */
#define ACT_N 1024
static qa32 act_q32[ACT_N / 32];
static qa256 act_q256[ACT_N / 256];
static float act_x[ACT_N];
static void test_act(bool first) {
    qa32 a[ACT_N / 32];
    qa256 b[ACT_N / 256];
    if (first)
        for (int i = 0; i < ACT_N; i++) act_x[i] = frnd() * (i % 13 == 0 ? 9.0f : 1.0f) + (i % 97 == 0 ? 0.5f : 0.0f);
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    model_quant_act32(act_x, ACT_N, a);
    model_quant_act256(act_x, ACT_N, b);
    if (first) {
        memcpy(act_q32, a, sizeof a);
        memcpy(act_q256, b, sizeof b);
        return;
    }
    CHECK(!memcmp(a, act_q32, sizeof a) && !memcmp(b, act_q256, sizeof b),
          "activation quantization: %s gives the same bytes as the best family", model_kernels_isa());
}

int main(void) {
    printf("kernels: %s\n", model_kernels_isa());
    test_act(true);
    run_all();
    const char *lesser[] = {"avx2", "scalar"};
    for (int i = 0; i < 2; i++)
        if (strcmp(model_kernels_isa(), lesser[i]) && model_kernels_force(lesser[i])) {
            printf("kernels: %s\n", model_kernels_isa());
            test_act(false);
            run_all();
        }
    test_sha256();
    return TEST_DONE();
}
