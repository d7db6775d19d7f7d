/* quant.c — dot products and dequantization straight from GGUF blocks.
 *
 * A GGUF weight row is a run of blocks (gguf.h): 32 elements for Q4_0, Q4_1,
 * Q5_0 and Q8_0, 256 for the K-quants Q4_K and Q6_K, one for F32, F16, BF16.
 * Decode multiplies each row by one activation vector.  As llama.cpp does, the
 * activation is quantized once per matmul to int8 blocks (qa32 for the 32-blocks,
 * qa256 for the K-quants, both with a scale per block and the sums of their
 * int8 values) and each weight block is multiplied in integers: the weight's
 * unsigned codes (nibbles, 5- or 6-bit values) against the signed activation
 * bytes with AVX2 vpmaddubsw, the code offset (-8, -16, -32, the Q4_1/Q4_K
 * minimum) folded in afterwards from the activation sums, so no weight byte is
 * sign-adjusted.  F32 / F16 / BF16 rows take the f32 activations unchanged.
 *
 * NUMERICS: the integer products are exact; the only rounding beyond f32 sums is
 * the activation's, to int8 with scale amax/127 per block: |x_i - x~_i| <= d/2 =
 * amax/254 per element.  A dot product's error is then bounded by
 * sum_blocks (amax_b/254) * sum_i |w_i| (see test_quant.c, which checks exactly
 * that bound).  quant_dot_exact (dequantized row times f32 activations) has no
 * such rounding; prefill uses dequantized rows too (model_quant_dequant_row), so its
 * results are exact up to f32 summation order.
 *
 * The kernels follow the family cpu.c has in force (cpu.h; kernels.c follows the same one):
 * AVX-512 VNNI for the 32-blocks and the K-quants (the K-quant ones give the AVX2 kernel's
 * values bit for bit), AVX2 as an AVX2 CPU's kernels; the scalar ones are the reference and
 * the fallback.  Nothing here allocates or prints. */
#include "quant.h"
#include "cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* ---- block layouts (bytes as in the file; halves read with memcpy) ---------------------- */
#define QK 32
#define QKK 256
enum { B_Q4_0 = 18, B_Q4_1 = 20, B_Q5_0 = 22, B_Q8_0 = 34, B_Q4_K = 144, B_Q6_K = 210 };

static inline float rd_f16(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return model_f16_to_f32(h);
}

bool model_quant_supported(int type) {
    switch (type) {
    case GGUF_T_F32: case GGUF_T_F16: case GGUF_T_BF16: case GGUF_T_Q4_0: case GGUF_T_Q4_1: case GGUF_T_Q5_0:
    case GGUF_T_Q8_0: case GGUF_T_Q4_K: case GGUF_T_Q6_K: return true;
    default: return false;
    }
}

int model_quant_act_kind(int type) {
    switch (type) {
    case GGUF_T_Q4_0: case GGUF_T_Q4_1: case GGUF_T_Q5_0: case GGUF_T_Q8_0: return QACT_32;
    case GGUF_T_Q4_K: case GGUF_T_Q6_K: return QACT_256;
    default: return QACT_F32;
    }
}

size_t model_quant_row_bytes(int type, int64_t n) {
    switch (type) {
    case GGUF_T_F32: return (size_t)n * 4;
    case GGUF_T_F16: case GGUF_T_BF16: return (size_t)n * 2;
    case GGUF_T_Q4_0: return (size_t)n / QK * B_Q4_0;
    case GGUF_T_Q4_1: return (size_t)n / QK * B_Q4_1;
    case GGUF_T_Q5_0: return (size_t)n / QK * B_Q5_0;
    case GGUF_T_Q8_0: return (size_t)n / QK * B_Q8_0;
    case GGUF_T_Q4_K: return (size_t)n / QKK * B_Q4_K;
    case GGUF_T_Q6_K: return (size_t)n / QKK * B_Q6_K;
    default: return 0;
    }
}

/* ---- activation quantization ------------------------------------------------------------ */
static void act32_scalar(const float *x, int n, qa32 *q) {
    for (int b = 0; b < n / QK; b++) {
        const float *p = x + b * QK;
        float amax = 0;
        for (int i = 0; i < QK; i++) amax = fmaxf(amax, fabsf(p[i]));
        float d = amax / 127.0f, inv = d > 0 ? 1.0f / d : 0;
        int s = 0;
        for (int i = 0; i < QK; i++) {
            int v = (int)lrintf(p[i] * inv);
            q[b].qs[i] = (int8_t)v;
            s += v;
        }
        q[b].d = d;
        q[b].ds = d * (float)s;
    }
}

static void act256_scalar(const float *x, int n, qa256 *q) {
    for (int b = 0; b < n / QKK; b++) {
        const float *p = x + b * QKK;
        float amax = 0;
        for (int i = 0; i < QKK; i++) amax = fmaxf(amax, fabsf(p[i]));
        float d = amax / 127.0f, inv = d > 0 ? 1.0f / d : 0;
        for (int g = 0; g < QKK / 16; g++) {
            int s = 0;
            for (int i = g * 16; i < g * 16 + 16; i++) {
                int v = (int)lrintf(p[i] * inv);
                q[b].qs[i] = (int8_t)v;
                s += v;
            }
            q[b].bsums[g] = (int16_t)s;
        }
        q[b].d = d;
    }
}

/* ---- scalar dequantization (the reference for the kernels' element order) ----------------- */
/* Q4_K: the 6-bit scale and min of sub-block j (0..7) from the 12 packed bytes. */
static inline void k4_scale_min(int j, const uint8_t *q, int *sc, int *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

void model_quant_dequant_row(int type, const void *data, float *y, int64_t n) {
    const uint8_t *p = data;
    switch (type) {
    case GGUF_T_F32: memcpy(y, p, (size_t)n * 4); return;
    case GGUF_T_F16:
        for (int64_t i = 0; i < n; i++) y[i] = rd_f16(p + 2 * i);
        return;
    case GGUF_T_BF16:
        for (int64_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            y[i] = bf16_to_f32(h);
        }
        return;
    case GGUF_T_Q4_0:
        for (int64_t b = 0; b < n / QK; b++, p += B_Q4_0, y += QK) {
            float d = rd_f16(p);
            for (int i = 0; i < 16; i++) {
                y[i] = (float)((p[2 + i] & 0xF) - 8) * d;
                y[i + 16] = (float)((p[2 + i] >> 4) - 8) * d;
            }
        }
        return;
    case GGUF_T_Q4_1:
        for (int64_t b = 0; b < n / QK; b++, p += B_Q4_1, y += QK) {
            float d = rd_f16(p), m = rd_f16(p + 2);
            for (int i = 0; i < 16; i++) {
                y[i] = (float)(p[4 + i] & 0xF) * d + m;
                y[i + 16] = (float)(p[4 + i] >> 4) * d + m;
            }
        }
        return;
    case GGUF_T_Q5_0:
        for (int64_t b = 0; b < n / QK; b++, p += B_Q5_0, y += QK) {
            float d = rd_f16(p);
            uint32_t qh;
            memcpy(&qh, p + 2, 4);
            for (int i = 0; i < 16; i++) {
                int h0 = (qh >> i) & 1, h1 = (qh >> (i + 16)) & 1;
                y[i] = (float)(((p[6 + i] & 0xF) | h0 << 4) - 16) * d;
                y[i + 16] = (float)(((p[6 + i] >> 4) | h1 << 4) - 16) * d;
            }
        }
        return;
    case GGUF_T_Q8_0:
        for (int64_t b = 0; b < n / QK; b++, p += B_Q8_0, y += QK) {
            float d = rd_f16(p);
            for (int i = 0; i < QK; i++) y[i] = (float)(int8_t)p[2 + i] * d;
        }
        return;
    case GGUF_T_Q4_K:
        for (int64_t b = 0; b < n / QKK; b++, p += B_Q4_K) {
            float d = rd_f16(p), dmin = rd_f16(p + 2);
            const uint8_t *sc = p + 4, *q = p + 16;
            for (int j = 0; j < 4; j++, q += 32) {   /* 64 elements: low nibbles, then high */
                int s0, m0, s1, m1;
                k4_scale_min(2 * j, sc, &s0, &m0);
                k4_scale_min(2 * j + 1, sc, &s1, &m1);
                for (int l = 0; l < 32; l++) *y++ = d * (float)s0 * (float)(q[l] & 0xF) - dmin * (float)m0;
                for (int l = 0; l < 32; l++) *y++ = d * (float)s1 * (float)(q[l] >> 4) - dmin * (float)m1;
            }
        }
        return;
    case GGUF_T_Q6_K:
        for (int64_t b = 0; b < n / QKK; b++, p += B_Q6_K, y += QKK) {
            const uint8_t *ql = p, *qh = p + 128;
            const int8_t *sc = (const int8_t *)(p + 192);
            float d = rd_f16(p + 208);
            for (int h = 0; h < 2; h++, ql += 64, qh += 32, sc += 8)
                for (int l = 0; l < 32; l++) {
                    int is = l / 16;
                    int q1 = (int)((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
                    int q2 = (int)((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
                    int q3 = (int)((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
                    int q4 = (int)((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
                    y[h * 128 + l] = d * (float)sc[is] * (float)q1;
                    y[h * 128 + l + 32] = d * (float)sc[is + 2] * (float)q2;
                    y[h * 128 + l + 64] = d * (float)sc[is + 4] * (float)q3;
                    y[h * 128 + l + 96] = d * (float)sc[is + 6] * (float)q4;
                }
        }
        return;
    default: memset(y, 0, (size_t)n * 4); return;   /* model_quant_supported() is checked at load */
    }
}

/* ---- scalar dot products ----------------------------------------------------------------- */
static float dot_f_scalar(int type, const uint8_t *p, const float *x, int n) {
    float s = 0;
    for (int i = 0; i < n; i++) {
        float w;
        if (type == GGUF_T_F32) memcpy(&w, p + 4 * i, 4);
        else if (type == GGUF_T_F16) w = rd_f16(p + 2 * i);
        else {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            w = bf16_to_f32(h);
        }
        s += w * x[i];
    }
    return s;
}

/* The 32-blocks: sum over blocks of dw * dx * (sum u*qx) + offset terms, u the unsigned code. */
static float dot32_scalar(int type, const uint8_t *p, const qa32 *x, int n) {
    float s = 0;
    for (int b = 0; b < n / QK; b++) {
        const int8_t *q = x[b].qs;
        int sum = 0;
        float dw = rd_f16(p);
        switch (type) {
        case GGUF_T_Q4_0:
            for (int i = 0; i < 16; i++) sum += (p[2 + i] & 0xF) * q[i] + (p[2 + i] >> 4) * q[i + 16];
            s += dw * (x[b].d * (float)sum) - 8 * dw * x[b].ds;
            p += B_Q4_0;
            break;
        case GGUF_T_Q4_1:
            for (int i = 0; i < 16; i++) sum += (p[4 + i] & 0xF) * q[i] + (p[4 + i] >> 4) * q[i + 16];
            s += dw * (x[b].d * (float)sum) + rd_f16(p + 2) * x[b].ds;
            p += B_Q4_1;
            break;
        case GGUF_T_Q5_0: {
            uint32_t qh;
            memcpy(&qh, p + 2, 4);
            for (int i = 0; i < 16; i++)
                sum += (int)((p[6 + i] & 0xF) | ((qh >> i) & 1) << 4) * q[i] +
                       (int)((p[6 + i] >> 4) | ((qh >> (i + 16)) & 1) << 4) * q[i + 16];
            s += dw * (x[b].d * (float)sum) - 16 * dw * x[b].ds;
            p += B_Q5_0;
            break;
        }
        default:   /* Q8_0 */
            for (int i = 0; i < QK; i++) sum += (int8_t)p[2 + i] * q[i];
            s += dw * (x[b].d * (float)sum);
            p += B_Q8_0;
            break;
        }
    }
    return s;
}

static float dot256_scalar(int type, const uint8_t *p, const qa256 *x, int n) {
    float s = 0;
    for (int b = 0; b < n / QKK; b++) {
        const int8_t *q = x[b].qs;
        if (type == GGUF_T_Q4_K) {
            float d = rd_f16(p), dmin = rd_f16(p + 2);
            const uint8_t *qs = p + 16;
            int sum = 0, msum = 0;
            for (int j = 0; j < 8; j++) {
                int sc, m, t = 0;
                k4_scale_min(j, p + 4, &sc, &m);
                for (int l = 0; l < 32; l++) t += (j & 1 ? qs[(j / 2) * 32 + l] >> 4 : qs[(j / 2) * 32 + l] & 0xF) * q[j * 32 + l];
                sum += sc * t;
                msum += m * (x[b].bsums[2 * j] + x[b].bsums[2 * j + 1]);
            }
            s += d * x[b].d * (float)sum - dmin * x[b].d * (float)msum;
            p += B_Q4_K;
        } else {   /* Q6_K */
            const uint8_t *ql = p, *qh = p + 128;
            const int8_t *sc = (const int8_t *)(p + 192);
            int sum = 0;
            for (int h = 0; h < 2; h++) {
                int t[8] = {0};   /* per group of 16 */
                for (int l = 0; l < 32; l++) {
                    int is = l / 16;
                    const int8_t *qq = q + h * 128 + l;
                    t[is] += ((ql[h * 64 + l] & 0xF) | ((qh[h * 32 + l] >> 0) & 3) << 4) * qq[0];
                    t[is + 2] += ((ql[h * 64 + l + 32] & 0xF) | ((qh[h * 32 + l] >> 2) & 3) << 4) * qq[32];
                    t[is + 4] += ((ql[h * 64 + l] >> 4) | ((qh[h * 32 + l] >> 4) & 3) << 4) * qq[64];
                    t[is + 6] += ((ql[h * 64 + l + 32] >> 4) | ((qh[h * 32 + l] >> 6) & 3) << 4) * qq[96];
                }
                for (int g = 0; g < 8; g++) sum += sc[h * 8 + g] * (t[g] - 32 * x[b].bsums[h * 8 + g]);
            }
            s += rd_f16(p + 208) * x[b].d * (float)sum;
            p += B_Q6_K;
        }
    }
    return s;
}

/* ---- Q5_0 rows packed 16 at a time (p16) ------------------------------------------------
 * The row-major kernels above give each activation a vector of partial sums per row: 64
 * weights a dpbusd, then three f32 operations on 16 lanes of which 8 share a scale, for every
 * row and activation.  Packed, one vector holds 16 rows: lane i of a dpbusd is row i's sum of
 * 4 products, the 8 dpbusd of a 32-block give each row its block sum exactly (int32), and the
 * block's scales are then one cvt, mul and FMA for all 16 rows.  Per activation and 512
 * weights that is ~13 instructions instead of ~48, and the codes are unpacked once for all
 * activations with no per-block shuffles.  Same bytes as the file (22 per 32 weights).
 *
 * A group (16 rows, n elements) is n/64 block pairs of P16_PAIR bytes, for block h of the pair:
 *   +256h  4 vectors of 64 bytes: byte 4i+t of vector m = row i's codes 4m+t (low nibble) and
 *          16+4m+t (high nibble)
 *   +512+64h  8 masks of 64 bits: bit 4i+t of mask k = row i's fifth bit of element 4k+t
 *   +640+32h  16 f16 scales, row i at 2i
 * so step k (elements 4k..4k+3) is vector k%4's nibbles (low for k < 4) plus 16 where mask k
 * says.  The activation is signed int8 against the unsigned codes; the codes' offset -16
 * enters as -16 * (sum of the block's int8 activations), the int32 accumulator's start.
 *
 * NUMERICS: per row, acc = fma((float)block_sum, dw * dx, acc) over the blocks in order, one
 * chain from 0; the block sums are exact, so the scalar kernel below gives the AVX-512 one's
 * values bit for bit (test_quant), and a row's value does not depend on the other activations.
 * The values differ from the row-major kernels' (another f32 summation order) within the
 * same bound. */
#define P16_PAIR 704

static void p16_pack(const void *rows, size_t row_bytes, int n, void *dst) {
    uint8_t *o = dst;
    memset(o, 0, (size_t)n / 64 * P16_PAIR);
    for (int b = 0; b < n / QK; b++) {
        uint8_t *g = o + (size_t)(b / 2) * P16_PAIR;
        int h = b & 1;
        for (int i = 0; i < 16; i++) {
            const uint8_t *p = (const uint8_t *)rows + (size_t)i * row_bytes + (size_t)b * B_Q5_0;
            uint32_t qh;
            memcpy(&qh, p + 2, 4);
            for (int e = 0; e < 32; e++) {   /* element e: nibble of byte e % 16, fifth bit qh bit e */
                int nib = e < 16 ? p[6 + e] & 0xF : p[6 + e - 16] >> 4, k = e / 4, lane = 4 * i + e % 4;
                g[256 * h + 64 * (k % 4) + lane] |= (uint8_t)(nib << (k < 4 ? 0 : 4));
                if (qh >> e & 1) g[512 + 64 * h + 8 * k + lane / 8] |= (uint8_t)(1u << (lane % 8));
            }
            memcpy(g + 640 + 32 * h + 2 * i, p, 2);
        }
    }
}

void model_quant_p16_sums(const qa32 *q, int n, int32_t *c) {
    for (int b = 0; b < n / QK; b++) {
        int s = 0;
        for (int i = 0; i < QK; i++) s += q[b].qs[i];
        c[b] = -16 * s;
    }
}

static void p16_dot_scalar(const uint8_t *g, int n, const qa32 *const *x, const int32_t *const *c, int nx, float *out, size_t ldo) {
    for (int j = 0; j < nx; j++)
        for (int i = 0; i < 16; i++) {
            float acc = 0;
            for (int b = 0; b < n / QK; b++) {
                const uint8_t *p = g + (size_t)(b / 2) * P16_PAIR;
                int h = b & 1, s = c[j][b];
                for (int e = 0; e < 32; e++) {
                    int k = e / 4, t = e % 4, byte = p[256 * h + 64 * (k % 4) + 4 * i + t];
                    int code = (k < 4 ? byte & 0xF : byte >> 4) | ((p[512 + 64 * h + 8 * k + (4 * i + t) / 8] >> ((4 * i + t) % 8)) & 1) << 4;
                    s += code * x[j][b].qs[e];
                }
                acc = fmaf((float)s, rd_f16(p + 640 + 32 * h + 2 * i) * x[j][b].d, acc);
            }
            out[(size_t)j * ldo + i] = acc;
        }
}

/* ---- Q4_K / Q6_K rows packed 16 at a time (k16) ----------------------------------------
 * The same idea for the K-quants (the `down` projection), with the row-major kernels' values:
 * those (dot256_z, bit for bit dot256_avx2) keep per row 8 int32 lanes, lane l the scaled sums of
 * the elements 32v+4l..32v+4l+3 over the block's 8 units v of 32 elements, then 8 f32 FMA chains
 * over the 256-blocks and a fixed horizontal sum.  Packed, lane i of a vector is row i, and the
 * codes are laid out so that one dpbusd gives 16 rows their lane-l sum of one unit: the same
 * integers, the same f32 chains, so the same values, while the codes are unpacked once for all
 * activations and the per-row f32 tail (sums of the activation's groups, the FMAs, the horizontal
 * sums) is done for 16 rows at a time.
 *
 * A group (16 rows, n elements) is n/256 super-blocks of K16_Q4K or K16_Q6K bytes.  In both,
 * the codes of unit u (elements 32u..32u+31) are 4 vectors of 64 bytes whose byte 4i+t holds
 * row i's element 32u+4m+t (low nibble: lane l = m) and 32u+16+4m+t (high nibble: l = 4+m).
 * Offsets in a super-block (named K16_Q4K_SC etc. below):
 * Q4_K (8 units = the 8 sub-blocks, 2368 bytes), the units in pairs (2P, 2P+1) so that one dpwssd
 * scales two units' sums (packed to int16; k16_z):
 *   +512P     the pair's 8 code vectors (the codes 0..15), vector 2m+h: int32 lane 4k+2a+c holds
 *             row 4k+2h+a's 4 bytes of unit 2P+c (k4_pos; nibbles as above)
 *   +2048 SC  4 x 32 bytes: byte 32P+2i+c = row i's scale of sub-block 2P+c (6 bits)
 *   +2176 MIN 4 x 32 bytes: byte 32p+2i+h = row i's min of sub-block 2p+h (6 bits)
 *   +2304 D   16 f16 d, row i at 2i; +2336 DMIN 16 f16 dmin
 * Q6_K (8 units of two scale groups of 16 elements, 3360 bytes = the file's):
 *   +384u     unit u's 4 vectors of the codes' low 4 bits, then 2 vectors of their high 2 bits:
 *             byte 4i+t of the first has bits 2m..2m+1 = the high bits of element 32u+4m+t,
 *             of the second those of 32u+16+4m+t
 *   +3072 SC  16 x 16 bytes: byte 16g+i = row i's int8 scale of group g (elements 16g..16g+15)
 *   +3328 D   16 f16 d, row i at 2i
 *
 * NUMERICS (the row-major AVX2 / AVX-512 kernels', so packing moves no value): per row and
 * 256-block, integers S_l = sum_u sc(u, l) * (sum of code * q over elements 32u+4l..+3), sc the
 * scale of those elements' sub-block (Q4_K) or group (Q6_K); Q6_K less 32 * (sc_2l * bsum_2l +
 * sc_2l+1 * bsum_2l+1) (the activation's sums of 16); Q4_K minimums M_p = min_2p * bsum32_2p +
 * min_2p+1 * bsum32_2p+1, p < 4.  Then per row f32 chains from 0 over the blocks: acc_l =
 * fma((float)S_l, d * dx, acc_l), accm_p = fma((float)M_p, dmin * dx, accm_p), and the value
 * ((acc_0 + acc_4) + (acc_2 + acc_6)) + ((acc_1 + acc_5) + (acc_3 + acc_7)) less, Q4_K,
 * (accm_0 + accm_2) + (accm_1 + accm_3) (hsum8, kq_finish).  The scalar kernel gives them bit for
 * bit (test_quant: against the row-major kernel, on random and the real 0.5B's blocks). */
#define K16_Q4K 2368
#define K16_Q6K 3360
#define K16_Q4K_UNIT 256   /* a unit's 4 code vectors */
#define K16_Q4K_SC 2048
#define K16_Q4K_MIN 2176
#define K16_Q4K_D 2304
#define K16_Q4K_DMIN 2336
#define K16_Q6K_UNIT 384   /* 4 vectors of low nibbles, then the 2 of high bit pairs at +K16_Q6K_HI */
#define K16_Q6K_HI 256
#define K16_Q6K_SC 3072
#define K16_Q6K_D 3328

/* Element e (< 256) of a Q4_K / Q6_K block: its unsigned code. */
static int k4_code(const uint8_t *p, int e) {
    uint8_t b = p[16 + 32 * (e / 64) + e % 32];
    return e % 64 < 32 ? b & 0xF : b >> 4;
}
static int k6_code(const uint8_t *p, int e) {
    int h = e / 128, l = e % 32, q = e % 128 / 32;   /* q: which of ql's nibbles and qh's bit pairs */
    uint8_t lo = p[64 * h + l + (q & 1) * 32], hi = p[128 + 32 * h + l];
    return (q < 2 ? lo & 0xF : lo >> 4) | ((hi >> (2 * q)) & 3) << 4;
}

/* Q4_K: where row i's code byte t (elements 32u+4m+t, low nibble, and 32u+16+4m+t, high) of unit u
 * lies in a super-block: units in pairs (2P, 2P+1), each pair 8 vectors of 64 bytes, vector 2m + h
 * holding rows 4k+2h and 4k+2h+1 of every 4 (k < 4) for both units: int32 lane 4k + 2a + c is row
 * 4k+2h+a's group of unit 2P+c (see k16_z: one dpwssd scales both units) */
static size_t k4_pos(int u, int m, int i, int t) {
    int k = i / 4, h = i % 4 / 2, a = i % 2, c = u % 2;
    return (size_t)512 * (u / 2) + 64 * (2 * m + h) + 4 * (4 * k + 2 * a + c) + t;
}

static void k16_pack(int type, const uint8_t *rows, size_t row_bytes, int n, uint8_t *o) {
    const bool q4 = type == GGUF_T_Q4_K;
    size_t sb = q4 ? K16_Q4K : K16_Q6K, bb = q4 ? B_Q4_K : B_Q6_K, ub = q4 ? K16_Q4K_UNIT : K16_Q6K_UNIT;
    for (int b = 0; b < n / QKK; b++, o += sb)
        for (int i = 0; i < 16; i++) {
            const uint8_t *p = rows + (size_t)i * row_bytes + (size_t)b * bb;
            uint8_t code[QKK];   /* the block's codes in element order (k4_code / k6_code, a block at a time) */
            for (int e = 0; e < QKK; e++) code[e] = (uint8_t)(q4 ? k4_code(p, e) : k6_code(p, e));
            for (int u = 0; u < 8; u++)
                for (int t = 0; t < 4; t++) {
                    const uint8_t *c = code + 32 * u + t;
                    int lane = 4 * i + t, h0 = 0, h1 = 0;
                    for (int m = 0; m < 4; m++) {
                        o[q4 ? k4_pos(u, m, i, t) : ub * u + 64 * m + lane] = (uint8_t)((c[4 * m] & 0xF) | (c[16 + 4 * m] & 0xF) << 4);
                        h0 |= (c[4 * m] >> 4) << (2 * m);
                        h1 |= (c[16 + 4 * m] >> 4) << (2 * m);
                    }
                    if (!q4) {
                        o[ub * u + K16_Q6K_HI + lane] = (uint8_t)h0;
                        o[ub * u + K16_Q6K_HI + 64 + lane] = (uint8_t)h1;
                    }
                }
            if (q4) {
                for (int j = 0; j < 8; j++) {
                    int sc, mn;
                    k4_scale_min(j, p + 4, &sc, &mn);
                    o[K16_Q4K_SC + 32 * (j / 2) + 2 * i + j % 2] = (uint8_t)sc;
                    o[K16_Q4K_MIN + 32 * (j / 2) + 2 * i + j % 2] = (uint8_t)mn;
                }
                memcpy(o + K16_Q4K_D + 2 * i, p, 2);
                memcpy(o + K16_Q4K_DMIN + 2 * i, p + 2, 2);
            } else {
                for (int g = 0; g < 16; g++) o[K16_Q6K_SC + 16 * g + i] = p[192 + g];
                memcpy(o + K16_Q6K_D + 2 * i, p + 208, 2);
            }
        }
}

/* Row i's code of element 32u + w from the packed unit at c (Q4_K: 4 code vectors; Q6_K: 6). */
static int k16_code(int type, const uint8_t *p, int u, int w, int i) {
    int m = w % 16 / 4, lane = 4 * i + w % 4, hn = w >= 16;
    if (type == GGUF_T_Q4_K) return hn ? p[k4_pos(u, m, i, w % 4)] >> 4 : p[k4_pos(u, m, i, w % 4)] & 0xF;
    const uint8_t *c = p + K16_Q6K_UNIT * u;
    int code = hn ? c[64 * m + lane] >> 4 : c[64 * m + lane] & 0xF;
    if (type == GGUF_T_Q6_K) code |= ((c[K16_Q6K_HI + 64 * hn + lane] >> (2 * m)) & 3) << 4;
    return code;
}

static void k16_dot_scalar(int type, const uint8_t *g, int n, const qa256 *const *x, int nx, float *out, size_t ldo) {
    size_t sb = type == GGUF_T_Q4_K ? K16_Q4K : K16_Q6K;
    for (int j = 0; j < nx; j++)
        for (int i = 0; i < 16; i++) {
            float acc[8] = {0}, accm[4] = {0};
            for (int b = 0; b < n / QKK; b++) {
                const uint8_t *p = g + (size_t)b * sb;
                const qa256 *xb = &x[j][b];
                int S[8] = {0};
                for (int l = 0; l < 8; l++) {
                    for (int u = 0; u < 8; u++) {
                        int t = 0;
                        for (int w = 4 * l; w < 4 * l + 4; w++) t += k16_code(type, p, u, w, i) * xb->qs[32 * u + w];
                        int sc = type == GGUF_T_Q4_K ? p[K16_Q4K_SC + 32 * (u / 2) + 2 * i + u % 2] : (int8_t)p[K16_Q6K_SC + 16 * (2 * u + l / 4) + i];
                        S[l] += sc * t;
                    }
                    if (type == GGUF_T_Q6_K)
                        S[l] -= 32 * ((int8_t)p[K16_Q6K_SC + 16 * (2 * l) + i] * xb->bsums[2 * l] + (int8_t)p[K16_Q6K_SC + 16 * (2 * l + 1) + i] * xb->bsums[2 * l + 1]);
                    acc[l] = fmaf((float)S[l], rd_f16(p + (type == GGUF_T_Q4_K ? K16_Q4K_D : K16_Q6K_D) + 2 * i) * xb->d, acc[l]);
                }
                if (type == GGUF_T_Q4_K)
                    for (int q = 0; q < 4; q++) {
                        int M = 0;
                        for (int h = 0; h < 2; h++) {
                            int jb = 2 * q + h;
                            M += p[K16_Q4K_MIN + 32 * q + 2 * i + h] * (xb->bsums[2 * jb] + xb->bsums[2 * jb + 1]);
                        }
                        accm[q] = fmaf((float)M, rd_f16(p + K16_Q4K_DMIN + 2 * i) * xb->d, accm[q]);
                    }
            }
            float v = ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
            if (type == GGUF_T_Q4_K) v -= (accm[0] + accm[2]) + (accm[1] + accm[3]);
            out[(size_t)j * ldo + i] = v;
        }
}

#ifdef HAVE_X86
/* ---- AVX2 ---------------------------------------------------------------------------------- */
#define QATTR __attribute__((target("avx2,fma,f16c")))

/* The kernels take nx (activations at once) as a constant in each inlined copy, so their
 * accumulators stay in registers.  NX_BY8 runs STEP(T, 8) while 8 or more are left (NEXT(8)
 * moves the kernel's pointers past them), then STEP(T, nx) once for the rest; NX_BY4 the same
 * by 4.  T is the block type, a constant in each copy too (unused where the kernel has one). */
#define NX_WHOLE(K, T, STEP, NEXT) for (; nx >= K; nx -= K, NEXT(K)) STEP(T, K);
#define NX_BY8(T, STEP, NEXT)                   \
    do {                                        \
        NX_WHOLE(8, T, STEP, NEXT)              \
        switch (nx) {                           \
        case 7: STEP(T, 7); break;              \
        case 6: STEP(T, 6); break;              \
        case 5: STEP(T, 5); break;              \
        case 4: STEP(T, 4); break;              \
        case 3: STEP(T, 3); break;              \
        case 2: STEP(T, 2); break;              \
        case 1: STEP(T, 1); break;              \
        default: break;                         \
        }                                       \
    } while (0)
#define NX_BY4(T, STEP, NEXT)                   \
    do {                                        \
        NX_WHOLE(4, T, STEP, NEXT)              \
        if (nx == 3) STEP(T, 3);                \
        else if (nx == 2) STEP(T, 2);           \
        else if (nx == 1) STEP(T, 1);           \
    } while (0)
/* the pointers of kernels that take x and out (most), x, z and out (dot64), x, c and out (p16) */
#define NX_NEXT_X(K) (x += (K), out += (K) * ldo)
#define NX_NEXT_XZ(K) (x += (K), z += (K), out += (K) * ldo)
#define NX_NEXT_XC(K) (x += (K), c += (K), out += (K) * ldo)

static QATTR inline float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
/* A Q4_K row's value: its scaled integer sums (acc) less the minimums' sum (accm, 4 lanes). */
static QATTR inline float kq_finish(__m256 acc, __m128 accm) {
    __m128 m = _mm_add_ps(accm, _mm_movehl_ps(accm, accm));
    m = _mm_add_ss(m, _mm_movehdup_ps(m));
    return hsum8(acc) - _mm_cvtss_f32(m);
}
/* Half h (128 elements) of a Q6_K block's 6-bit codes, low nibble | 2 high bits << 4: u[0..3] are the
 * elements 128h + 32k .. 128h + 32k + 31. */
static QATTR inline void q6k_codes(const uint8_t *ql, const uint8_t *qh, int h, __m256i u[4]) {
    const __m256i m4 = _mm256_set1_epi8(0xF), m3 = _mm256_set1_epi8(3);
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(ql + 64 * h)), b2 = _mm256_loadu_si256((const __m256i *)(ql + 64 * h + 32));
    __m256i bh = _mm256_loadu_si256((const __m256i *)(qh + 32 * h));
    u[0] = _mm256_or_si256(_mm256_and_si256(b1, m4), _mm256_slli_epi16(_mm256_and_si256(bh, m3), 4));
    u[1] = _mm256_or_si256(_mm256_and_si256(b2, m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(bh, 2), m3), 4));
    u[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b1, 4), m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(bh, 4), m3), 4));
    u[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b2, 4), m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(bh, 6), m3), 4));
}
static QATTR inline float f16c(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}
/* 16 bytes of nibbles -> 32 bytes: low nibbles (elements 0..15), then high (16..31) */
static QATTR inline __m256i nibbles32(const uint8_t *q) {
    __m128i t = _mm_loadu_si128((const __m128i *)q);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t, 4), t), _mm256_set1_epi8(0xF));
}
/* u8 x s8 products summed to 8 int32 lanes */
static QATTR inline __m256i dot_us(__m256i u, __m256i s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}

static QATTR float dot_f_avx2(int type, const uint8_t *p, const float *x, int n) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    if (type == GGUF_T_F32)
        for (; i + 16 <= n; i += 16) {
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps((const float *)(const void *)p + i), _mm256_loadu_ps(x + i), a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps((const float *)(const void *)p + i + 8), _mm256_loadu_ps(x + i + 8), a1);
        }
    else if (type == GGUF_T_F16)
        for (; i + 16 <= n; i += 16) {
            a0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 2 * i))), _mm256_loadu_ps(x + i), a0);
            a1 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 2 * i + 16))), _mm256_loadu_ps(x + i + 8), a1);
        }
    else
        for (; i + 16 <= n; i += 16) {
            __m256i w0 = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 2 * i))), 16);
            __m256i w1 = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 2 * i + 16))), 16);
            a0 = _mm256_fmadd_ps(_mm256_castsi256_ps(w0), _mm256_loadu_ps(x + i), a0);
            a1 = _mm256_fmadd_ps(_mm256_castsi256_ps(w1), _mm256_loadu_ps(x + i + 8), a1);
        }
    float s = hsum8(_mm256_add_ps(a0, a1));
    return i < n ? s + dot_f_scalar(type, p + (type == GGUF_T_F32 ? 4 : 2) * (size_t)i, x + i, n - i) : s;
}

/* 0xFF in byte i where bit i of the 32-bit word at p is set */
static QATTR inline __m256i bits32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32((int)v), _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202,
                                                                               0x0101010101010101, 0x0000000000000000));
    b = _mm256_or_si256(b, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe));
    return _mm256_cmpeq_epi8(b, _mm256_set1_epi64x(-1));
}

/* One 32-block's integer dot as 8 int32 lanes: u the codes as unsigned bytes, c the
 * code offset (8 for Q4_0, 16 for Q5_0, 0 otherwise) taken off as c * the pair sums
 * of x in 16 bits (|sums| <= 2*31*127 + 16*254: no saturation). */
static QATTR inline __m256i blk32(__m256i u, const int8_t *qs, int c) {
    __m256i q = _mm256_loadu_si256((const __m256i *)qs);
    __m256i p = _mm256_maddubs_epi16(u, q);
    if (c) p = _mm256_sub_epi16(p, _mm256_maddubs_epi16(_mm256_set1_epi8((char)c), q));
    return _mm256_madd_epi16(p, _mm256_set1_epi16(1));
}

/* The codes of block p as unsigned bytes (Q8_0: |w|, with w's sign moved onto x later). */
static QATTR inline __m256i codes32(int type, const uint8_t *p) {
    switch (type) {
    case GGUF_T_Q4_0: return nibbles32(p + 2);
    case GGUF_T_Q4_1: return nibbles32(p + 4);
    case GGUF_T_Q5_0: return _mm256_or_si256(nibbles32(p + 6), _mm256_and_si256(bits32(p + 2), _mm256_set1_epi8(0x10)));
    default: return _mm256_loadu_si256((const __m256i *)(p + 2));
    }
}

/* One block's contribution (8 float lanes times dw*dx) added to acc; off collects Q4_1's minimum term. */
static QATTR inline __m256 blk32_acc(const int type, const uint8_t *p, const qa32 *x, __m256 acc, float *off) {
    const int c = type == GGUF_T_Q4_0 ? 8 : type == GGUF_T_Q5_0 ? 16 : 0;
    __m256i s;
    if (type == GGUF_T_Q8_0) {   /* w's sign moved onto x (x is in [-127, 127], so -x fits; |w| = 128 fits as unsigned) */
        __m256i w = codes32(type, p), q = _mm256_loadu_si256((const __m256i *)x->qs);
        s = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(q, w)), _mm256_set1_epi16(1));
    } else
        s = blk32(codes32(type, p), x->qs, c);
    if (type == GGUF_T_Q4_1) *off += f16c(p + 2) * x->ds;
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(f16c(p) * x->d), acc);
}

/* Block p (index b of x) times activations x[0..nx) into acc[j] (and Q4_1's off[j]). */
static QATTR inline __attribute__((always_inline)) void blk32_n(const int type, const uint8_t *p, const qa32 *const *x, int b, const int nx,
                                                                 __m256 *acc, float *off) {
    __m256i u, w = _mm256_setzero_si256();
    if (type == GGUF_T_Q4_1) u = codes32(type, p);
    else {
        w = type == GGUF_T_Q8_0 ? codes32(type, p) : _mm256_sub_epi8(codes32(type, p), _mm256_set1_epi8(type == GGUF_T_Q4_0 ? 8 : 16));
        u = _mm256_sign_epi8(w, w);
    }
    const float dw = f16c(p);
#pragma GCC unroll 16
    for (int j = 0; j < nx; j++) {
        const qa32 *xb = x[j] + b;
        __m256i q = _mm256_loadu_si256((const __m256i *)xb->qs);
        if (type != GGUF_T_Q4_1) q = _mm256_sign_epi8(q, w);
        __m256i s = _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), _mm256_set1_epi16(1));
        if (type == GGUF_T_Q4_1) off[j] += f16c(p + 2) * xb->ds;
        acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(dw * xb->d), acc[j]);
    }
}

/* Row p times nx activations x[j] (out[j * ldo]): a plain decode step (nx 1), and Q4_1's verify
 * steps (the other types' take dot32_t8 below, these values); each block unpacked once for all.  Per activation the operations are the same in the same order whatever nx
 * (even blocks into a0, odd into a1, an odd last block into a0; then hsum8(a0 + a1) + the Q4_1
 * terms), so a value equals the plain decode's (nx 1) bit for bit.  The weights go in signed
 * (code less offset), their magnitude against x carrying their sign (Q4_1's unsigned nibbles as
 * they are): per byte pair w0 x0 + w1 x1, the same int16 as (u - c) x summed the way blk32 does
 * (|w| <= 16 or Q8_0's 128, |x| <= 127: nothing saturates), so each activation costs a load of x,
 * a sign, a maddubs, a madd, and the scale product and FMA. */
static QATTR inline __attribute__((always_inline)) void dot32_tn(const int type, const uint8_t *p, const qa32 *const *x, const int nx,
                                                                  int nb, float *out, size_t ldo) {
    const size_t bb = type == GGUF_T_Q4_0 ? B_Q4_0 : type == GGUF_T_Q4_1 ? B_Q4_1 : type == GGUF_T_Q5_0 ? B_Q5_0 : B_Q8_0;
    __m256 a0[QUANT_NX_MAX], a1[QUANT_NX_MAX];
    float o0[QUANT_NX_MAX], o1[QUANT_NX_MAX];
#pragma GCC unroll 16
    for (int j = 0; j < nx; j++) { a0[j] = a1[j] = _mm256_setzero_ps(); o0[j] = o1[j] = 0; }
    int b = 0;
    for (; b + 2 <= nb; b += 2, p += 2 * bb) {
        blk32_n(type, p, x, b, nx, a0, o0);
        blk32_n(type, p + bb, x, b + 1, nx, a1, o1);
    }
    if (b < nb) blk32_n(type, p, x, b, nx, a0, o0);
#pragma GCC unroll 16
    for (int j = 0; j < nx; j++) out[(size_t)j * ldo] = hsum8(_mm256_add_ps(a0[j], a1[j])) + (o0[j] + o1[j]);
}

/* 4 activations at a time (8 accumulators in registers), then the rest (NX_BY4) */
#define DOT32N_NX(T, NX) dot32_tn(T, p, x, NX, n / QK, out, ldo)
#define DOT32N_T(T) NX_BY4(T, DOT32N_NX, NX_NEXT_X)
static QATTR void dot32_avx2(int type, const uint8_t *p, const qa32 *const *x, int nx, int n, float *out, size_t ldo) {
    switch (type) {   /* each type its own copy of the loop (type a constant there) */
    case GGUF_T_Q4_0: DOT32N_T(GGUF_T_Q4_0); break;
    case GGUF_T_Q4_1: DOT32N_T(GGUF_T_Q4_1); break;
    case GGUF_T_Q5_0: DOT32N_T(GGUF_T_Q5_0); break;
    default: DOT32N_T(GGUF_T_Q8_0); break;
    }
}
#undef DOT32N_T
#undef DOT32N_NX

/* ---- verify steps: tiles of 8 activations (Q4_0 / Q5_0 / Q8_0) ----------------------------
 * dot32_tn's values for 2..16 activations, cheaper per activation: up to 8 of them against one
 * weight row at a time, their int8 blocks copied once per call into a tile xt[block][8][32]
 * (one pointer, fixed offsets) and their scales into dt[block][8], so a block's 8 scale products
 * dw * dx are one vector multiply (the same IEEE product as dot32_tn's scalar one) and each
 * activation takes its product with a broadcast load instead of a multiply and a shuffle.
 * Q4_0 / Q5_0 take the codes unsigned (no sign per activation): the tile holds beside each
 * block c * its sums of 4 (c = 8, 16; int32 lanes as madd lays them out), taken off after the
 * madd: sum (u - c) x over the same 4 elements, the same exact int32 as dot32_tn's.
 * Per activation the f32 operations are dot32_tn's in its order: the even blocks' chain (a0),
 * then the odd blocks' (a1) -- two independent chains, so running one after the other instead
 * of interleaved changes no value -- then hsum8(a0 + a1) + 0 (dot32_tn's o0 + o1, zero for these
 * types).
 * Q4_1 (its minimum term) keeps dot32_tn. */
#define T8_MAXB 160   /* blocks per row the stack tile takes (k <= 5120); wider rows keep dot32_tn */
static QATTR inline __attribute__((always_inline)) void dot32_t8(const int type, const uint8_t *p, const int8_t *xt, const float *dt,
                                                                  const int nx, int nb, float *out, size_t ldo) {
    const size_t bb = type == GGUF_T_Q4_0 ? B_Q4_0 : type == GGUF_T_Q5_0 ? B_Q5_0 : B_Q8_0;
    const __m256i one = _mm256_set1_epi16(1);
    __m256 a0[8], acc[8];
    float ps[8] __attribute__((aligned(32)));
    for (int par = 0; par < 2; par++) {
#pragma GCC unroll 8
        for (int j = 0; j < nx; j++) acc[j] = _mm256_setzero_ps();
        for (int b = par; b < nb; b += 2) {
            const uint8_t *pb = p + (size_t)b * bb;
            /* Q8_0: |w| against x with w's sign; Q4_0 / Q5_0: the unsigned codes against x, less the
             * tile's c * (x's sums of 4) */
            __m256i w = codes32(type, pb), u = type == GGUF_T_Q8_0 ? _mm256_sign_epi8(w, w) : w;
            _mm256_store_ps(ps, _mm256_mul_ps(_mm256_set1_ps(f16c(pb)), _mm256_load_ps(dt + (size_t)b * 8)));
            const int8_t *xb = xt + (size_t)b * 512;
#pragma GCC unroll 8
            for (int j = 0; j < nx; j++) {
                __m256i q = _mm256_load_si256((const __m256i *)(const void *)(xb + 64 * j));
                if (type == GGUF_T_Q8_0) q = _mm256_sign_epi8(q, w);
                __m256i s = _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), one);
                if (type != GGUF_T_Q8_0) s = _mm256_sub_epi32(s, _mm256_load_si256((const __m256i *)(const void *)(xb + 64 * j + 32)));
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_broadcast_ss(ps + j), acc[j]);
            }
        }
        if (!par) {
#pragma GCC unroll 8
            for (int j = 0; j < nx; j++) a0[j] = acc[j];
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < nx; j++) out[(size_t)j * ldo] = hsum8(_mm256_add_ps(a0[j], acc[j])) + 0.0f;
}

/* The tile of m <= 8 activations x[0..m) (their int8 blocks, Q4_0 / Q5_0's offset sums and the scales);
 * unused slots zero (their products are never read). */
static QATTR inline __attribute__((always_inline)) void t8_tile(int type, const qa32 *const *x, int m, int nb, int8_t *xt, float *dt) {
    const int c = type == GGUF_T_Q4_0 ? 8 : 16;   /* the code offset (Q8_0: none, the off sums unused) */
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < 8; j++) {
            int8_t *t = xt + ((size_t)b * 8 + j) * 64;
            __m256i q = j < m ? _mm256_loadu_si256((const __m256i *)(const void *)x[j][b].qs) : _mm256_setzero_si256();
            _mm256_store_si256((__m256i *)(void *)t, q);
            _mm256_store_si256((__m256i *)(void *)(t + 32),
                               _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8((char)c), q), _mm256_set1_epi16(1)));
            dt[(size_t)b * 8 + j] = j < m ? x[j][b].d : 0.0f;
        }
}

/* nrows rows (row_bytes apart) times nx <= 16 activations: tiles of 8, then the rest (NX_BY8; each
 * a constant-nx copy of dot32_t8). */
#define DOT32T8_NX(T, NX)                                                                                \
    do {                                                                                                 \
        t8_tile(T, x, NX, nb, xt, dt);                                                                   \
        for (int r = 0; r < nrows; r++) dot32_t8(T, p + (size_t)r * row_bytes, xt, dt, NX, nb, out + r, ldo); \
    } while (0)
#define DOT32T8_T(T) NX_BY8(T, DOT32T8_NX, NX_NEXT_X)
static QATTR void dot32_rows_t8(int type, const uint8_t *p, size_t row_bytes, int nrows, const qa32 *const *x, int nx, int n, float *out,
                                size_t ldo) {
    int nb = n / QK;
    int8_t xt[T8_MAXB * 8 * 64] __attribute__((aligned(32)));
    float dt[T8_MAXB * 8] __attribute__((aligned(32)));
    switch (type) {   /* a copy per type and tile width (constants in each) */
    case GGUF_T_Q4_0: DOT32T8_T(GGUF_T_Q4_0); break;
    case GGUF_T_Q5_0: DOT32T8_T(GGUF_T_Q5_0); break;
    default: DOT32T8_T(GGUF_T_Q8_0); break;
    }
}
#undef DOT32T8_T
#undef DOT32T8_NX

/* Row p times nx activations x[j] (out[j * ldo]); the block's scales and codes are unpacked
 * once for all of them, and each activation's sums run the same operations in the same order
 * whatever nx (nx 1 is the plain decode). */
static QATTR inline __attribute__((always_inline)) void dot256_t(const int type, const uint8_t *p, const qa256 *const *x, const int nx, int n,
                                                                  float *out, size_t ldo) {
    __m256 acc[QUANT_NX_MAX];
    for (int j = 0; j < nx; j++) acc[j] = _mm256_setzero_ps();
    const __m256i m4 = _mm256_set1_epi8(0xF);
    int nb = n / QKK;
    if (type == GGUF_T_Q4_K) {
        __m128 accm[QUANT_NX_MAX];
        for (int j = 0; j < nx; j++) accm[j] = _mm_setzero_ps();
        for (int b = 0; b < nb; b++, p += B_Q4_K) {
            /* the 12 scale bytes -> 8 scales then 8 mins, one byte each (llama.cpp's unpacking) */
            uint32_t u[4];
            memcpy(u, p + 4, 12);
            u[3] = ((u[2] >> 4) & 0x0f0f0f0f) | (((u[1] >> 6) & 0x03030303) << 4);
            uint32_t a1 = u[1] & 0x3f3f3f3f;
            u[1] = (u[2] & 0x0f0f0f0f) | (((u[0] >> 6) & 0x03030303) << 4);
            u[2] = a1;
            u[0] &= 0x3f3f3f3f;
            __m256i ms = _mm256_cvtepu8_epi16(_mm_set_epi32((int)u[3], (int)u[2], (int)u[1], (int)u[0]));   /* 8 scales, 8 mins */
            __m128i sc = _mm256_castsi256_si128(ms);
            __m256i scales = _mm256_set_m128i(sc, sc);
            float dw = f16c(p), dm = f16c(p + 2);
            __m256i lo[4], hi[4], sl[4], sh[4];
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {   /* unrolled: the shuffle masks are constants */
                sl[k] = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * (2 * k))));
                sh[k] = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * (2 * k + 1))));
                __m256i bits = _mm256_loadu_si256((const __m256i *)(p + 16 + 32 * k));
                lo[k] = _mm256_and_si256(bits, m4);
                hi[k] = _mm256_and_si256(_mm256_srli_epi16(bits, 4), m4);
            }
            for (int j = 0; j < nx; j++) {
                const qa256 *xb = x[j] + b;
                __m256i bs = _mm256_loadu_si256((const __m256i *)xb->bsums);
                __m128i s32 = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));   /* sums of 32 */
                float dx = xb->d;
                accm[j] = _mm_fmadd_ps(_mm_set1_ps(dm * dx), _mm_cvtepi32_ps(_mm_madd_epi16(_mm256_extracti128_si256(ms, 1), s32)), accm[j]);
                const int8_t *q8 = xb->qs;
                __m256i sumi = _mm256_setzero_si256();
#pragma GCC unroll 4
                for (int k = 0; k < 4; k++, q8 += 64) {
                    __m256i pl = _mm256_madd_epi16(sl[k], _mm256_maddubs_epi16(lo[k], _mm256_loadu_si256((const __m256i *)q8)));
                    __m256i ph = _mm256_madd_epi16(sh[k], _mm256_maddubs_epi16(hi[k], _mm256_loadu_si256((const __m256i *)(q8 + 32))));
                    sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(pl, ph));
                }
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(dw * dx), acc[j]);
            }
        }
        for (int j = 0; j < nx; j++) out[(size_t)j * ldo] = kq_finish(acc[j], accm[j]);
        return;
    }
    /* Q6_K: 6-bit codes u = low nibble | 2 high bits << 4, value u - 32: the -32 is taken off once per block
     * as 32 * sum_g scale_g * (the activation's sum over group g of 16), from bsums */
    for (int b = 0; b < nb; b++, p += B_Q6_K) {
        const uint8_t *ql = p, *qh = p + 128;
        __m128i scales = _mm_loadu_si128((const __m128i *)(p + 192));   /* 16 int8 scales, one per 16 elements */
        __m256i sc16 = _mm256_cvtepi8_epi16(scales);
        float dw = f16c(p + 208);
        __m256i u[2][4], shs[2][4];
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            q6k_codes(ql, qh, h, u[h]);
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {   /* unrolled: the shuffle masks are constants */
                int i = h * 4 + k;   /* scales 2i and 2i+1: 8 int16 lanes each */
                shs[h][k] = _mm256_cvtepi8_epi16(_mm_shuffle_epi8(
                    scales, _mm_set_epi64x((long long)(0x0101010101010101ull * (uint64_t)(2 * i + 1)),
                                           (long long)(0x0101010101010101ull * (uint64_t)(2 * i)))));
            }
        }
        for (int j = 0; j < nx; j++) {
            const qa256 *xb = x[j] + b;
            const int8_t *q8 = xb->qs;
            __m256i off = _mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *)xb->bsums));
            __m256i sumi = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(off, 5));
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++, q8 += 128)
#pragma GCC unroll 4
                for (int k = 0; k < 4; k++) {
                    __m256i q = _mm256_loadu_si256((const __m256i *)(q8 + 32 * k));
                    sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(u[h][k], q), shs[h][k]));
                }
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(dw * xb->d), acc[j]);
        }
    }
    for (int j = 0; j < nx; j++) out[(size_t)j * ldo] = hsum8(acc[j]);
}

/* One activation: the same operations as dot256_t's for one x, interleaved (fewer registers
 * live), so the same values bit for bit (test_quant checks it). */
static QATTR float dot256_one(int type, const uint8_t *p, const qa256 *x, int n) {
    __m256 acc = _mm256_setzero_ps();
    const __m256i m4 = _mm256_set1_epi8(0xF);
    int nb = n / QKK;
    if (type == GGUF_T_Q4_K) {
        __m128 accm = _mm_setzero_ps();
        for (int b = 0; b < nb; b++, p += B_Q4_K) {
            /* the 12 scale bytes -> 8 scales then 8 mins, one byte each (llama.cpp's unpacking) */
            uint32_t u[4];
            memcpy(u, p + 4, 12);
            u[3] = ((u[2] >> 4) & 0x0f0f0f0f) | (((u[1] >> 6) & 0x03030303) << 4);
            uint32_t a1 = u[1] & 0x3f3f3f3f;
            u[1] = (u[2] & 0x0f0f0f0f) | (((u[0] >> 6) & 0x03030303) << 4);
            u[2] = a1;
            u[0] &= 0x3f3f3f3f;
            __m256i ms = _mm256_cvtepu8_epi16(_mm_set_epi32((int)u[3], (int)u[2], (int)u[1], (int)u[0]));   /* 8 scales, 8 mins */
            __m256i bs = _mm256_loadu_si256((const __m256i *)x[b].bsums);
            __m128i s32 = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));   /* sums of 32 */
            float dx = x[b].d;
            accm = _mm_fmadd_ps(_mm_set1_ps(f16c(p + 2) * dx), _mm_cvtepi32_ps(_mm_madd_epi16(_mm256_extracti128_si256(ms, 1), s32)), accm);
            __m128i sc = _mm256_castsi256_si128(ms);
            __m256i scales = _mm256_set_m128i(sc, sc);
            const uint8_t *q4 = p + 16;
            const int8_t *q8 = x[b].qs;
            __m256i sumi = _mm256_setzero_si256();
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++, q4 += 32, q8 += 64) {   /* unrolled: the shuffle masks are constants */
                __m256i sl = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * (2 * j))));
                __m256i sh = _mm256_shuffle_epi8(scales, _mm256_set1_epi16((short)(0x0100 + 0x0202 * (2 * j + 1))));
                __m256i bits = _mm256_loadu_si256((const __m256i *)q4);
                __m256i lo = _mm256_and_si256(bits, m4), hi = _mm256_and_si256(_mm256_srli_epi16(bits, 4), m4);
                __m256i pl = _mm256_madd_epi16(sl, _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)q8)));
                __m256i ph = _mm256_madd_epi16(sh, _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(q8 + 32))));
                sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(pl, ph));
            }
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(f16c(p) * dx), acc);
        }
        return kq_finish(acc, accm);
    }
    /* Q6_K: 6-bit codes u = low nibble | 2 high bits << 4, value u - 32: the -32 is taken off once per block
     * as 32 * sum_g scale_g * (the activation's sum over group g of 16), from bsums */
    for (int b = 0; b < nb; b++, p += B_Q6_K) {
        const uint8_t *ql = p, *qh = p + 128;
        const int8_t *q8 = x[b].qs;
        __m128i scales = _mm_loadu_si128((const __m128i *)(p + 192));   /* 16 int8 scales, one per 16 elements */
        __m256i off = _mm256_madd_epi16(_mm256_cvtepi8_epi16(scales), _mm256_loadu_si256((const __m256i *)x[b].bsums));
        __m256i sumi = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(off, 5));
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++, ql += 64, qh += 32, q8 += 128) {
            __m256i u[4];
            q6k_codes(ql, qh, 0, u);
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {   /* unrolled: the shuffle masks are constants */
                int i = h * 4 + k;   /* scales 2i and 2i+1: 8 int16 lanes each */
                __m128i sh = _mm_shuffle_epi8(scales, _mm_set_epi64x((long long)(0x0101010101010101ull * (uint64_t)(2 * i + 1)),
                                                                     (long long)(0x0101010101010101ull * (uint64_t)(2 * i))));
                __m256i q = _mm256_loadu_si256((const __m256i *)(q8 + 32 * k));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(u[k], q), _mm256_cvtepi8_epi16(sh)));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(f16c(p + 208) * x[b].d), acc);
    }
    return hsum8(acc);
}

/* dot256_t with type and nx constants in each copy: Q4_K 8 activations at a time (its block's
 * unpacked codes and scales shared by twice as many: 14% less time per activation on the AVX2 VM
 * (Zen 3) for qwen's down, 896 x 4864), Q6_K 4 (8 measured no faster) */
#define DOT256_NX(T, NX) dot256_t(T, p, x, NX, n, out, ldo)
static QATTR void dot256_avx2(int type, const uint8_t *p, const qa256 *const *x, int nx, int n, float *out, size_t ldo) {
    if (nx == 1) {
        *out = dot256_one(type, p, x[0], n);
        return;
    }
    if (type == GGUF_T_Q4_K) NX_BY8(GGUF_T_Q4_K, DOT256_NX, NX_NEXT_X);
    else NX_BY4(GGUF_T_Q6_K, DOT256_NX, NX_NEXT_X);
}
#undef DOT256_NX

/* The activations' int8 quantization, act32_scalar's and act256_scalar's operations 8 lanes at a
 * time: the block's largest magnitude (max is exact in any order), the same d and 1 / d, each
 * element's product with it rounded to nearest even (cvtps, as lrintf), the integer sums. */
static QATTR inline __m256i q8l(const float *p, __m256 inv) {
    return _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p), inv));
}
static QATTR inline float absmax8(__m256 m) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static QATTR inline int hsum8i(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}
/* 32 int32 (a, b, c, d: 8 each, in order) as 32 int8 (|v| <= 127: no saturation) */
static QATTR inline void pack32_i8(__m256i a, __m256i b, __m256i c, __m256i d, int8_t *out) {
    __m256i v = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));   /* 128-bit lanes interleaved */
    _mm256_storeu_si256((__m256i *)out, _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}
static QATTR void act32_avx2(const float *x, int n, qa32 *q) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int b = 0; b < n / QK; b++) {
        const float *p = x + b * QK;
        __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(p)), _mm256_andnot_ps(sign, _mm256_loadu_ps(p + 8))),
                                 _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(p + 16)), _mm256_andnot_ps(sign, _mm256_loadu_ps(p + 24))));
        float amax = absmax8(m);
        float d = amax / 127.0f, inv = d > 0 ? 1.0f / d : 0;
        __m256 iv = _mm256_set1_ps(inv);
        __m256i v0 = q8l(p, iv), v1 = q8l(p + 8, iv), v2 = q8l(p + 16, iv), v3 = q8l(p + 24, iv);
        pack32_i8(v0, v1, v2, v3, q[b].qs);
        q[b].d = d;
        q[b].ds = d * (float)hsum8i(_mm256_add_epi32(_mm256_add_epi32(v0, v1), _mm256_add_epi32(v2, v3)));
    }
}
static QATTR void act256_avx2(const float *x, int n, qa256 *q) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int b = 0; b < n / QKK; b++) {
        const float *p = x + b * QKK;
        __m256 m = _mm256_setzero_ps();
        for (int i = 0; i < QKK; i += 8) m = _mm256_max_ps(m, _mm256_andnot_ps(sign, _mm256_loadu_ps(p + i)));
        float amax = absmax8(m);
        float d = amax / 127.0f, inv = d > 0 ? 1.0f / d : 0;
        __m256 iv = _mm256_set1_ps(inv);
        for (int g = 0; g < QKK / 32; g++) {
            __m256i v0 = q8l(p + 32 * g, iv), v1 = q8l(p + 32 * g + 8, iv), v2 = q8l(p + 32 * g + 16, iv), v3 = q8l(p + 32 * g + 24, iv);
            pack32_i8(v0, v1, v2, v3, q[b].qs + 32 * g);
            q[b].bsums[2 * g] = (int16_t)hsum8i(_mm256_add_epi32(v0, v1));
            q[b].bsums[2 * g + 1] = (int16_t)hsum8i(_mm256_add_epi32(v2, v3));
        }
        q[b].d = d;
    }
}

/* y[0:n] = x[0:n] (f32) dot, for the exact path */
static QATTR float dot_ff_avx2(const float *a, const float *b, int n) {
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), a1);
    }
    float s = hsum8(_mm256_add_ps(a0, a1));
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

/* Fast dequantization of the common types for prefill (same values as the scalar code). */
static QATTR bool dequant_avx2(int type, const uint8_t *p, float *y, int64_t n) {
    switch (type) {
    case GGUF_T_Q4_0: case GGUF_T_Q4_1: case GGUF_T_Q5_0: case GGUF_T_Q8_0: {
        size_t bb = model_quant_row_bytes(type, QK);
        for (int64_t b = 0; b < n / QK; b++, p += bb, y += QK) {
            __m256i u;   /* the 32 codes as bytes */
            float d = f16c(p), m = 0;
            if (type == GGUF_T_Q4_0) { u = _mm256_sub_epi8(nibbles32(p + 2), _mm256_set1_epi8(8)); }
            else if (type == GGUF_T_Q4_1) { u = nibbles32(p + 4); m = f16c(p + 2); }
            else if (type == GGUF_T_Q5_0)
                u = _mm256_sub_epi8(_mm256_or_si256(nibbles32(p + 6), _mm256_and_si256(bits32(p + 2), _mm256_set1_epi8(0x10))),
                                    _mm256_set1_epi8(16));
            else u = _mm256_loadu_si256((const __m256i *)(p + 2));
            __m256 dv = _mm256_set1_ps(d), mv = _mm256_set1_ps(m);
            __m128i lo = _mm256_castsi256_si128(u), hi = _mm256_extracti128_si256(u, 1);
            __m256i v[4] = {_mm256_cvtepi8_epi32(lo), _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)), _mm256_cvtepi8_epi32(hi),
                            _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8))};
            for (int k = 0; k < 4; k++) {
                __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(v[k]), dv);
                _mm256_storeu_ps(y + 8 * k, type == GGUF_T_Q4_1 ? _mm256_add_ps(f, mv) : f);
            }
        }
        return true;
    }
    case GGUF_T_F16:
        if (n % 8) return false;
        for (int64_t i = 0; i < n; i += 8) _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 2 * i))));
        return true;
    case GGUF_T_BF16:
        if (n % 8) return false;
        for (int64_t i = 0; i < n; i += 8)
            _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 2 * i))), 16)));
        return true;
    case GGUF_T_F32: memcpy(y, p, (size_t)n * 4); return true;
    case GGUF_T_Q4_K:   /* y = (d*sc) * q - (dmin*m), as the scalar code: same products, same rounding */
        for (int64_t b = 0; b < n / QKK; b++, p += B_Q4_K) {
            float d = f16c(p), dmin = f16c(p + 2);
            const uint8_t *q = p + 16;
            for (int j = 0; j < 8; j++) {
                int sc, m;
                k4_scale_min(j, p + 4, &sc, &m);
                __m256 d1 = _mm256_set1_ps(d * (float)sc), m1 = _mm256_set1_ps(dmin * (float)m);
                const uint8_t *qq = q + (j / 2) * 32;
                for (int k = 0; k < 32; k += 8, y += 8) {
                    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(qq + k)));
                    v = j & 1 ? _mm256_srli_epi32(v, 4) : _mm256_and_si256(v, _mm256_set1_epi32(0xF));
                    _mm256_storeu_ps(y, _mm256_sub_ps(_mm256_mul_ps(d1, _mm256_cvtepi32_ps(v)), m1));
                }
            }
        }
        return true;
    case GGUF_T_Q6_K:   /* y = (d*sc) * (u - 32) */
        for (int64_t b = 0; b < n / QKK; b++, p += B_Q6_K, y += QKK) {
            const uint8_t *ql = p, *qh = p + 128;
            const int8_t *sc = (const int8_t *)(p + 192);
            float d = f16c(p + 208);
            for (int h = 0; h < 2; h++, ql += 64, qh += 32, sc += 8)
                for (int g = 0; g < 4; g++)          /* 32 outputs y[h*128 + 32g + l] */
                    for (int l = 0; l < 32; l += 8) {
                        __m256i lo = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(ql + (g & 1) * 32 + l)));
                        __m256i hi = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(qh + l)));
                        lo = g < 2 ? _mm256_and_si256(lo, _mm256_set1_epi32(0xF)) : _mm256_srli_epi32(lo, 4);
                        hi = _mm256_and_si256(_mm256_srli_epi32(hi, 2 * g), _mm256_set1_epi32(3));
                        __m256i u = _mm256_sub_epi32(_mm256_or_si256(lo, _mm256_slli_epi32(hi, 4)), _mm256_set1_epi32(32));
                        __m256 dv = _mm256_set1_ps(d * (float)sc[l / 16 + 2 * g]);
                        _mm256_storeu_ps(y + h * 128 + 32 * g + l, _mm256_mul_ps(dv, _mm256_cvtepi32_ps(u)));
                    }
        }
        return true;
    default: return false;
    }
}
#undef QATTR

/* ---- AVX-512 (F, BW, VNNI) ------------------------------------------------------------------
 * The same integer dot products two 32-blocks (or half a 256-block) per 512-bit vector, with
 * vpdpbusd / vpmaddubsw over 64 bytes; the weight codes are built as in AVX2.  Sums of the
 * same integers, f32 folded per block pair, so the values of the 32-block kernels differ
 * from the AVX2 kernels only in f32 summation order; the K-quant kernel (dot256_z) keeps the
 * AVX2 kernel's int32 lanes and f32 steps, so its values are the AVX2 ones. */
#define ZATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma,f16c")))

/* Software prefetch of the weights PF_DIST bytes ahead (a matrix's rows, or its packed groups,
 * lie one after another, so this runs into the next row or group): the hardware streamer stops at page ends and
 * issues too few lines while the core is busy with several activations' dpbusd, so without it a
 * verify row's arithmetic adds to the step's memory time instead of overlapping it. */
#ifndef PF_DIST
#define PF_DIST 4096
#endif
#define PF_AHEAD(p, len)                                                                         \
    do {                                                                                         \
        for (size_t pf_ = 0; pf_ < (size_t)(len); pf_ += 64)                                     \
            _mm_prefetch((const char *)(p) + PF_DIST + pf_, _MM_HINT_T0);                        \
    } while (0)

static ZATTR inline float f16z(const uint8_t *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

/* The 16 code bytes of two blocks at q0, q1 as 64 nibbles: byte 32b + i = element i of block b
 * (low nibbles are elements 0..15, high nibbles 16..31, as nibbles32). */
static ZATTR inline __m512i nibbles64(const uint8_t *q0, const uint8_t *q1) {
    __m128i a = _mm_loadu_si128((const __m128i *)q0), b = _mm_loadu_si128((const __m128i *)q1);
    __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(a, a)), _mm256_set_m128i(b, b), 1);
    v = _mm512_srlv_epi64(v, _mm512_set_epi64(4, 4, 0, 0, 4, 4, 0, 0));   /* the second copy of each: high nibbles */
    return _mm512_and_si512(v, _mm512_set1_epi8(0xF));
}

/* Row p times nx activations x[j] (two 32-blocks per vector; type a constant in each copy):
 * out[j * ldo].  The weight codes and scales of a block pair are built once for all nx, then
 * each activation costs a dpbusd and an FMA -- a verify step of several rows reads and decodes
 * each weight block once.  Every activation's sums are the same operations in the same order
 * whatever nx, so its result does not depend on the others (nx 1 is the plain decode). */
static ZATTR inline __attribute__((always_inline)) void dot32_z(const int type, const uint8_t *p, const qa32 *const *x, const int nx, int nb,
                                                                float *out, size_t ldo) {
    const size_t bb = type == GGUF_T_Q4_0 ? B_Q4_0 : type == GGUF_T_Q4_1 ? B_Q4_1 : type == GGUF_T_Q5_0 ? B_Q5_0 : B_Q8_0;
    const int c = type == GGUF_T_Q4_0 ? 8 : type == GGUF_T_Q5_0 ? 16 : 0;
    const __m512i zero = _mm512_setzero_si512();
    __m512 acc[QUANT_NX_MAX];
    float off[QUANT_NX_MAX];
    for (int j = 0; j < nx; j++) { acc[j] = _mm512_setzero_ps(); off[j] = 0; }
    int b = 0;
    for (; b + 2 <= nb; b += 2, p += 2 * bb) {
        const uint8_t *p1 = p + bb;
        PF_AHEAD(p, 2 * bb);
        __m512i u;
        __mmask64 neg = 0;
        if (type == GGUF_T_Q8_0) {   /* |w| against x with w's sign */
            __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(p + 2))),
                                           _mm256_loadu_si256((const __m256i *)(p1 + 2)), 1);
            neg = _mm512_movepi8_mask(w);
            u = _mm512_abs_epi8(w);
        } else if (type == GGUF_T_Q4_0) u = nibbles64(p + 2, p1 + 2);
        else if (type == GGUF_T_Q4_1) u = nibbles64(p + 4, p1 + 4);
        else {   /* Q5_0: bit i of the block's qh word is element i's fifth bit */
            uint32_t h0, h1;
            memcpy(&h0, p + 2, 4);
            memcpy(&h1, p1 + 2, 4);
            u = _mm512_mask_add_epi8(nibbles64(p + 6, p1 + 6), (__mmask64)h1 << 32 | h0, nibbles64(p + 6, p1 + 6), _mm512_set1_epi8(16));
        }
        float d0 = f16z(p), d1 = f16z(p1);
        for (int j = 0; j < nx; j++) {
            const qa32 *xj = x[j] + b;
            __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)xj[0].qs)),
                                           _mm256_loadu_si256((const __m256i *)xj[1].qs), 1);
            if (type == GGUF_T_Q8_0) q = _mm512_mask_sub_epi8(q, neg, zero, q);
            __m512i sm = _mm512_dpbusd_epi32(zero, u, q);
            if (c) sm = _mm512_sub_epi32(sm, _mm512_dpbusd_epi32(zero, _mm512_set1_epi8((char)c), q));
            __m512 sc = _mm512_insertf32x8(_mm512_set1_ps(d0 * xj[0].d), _mm256_set1_ps(d1 * xj[1].d), 1);
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sm), sc, acc[j]);
            if (type == GGUF_T_Q4_1) off[j] += f16z(p + 2) * xj[0].ds + f16z(p1 + 2) * xj[1].ds;
        }
    }
    for (int j = 0; j < nx; j++) {
        float r = _mm512_reduce_add_ps(acc[j]) + off[j];
        if (b < nb) {   /* an odd block: the AVX2 step */
            float o = 0;
            __m256 a = blk32_acc(type, p, x[j] + b, _mm256_setzero_ps(), &o);
            r += hsum8(a) + o;
        }
        out[(size_t)j * ldo] = r;
    }
}

/* 1 activation for plain decode, groups of 4 in a verify step (NX_BY4) */
#define DOT32_NX(T, NX) dot32_z(T, p, x, NX, n / QK, out, ldo)
#define DOT32_T(T) NX_BY4(T, DOT32_NX, NX_NEXT_X)
static ZATTR void dot32_avx512(int type, const uint8_t *p, const qa32 *const *x, int nx, int n, float *out, size_t ldo) {
    switch (type) {
    case GGUF_T_Q4_0: DOT32_T(GGUF_T_Q4_0); break;
    case GGUF_T_Q4_1: DOT32_T(GGUF_T_Q4_1); break;
    case GGUF_T_Q5_0: DOT32_T(GGUF_T_Q5_0); break;
    default: DOT32_T(GGUF_T_Q8_0); break;
    }
}
#undef DOT32_T
#undef DOT32_NX

/* The same with the activations in pair form (qa64, built once per matmul): x + 128 as unsigned
 * bytes against the weights as signed values (the code offset taken off first: Q4_0 nibbles - 8,
 * Q5_0 codes - 16, Q8_0 as stored), the dpbusd starting from -128 times the weights' lane sums
 * (once per block pair for all activations): sum (x + 128) w - 128 sum w = sum x w.  So each
 * activation costs one load of x, a dpbusd, and the scale product and FMA.  The integer sums
 * equal dot32_z's and the f32 operations are the same in the same order (a lane's scale is the
 * product d_w * d_x either way), so the values equal dot32_z's bit for bit, whatever nx. */
static ZATTR inline __attribute__((always_inline)) void dot64_z(const int type, const uint8_t *p, const qa32 *const *x, const qa64 *const *z,
                                                                const int nx, int nb, float *out, size_t ldo) {
    const size_t bb = type == GGUF_T_Q4_0 ? B_Q4_0 : type == GGUF_T_Q4_1 ? B_Q4_1 : type == GGUF_T_Q5_0 ? B_Q5_0 : B_Q8_0;
    const __m512i zero = _mm512_setzero_si512();
    __m512 acc[QUANT_NX_MAX];
    float off[QUANT_NX_MAX];
#pragma GCC unroll 16
    for (int j = 0; j < nx; j++) { acc[j] = _mm512_setzero_ps(); off[j] = 0; }
    int b = 0;
    for (; b + 2 <= nb; b += 2, p += 2 * bb) {
        const uint8_t *p1 = p + bb;
        const int pi = b / 2;
        PF_AHEAD(p, 2 * bb);
        __m512i w;
        if (type == GGUF_T_Q8_0)
            w = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(p + 2))),
                                   _mm256_loadu_si256((const __m256i *)(p1 + 2)), 1);
        else if (type == GGUF_T_Q4_0) w = _mm512_sub_epi8(nibbles64(p + 2, p1 + 2), _mm512_set1_epi8(8));
        else if (type == GGUF_T_Q4_1) w = nibbles64(p + 4, p1 + 4);
        else {   /* Q5_0: bit i of the block's qh word is element i's fifth bit */
            uint32_t h0, h1;
            memcpy(&h0, p + 2, 4);
            memcpy(&h1, p1 + 2, 4);
            __m512i lo = nibbles64(p + 6, p1 + 6);
            w = _mm512_sub_epi8(_mm512_mask_add_epi8(lo, (__mmask64)h1 << 32 | h0, lo, _mm512_set1_epi8(16)), _mm512_set1_epi8(16));
        }
        const __m512i n0 = _mm512_sub_epi32(zero, _mm512_dpbusd_epi32(zero, _mm512_set1_epi8((char)0x80), w));
        const __m512 wd = _mm512_insertf32x8(_mm512_set1_ps(f16z(p)), _mm256_set1_ps(f16z(p1)), 1);
#pragma GCC unroll 16
        for (int j = 0; j < nx; j++) {
            const qa64 *zj = z[j] + pi;
            __m512i sm = _mm512_dpbusd_epi32(n0, _mm512_loadu_si512(zj->qu), w);
            __m512 sc = _mm512_mul_ps(wd, _mm512_loadu_ps(zj->d));
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sm), sc, acc[j]);
            if (type == GGUF_T_Q4_1) off[j] += f16z(p + 2) * x[j][b].ds + f16z(p1 + 2) * x[j][b + 1].ds;
        }
    }
    for (int j = 0; j < nx; j++) {
        float r = _mm512_reduce_add_ps(acc[j]) + off[j];
        if (b < nb) {   /* an odd block: the AVX2 step, as dot32_z */
            float o = 0;
            __m256 a = blk32_acc(type, p, x[j] + b, _mm256_setzero_ps(), &o);
            r += hsum8(a) + o;
        }
        out[(size_t)j * ldo] = r;
    }
}

/* 8 activations at a time, then the rest (NX_BY8) */
#define DOT64_NX(T, NX) dot64_z(T, p, x, z, NX, n / QK, out, ldo)
#define DOT64_T(T) NX_BY8(T, DOT64_NX, NX_NEXT_XZ)
static ZATTR void dot64_avx512(int type, const uint8_t *p, const qa32 *const *x, const qa64 *const *z, int nx, int n, float *out,
                               size_t ldo) {
    switch (type) {
    case GGUF_T_Q4_0: DOT64_T(GGUF_T_Q4_0); break;
    case GGUF_T_Q4_1: DOT64_T(GGUF_T_Q4_1); break;
    case GGUF_T_Q5_0: DOT64_T(GGUF_T_Q5_0); break;
    default: DOT64_T(GGUF_T_Q8_0); break;
    }
}
#undef DOT64_T
#undef DOT64_NX

/* Q4_K and Q6_K with VNNI: the AVX2 kernel's (dot256_t's) int32 lanes and f32 operations, so its
 * values bit for bit, in fewer instructions per activation.  The AVX2 kernel sums, per block and
 * int32 lane m, scale x (a group of 4 code x activation products) over the block's 32-byte
 * chunks (maddubs, then madd with the chunk's scales).  Here two chunks go in one 64-byte vector
 * (their activations are consecutive): vpdpbusd gives each lane its 4-product sum, which fits
 * in 16 bits (|sum| <= 4 * 63 * 128), so vpdpwssd against the lane's scale as the int16 pair
 * (scale, 0) multiplies and accumulates in one step; the two halves of the vector are then
 * added (integers: the same lanes whatever the order).  The Q4_K mins, the Q6_K offset and the
 * f32 steps are dot256_t's own. */
static ZATTR inline __attribute__((always_inline)) void dot256_z(const int type, const uint8_t *p, const qa256 *const *x, const int nx,
                                                                 int n, float *out, size_t ldo) {
    __m256 acc[QUANT_NX_MAX];
#pragma GCC unroll 8
    for (int j = 0; j < nx; j++) acc[j] = _mm256_setzero_ps();
    const __m512i m4 = _mm512_set1_epi8(0xF), lo16 = _mm512_set1_epi32(0xFFFF);
    const int nb = n / QKK;
    if (type == GGUF_T_Q4_K) {
        __m128 accm[QUANT_NX_MAX];
#pragma GCC unroll 8
        for (int j = 0; j < nx; j++) accm[j] = _mm_setzero_ps();
        for (int b = 0; b < nb; b++, p += B_Q4_K) {
            uint32_t u[4];   /* the 12 scale bytes -> 8 scales then 8 mins (as dot256_t) */
            memcpy(u, p + 4, 12);
            u[3] = ((u[2] >> 4) & 0x0f0f0f0f) | (((u[1] >> 6) & 0x03030303) << 4);
            uint32_t a1 = u[1] & 0x3f3f3f3f;
            u[1] = (u[2] & 0x0f0f0f0f) | (((u[0] >> 6) & 0x03030303) << 4);
            u[2] = a1;
            u[0] &= 0x3f3f3f3f;
            __m256i ms = _mm256_cvtepu8_epi16(_mm_set_epi32((int)u[3], (int)u[2], (int)u[1], (int)u[0]));   /* 8 scales, 8 mins */
            __m512i s32 = _mm512_cvtepu8_epi32(_mm_set_epi32(0, 0, (int)u[1], (int)u[0]));   /* the 8 scales as int32 (< 64) */
            float dw = f16z(p), dm = f16z(p + 2);
            __m512i w[4], sc[4];
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {   /* chunk pair k: elements 64k..64k+31 (low nibbles), 64k+32.. (high) */
                __m256i bits = _mm256_loadu_si256((const __m256i *)(p + 16 + 32 * k));
                __m512i b2 = _mm512_inserti64x4(_mm512_castsi256_si512(bits), _mm256_srli_epi16(bits, 4), 1);
                w[k] = _mm512_and_si512(b2, m4);
                sc[k] = _mm512_permutexvar_epi32(_mm512_set_epi32(2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1,
                                                                  2 * k + 1, 2 * k, 2 * k, 2 * k, 2 * k, 2 * k, 2 * k, 2 * k, 2 * k),
                                                 s32);
            }
#pragma GCC unroll 8
            for (int j = 0; j < nx; j++) {
                const qa256 *xb = x[j] + b;
                __m256i bs = _mm256_loadu_si256((const __m256i *)xb->bsums);
                __m128i s2 = _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));   /* sums of 32 */
                float dx = xb->d;
                accm[j] = _mm_fmadd_ps(_mm_set1_ps(dm * dx), _mm_cvtepi32_ps(_mm_madd_epi16(_mm256_extracti128_si256(ms, 1), s2)), accm[j]);
                __m512i sumi = _mm512_setzero_si512();
#pragma GCC unroll 4
                for (int k = 0; k < 4; k++) {
                    __m512i t = _mm512_dpbusd_epi32(_mm512_setzero_si512(), w[k], _mm512_loadu_si512(xb->qs + 64 * k));
                    sumi = _mm512_dpwssd_epi32(sumi, t, sc[k]);
                }
                __m256i s8 = _mm256_add_epi32(_mm512_castsi512_si256(sumi), _mm512_extracti64x4_epi64(sumi, 1));
                acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s8), _mm256_set1_ps(dw * dx), acc[j]);
            }
        }
        for (int j = 0; j < nx; j++) out[(size_t)j * ldo] = kq_finish(acc[j], accm[j]);
        return;
    }
    /* Q6_K: codes u = low nibble | 2 high bits << 4 (value u - 32, the -32 from bsums as dot256_t) */
    for (int b = 0; b < nb; b++, p += B_Q6_K) {
        const uint8_t *ql = p, *qh = p + 128;
        __m128i scales = _mm_loadu_si128((const __m128i *)(p + 192));   /* 16 int8 scales, one per 16 elements */
        __m256i sc16 = _mm256_cvtepi8_epi16(scales);
        __m512i s32 = _mm512_and_si512(_mm512_cvtepi8_epi32(scales), lo16);   /* scale g as the int16 pair (scale, 0) */
        float dw = f16z(p + 208);
        __m512i w[4], sc[4];
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            __m256i u[4];
            q6k_codes(ql, qh, h, u);
            w[2 * h] = _mm512_inserti64x4(_mm512_castsi256_si512(u[0]), u[1], 1);       /* elements 128h .. 128h+63 */
            w[2 * h + 1] = _mm512_inserti64x4(_mm512_castsi256_si512(u[2]), u[3], 1);   /* 128h+64 .. 128h+127 */
#pragma GCC unroll 2
            for (int k = 0; k < 2; k++) {   /* 64 elements = scale groups g0 .. g0+3, 4 lanes each */
                const int g0 = 8 * h + 4 * k;
                sc[2 * h + k] = _mm512_permutexvar_epi32(_mm512_set_epi32(g0 + 3, g0 + 3, g0 + 3, g0 + 3, g0 + 2, g0 + 2, g0 + 2, g0 + 2, g0 + 1,
                                                                           g0 + 1, g0 + 1, g0 + 1, g0, g0, g0, g0),
                                                         s32);
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < nx; j++) {
            const qa256 *xb = x[j] + b;
            __m256i off = _mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *)xb->bsums));
            __m512i sumi = _mm512_setzero_si512();
#pragma GCC unroll 4
            for (int c = 0; c < 4; c++) {
                __m512i t = _mm512_dpbusd_epi32(_mm512_setzero_si512(), w[c], _mm512_loadu_si512(xb->qs + 64 * c));
                sumi = _mm512_dpwssd_epi32(sumi, t, sc[c]);
            }
            __m256i s8 = _mm256_add_epi32(_mm512_castsi512_si256(sumi), _mm512_extracti64x4_epi64(sumi, 1));
            s8 = _mm256_add_epi32(_mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(off, 5)), s8);
            acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s8), _mm256_set1_ps(dw * xb->d), acc[j]);
        }
    }
    for (int j = 0; j < nx; j++) out[(size_t)j * ldo] = hsum8(acc[j]);
}

/* 4 activations at a time, then the rest (as dot256_avx2) */
#define DOT256Z_NX(T, NX) dot256_z(T, p, x, NX, n, out, ldo)
static ZATTR void dot256_avx512(int type, const uint8_t *p, const qa256 *const *x, int nx, int n, float *out, size_t ldo) {
    if (type == GGUF_T_Q4_K) NX_BY4(GGUF_T_Q4_K, DOT256Z_NX, NX_NEXT_X);
    else NX_BY4(GGUF_T_Q6_K, DOT256Z_NX, NX_NEXT_X);
}
#undef DOT256Z_NX

/* The p16 kernel (see "Q5_0 rows packed 16 at a time"): per block the 8 code vectors are
 * built once, then each activation costs 8 dpbusd against its broadcast 4-byte groups (two
 * chains, added: integers, so any order is exact), a cvt, a mul and an FMA for 16 rows. */
static ZATTR inline __attribute__((always_inline)) void p16_z(const uint8_t *g, int nb, const qa32 *const *x, const int32_t *const *c,
                                                              const int nx, float *out, size_t ldo) {
    __m512 acc[8];
#pragma GCC unroll 8
    for (int j = 0; j < nx; j++) acc[j] = _mm512_setzero_ps();
    const __m512i m4 = _mm512_set1_epi8(0xF), b16 = _mm512_set1_epi8(16), zero = _mm512_setzero_si512();
    for (int b = 0; b < nb; b++) {
        const uint8_t *p = g + (size_t)(b / 2) * P16_PAIR;
        const int h = b & 1;
        PF_AHEAD(p + 352 * h, 352);
        __m512i w[8];
#pragma GCC unroll 4
        for (int m = 0; m < 4; m++) {
            __m512i v = _mm512_loadu_si512(p + 256 * h + 64 * m);
            w[m] = _mm512_and_si512(v, m4);
            w[m + 4] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
        }
#pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            uint64_t hb;
            memcpy(&hb, p + 512 + 64 * h + 8 * k, 8);
            w[k] = _mm512_mask_add_epi8(w[k], (__mmask64)hb, w[k], b16);
        }
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 640 + 32 * h)));
#pragma GCC unroll 8
        for (int j = 0; j < nx; j++) {
            const qa32 *xb = x[j] + b;
            /* the 4-byte groups broadcast straight from memory (a GPR round trip costs more) */
#define P16_X(k) _mm512_broadcastd_epi32(_mm_loadu_si32(xb->qs + 4 * (k)))
            __m512i s0 = _mm512_dpbusd_epi32(_mm512_broadcastd_epi32(_mm_loadu_si32(&c[j][b])), w[0], P16_X(0));
            __m512i s1 = _mm512_dpbusd_epi32(zero, w[1], P16_X(1));
            s0 = _mm512_dpbusd_epi32(s0, w[2], P16_X(2));
            s1 = _mm512_dpbusd_epi32(s1, w[3], P16_X(3));
            s0 = _mm512_dpbusd_epi32(s0, w[4], P16_X(4));
            s1 = _mm512_dpbusd_epi32(s1, w[5], P16_X(5));
            s0 = _mm512_dpbusd_epi32(s0, w[6], P16_X(6));
            s1 = _mm512_dpbusd_epi32(s1, w[7], P16_X(7));
#undef P16_X
            acc[j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1)), _mm512_mul_ps(dw, _mm512_set1_ps(xb->d)), acc[j]);
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < nx; j++) _mm512_storeu_ps(out + (size_t)j * ldo, acc[j]);
}

/* 8 activations at a time, then the rest (NX_BY8; one block type, so T unused) */
#define P16_NX(T, NX) p16_z(g, n / QK, x, c, NX, out, ldo)
static ZATTR void p16_avx512(const uint8_t *g, int n, const qa32 *const *x, const int32_t *const *c, int nx, float *out, size_t ldo) {
    NX_BY8(GGUF_T_Q5_0, P16_NX, NX_NEXT_XC);
}
#undef P16_NX

/* The k16 kernel (see "Q4_K / Q6_K rows packed 16 at a time"), lane by lane: for lane l the 8
 * units' code vectors are built (from L1: a 256-block of 16 rows is 2.3 or 3.3 KB), then each
 * activation costs per unit a dpbusd against its broadcast 4-byte group and a dpwssd against the
 * unit's scales (the row-major kernel's integer work, for 16 rows at once; two chains, integers,
 * so any order is exact), and a cvt and an FMA into the lane's f32 chain for 16 rows.  Lane by
 * lane keeps one accumulator per activation in a register. */
#define K16_NX_MAX 9   /* activations in one pass of k16_z: a --draft 8 verify step's 9 rows */
static inline long long ld64(const int8_t *p) {
    long long v;
    memcpy(&v, p, 8);
    return v;
}
static ZATTR inline __attribute__((always_inline)) void k16_z(const int type, const uint8_t *g, int nb, const qa256 *const *x, const int nx,
                                                              float *out, size_t ldo) {
    const size_t sb = type == GGUF_T_Q4_K ? K16_Q4K : K16_Q6K, ub = type == GGUF_T_Q4_K ? K16_Q4K_UNIT : K16_Q6K_UNIT;
    const __m512i m4 = _mm512_set1_epi8(0xF), m30 = _mm512_set1_epi8(0x30), lo16 = _mm512_set1_epi32(0xFFFF), zero = _mm512_setzero_si512();
    __m512 acc[K16_NX_MAX][8], accm[K16_NX_MAX][4];
    _Alignas(64) int8_t xp[K16_NX_MAX][QKK];   /* Q4_K: the block's activations in unit-pair order */
    for (int j = 0; j < nx; j++)
        for (int l = 0; l < 8; l++) acc[j][l] = accm[j][l / 2] = _mm512_setzero_ps();
    for (int b = 0; b < nb; b++) {
        const uint8_t *p = g + (size_t)b * sb;
        PF_AHEAD(p, sb);
        /* the units' scales as int16 in the low half of each lane (dpwssd's pair (scale, 0)); Q6_K: the
         * group of lanes 0..3 (sc[u]) and of lanes 4..7 (sc[8 + u]) */
        __m512i sc[16];
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + (type == GGUF_T_Q4_K ? K16_Q4K_D : K16_Q6K_D))));
        __m512 dwx[K16_NX_MAX];   /* Q4_K: d x the activation's d, per activation */
        if (type == GGUF_T_Q4_K) {
            /* unit pair P's scales as the int16 pairs (sc_2P, sc_2P+1) of each row's lane, and each
             * activation's codes in the pairs' order: 8 bytes = unit 2P's group l, then unit 2P+1's */
            const __m512i ix = _mm512_set_epi32(15, 7, 14, 6, 13, 5, 12, 4, 11, 3, 10, 2, 9, 1, 8, 0);
#pragma GCC unroll 4
            for (int P = 0; P < 4; P++) sc[P] = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p + K16_Q4K_SC + 32 * P)));
            for (int j = 0; j < nx; j++) {
                dwx[j] = _mm512_mul_ps(dw, _mm512_set1_ps(x[j][b].d));
#pragma GCC unroll 4
                for (int P = 0; P < 4; P++)
                    _mm512_store_si512((__m512i *)(void *)(xp[j] + 64 * P), _mm512_permutexvar_epi32(ix, _mm512_loadu_si512(x[j][b].qs + 64 * P)));
            }
        } else
            for (int u = 0; u < 8; u++) {
                sc[u] = _mm512_and_si512(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p + K16_Q6K_SC + 32 * u))), lo16);
                sc[8 + u] = _mm512_and_si512(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p + K16_Q6K_SC + 32 * u + 16))), lo16);
            }
        for (int l = 0; l < 8; l++) {
            const int m = l % 4, hn = l / 4;
            if (type == GGUF_T_Q4_K) {
                /* Q4_K: vector 2P+h holds rows 4k+2h, 4k+2h+1 of units 2P, 2P+1 (k4_pos); the dpbusd of both
                 * halves against the pair's activations are packed to int16 (|sum| <= 4 * 15 * 128: exact)
                 * as (unit 2P, unit 2P+1) per row, row i in lane i, and one dpwssd scales and adds both
                 * units: S_l's integers, in half the dpwssd */
                __m512i w[8];
#pragma GCC unroll 8
                for (int h = 0; h < 8; h++) {
                    __m512i v = _mm512_loadu_si512(p + 512 * (h / 2) + 64 * (2 * m + h % 2));
                    if (hn) v = _mm512_srli_epi16(v, 4);
                    w[h] = _mm512_and_si512(v, m4);
                }
                for (int j0 = 0; j0 < nx; j0 += 8)   /* passes of 8 activations (registers), one unpacking */
#pragma GCC unroll 8
                for (int jj = 0; jj < (nx - j0 < 8 ? nx - j0 : 8); jj++) {
                    const int j = j0 + jj;
                    const int8_t *q = xp[j] + 8 * l;
                    __m512i s0 = zero;
#define K16_XP(P) _mm512_set1_epi64(ld64(q + 64 * (P)))
#define K16_PAIR(P) _mm512_packs_epi32(_mm512_dpbusd_epi32(zero, w[2 * (P)], K16_XP(P)), _mm512_dpbusd_epi32(zero, w[2 * (P) + 1], K16_XP(P)))
                    s0 = _mm512_dpwssd_epi32(s0, K16_PAIR(0), sc[0]);
                    s0 = _mm512_dpwssd_epi32(s0, K16_PAIR(1), sc[1]);
                    s0 = _mm512_dpwssd_epi32(s0, K16_PAIR(2), sc[2]);
                    s0 = _mm512_dpwssd_epi32(s0, K16_PAIR(3), sc[3]);
#undef K16_PAIR
#undef K16_XP
                    acc[j][l] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0), dwx[j], acc[j][l]);
                }
                continue;
            }
            __m512i w[8];
#pragma GCC unroll 8
            for (int u = 0; u < 8; u++) {
                const uint8_t *c = p + ub * u;
                __m512i v = _mm512_loadu_si512(c + 64 * m);
                if (hn) v = _mm512_srli_epi16(v, 4);
                if (type == GGUF_T_Q4_K) w[u] = _mm512_and_si512(v, m4);
                else {   /* low 4 bits | the high 2 bits moved to bits 4..5 (epi16 shifts: the bits crossing a byte are masked off) */
                    __m512i h = _mm512_loadu_si512(c + 256 + 64 * hn);
                    h = m < 3 ? _mm512_slli_epi16(h, 4 - 2 * m) : _mm512_srli_epi16(h, 2);
                    w[u] = _mm512_ternarylogic_epi32(v, m4, _mm512_and_si512(h, m30), 0xEA);   /* (A & B) | C */
                }
            }
            __m512i pr = zero;   /* Q6_K: lane l starts at -32 x (sc_2l * bsum_2l + sc_2l+1 * bsum_2l+1) */
            if (type == GGUF_T_Q6_K) {
                __m512i a = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p + K16_Q6K_SC + 32 * l)));
                __m512i c = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(p + K16_Q6K_SC + 32 * l + 16)));
                pr = _mm512_or_si512(_mm512_and_si512(a, lo16), _mm512_slli_epi32(c, 16));
            }
            for (int j0 = 0; j0 < nx; j0 += 8)   /* passes of 8 activations (registers), one unpacking */
#pragma GCC unroll 8
            for (int jj = 0; jj < (nx - j0 < 8 ? nx - j0 : 8); jj++) {
                const int j = j0 + jj;
                const qa256 *xb = x[j] + b;
                const int8_t *q = xb->qs + 4 * l;
                __m512i s0 = zero, s1 = zero;
                if (type == GGUF_T_Q6_K) {
                    int32_t bp;
                    memcpy(&bp, xb->bsums + 2 * l, 4);
                    s0 = _mm512_sub_epi32(zero, _mm512_slli_epi32(_mm512_dpwssd_epi32(zero, pr, _mm512_set1_epi32(bp)), 5));
                }
#define K16_X(u) _mm512_broadcastd_epi32(_mm_loadu_si32(q + 32 * (u)))
#pragma GCC unroll 4
                for (int u = 0; u < 8; u += 2) {
                    s0 = _mm512_dpwssd_epi32(s0, _mm512_dpbusd_epi32(zero, w[u], K16_X(u)), sc[8 * hn + u]);
                    s1 = _mm512_dpwssd_epi32(s1, _mm512_dpbusd_epi32(zero, w[u + 1], K16_X(u + 1)), sc[8 * hn + u + 1]);
                }
#undef K16_X
                acc[j][l] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1)), _mm512_mul_ps(dw, _mm512_set1_ps(xb->d)), acc[j][l]);
            }
        }
        if (type == GGUF_T_Q4_K) {
            const __m512 dm = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + K16_Q4K_DMIN)));
            __m512i mn[4];
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) mn[k] = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p + K16_Q4K_MIN + 32 * k)));
            for (int j0 = 0; j0 < nx; j0 += 8)   /* passes of 8 activations (registers), one unpacking */
#pragma GCC unroll 8
            for (int jj = 0; jj < (nx - j0 < 8 ? nx - j0 : 8); jj++) {
                const int j = j0 + jj;
                const qa256 *xb = x[j] + b;
                __m256i bs = _mm256_loadu_si256((const __m256i *)xb->bsums);
                int32_t s2[4];   /* the sub-blocks' sums, pairs (2k, 2k+1) as int16 halves */
                _mm_storeu_si128((__m128i *)s2, _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1)));
                const __m512 dmx = _mm512_mul_ps(dm, _mm512_set1_ps(xb->d));
#pragma GCC unroll 4
                for (int k = 0; k < 4; k++)
                    accm[j][k] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpwssd_epi32(zero, mn[k], _mm512_set1_epi32(s2[k]))), dmx, accm[j][k]);
            }
        }
    }
    for (int j = 0; j < nx; j++) {
        __m512 r = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(acc[j][0], acc[j][4]), _mm512_add_ps(acc[j][2], acc[j][6])),
                                 _mm512_add_ps(_mm512_add_ps(acc[j][1], acc[j][5]), _mm512_add_ps(acc[j][3], acc[j][7])));
        if (type == GGUF_T_Q4_K)
            r = _mm512_sub_ps(r, _mm512_add_ps(_mm512_add_ps(accm[j][0], accm[j][2]), _mm512_add_ps(accm[j][1], accm[j][3])));
        _mm512_storeu_ps(out + (size_t)j * ldo, r);
    }
}

/* type and nx constants in each copy: 8 activations at a time, then the rest (NX_BY8) */
#define K16_NX(T, NX) k16_z(T, g, n / QKK, x, NX, out, ldo)
static ZATTR void k16_avx512(int type, const uint8_t *g, int n, const qa256 *const *x, int nx, float *out, size_t ldo) {
    if (nx == K16_NX_MAX) {   /* the codes unpacked once for all 9, not for 8 and again for 1 */
        if (type == GGUF_T_Q4_K) K16_NX(GGUF_T_Q4_K, K16_NX_MAX);
        else K16_NX(GGUF_T_Q6_K, K16_NX_MAX);
        return;
    }
    if (type == GGUF_T_Q4_K) NX_BY8(GGUF_T_Q4_K, K16_NX, NX_NEXT_X);
    else NX_BY8(GGUF_T_Q6_K, K16_NX, NX_NEXT_X);
}
#undef K16_NX

static ZATTR void pairs_avx512(const qa32 *q, int n, qa64 *z) {
    for (int i = 0; i < n / 64; i++, q += 2) {
        __m512i s = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)q[0].qs)),
                                       _mm256_loadu_si256((const __m256i *)q[1].qs), 1);
        _mm512_storeu_si512(z[i].qu, _mm512_xor_si512(s, _mm512_set1_epi8((char)0x80)));   /* + 128 */
        _mm512_storeu_ps(z[i].d, _mm512_insertf32x8(_mm512_set1_ps(q[0].d), _mm256_set1_ps(q[1].d), 1));
    }
}

/* The activation quantization with 16 lanes: the same operations (amax, d = amax/127,
 * x * (1/d) rounded to nearest even, integer sums), so the same bytes and scales. */
static ZATTR inline __m512i q16(const float *p, __m512 inv) {
    return _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(p), inv));
}
static ZATTR void act32_avx512(const float *x, int n, qa32 *q) {
    for (int b = 0; b < n / QK; b++) {
        const float *p = x + b * QK;
        float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(p)), _mm512_abs_ps(_mm512_loadu_ps(p + 16))));
        float d = amax / 127.0f, inv = d > 0 ? 1.0f / d : 0;
        __m512i a = q16(p, _mm512_set1_ps(inv)), c = q16(p + 16, _mm512_set1_ps(inv));
        _mm_storeu_si128((__m128i *)q[b].qs, _mm512_cvtsepi32_epi8(a));
        _mm_storeu_si128((__m128i *)(q[b].qs + 16), _mm512_cvtsepi32_epi8(c));
        q[b].d = d;
        q[b].ds = d * (float)_mm512_reduce_add_epi32(_mm512_add_epi32(a, c));
    }
}
static ZATTR void act256_avx512(const float *x, int n, qa256 *q) {
    for (int b = 0; b < n / QKK; b++) {
        const float *p = x + b * QKK;
        __m512 m = _mm512_setzero_ps();
        for (int i = 0; i < QKK; i += 16) m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_loadu_ps(p + i)));
        float amax = _mm512_reduce_max_ps(m);
        float d = amax / 127.0f, inv = d > 0 ? 1.0f / d : 0;
        for (int g = 0; g < QKK / 16; g++) {
            __m512i v = q16(p + 16 * g, _mm512_set1_ps(inv));
            _mm_storeu_si128((__m128i *)(q[b].qs + 16 * g), _mm512_cvtsepi32_epi8(v));
            q[b].bsums[g] = (int16_t)_mm512_reduce_add_epi32(v);
        }
        q[b].d = d;
    }
}
#undef ZATTR
#endif

/* ---- dispatch ------------------------------------------------------------------------------- */
#ifdef HAVE_X86
/* CPUID.1:ECX bit 29; asked directly because clang's __builtin_cpu_supports has no "f16c" */
static bool cpu_has_f16c(void) {
    unsigned a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    return c >> 29 & 1;
}
#endif

/* The family cpu.c has in force (kernels.c follows the same one), with F16C for the AVX2
 * kernels' scales (asked once: pool threads call this per row). */
static bool use_avx512(void) { return model_cpu_family() == CPU_AVX512; }

static bool use_avx2(void) {
#ifdef HAVE_X86
    static atomic_int f16c = -1;   /* (the answer never changes) */
    if (model_cpu_family() < CPU_AVX2) return false;
    int v = atomic_load_explicit(&f16c, memory_order_relaxed);
    if (v < 0) atomic_store(&f16c, v = cpu_has_f16c());
    return v;
#else
    return false;
#endif
}

void model_quant_act32(const float *x, int n, qa32 *q) {
#ifdef HAVE_X86
    if (use_avx512()) { act32_avx512(x, n, q); return; }
    if (use_avx2()) { act32_avx2(x, n, q); return; }
#endif
    act32_scalar(x, n, q);
}

void model_quant_act256(const float *x, int n, qa256 *q) {
#ifdef HAVE_X86
    if (use_avx512()) { act256_avx512(x, n, q); return; }
    if (use_avx2()) { act256_avx2(x, n, q); return; }
#endif
    act256_scalar(x, n, q);
}

bool model_quant_pairs_wanted(void) {
#ifdef HAVE_X86
    return use_avx512();
#else
    return false;
#endif
}

void model_quant_act32_pairs(const qa32 *q, int n, qa64 *z) {
#ifdef HAVE_X86
    if (use_avx512()) { pairs_avx512(q, n, z); return; }
#endif
    for (int i = 0; i < n / 64; i++)
        for (int h = 0; h < 2; h++) {
            const qa32 *b = &q[2 * i + h];
            for (int l = 0; l < 32; l++) z[i].qu[32 * h + l] = (uint8_t)(b->qs[l] + 128);
            for (int l = 0; l < 8; l++) z[i].d[8 * h + l] = b->d;
        }
}

void model_quant_dot_rows(int type, const void *rows, size_t row_bytes, int nrows, const void *xq, int n, float *out) {
    model_quant_dot_rows_nx(type, rows, row_bytes, nrows, &xq, NULL, 1, n, out, 0);
}

void model_quant_dot_rows_nx(int type, const void *rows, size_t row_bytes, int nrows, const void *const *xq,
                             const qa64 *const *xz, int nx, int n, float *out, size_t ldo) {
    const uint8_t *p = rows;
    int kind = model_quant_act_kind(type);
    for (int j0 = 0; j0 < nx; j0 += QUANT_NX_MAX) {
        int m = nx - j0 < QUANT_NX_MAX ? nx - j0 : QUANT_NX_MAX;
        const void *const *xs = xq + j0;
        float *o = out + (size_t)j0 * ldo;
        p = rows;
#ifdef HAVE_X86
        if (kind == QACT_32 && use_avx512() && xz) {
            for (int r = 0; r < nrows; r++, p += row_bytes) dot64_avx512(type, p, (const qa32 *const *)xs, xz + j0, m, n, o + r, ldo);
            continue;
        }
        if (kind == QACT_32 && use_avx512()) {
            for (int r = 0; r < nrows; r++, p += row_bytes) dot32_avx512(type, p, (const qa32 *const *)xs, m, n, o + r, ldo);
            continue;
        }
        if (kind == QACT_256 && use_avx512()) {
            for (int r = 0; r < nrows; r++, p += row_bytes) dot256_avx512(type, p, (const qa256 *const *)xs, m, n, o + r, ldo);
            continue;
        }
        if (kind == QACT_256 && use_avx2()) {
            for (int r = 0; r < nrows; r++, p += row_bytes) dot256_avx2(type, p, (const qa256 *const *)xs, m, n, o + r, ldo);
            continue;
        }
        if (kind == QACT_32 && use_avx2() && m >= 2 && type != GGUF_T_Q4_1 && n / QK <= T8_MAXB) {   /* a verify step's rows */
            dot32_rows_t8(type, p, row_bytes, nrows, (const qa32 *const *)xs, m, n, o, ldo);
            continue;
        }
        if (kind == QACT_32 && use_avx2()) {
            for (int r = 0; r < nrows; r++, p += row_bytes) dot32_avx2(type, p, (const qa32 *const *)xs, m, n, o + r, ldo);
            continue;
        }
        if (use_avx2()) {
            for (int r = 0; r < nrows; r++, p += row_bytes)
                for (int j = 0; j < m; j++) o[(size_t)j * ldo + r] = dot_f_avx2(type, p, xs[j], n);
            continue;
        }
#endif
        for (int r = 0; r < nrows; r++, p += row_bytes)
            for (int j = 0; j < m; j++)
                o[(size_t)j * ldo + r] = kind == QACT_32 ? dot32_scalar(type, p, xs[j], n) : kind == QACT_256 ? dot256_scalar(type, p, xs[j], n)
                                                                                        : dot_f_scalar(type, p, xs[j], n);
    }
}

bool model_quant_p16_ok(int type, int n) {
    if (n <= 0) return false;
    return type == GGUF_T_Q5_0 ? n % 64 == 0 : (type == GGUF_T_Q4_K || type == GGUF_T_Q6_K) && n % QKK == 0;
}

size_t model_quant_p16_bytes(int type, int n) {
    if (!model_quant_p16_ok(type, n)) return 0;
    return type == GGUF_T_Q5_0 ? (size_t)n / 64 * P16_PAIR : (size_t)n / QKK * (type == GGUF_T_Q4_K ? K16_Q4K : K16_Q6K);
}

void model_quant_p16_pack(int type, const void *rows, size_t row_bytes, int n, void *dst) {
    if (type == GGUF_T_Q5_0) p16_pack(rows, row_bytes, n, dst);
    else k16_pack(type, rows, row_bytes, n, dst);
}

void model_quant_p16_dot(int type, const void *group, int n, const void *const *x, const int32_t *const *c, int nx, float *out, size_t ldo) {
#ifdef HAVE_X86
    if (use_avx512()) {
        if (type == GGUF_T_Q5_0) p16_avx512(group, n, (const qa32 *const *)x, c, nx, out, ldo);
        else k16_avx512(type, group, n, (const qa256 *const *)x, nx, out, ldo);
        return;
    }
#endif
    model_quant_p16_dot_ref(type, group, n, x, c, nx, out, ldo);
}

void model_quant_p16_dot_ref(int type, const void *group, int n, const void *const *x, const int32_t *const *c, int nx, float *out, size_t ldo) {
    if (type == GGUF_T_Q5_0) p16_dot_scalar(group, n, (const qa32 *const *)x, c, nx, out, ldo);
    else k16_dot_scalar(type, group, n, (const qa256 *const *)x, nx, out, ldo);
}

bool model_quant_p16_wanted(void) { return use_avx512(); }

void model_quant_dequant_fast(int type, const void *row, float *y, int64_t n) {
#ifdef HAVE_X86
    if (use_avx2() && dequant_avx2(type, row, y, n)) return;
#endif
    model_quant_dequant_row(type, row, y, n);
}

float model_quant_dot_f32(const float *a, const float *b, int n) {
#ifdef HAVE_X86
    if (use_avx2()) return dot_ff_avx2(a, b, n);
#endif
    float s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
