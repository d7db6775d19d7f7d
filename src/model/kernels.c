/* kernels.c — compute weights (f32 / bf16 / q8) and the matmul on the pool.
 *
 * The binary is built for plain x86-64 and carried to other machines, so the
 * AVX-512 and AVX2 kernels are separate functions with target attributes,
 * picked once at run time with __builtin_cpu_supports; a scalar version runs
 * everywhere else.
 *
 * Weights are panel-packed (wmat in model_internal.h): 16 output rows
 * interleaved per input column, so every kernel streams contiguous memory and
 * multiplies a weight vector by a broadcast activation (no horizontal sums).
 * Two shapes of work, both over panel pairs (32 output rows) split between threads:
 *  - decode (n < 4 input rows): memory-bound, every weight byte is read once
 *    per token, so the kernels read the stored dtype directly (bf16 widened by
 *    a shift or a mask, q8 multiplied in int8 against an int8-quantized x with
 *    VNNI, like llama.cpp's Q8_0 x Q8_0);
 *  - prefill (n >= 4): compute-bound, so a panel pair is widened to f32 once
 *    (AVX-512: vector unpack into a per-thread pool scratch, no malloc per job)
 *    and multiplied against all n input rows in TX x 32 register tiles; the
 *    input rows are packed once per matmul into [k][TX] per tile (one pointer
 *    feeds the broadcasts), k is blocked so a 32 x 128 weight block stays in L1
 *    while every tile passes over it, and the next block is prefetched meanwhile.
 *    With AMX (Linux, Sapphire Rapids on): bf16 weights go through TDPBF16PS
 *    and q8 weights through TDPBSSD straight from the packed panels (x
 *    quantized per 32 as decode does, so prefill and decode compute the same
 *    integer dot products); PTXGEN_NO_AMX=1 keeps the f32 path.
 * Also here: the AVX-512 elementwise kernels (RMSNorm, SiLU*up and softmax
 * with a Cephes-style vector exp, ~1 ulp) and GQA attention: a KV head's query
 * heads together, and the rows of one context (a verify step, a prefill chunk)
 * in groups that read each block of the cache once for the group
 * (model_kern_attn_rows; each row's values those of the row alone). */
#define _DEFAULT_SOURCE 1   /* madvise, MADV_HUGEPAGE */
#include "kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* ---- compute weights ----------------------------------------------------------- */
/* Weight buffers: 64-byte aligned; big ones 2 MB aligned and marked for transparent
 * huge pages, since decode streams every byte once per token and 4 KB pages
 * would cost a TLB miss every 4 KB. */
_Thread_local size_t model_oom_bytes;
void model_oom_note(size_t n) { if (!model_oom_bytes) model_oom_bytes = n ? n : 1; }
void *model_alloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) model_oom_note(n);
    return p;
}
void *model_calloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) model_oom_note(n * size);
    return p;
}

static void *walloc(size_t n) {
    size_t align = n >= (2u << 20) ? (2u << 20) : 64;
    void *p = aligned_alloc(align, (n + align - 1) / align * align);
    if (!p) model_oom_note(n);
#ifdef MADV_HUGEPAGE
    if (p && align > 64) madvise(p, (n + align - 1) / align * align, MADV_HUGEPAGE);
#endif
    return p;
}

/* Offset of element (r, c) in a packed matrix of `cols` columns, in elements. */
static size_t off_f32(int r, int c, int cols) {
    return ((size_t)(r / WPANEL) * cols + c) * WPANEL + r % WPANEL;
}
static size_t off_bf16(int r, int c, int cols) {
    return (((size_t)(r / WPANEL) * (cols / 2) + c / 2) * WPANEL + r % WPANEL) * 2 + c % 2;
}
static size_t off_q8(int r, int c, int cols) {
    return ((((size_t)(r / WPANEL) * (cols / Q8_GROUP) + c / Q8_GROUP) * (Q8_GROUP / 4) + c % Q8_GROUP / 4) * WPANEL +
            r % WPANEL) * 4 + c % 4;
}

pg_status model_wmat_make(wmat *m, const float *src, int rows, int cols, wtype t) {
    memset(m, 0, sizeof *m);
    if (t == WT_Q8 && cols % Q8_GROUP) t = WT_F32;   /* odd widths stay f32 */
    if (t == WT_BF16 && cols % 2) t = WT_F32;
    m->rows = rows;
    m->cols = cols;
    m->prows = (rows + 2 * WPANEL - 1) / (2 * WPANEL) * (2 * WPANEL);
    m->type = t;
    size_t n = (size_t)m->prows * cols;   /* padding rows stay zero */
    if (t == WT_F32) {
        float *w = walloc(n * 4);
        if (!w) return PG_ERR_NOMEM;
        memset(w, 0, n * 4);
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) w[off_f32(r, c, cols)] = src[(size_t)r * cols + c];
        m->w = w;
    } else if (t == WT_BF16) {
        uint16_t *w = walloc(n * 2);
        if (!w) return PG_ERR_NOMEM;
        memset(w, 0, n * 2);
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) w[off_bf16(r, c, cols)] = f32_to_bf16(src[(size_t)r * cols + c]);
        m->w = w;
    } else {
        int8_t *w = walloc(n);
        float *s = walloc(n / Q8_GROUP * sizeof *s);
        if (!w || !s) { free(w); free(s); return PG_ERR_NOMEM; }
        memset(w, 0, n);
        memset(s, 0, n / Q8_GROUP * sizeof *s);
        int ng = cols / Q8_GROUP;
        for (int r = 0; r < rows; r++)
            for (int g = 0; g < ng; g++) {
                const float *p = src + (size_t)r * cols + g * Q8_GROUP;
                float amax = 0;
                for (int i = 0; i < Q8_GROUP; i++) amax = fmaxf(amax, fabsf(p[i]));
                float sc = amax / 127.0f, inv = sc > 0 ? 1.0f / sc : 0;
                s[((size_t)(r / WPANEL) * ng + g) * WPANEL + r % WPANEL] = sc;
                for (int i = 0; i < Q8_GROUP; i++) w[off_q8(r, g * Q8_GROUP + i, cols)] = (int8_t)lrintf(p[i] * inv);
            }
        m->w = w;
        m->scale = s;
    }
    return PG_OK;
}

bool model_wmat_gg_add(wmat *m, int type, const void *data, int rows, int cols) {
    if (m->nseg == WSEG_MAX || !model_quant_supported(type) || (m->nseg && cols != m->cols)) return false;
    if (!m->nseg) {
        memset(m, 0, sizeof *m);
        m->type = WT_GG;
        m->cols = cols;
    }
    struct wseg *g = &m->seg[m->nseg++];
    g->r0 = m->rows;
    g->rows = rows;
    g->type = type;
    g->row_bytes = model_quant_row_bytes(type, cols);
    g->data = data;
    m->rows += rows;
    m->prows = (m->rows + 2 * WPANEL - 1) / (2 * WPANEL) * (2 * WPANEL);   /* prefill works in panel pairs */
    return true;
}

/* The segment holding row r of a WT_GG matrix. */
static const struct wseg *gg_seg(const wmat *m, int r) {
    int s = 0;
    while (s + 1 < m->nseg && r >= m->seg[s + 1].r0) s++;
    return &m->seg[s];
}

/* Row r of a WT_GG matrix (r < rows) into dst[cols], in pieces of a few blocks (kept in L1). */
static void gg_row(const wmat *m, int r, float *dst) {
    const struct wseg *g = gg_seg(m, r);
    model_quant_dequant_fast(g->type, g->data + (size_t)(r - g->r0) * g->row_bytes, dst, m->cols);
}

bool model_wmat_gg_pack(wmat *m) {
    if (m->type != WT_GG || m->exact || !model_quant_p16_wanted()) return true;
    for (int s = 0; s < m->nseg; s++) {
        struct wseg *g = &m->seg[s];
        size_t gb = model_quant_p16_bytes(g->type, m->cols);
        if (!gb || g->p16 || g->rows % 16 || g->r0 % 16) continue;
        if (!(g->p16 = model_alloc(gb * (size_t)(g->rows / 16)))) return false;
        for (int r = 0; r < g->rows; r += 16)
            model_quant_p16_pack(g->type, g->data + (size_t)r * g->row_bytes, g->row_bytes, m->cols, g->p16 + gb * (size_t)(r / 16));
    }
    return true;
}

void model_wmat_free(wmat *m) {
    if (m->type == WT_GG)
        for (int s = 0; s < m->nseg; s++) free(m->seg[s].p16);
    free(m->w);
    free(m->scale);
    memset(m, 0, sizeof *m);
}

size_t model_wmat_bytes(const wmat *m) {
    if (m->type == WT_GG) {
        size_t b = 0;
        for (int i = 0; i < m->nseg; i++) b += (size_t)m->seg[i].rows * m->seg[i].row_bytes;
        return b;
    }
    size_t n = (size_t)m->prows * m->cols;
    return m->type == WT_F32 ? n * 4 : m->type == WT_BF16 ? n * 2 : n + n / Q8_GROUP * 4;
}

void model_wmat_row_f32(const wmat *m, int r, float *dst) {
    int k = m->cols;
    if (m->type == WT_GG) gg_row(m, r, dst);
    else if (m->type == WT_F32) {
        const float *w = m->w;
        for (int i = 0; i < k; i++) dst[i] = w[off_f32(r, i, k)];
    } else if (m->type == WT_BF16) {
        const uint16_t *w = m->w;
        for (int i = 0; i < k; i++) dst[i] = bf16_to_f32(w[off_bf16(r, i, k)]);
    } else {
        const int8_t *w = m->w;
        int ng = k / Q8_GROUP;
        for (int i = 0; i < k; i++)
            dst[i] = (float)w[off_q8(r, i, k)] * m->scale[((size_t)(r / WPANEL) * ng + i / Q8_GROUP) * WPANEL + r % WPANEL];
    }
}

#ifdef HAVE_X86
static __attribute__((target("avx2"))) void pack8_avx2(const float *const s[8], int k, float *d, int ds);
#endif

/* Panel pair pp of a WT_GG matrix as f32 [2][k][16]: per panel, 16 rows dequantized a
 * piece of columns at a time into tmp [16][piece] (L1), then transposed into the panel
 * (AVX2: 8x8 transposes; rows past the matrix are zero). */
static void unpack_gg(const wmat *m, int pp, float *dst) {
    int k = m->cols;
    int piece = k % 256 == 0 ? 256 : k % 32 == 0 ? 32 : 1;   /* whole blocks of every type (1: F32/F16/BF16 odd widths) */
    float tmp[16][256];
    bool avx2 = model_cpu_family() >= CPU_AVX2;
    for (int p = 0; p < 2; p++) {
        float *d = dst + (size_t)p * k * WPANEL;
        int r0 = pp * 2 * WPANEL + p * WPANEL;
        for (int i0 = 0; i0 < k; i0 += piece) {
            int np = piece == 1 ? (k - i0 < 256 ? k - i0 : 256) : piece;   /* odd widths: 256 columns per round */
            for (int l = 0; l < WPANEL; l++) {
                int r = r0 + l;
                if (r >= m->rows) {
                    memset(tmp[l], 0, (size_t)np * sizeof(float));
                    continue;
                }
                const struct wseg *g = gg_seg(m, r);
                const uint8_t *src = g->data + (size_t)(r - g->r0) * g->row_bytes + model_quant_row_bytes(g->type, i0);
                if (piece == 1) model_quant_dequant_row(g->type, src, tmp[l], np);
                else model_quant_dequant_fast(g->type, src, tmp[l], np);
            }
            float *o = d + (size_t)i0 * WPANEL;
#ifdef HAVE_X86
            if (avx2) {
                const float *lo[8], *hi[8];
                for (int j = 0; j < 8; j++) { lo[j] = tmp[j]; hi[j] = tmp[8 + j]; }
                pack8_avx2(lo, np, o, WPANEL);
                pack8_avx2(hi, np, o + 8, WPANEL);
            } else
#endif
                for (int i = 0; i < np; i++)
                    for (int l = 0; l < WPANEL; l++) o[(size_t)i * WPANEL + l] = tmp[l][i];
            if (piece == 1) i0 += np - 1;
        }
    }
}

/* Panel pair pp (rows 32*pp ..) widened to f32 [2][k][16] (prefill). */
static void unpack_pair(const wmat *m, int pp, float *dst) {
    int k = m->cols;
    size_t n = (size_t)2 * k * WPANEL;   /* elements in the pair */
    if (m->type == WT_GG) {
        unpack_gg(m, pp, dst);
        return;
    }
    if (m->type == WT_BF16) {
        const uint16_t *w = (const uint16_t *)m->w + (size_t)pp * n;
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < k; i += 2)
                for (int l = 0; l < WPANEL; l++) {
                    const uint16_t *e = w + (size_t)p * k * WPANEL + (size_t)i * WPANEL + 2 * l;
                    dst[((size_t)p * k + i) * WPANEL + l] = bf16_to_f32(e[0]);
                    dst[((size_t)p * k + i + 1) * WPANEL + l] = bf16_to_f32(e[1]);
                }
    } else {
        const int8_t *w = (const int8_t *)m->w + (size_t)pp * n;
        int ng = k / Q8_GROUP;
        const float *s = m->scale + (size_t)pp * 2 * ng * WPANEL;
        for (int p = 0; p < 2; p++)
            for (int g = 0; g < ng; g++)
                for (int c = 0; c < Q8_GROUP / 4; c++)
                    for (int l = 0; l < WPANEL; l++) {
                        const int8_t *e = w + (((size_t)(p * ng + g) * (Q8_GROUP / 4) + c) * WPANEL + l) * 4;
                        float sc = s[(size_t)(p * ng + g) * WPANEL + l];
                        for (int b = 0; b < 4; b++)
                            dst[((size_t)p * k + g * Q8_GROUP + c * 4 + b) * WPANEL + l] = (float)e[b] * sc;
                    }
    }
}

/* One activation row quantized for the q8 kernels: int8 values and a scale per
 * group (like Q8_0), plus, per 4 columns, |x| as a 32-bit word and the bytes'
 * signs as a 64-bit mask repeated over 16 rows (what vpdpbusd needs: u8 x s8). */
typedef struct {
    int8_t *q;           /* [k] */
    float *s;            /* [k / 32] */
    uint32_t *a;         /* [k / 4] */
    uint64_t *neg;       /* [k / 4] */
} q8x;

static void quantize_row(const float *x, int k, q8x *X) {
    for (int g = 0; g < k / Q8_GROUP; g++) {
        const float *p = x + g * Q8_GROUP;
        float amax = 0;
        for (int i = 0; i < Q8_GROUP; i++) amax = fmaxf(amax, fabsf(p[i]));
        float sc = amax / 127.0f, inv = sc > 0 ? 1.0f / sc : 0;
        X->s[g] = sc;
        for (int i = 0; i < Q8_GROUP; i++) X->q[g * Q8_GROUP + i] = (int8_t)lrintf(p[i] * inv);
    }
    for (int c = 0; c < k / 4; c++) {
        uint32_t a = 0, nib = 0;
        for (int b = 0; b < 4; b++) {
            int v = X->q[c * 4 + b];
            a |= (uint32_t)(v < 0 ? -v : v) << (8 * b);
            nib |= (uint32_t)(v < 0) << b;
        }
        X->a[c] = a;
        X->neg[c] = nib * 0x1111111111111111ull;
    }
}

/* ---- kernel table ----------------------------------------------------------------- */
typedef struct {
    const char *name;
    int lanes, tx;       /* axpy needs k % lanes == 0; prefill tiles are tx x 32 */
    void (*mv_f32)(const float *P, int k, const float *x, float out[32]);
    void (*mv_bf16)(const uint16_t *P, int k, const float *x, float out[32]);
    void (*mv_q8)(const int8_t *P, const float *S, int k, const q8x *X, float out[32]);
    void (*gemm_f32)(const float *P, int k, int i0, int i1, const float *xp, float *out, int ldo, int acc, const float *pf);
    void (*axpy)(float *y, float a, const float *x, int k);
    /* mv_f32 for n <= MVN_MAX input rows (x + j * ldx -> out + j * 32) with each weight loaded once
     * for all of them, every row's values mv_f32's; NULL: row by row */
    void (*mv_f32_n)(const float *P, int k, const float *x, size_t ldx, int n, float *out);
    /* mv_f32_n of the first panel only (out + j * 32 gets 16 values, mv_f32's first 16) for
     * any n <= MVN_MAX, n = 1 included: a pair whose second panel is padding; NULL: the whole pair */
    void (*mv_f32_h)(const float *P, int k, const float *x, size_t ldx, int n, float *out);
} kern;
#define MVN_MAX 4

/* scalar: the reference and the fallback for any CPU or any width */
static void mv_f32_scalar(const float *P, int k, const float *x, float out[32]) {
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < WPANEL; l++) {
            float s = 0;
            for (int i = 0; i < k; i++) s += P[((size_t)p * k + i) * WPANEL + l] * x[i];
            out[p * WPANEL + l] = s;
        }
}
static void mv_bf16_scalar(const uint16_t *P, int k, const float *x, float out[32]) {
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < WPANEL; l++) {
            float s = 0;
            for (int i = 0; i < k; i++) s += bf16_to_f32(P[(((size_t)p * k + i) / 2 * WPANEL + l) * 2 + i % 2]) * x[i];
            out[p * WPANEL + l] = s;
        }
}
static void mv_q8_scalar(const int8_t *P, const float *S, int k, const q8x *X, float out[32]) {
    int ng = k / Q8_GROUP;
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < WPANEL; l++) {
            float s = 0;
            for (int g = 0; g < ng; g++) {
                int32_t d = 0;
                for (int i = g * Q8_GROUP; i < (g + 1) * Q8_GROUP; i++)
                    d += (int32_t)P[(((size_t)p * k + i) / 4 * WPANEL + l) * 4 + i % 4] * X->q[i];
                s += (float)d * S[(size_t)(p * ng + g) * WPANEL + l] * X->s[g];
            }
            out[p * WPANEL + l] = s;
        }
}
static void gemm_f32_scalar(const float *P, int k, int i0, int i1, const float *xp, float *out, int ldo, int acc,
                            const float *pf) {
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < WPANEL; l++) {
            float s = acc ? out[p * WPANEL + l] : 0;
            for (int i = i0; i < i1; i++) s += P[((size_t)p * k + i) * WPANEL + l] * xp[i];
            out[p * WPANEL + l] = s;
        }
}
static void axpy_scalar(float *y, float a, const float *x, int k) {
    for (int i = 0; i < k; i++) y[i] += a * x[i];
}
static const kern kern_scalar = {"scalar", 1, 1, mv_f32_scalar, mv_bf16_scalar, mv_q8_scalar,
                                 gemm_f32_scalar, axpy_scalar, NULL, NULL};

#ifdef HAVE_X86
/* ---- AVX2 + FMA --------------------------------------------------------------------- */
#define KATTR __attribute__((target("avx2,fma")))
#define KN(name) name##_avx2
#define V __m256
#define VL 8
#define NV 2
#define TX 2
#define VZERO() _mm256_setzero_ps()
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSET1(a) _mm256_set1_ps(a)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VBF_LO(p) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(p)), 16))
#define VBF_HI(p) _mm256_castsi256_ps(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p)), _mm256_set1_epi32((int)0xffff0000u)))
#include "kern_impl.h"
#undef KN
#undef V
#undef VL
#undef NV
#undef TX
#undef VZERO
#undef VLOAD
#undef VSTORE
#undef VSET1
#undef VFMA
#undef VBF_LO
#undef VBF_HI

/* int8 panel dot: |x| (unsigned) times sign(x)*w (signed), pairs summed to 16 then 32 bits.
 * Per 4 columns a panel is 64 bytes = 2 x 8 rows. */
static KATTR void mv_q8_avx2(const int8_t *P, const float *S, int k, const q8x *X, float out[32]) {
    int ng = k / Q8_GROUP;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int g = 0; g < ng; g++) {
        __m256i d[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
        for (int c = 0; c < Q8_GROUP / 4; c++) {
            int32_t x4;
            memcpy(&x4, X->q + g * Q8_GROUP + c * 4, 4);
            __m256i xv = _mm256_set1_epi32(x4), ax = _mm256_sign_epi8(xv, xv);
            for (int h = 0; h < 4; h++) {   /* h: panel * 2 + half */
                const int8_t *w = P + (size_t)(h / 2) * k * WPANEL + ((size_t)(g * (Q8_GROUP / 4) + c) * WPANEL + (h % 2) * 8) * 4;
                __m256i wv = _mm256_loadu_si256((const __m256i *)w);
                d[h] = _mm256_add_epi32(d[h], _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv, xv)), ones));
            }
        }
        __m256 xs = _mm256_set1_ps(X->s[g]);
        for (int h = 0; h < 4; h++) {
            __m256 sc = _mm256_loadu_ps(S + (size_t)((h / 2) * ng + g) * WPANEL + (h % 2) * 8);
            acc[h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d[h]), _mm256_mul_ps(sc, xs), acc[h]);
        }
    }
    for (int h = 0; h < 4; h++) _mm256_storeu_ps(out + h * 8, acc[h]);
}

/* mv_f32_avx2 for NR <= 3 rows at once (a verify step's LoRA factors), one panel (16 outputs) at a
 * time: a column's 2 weight vectors are loaded once and feed every row's chains, which are
 * mv_f32_avx2's for that panel (even and odd columns, one FMA chain each per 8 outputs, added at
 * the end), so each row's values are its own; 4 * NR accumulators stay in registers.  Panel pn of
 * the pair (out + r*32 + 16*pn). */
static inline __attribute__((always_inline)) KATTR void mv_f32_p_avx2(const float *P, int k, const float *x, size_t ldx, const int NR,
                                                                      float *out) {
    __m256 acc[3][2][2];
#pragma GCC unroll 3
    for (int r = 0; r < NR; r++) acc[r][0][0] = acc[r][0][1] = acc[r][1][0] = acc[r][1][1] = _mm256_setzero_ps();
    int i = 0;
    for (; i + 2 <= k; i += 2) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            const __m256 w0 = _mm256_loadu_ps(P + (size_t)(i + u) * WPANEL), w1 = _mm256_loadu_ps(P + (size_t)(i + u) * WPANEL + 8);
#pragma GCC unroll 3
            for (int r = 0; r < NR; r++) {
                const __m256 xb = _mm256_set1_ps(x[(size_t)r * ldx + i + u]);
                acc[r][u][0] = _mm256_fmadd_ps(w0, xb, acc[r][u][0]);
                acc[r][u][1] = _mm256_fmadd_ps(w1, xb, acc[r][u][1]);
            }
        }
    }
    if (i < k) {
        const __m256 w0 = _mm256_loadu_ps(P + (size_t)i * WPANEL), w1 = _mm256_loadu_ps(P + (size_t)i * WPANEL + 8);
#pragma GCC unroll 3
        for (int r = 0; r < NR; r++) {
            const __m256 xb = _mm256_set1_ps(x[(size_t)r * ldx + i]);
            acc[r][0][0] = _mm256_fmadd_ps(w0, xb, acc[r][0][0]);
            acc[r][0][1] = _mm256_fmadd_ps(w1, xb, acc[r][0][1]);
        }
    }
#pragma GCC unroll 3
    for (int r = 0; r < NR; r++) {
        _mm256_storeu_ps(out + (size_t)r * 32, _mm256_add_ps(acc[r][0][0], acc[r][1][0]));
        _mm256_storeu_ps(out + (size_t)r * 32 + 8, _mm256_add_ps(acc[r][0][1], acc[r][1][1]));
    }
}
/* n <= MVN_MAX rows, np panels (1: mv_f32_h, the second is padding), in runs of at most 3 rows */
static KATTR void mv_f32_np_avx2(const float *P, int k, const float *x, size_t ldx, int n, int np, float *out) {
    for (int pn = 0; pn < np; pn++)
        for (int r0 = 0; r0 < n;) {
            int nr = n - r0 == 4 ? 2 : n - r0 < 3 ? n - r0 : 3;   /* 4 rows: 2 + 2 */
            const float *Pp = P + (size_t)pn * k * WPANEL, *xr = x + (size_t)r0 * ldx;
            float *o = out + (size_t)r0 * 32 + 16 * pn;
            if (nr == 1) mv_f32_p_avx2(Pp, k, xr, ldx, 1, o);
            else if (nr == 2) mv_f32_p_avx2(Pp, k, xr, ldx, 2, o);
            else mv_f32_p_avx2(Pp, k, xr, ldx, 3, o);
            r0 += nr;
        }
}
static KATTR void mv_f32_n_avx2(const float *P, int k, const float *x, size_t ldx, int n, float *out) {
    mv_f32_np_avx2(P, k, x, ldx, n, 2, out);
}
static KATTR void mv_f32_h_avx2(const float *P, int k, const float *x, size_t ldx, int n, float *out) {
    mv_f32_np_avx2(P, k, x, ldx, n, 1, out);
}
#undef KATTR
static const kern kern_avx2 = {"avx2", 8, 2, mv_f32_avx2, mv_bf16_avx2, mv_q8_avx2, gemm_f32_avx2, axpy_avx2, mv_f32_n_avx2, mv_f32_h_avx2};

/* ---- AVX-512 (F, BW, VL, DQ, VNNI) ---------------------------------------------------- */
#define KATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma")))
#define KN(name) name##_avx512
#define V __m512
#define VL 16
#define NV 1
#define TX 8
#define VZERO() _mm512_setzero_ps()
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSET1(a) _mm512_set1_ps(a)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VBF_LO(p) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_loadu_si512(p), 16))
#define VBF_HI(p) _mm512_castsi512_ps(_mm512_and_si512(_mm512_loadu_si512(p), _mm512_set1_epi32((int)0xffff0000u)))
#include "kern_impl.h"

/* int8 panel dot with VNNI: per 4 columns one vpdpbusd gives 16 rows' 4-products
 * (|x| bytes broadcast, x's signs moved onto w: exact integer sums as before). */
static KATTR void mv_q8_avx512(const int8_t *P, const float *S, int k, const q8x *X, float out[32]) {
    int ng = k / Q8_GROUP;
    const int8_t *P1 = P + (size_t)k * WPANEL;
    const float *S1 = S + (size_t)ng * WPANEL;
    const __m512i zero = _mm512_setzero_si512();
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    for (int g = 0; g < ng; g++) {
        __m512i d0 = zero, d1 = zero, e0 = zero, e1 = zero;   /* 2 chains per panel */
        const uint32_t *xa = X->a + g * (Q8_GROUP / 4);
        const uint64_t *xn = X->neg + g * (Q8_GROUP / 4);
        const int8_t *w0 = P + (size_t)g * Q8_GROUP * WPANEL, *w1 = P1 + (size_t)g * Q8_GROUP * WPANEL;
#pragma GCC unroll 4
        for (int c = 0; c < Q8_GROUP / 4; c += 2) {
            __m512i a0 = _mm512_set1_epi32((int)xa[c]), a1 = _mm512_set1_epi32((int)xa[c + 1]);
            __mmask64 n0 = xn[c], n1 = xn[c + 1];
            __m512i v;
            v = _mm512_loadu_si512(w0 + c * 64);
            d0 = _mm512_dpbusd_epi32(d0, a0, _mm512_mask_sub_epi8(v, n0, zero, v));
            v = _mm512_loadu_si512(w0 + c * 64 + 64);
            e0 = _mm512_dpbusd_epi32(e0, a1, _mm512_mask_sub_epi8(v, n1, zero, v));
            v = _mm512_loadu_si512(w1 + c * 64);
            d1 = _mm512_dpbusd_epi32(d1, a0, _mm512_mask_sub_epi8(v, n0, zero, v));
            v = _mm512_loadu_si512(w1 + c * 64 + 64);
            e1 = _mm512_dpbusd_epi32(e1, a1, _mm512_mask_sub_epi8(v, n1, zero, v));
        }
        __m512 xs = _mm512_set1_ps(X->s[g]);
        acc0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(d0, e0)),
                               _mm512_mul_ps(_mm512_loadu_ps(S + (size_t)g * WPANEL), xs), acc0);
        acc1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(d1, e1)),
                               _mm512_mul_ps(_mm512_loadu_ps(S1 + (size_t)g * WPANEL), xs), acc1);
    }
    _mm512_storeu_ps(out, acc0);
    _mm512_storeu_ps(out + 16, acc1);
}

/* exp(x) on 16 lanes: Cephes expf (range reduction by ln2 in two parts, degree-6
 * polynomial, 2^n by vscalefps, which also gives inf / 0 past the ends); ~1 ulp. */
static KATTR __m512 exp_avx512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(89.0f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(p, n);
}

static KATTR void silu_mul_avx512(float *h, const float *g, const float *u, int n) {
    for (int i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 gv = _mm512_maskz_loadu_ps(m, g + i), uv = _mm512_maskz_loadu_ps(m, u + i);
        __m512 e = exp_avx512(_mm512_sub_ps(_mm512_setzero_ps(), gv));
        _mm512_mask_storeu_ps(h + i, m, _mm512_mul_ps(_mm512_div_ps(gv, _mm512_add_ps(_mm512_set1_ps(1.0f), e)), uv));
    }
}

/* Softmax of sc[0:T] * scale in place (max-subtracted, normalised). */
static KATTR void softmax_avx512(float *sc, int T, float scale) {
    __m512 mx = _mm512_set1_ps(-INFINITY), sv = _mm512_set1_ps(scale);
    for (int p = 0; p < T; p += 16) {
        __mmask16 m = T - p >= 16 ? 0xffff : (__mmask16)((1u << (T - p)) - 1);
        __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, sc + p), sv);
        _mm512_mask_storeu_ps(sc + p, m, v);
        mx = _mm512_mask_max_ps(mx, m, mx, v);
    }
    __m512 mxv = _mm512_set1_ps(_mm512_reduce_max_ps(mx)), sum = _mm512_setzero_ps();
    for (int p = 0; p < T; p += 16) {
        __mmask16 m = T - p >= 16 ? 0xffff : (__mmask16)((1u << (T - p)) - 1);
        __m512 e = _mm512_maskz_mov_ps(m, exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, sc + p), mxv)));
        _mm512_mask_storeu_ps(sc + p, m, e);
        sum = _mm512_add_ps(sum, e);
    }
    __m512 tot = _mm512_set1_ps(_mm512_reduce_add_ps(sum));
    for (int p = 0; p < T; p += 16) {
        __mmask16 m = T - p >= 16 ? 0xffff : (__mmask16)((1u << (T - p)) - 1);
        _mm512_mask_storeu_ps(sc + p, m, _mm512_div_ps(_mm512_maskz_loadu_ps(m, sc + p), tot));
    }
}

/* GQA group: ng (<= 4) query heads (q, out: [ng][hd]) sharing one KV head, so
 * each cache entry is read once for all of them.  K is stored in blocks of 16
 * positions, [T/16][hd][16] (kt), so 16 scores are hd FMAs per head with no
 * horizontal sums; V rows [T][hd] at vstride.  sc: [ng][T]. */
static inline __attribute__((always_inline)) KATTR void attn_group_body(const float *q, const int ng, const float *kt,
                                                                       const float *vc, size_t vstride, int T, int hd,
                                                                       float scale, float *sc, float *out) {
    for (int p0 = 0; p0 < T; p0 += 16) {
        const float *kb = kt + (size_t)p0 * hd;
        __m512 a[4][2];
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) a[g][0] = a[g][1] = _mm512_setzero_ps();
        for (int d = 0; d < hd; d += 2) {
            __m512 k0 = _mm512_loadu_ps(kb + d * 16), k1 = _mm512_loadu_ps(kb + d * 16 + 16);
#pragma GCC unroll 4
            for (int g = 0; g < ng; g++) {
                a[g][0] = _mm512_fmadd_ps(k0, _mm512_set1_ps(q[g * hd + d]), a[g][0]);
                a[g][1] = _mm512_fmadd_ps(k1, _mm512_set1_ps(q[g * hd + d + 1]), a[g][1]);
            }
        }
        __mmask16 m = T - p0 >= 16 ? 0xffff : (__mmask16)((1u << (T - p0)) - 1);
#pragma GCC unroll 4
        for (int g = 0; g < ng; g++) _mm512_mask_storeu_ps(sc + g * T + p0, m, _mm512_add_ps(a[g][0], a[g][1]));
    }
    for (int g = 0; g < ng; g++) softmax_avx512(sc + g * T, T, scale);
    if (hd == 64) {
        __m512 acc[4][4];
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++)
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) acc[g][j] = _mm512_setzero_ps();
        for (int p = 0; p < T; p++) {
            const float *vr = vc + p * vstride;
            __m512 v0 = _mm512_loadu_ps(vr), v1 = _mm512_loadu_ps(vr + 16), v2 = _mm512_loadu_ps(vr + 32), v3 = _mm512_loadu_ps(vr + 48);
#pragma GCC unroll 4
            for (int g = 0; g < ng; g++) {
                __m512 w = _mm512_set1_ps(sc[g * T + p]);
                acc[g][0] = _mm512_fmadd_ps(w, v0, acc[g][0]);
                acc[g][1] = _mm512_fmadd_ps(w, v1, acc[g][1]);
                acc[g][2] = _mm512_fmadd_ps(w, v2, acc[g][2]);
                acc[g][3] = _mm512_fmadd_ps(w, v3, acc[g][3]);
            }
        }
#pragma GCC unroll 4
        for (int g = 0; g < ng; g++)
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) _mm512_storeu_ps(out + g * 64 + 16 * j, acc[g][j]);
        return;
    }
    for (int g = 0; g < ng; g++)
        for (int b = 0; b < hd; b += 16) {
            __m512 a = _mm512_setzero_ps();
            for (int p = 0; p < T; p++) a = _mm512_fmadd_ps(_mm512_set1_ps(sc[g * T + p]), _mm512_loadu_ps(vc + p * vstride + b), a);
            _mm512_storeu_ps(out + g * hd + b, a);
        }
}

/* the body with ng a constant, so the accumulators stay in registers */
static KATTR void attn_group_avx512(const float *q, int ng, const float *kt, const float *vc, size_t vstride, int T, int hd,
                                    float scale, float *sc, float *out) {
    switch (ng) {
    case 1: attn_group_body(q, 1, kt, vc, vstride, T, hd, scale, sc, out); break;
    case 2: attn_group_body(q, 2, kt, vc, vstride, T, hd, scale, sc, out); break;
    case 3: attn_group_body(q, 3, kt, vc, vstride, T, hd, scale, sc, out); break;
    default: attn_group_body(q, 4, kt, vc, vstride, T, hd, scale, sc, out); break;
    }
}

/* expf of 16 floats by the operations of glibc's expf (its FMA build, __expf_fma, from ARM's
 * optimized routines): in double, k = round(x * 32/ln2) by the shift trick, r = x * 32/ln2 - k,
 * 2^(k/32) from a 32-entry table, a cubic in r; the same fused and unfused steps in the same
 * order, so lane for lane the C library's value, where the C library is that one.  kern_pick
 * checks that on a probe set (vexp_probe) before the softmax below takes it; lanes with
 * |x| >= 88 (glibc's special cases: overflow, underflow, inf, NaN) get expf itself. */
static const uint64_t vexp_tab[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b, 0x3fef54873168b9aa,
    0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74,
    0x3feea11473eb0187, 0x3feea589994cce13, 0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540};
static KATTR __m256 vexp8(__m256 x) {
    const __m512d invln2n = _mm512_set1_pd(0x1.71547652b82fep+0 * 32), shift = _mm512_set1_pd(0x1.8p+52);
    const __m512d c0 = _mm512_set1_pd(0x1.c6af84b912394p-5 / 32 / 32 / 32), c1 = _mm512_set1_pd(0x1.ebfce50fac4f3p-3 / 32 / 32),
                  c2 = _mm512_set1_pd(0x1.62e42ff0c52d6p-1 / 32);
    __m512d xd = _mm512_cvtps_pd(x);
    __m512d kd = _mm512_fmadd_pd(invln2n, xd, shift);
    __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    __m512d r = _mm512_fmsub_pd(invln2n, xd, kd);
    __m512i lo = _mm512_permutex2var_epi64(_mm512_loadu_si512(vexp_tab), ki, _mm512_loadu_si512(vexp_tab + 8));
    __m512i hi = _mm512_permutex2var_epi64(_mm512_loadu_si512(vexp_tab + 16), ki, _mm512_loadu_si512(vexp_tab + 24));
    __m512i t = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), lo, hi);
    __m512d sc = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64(ki, 47)));
    __m512d z = _mm512_fmadd_pd(c0, r, c1);
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(c2, r, _mm512_set1_pd(1.0));
    y = _mm512_fmadd_pd(z, r2, y);
    return _mm512_cvtpd_ps(_mm512_mul_pd(y, sc));
}
static KATTR void vexp16(const float *x, float *y) {
    __m512 v = _mm512_loadu_ps(x);
    __m512i top = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(v), 20), _mm512_set1_epi32(0x7ff));
    __mmask16 special = _mm512_cmpgt_epi32_mask(top, _mm512_set1_epi32(0x42a));
    float xs[16];   /* y may be x */
    if (special) _mm512_storeu_ps(xs, v);
    _mm256_storeu_ps(y, vexp8(_mm512_castps512_ps256(v)));
    _mm256_storeu_ps(y + 8, vexp8(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    for (int i = 0; special; i++, special >>= 1)
        if (special & 1) y[i] = expf(xs[i]);
}
static bool vexp_ok;   /* vexp16 gives this C library's expf values (set by kern_pick: vexp_probe) */
/* Whether vexp16 equals the C library's expf on every step-th float from -0 down to -88 (the
 * softmax's arguments: s - max <= 0), -88 itself and special cases (-inf, -104.5, +0). */
static KATTR bool vexp_probe(uint32_t step) {
    float x[16], y[16];
    int k = 0;
    for (uint32_t b = 0x80000000u;; b += step) {
        bool last = b >= 0xc2b00000u;   /* -88 */
        if (last) b = 0xc2b00000u;
        memcpy(&x[k++], &b, 4);
        if (k == 16 || last) {
            for (; k < 16; k++) x[k] = k == 13 ? -INFINITY : k == 14 ? -104.5f : k == 15 ? 0.0f : -1.0f;
            vexp16(x, y);
            for (int i = 0; i < 16; i++) {
                float e = expf(x[i]);
                if (memcmp(&e, &y[i], 4)) return false;
            }
            k = 0;
        }
        if (last) return true;
    }
}

/* The same operations on AVX2 (4 doubles a vector, the table by gather), for the AVX2 softmax
 * and SiLU; kern_pick checks it against expf on both signs (vexp2_probe) before they take it. */
#define A2ATTR __attribute__((target("avx2,fma")))
static A2ATTR __m128 vexp4_avx2(__m128 x) {
    const __m256d invln2n = _mm256_set1_pd(0x1.71547652b82fep+0 * 32), shift = _mm256_set1_pd(0x1.8p+52);
    const __m256d c0 = _mm256_set1_pd(0x1.c6af84b912394p-5 / 32 / 32 / 32), c1 = _mm256_set1_pd(0x1.ebfce50fac4f3p-3 / 32 / 32),
                  c2 = _mm256_set1_pd(0x1.62e42ff0c52d6p-1 / 32);
    __m256d xd = _mm256_cvtps_pd(x);
    __m256d kd = _mm256_fmadd_pd(invln2n, xd, shift);
    __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    __m256d r = _mm256_fmsub_pd(invln2n, xd, kd);
    __m256i t = _mm256_i64gather_epi64((const long long *)(const void *)vexp_tab, _mm256_and_si256(ki, _mm256_set1_epi64x(31)), 8);
    __m256d sc = _mm256_castsi256_pd(_mm256_add_epi64(t, _mm256_slli_epi64(ki, 47)));
    __m256d z = _mm256_fmadd_pd(c0, r, c1);
    __m256d r2 = _mm256_mul_pd(r, r);
    __m256d y = _mm256_fmadd_pd(c2, r, _mm256_set1_pd(1.0));
    y = _mm256_fmadd_pd(z, r2, y);
    return _mm256_cvtpd_ps(_mm256_mul_pd(y, sc));
}
/* expf of x[0..8) into y (y may be x); lanes with |x| >= 88 get expf itself */
static A2ATTR void vexp8_avx2(const float *x, float *y) {
    __m256 v = _mm256_loadu_ps(x);
    __m256i top = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 20), _mm256_set1_epi32(0x7ff));
    int special = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(top, _mm256_set1_epi32(0x42a))));
    float xs[8];
    if (special) _mm256_storeu_ps(xs, v);
    __m128 lo = vexp4_avx2(_mm256_castps256_ps128(v)), hi = vexp4_avx2(_mm256_extractf128_ps(v, 1));
    _mm256_storeu_ps(y, _mm256_set_m128(hi, lo));
    for (int i = 0; special; i++, special >>= 1)
        if (special & 1) y[i] = expf(xs[i]);
}
static bool vexp2_ok;   /* vexp8_avx2 gives this C library's expf values (set by kern_pick: vexp2_probe) */
/* Whether vexp8_avx2 equals expf on every step-th float from -0 down to -88 and from +0 up to
 * +88 (the softmax's s - max <= 0, SiLU's -g of either sign), and special cases. */
static bool vexp2_probe(uint32_t step) {
    for (int neg = 0; neg < 2; neg++) {
        float x[8], y[8];
        int k = 0;
        uint32_t first = neg ? 0x80000000u : 0u, end = neg ? 0xc2b00000u : 0x42b00000u;   /* -0 .. -88, +0 .. +88 */
        for (uint32_t b = first;; b += step) {
            bool last = b >= end;
            if (last) b = end;
            memcpy(&x[k++], &b, 4);
            if (k == 8 || last) {
                for (; k < 8; k++) x[k] = k == 4 ? -INFINITY : k == 5 ? -104.5f : k == 6 ? 89.5f : k == 7 ? NAN : -1.0f;
                vexp8_avx2(x, y);
                for (int i = 0; i < 8; i++) {
                    float e = expf(x[i]);
                    if (memcmp(&e, &y[i], 4)) return false;
                }
                k = 0;
            }
            if (last) break;
        }
    }
    return true;
}

/* 5..8 query heads per KV head (Qwen2: 7), n rows of one context: row t (q + t*qs, out + t*os,
 * [ng][hd]) over the first T0 + t positions.  The arithmetic is that of the AVX2 scores and the
 * scalar softmax below (model_kern_attn_group's path for more than 4 heads), so every row's
 * values are those of that path bit for bit: per score lane one FMA chain over d (as
 * attn_scores_avx2's 8-lane halves), s * scale, the max (exact whatever the order), expf and
 * the sum in position order (scalar), p / sum (a division rounds the same in a vector), and per
 * output element one FMA chain over the positions from +0 (as kern_axpy into the zeroed row).
 * What changes is the traffic: a block of 16 K positions (4 KB at hd 64) and a run of ATT_VCH
 * V rows are read from memory once and then from L1 for every row of the step, and a V row
 * once for all heads (the accumulators of 8 heads x 32 lanes stay in registers).
 * sc: [n][ng][T0 + n - 1]. */
#define ATT_VCH 32
static inline __attribute__((always_inline)) KATTR void attn_rows_body(const float *q, size_t qs, int n, const int ng, const float *kt,
                                                                      const float *vc, size_t vstride, int T0, int hd, float scale,
                                                                      float *sc, float *out, size_t os) {
    const int Tn = T0 + n - 1;   /* the last row's positions: the scratch's row stride */
    const __m512 sv = _mm512_set1_ps(scale);
    for (int p0 = 0; p0 < Tn; p0 += 16) {   /* scores, block by block for every row that sees the block */
        const float *kb = kt + (size_t)p0 * hd;
        for (int t = 0; t < n; t++) {
            const int T = T0 + t;
            if (p0 >= T) continue;
            const float *qt = q + (size_t)t * qs;
            __m512 a[8];
#pragma GCC unroll 8
            for (int g = 0; g < ng; g++) a[g] = _mm512_setzero_ps();
            for (int d = 0; d < hd; d++) {
                __m512 k = _mm512_loadu_ps(kb + d * 16);
#pragma GCC unroll 8
                for (int g = 0; g < ng; g++) a[g] = _mm512_fmadd_ps(k, _mm512_set1_ps(qt[g * hd + d]), a[g]);
            }
            __mmask16 m = T - p0 >= 16 ? 0xffff : (__mmask16)((1u << (T - p0)) - 1);
#pragma GCC unroll 8
            for (int g = 0; g < ng; g++) _mm512_mask_storeu_ps(sc + ((size_t)t * ng + g) * Tn + p0, m, _mm512_mul_ps(a[g], sv));
        }
    }
    for (int t = 0; t < n; t++) {   /* softmax of each row, its heads together */
        const int T = T0 + t;
        float *s0 = sc + (size_t)t * ng * Tn;
        float sum[8];
#pragma GCC unroll 8
        for (int g = 0; g < ng; g++) {
            float *s = s0 + (size_t)g * Tn;
            __m512 mx = _mm512_set1_ps(-INFINITY);
            for (int p = 0; p < T; p += 16) {
                __mmask16 m = T - p >= 16 ? 0xffff : (__mmask16)((1u << (T - p)) - 1);
                mx = _mm512_mask_max_ps(mx, m, mx, _mm512_maskz_loadu_ps(m, s + p));
            }
            const float mxs = _mm512_reduce_max_ps(mx);
            int e = 0;
            if (vexp_ok)   /* 16 at a time (expf's values) */
                for (; e + 16 <= T; e += 16) {
                    _mm512_storeu_ps(s + e, _mm512_sub_ps(_mm512_loadu_ps(s + e), _mm512_set1_ps(mxs)));
                    vexp16(s + e, s + e);
                }
            for (; e < T; e++) s[e] = expf(s[e] - mxs);
            sum[g] = 0;
        }
        /* each head's sum in position order (the scalar path's), the heads' chains interleaved so
         * the adds' latency overlaps */
        for (int p = 0; p < T; p++)
#pragma GCC unroll 8
            for (int g = 0; g < ng; g++) sum[g] += s0[(size_t)g * Tn + p];
#pragma GCC unroll 8
        for (int g = 0; g < ng; g++) {
            float *s = s0 + (size_t)g * Tn;
            const __m512 tot = _mm512_set1_ps(sum[g]);
            for (int p = 0; p < T; p += 16) {
                __mmask16 m = T - p >= 16 ? 0xffff : (__mmask16)((1u << (T - p)) - 1);
                _mm512_mask_storeu_ps(s + p, m, _mm512_div_ps(_mm512_maskz_loadu_ps(m, s + p), tot));
            }
        }
    }
    for (int c0 = 0; c0 < Tn; c0 += ATT_VCH)   /* values: a run of V rows, then every row that sees it */
        for (int t = 0; t < n; t++) {
            const int T = T0 + t, c1 = T < c0 + ATT_VCH ? T : c0 + ATT_VCH;
            if (c0 >= T) continue;
            const float *w = sc + (size_t)t * ng * Tn;
            for (int h = 0; h < hd; h += 32) {
                float *o = out + (size_t)t * os + h;
                __m512 acc[8][2];
#pragma GCC unroll 8
                for (int g = 0; g < ng; g++) {
                    acc[g][0] = c0 ? _mm512_loadu_ps(o + g * hd) : _mm512_setzero_ps();
                    acc[g][1] = c0 ? _mm512_loadu_ps(o + g * hd + 16) : _mm512_setzero_ps();
                }
                for (int p = c0; p < c1; p++) {
                    const float *vr = vc + (size_t)p * vstride + h;
                    __m512 v0 = _mm512_loadu_ps(vr), v1 = _mm512_loadu_ps(vr + 16);
#pragma GCC unroll 8
                    for (int g = 0; g < ng; g++) {
                        __m512 wg = _mm512_set1_ps(w[(size_t)g * Tn + p]);
                        acc[g][0] = _mm512_fmadd_ps(wg, v0, acc[g][0]);
                        acc[g][1] = _mm512_fmadd_ps(wg, v1, acc[g][1]);
                    }
                }
#pragma GCC unroll 8
                for (int g = 0; g < ng; g++) {
                    _mm512_storeu_ps(o + g * hd, acc[g][0]);
                    _mm512_storeu_ps(o + g * hd + 16, acc[g][1]);
                }
            }
        }
}

/* the body with ng a constant (5..8), so the accumulators stay in registers */
static KATTR void attn_rows_avx512(const float *q, size_t qs, int n, int ng, const float *kt, const float *vc, size_t vstride, int T0,
                                   int hd, float scale, float *sc, float *out, size_t os) {
    switch (ng) {
    case 5: attn_rows_body(q, qs, n, 5, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 6: attn_rows_body(q, qs, n, 6, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 7: attn_rows_body(q, qs, n, 7, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    default: attn_rows_body(q, qs, n, 8, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    }
}

/* out = w * (x / rms(x)), the sum of squares over 4 x 16 lanes. */
static KATTR void rmsnorm_avx512(float *out, const float *x, const float *w, int n, float eps) {
    __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int i = 0;
    for (; i + 64 <= n; i += 64)
        for (int j = 0; j < 4; j++) {
            __m512 v = _mm512_loadu_ps(x + i + 16 * j);
            a[j] = _mm512_fmadd_ps(v, v, a[j]);
        }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        a[0] = _mm512_fmadd_ps(v, v, a[0]);
    }
    float ss = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3])));
    __m512 r = _mm512_set1_ps(1.0f / sqrtf(ss / (float)n + eps));
    for (i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(out + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, w + i), _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), r)));
    }
}

/* Panel pair pp of a q8 matrix widened to f32 [2][k][16]: per 4 columns one
 * 64-byte load holds 16 rows x 4 bytes; byte b of each word, times the row scale. */
static KATTR void unpack_q8_avx512(const wmat *m, int pp, float *dst) {
    int k = m->cols, ng = k / Q8_GROUP;
    const int8_t *w = (const int8_t *)m->w + (size_t)pp * 2 * k * WPANEL;
    const float *s = m->scale + (size_t)pp * 2 * ng * WPANEL;
    for (int pg = 0; pg < 2 * ng; pg++) {   /* panel p = pg / ng, group g = pg % ng: consecutive in memory */
        __m512 sc = _mm512_loadu_ps(s + (size_t)pg * WPANEL);
        int p = pg / ng, g = pg % ng;
        float *d = dst + ((size_t)p * k + g * Q8_GROUP) * WPANEL;
        const int8_t *e = w + (size_t)pg * Q8_GROUP * WPANEL;
        for (int c = 0; c < Q8_GROUP / 4; c++) {
            __m512i v = _mm512_loadu_si512(e + c * 64);
            _mm512_storeu_ps(d + (c * 4 + 0) * WPANEL, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v, 24), 24)), sc));
            _mm512_storeu_ps(d + (c * 4 + 1) * WPANEL, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v, 16), 24)), sc));
            _mm512_storeu_ps(d + (c * 4 + 2) * WPANEL, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(_mm512_slli_epi32(v, 8), 24)), sc));
            _mm512_storeu_ps(d + (c * 4 + 3) * WPANEL, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(v, 24)), sc));
        }
    }
}

/* Panel pair pp of a bf16 matrix widened to f32 [2][k][16]. */
static KATTR void unpack_bf16_avx512(const wmat *m, int pp, float *dst) {
    int k = m->cols;
    const uint16_t *w = (const uint16_t *)m->w + (size_t)pp * 2 * k * WPANEL;
    for (int i = 0; i < 2 * k; i += 2) {   /* both panels: rows of pairs are consecutive */
        __m512i v = _mm512_loadu_si512(w + (size_t)i * WPANEL);
        _mm512_storeu_ps(dst + (size_t)i * WPANEL, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)));
        _mm512_storeu_ps(dst + (size_t)(i + 1) * WPANEL, _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u))));
    }
}

/* quantize_row with AVX-512: same rounding (x * (1/scale), nearest even), same outputs;
 * X->a == NULL: q and s only (their values do not depend on it). */
static KATTR void quantize_row_avx512(const float *x, int k, q8x *X) {
    for (int g = 0; g < k / Q8_GROUP; g++) {
        __m512 a = _mm512_loadu_ps(x + g * Q8_GROUP), b = _mm512_loadu_ps(x + g * Q8_GROUP + 16);
        float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(a), _mm512_abs_ps(b)));
        float sc = amax / 127.0f, inv = sc > 0 ? 1.0f / sc : 0;
        X->s[g] = sc;
        __m512 iv = _mm512_set1_ps(inv);
        __m512i qa = _mm512_cvtps_epi32(_mm512_mul_ps(a, iv)), qb = _mm512_cvtps_epi32(_mm512_mul_ps(b, iv));
        _mm_storeu_si128((__m128i *)(X->q + g * Q8_GROUP), _mm512_cvtsepi32_epi8(qa));
        _mm_storeu_si128((__m128i *)(X->q + g * Q8_GROUP + 16), _mm512_cvtsepi32_epi8(qb));
        if (!X->a) continue;   /* AMX prefill needs only q and s */
        __m256i ab = _mm256_set_m128i(_mm512_cvtsepi32_epi8(_mm512_abs_epi32(qb)), _mm512_cvtsepi32_epi8(_mm512_abs_epi32(qa)));
        _mm256_storeu_si256((__m256i *)(X->a + g * (Q8_GROUP / 4)), ab);
        uint32_t neg = (uint32_t)_mm512_movepi32_mask(qa) | (uint32_t)_mm512_movepi32_mask(qb) << 16;
        for (int c = 0; c < Q8_GROUP / 4; c++) X->neg[g * (Q8_GROUP / 4) + c] = (uint64_t)(neg >> (4 * c) & 15) * 0x1111111111111111ull;
    }
}

/* mv_f32_avx512 for NR rows at once (a verify step's LoRA factors): the pair's two weight vectors
 * at column i are loaded once and feed every row's chains, which are mv_f32's (even and odd
 * columns, one FMA chain each per panel, added at the end), so each row's values are its own.
 * Row by row, a pair of the down side's A (32 x 4864 f32, 620 KB) came from L2 again per row.
 * NP 1: the first panel only (out + r*32 gets 16 values): a last pair whose second panel is all
 * padding (a LoRA A of rank 16 or 48: 10 MB of zeros a step of the 0.5B adapter, read for
 * nothing); the first panel's chains are the same either way, so its values do not change. */
static inline __attribute__((always_inline)) KATTR void mv_f32_nr(const float *P, int k, const float *x, size_t ldx, const int NR,
                                                                  const int NP, float *out) {
    __m512 acc[MVN_MAX][2][2];
#pragma GCC unroll 4
    for (int r = 0; r < NR; r++) acc[r][0][0] = acc[r][0][1] = acc[r][1][0] = acc[r][1][1] = _mm512_setzero_ps();
    const float *P1 = P + (size_t)k * WPANEL;
    int i = 0;
    for (; i + 2 <= k; i += 2) {
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            const __m512 w0 = _mm512_loadu_ps(P + (size_t)(i + u) * WPANEL);
            const __m512 w1 = NP == 2 ? _mm512_loadu_ps(P1 + (size_t)(i + u) * WPANEL) : w0;
#pragma GCC unroll 4
            for (int r = 0; r < NR; r++) {
                const __m512 xb = _mm512_set1_ps(x[(size_t)r * ldx + i + u]);
                acc[r][u][0] = _mm512_fmadd_ps(w0, xb, acc[r][u][0]);
                if (NP == 2) acc[r][u][1] = _mm512_fmadd_ps(w1, xb, acc[r][u][1]);
            }
        }
    }
    if (i < k) {
        const __m512 w0 = _mm512_loadu_ps(P + (size_t)i * WPANEL);
        const __m512 w1 = NP == 2 ? _mm512_loadu_ps(P1 + (size_t)i * WPANEL) : w0;
#pragma GCC unroll 4
        for (int r = 0; r < NR; r++) {
            const __m512 xb = _mm512_set1_ps(x[(size_t)r * ldx + i]);
            acc[r][0][0] = _mm512_fmadd_ps(w0, xb, acc[r][0][0]);
            if (NP == 2) acc[r][0][1] = _mm512_fmadd_ps(w1, xb, acc[r][0][1]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < NR; r++) {
        _mm512_storeu_ps(out + (size_t)r * 32, _mm512_add_ps(acc[r][0][0], acc[r][1][0]));
        if (NP == 2) _mm512_storeu_ps(out + (size_t)r * 32 + 16, _mm512_add_ps(acc[r][0][1], acc[r][1][1]));
    }
}
static KATTR void mv_f32_n_avx512(const float *P, int k, const float *x, size_t ldx, int n, float *out) {
    switch (n) {
    case 1: mv_f32_nr(P, k, x, ldx, 1, 2, out); break;
    case 2: mv_f32_nr(P, k, x, ldx, 2, 2, out); break;
    case 3: mv_f32_nr(P, k, x, ldx, 3, 2, out); break;
    default: mv_f32_nr(P, k, x, ldx, 4, 2, out); break;
    }
}
static KATTR void mv_f32_h_avx512(const float *P, int k, const float *x, size_t ldx, int n, float *out) {
    switch (n) {
    case 1: mv_f32_nr(P, k, x, ldx, 1, 1, out); break;
    case 2: mv_f32_nr(P, k, x, ldx, 2, 1, out); break;
    case 3: mv_f32_nr(P, k, x, ldx, 3, 1, out); break;
    default: mv_f32_nr(P, k, x, ldx, 4, 1, out); break;
    }
}
#undef KATTR
static const kern kern_avx512 = {"avx512", 16, 8, mv_f32_avx512, mv_bf16_avx512, mv_q8_avx512,
                                 gemm_f32_avx512, axpy_avx512, mv_f32_n_avx512, mv_f32_h_avx512};
#endif

/* ---- AMX (bf16 weights, prefill only) ------------------------------------------------------
 * TDPBF16PS multiplies bf16 tiles into f32 accumulators.  The bf16 panel layout
 * [k/2][16][2] is already AMX's B-tile layout (one 64-byte row per column pair),
 * so a B tile is 16 consecutive pair-rows of a panel.  NUMERICS: the activations
 * are rounded to bf16 (nearest even) before the product; products and sums stay
 * f32.  Used only for bf16 compute weights (test tolerance 2e-2 vs PyTorch f32;
 * measured error in test_model's output), never for f32 weights (q8: the int8
 * tiles below); set PTXGEN_NO_AMX=1 to keep bf16 prefill on the exact-activation
 * AVX-512 path. */
static bool amx_ok, amx8_ok;   /* AMX-BF16 (bf16 weights), AMX-INT8 (q8 weights) usable; set by amx_probe */
#if defined(HAVE_X86) && defined(__linux__)
#define HAVE_AMX 1
#define AMX_ATTR __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,avx512bf16")))
typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} amx_cfg;

static AMX_ATTR void amx_begin(void) {
    amx_cfg c;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (int t = 0; t < 8; t++) { c.colsb[t] = 64; c.rows[t] = 16; }   /* every tile 16 x 64 bytes */
    /* not _tile_loadconfig: GCC 12's version tells the compiler it reads only 8 bytes,
     * so the rest of c could be dropped as dead stores */
    __asm__ volatile("ldtilecfg %0" ::"m"(c));
}
static AMX_ATTR void amx_end(void) { _tile_release(); }

/* out[32][32] (f32, row stride 32) = xa[32][k] (bf16) times panel pair P (bf16 [2][k/2][16][2]); k % 32 == 0.
 * Tiles: 0-3 accumulators (token block x panel), 4-5 activations, 6-7 weights. */
static AMX_ATTR void gemm_amx_bf16(const uint16_t *P, int k, const uint16_t *xa, float *out) {
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    const uint16_t *P1 = P + (size_t)k * WPANEL;
    for (int i = 0; i < k; i += 32) {
        _tile_loadd(4, xa + i, k * 2);
        _tile_loadd(5, xa + (size_t)16 * k + i, k * 2);
        _tile_loadd(6, P + (size_t)i * WPANEL, 64);
        _tile_loadd(7, P1 + (size_t)i * WPANEL, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, out, 128);
    _tile_stored(1, out + 16, 128);
    _tile_stored(2, out + 16 * 32, 128);
    _tile_stored(3, out + 16 * 32 + 16, 128);
}

/* ---- AMX int8 (q8 weights, prefill only) ------------------------------------------------------
 * TDPBSSD multiplies int8 tiles into int32 accumulators.  A q8 panel group
 * [8 column quads][16 rows][4 bytes] is exactly AMX's int8 B tile for K = 32
 * (8 rows of 64 bytes), so B tiles come straight from the weights.  The
 * activations are quantized per token row and group of 32 exactly as decode
 * quantizes them (quantize_row_avx512: same int8 values, same scales), and each
 * group's int32 tile is folded into f32 as decode folds its VNNI sums:
 * acc = fma(float(isum), w_scale * x_scale, acc), group by group.
 * NUMERICS: so a q8 prefill row computes the same integer dot products and the
 * same f32 operations in the same order as a q8 decode step of the same input
 * (test_model: prefill logits equal decode logits of the same positions, measured
 * difference 0 on the golden model; vs PyTorch f32 the q8 bound 5e-2 as before).
 * Padding token rows are zero with scale 0.  PTXGEN_NO_AMX=1 puts q8 prefill
 * back on the f32-unpack path (activations exact there, not decode's int8). */
#define AMX8_ATTR __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512dq")))

/* Tiles: 0-3 int32 accumulators 16 x 16 (token block x panel), 4-5 activations
 * 16 tokens x 32 bytes (one group), 6-7 weights 8 x 64 bytes (one panel group). */
static AMX8_ATTR void amx_begin_q8(void) {
    amx_cfg c;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (int t = 0; t < 4; t++) { c.colsb[t] = 64; c.rows[t] = 16; }
    for (int t = 4; t < 6; t++) { c.colsb[t] = Q8_GROUP; c.rows[t] = 16; }
    for (int t = 6; t < 8; t++) { c.colsb[t] = 64; c.rows[t] = Q8_GROUP / 4; }
    __asm__ volatile("ldtilecfg %0" ::"m"(c));   /* see amx_begin */
}

#define AMX8_G 4   /* groups per block: their int32 tiles [4][2x2][16][16] = 16 KB stay in L1 */

/* out[32][32] (f32, row stride ldo) = 32 token rows xq [32][k] (int8, row stride k; scales
 * xs [32][k/32]) times panel pair P (q8 [2][k/32][8][16][4], scales S [2][k/32][16]).
 * Per block of AMX8_G groups: the 2x2 int32 tiles of each group (2 token tiles x 2
 * panels; A and B tiles each used twice) go to cb, then each tile position is folded
 * over the block's groups in order into 16 register accumulators.  Measured here the
 * fold (3 vector ops per 16 outputs per group) and the tile work do not overlap, so
 * the fold keeps its accumulators in registers, not in memory. */
static AMX8_ATTR void gemm_amx_q8(const int8_t *P, const float *S, int k, const int8_t *xq, const float *xs, float *out,
                                  int ldo) {
    int ng = k / Q8_GROUP;
    const int8_t *P1 = P + (size_t)k * WPANEL;
    const float *S1 = S + (size_t)ng * WPANEL;
    int32_t cb[AMX8_G][4][16][16] __attribute__((aligned(64)));   /* [group][tile: 2 * token tile + panel][token][row] */
    __m512 acc[4][16];                                              /* [tile][token]: 16 rows of the panel */
    for (int q = 0; q < 4; q++)
        for (int t = 0; t < 16; t++) acc[q][t] = _mm512_setzero_ps();
    for (int g0 = 0; g0 < ng; g0 += AMX8_G) {
        int ge = ng - g0 < AMX8_G ? ng - g0 : AMX8_G;
        for (int u = 0; u < ge; u++) {
            int g = g0 + u;
            _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
            _tile_loadd(4, xq + g * Q8_GROUP, k);
            _tile_loadd(5, xq + (size_t)16 * k + g * Q8_GROUP, k);
            _tile_loadd(6, P + (size_t)g * Q8_GROUP * WPANEL, 64);
            _tile_loadd(7, P1 + (size_t)g * Q8_GROUP * WPANEL, 64);
            _tile_dpbssd(0, 4, 6);
            _tile_dpbssd(1, 4, 7);
            _tile_dpbssd(2, 5, 6);
            _tile_dpbssd(3, 5, 7);
            _tile_stored(0, cb[u][0], 64);
            _tile_stored(1, cb[u][1], 64);
            _tile_stored(2, cb[u][2], 64);
            _tile_stored(3, cb[u][3], 64);
        }
        for (int q = 0; q < 4; q++) {
            const float *sp = (q & 1 ? S1 : S) + (size_t)g0 * WPANEL;
            const float *xp = xs + (size_t)(q / 2) * 16 * ng + g0;
            __m512 a[16];
#pragma GCC unroll 16
            for (int t = 0; t < 16; t++) a[t] = acc[q][t];
            for (int u = 0; u < ge; u++) {
                __m512 w = _mm512_loadu_ps(sp + (size_t)u * WPANEL);
#pragma GCC unroll 16
                for (int t = 0; t < 16; t++)   /* as mv_q8_avx512: fma(isum, w_scale * x_scale, acc) */
                    a[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_load_si512(cb[u][q][t])),
                                           _mm512_mul_ps(w, _mm512_set1_ps(xp[(size_t)t * ng + u])), a[t]);
            }
#pragma GCC unroll 16
            for (int t = 0; t < 16; t++) acc[q][t] = a[t];
        }
    }
    for (int q = 0; q < 4; q++)
        for (int t = 0; t < 16; t++) _mm512_storeu_ps(out + (size_t)(q / 2 * 16 + t) * ldo + (q & 1) * 16, acc[q][t]);
}

/* Rows [j0, j1) of x [n][k] (stride ldx) to bf16 (round to nearest even). */
static AMX_ATTR void to_bf16_rows(const float *x, int ldx, int k, int j0, int j1, uint16_t *dst) {
    for (int j = j0; j < j1; j++) {
        const float *s = x + (size_t)j * ldx;
        uint16_t *d = dst + (size_t)j * k;
        int i = 0;
        for (; i + 32 <= k; i += 32)   /* vcvtne2ps2bf16: RNE, as f32_to_bf16 */
            _mm512_storeu_si512(d + i, (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(s + i + 16), _mm512_loadu_ps(s + i)));
        for (; i < k; i++) d[i] = f32_to_bf16(s[i]);
    }
}

static void amx_probe(void) {
    unsigned a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    bool tile = d >> 24 & 1, bf16 = d >> 22 & 1, int8 = d >> 25 & 1;
    __builtin_cpu_init();
    if (!tile || !__builtin_cpu_supports("avx512bw")) return;
    const char *no = getenv("PTXGEN_NO_AMX");
    if (no && *no && strcmp(no, "0")) return;
    /* Linux hands out the 8 KB tile state only on request: ARCH_REQ_XCOMP_PERM(XFEATURE_XTILEDATA) */
    if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) return;
    amx_ok = bf16 && __builtin_cpu_supports("avx512bf16");
    amx8_ok = int8;
}
#endif

static const kern *kern_best;
static pthread_once_t kern_once = PTHREAD_ONCE_INIT;

static const kern *kern_of(cpu_family f) {
#ifdef HAVE_X86
    if (f == CPU_AVX512) return &kern_avx512;
    if (f == CPU_AVX2) return &kern_avx2;
#endif
    (void)f;
    return &kern_scalar;
}

static void kern_pick(void) {
    kern_best = kern_of(model_cpu_family());
#ifdef HAVE_X86
    if (kern_best == &kern_avx512) vexp_ok = vexp_probe(65537u);
    if (kern_best != &kern_scalar) vexp2_ok = vexp2_probe(65537u);   /* (also for a family forced down to AVX2) */
#endif
#ifdef HAVE_AMX
    if (kern_best == &kern_avx512) amx_probe();
#endif
}

bool model_kernels_amx(void) {
    pthread_once(&kern_once, kern_pick);
    return amx_ok;
}

bool model_kernels_vexp(void) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_X86
    if (kern_best == &kern_avx2) return vexp2_ok;
#endif
    return vexp_ok;
}

bool model_kernels_vexp_check(unsigned step) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_X86
    if (kern_best == &kern_avx512) return vexp_probe(step ? step : 1);
    if (kern_best == &kern_avx2) return vexp2_probe(step ? step : 1);
#endif
    (void)step;
    return false;
}

bool model_kernels_amx_q8(void) {
    pthread_once(&kern_once, kern_pick);
    return amx8_ok;
}

const char *model_kernels_isa(void) {
    pthread_once(&kern_once, kern_pick);
    return kern_best->name;
}

bool model_kernels_force(const char *isa) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_AMX
    if (!strcmp(isa, "avx512-noamx")) {   /* the AVX-512 kernels with AMX off (as PTXGEN_NO_AMX=1) */
        if (kern_best != &kern_avx512) return false;
        amx_ok = amx8_ok = false;
        return true;
    }
#endif
    /* only downgrades (cpu.c): the detected family and everything below it is safe on this CPU */
    cpu_family f = !strcmp(isa, "avx512") ? CPU_AVX512 : !strcmp(isa, "avx2") ? CPU_AVX2 : !strcmp(isa, "scalar") ? CPU_SCALAR : (cpu_family)-1;
    if ((int)f < 0 || f > model_cpu_family() || !model_cpu_force(f)) return false;
    kern_best = kern_of(f);
#ifdef HAVE_AMX
    if (kern_best != &kern_avx512) amx_ok = amx8_ok = false;   /* AMX rides on the AVX-512 family */
#endif
    return true;
}

/* ---- attention helpers ------------------------------------------------------------------- */
/* y[0:k] += a * x[0:k] (attention's scalar fallback). */
static void kern_axpy(float *y, float a, const float *x, int k) {
    pthread_once(&kern_once, kern_pick);
    (k % kern_best->lanes ? &kern_scalar : kern_best)->axpy(y, a, x, k);
}

#ifdef HAVE_X86
/* The scalar loop below 8 at a time: expf by vexp8_avx2 (its values), then the same division
 * and product (-g by the sign bit, as the scalar negation). */
static A2ATTR void silu_mul_avx2(float *h, const float *g, const float *u, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 gv = _mm256_loadu_ps(g + i);
        float e[8];
        _mm256_storeu_ps(e, _mm256_xor_ps(gv, _mm256_set1_ps(-0.0f)));
        vexp8_avx2(e, e);
        _mm256_storeu_ps(h + i, _mm256_mul_ps(_mm256_div_ps(gv, _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_loadu_ps(e))), _mm256_loadu_ps(u + i)));
    }
    for (; i < n; i++) h[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
}
#endif

void model_kern_silu_mul(float *h, const float *g, const float *u, int n) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_X86
    if (kern_best == &kern_avx512) { silu_mul_avx512(h, g, u, n); return; }
    if (kern_best == &kern_avx2 && vexp2_ok) { silu_mul_avx2(h, g, u, n); return; }
#endif
    for (int i = 0; i < n; i++) h[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
}

#ifdef HAVE_X86
/* Scores of up to 4 query heads (q [ng][hd]) against K blocks of 16 positions (kt
 * [T/16][hd][16]) into sc [ng][T], unscaled: per block 2 x 8 lanes per head, no
 * horizontal sums (the AVX2 form of attn_group_body's first loop). */
static __attribute__((target("avx2,fma"))) void attn_scores_avx2(const float *q, int ng, const float *kt, int T, int hd,
                                                                  float *sc) {
    for (int p0 = 0; p0 < T; p0 += 16) {
        const float *kb = kt + (size_t)p0 * hd;
        __m256 a[4][2];
        for (int g = 0; g < 4; g++) a[g][0] = a[g][1] = _mm256_setzero_ps();
        for (int d = 0; d < hd; d++) {
            __m256 k0 = _mm256_loadu_ps(kb + d * 16), k1 = _mm256_loadu_ps(kb + d * 16 + 8);
            for (int g = 0; g < ng; g++) {
                __m256 qv = _mm256_set1_ps(q[g * hd + d]);
                a[g][0] = _mm256_fmadd_ps(k0, qv, a[g][0]);
                a[g][1] = _mm256_fmadd_ps(k1, qv, a[g][1]);
            }
        }
        for (int g = 0; g < ng; g++) {
            float t[16];
            _mm256_storeu_ps(t, a[g][0]);
            _mm256_storeu_ps(t + 8, a[g][1]);
            memcpy(sc + (size_t)g * T + p0, t, (size_t)(T - p0 < 16 ? T - p0 : 16) * sizeof *t);
        }
    }
}
#endif

#ifdef HAVE_X86
/* n rows of one context on AVX2 (1..8 query heads per KV head, hd a multiple of 16): row t (q +
 * t*qs, out + t*os, [ng][hd]) over the first T0 + t positions, every value that of
 * model_kern_attn_group's AVX2 path for the row alone, bit for bit: per score lane one FMA chain
 * over d from +0 (attn_scores_avx2's), s * scale, the max (exact in any order), expf and each
 * head's sum in position order, p / sum (a division rounds the same in a vector), and per output
 * element one FMA chain over the positions from +0 (kern_axpy's fmadd(a, v, o)).  What changes:
 * no call per position and head (the output stays in registers over a run of positions), a
 * block of 16 K positions and a run of ATT2_VCH V rows are read once for every row of the step,
 * and a V row once for 4 heads.  sc: [n][ng][T0 + n - 1]. */
#define ATT2_VCH 32
static inline __attribute__((always_inline, target("avx2,fma"))) void attn_rows_avx2_body(
    const float *q, size_t qs, int n, const int ng, const float *kt, const float *vc, size_t vstride, int T0, int hd, float scale,
    float *sc, float *out, size_t os) {
    const int Tn = T0 + n - 1;
    const __m256 sv = _mm256_set1_ps(scale);
    for (int p0 = 0; p0 < Tn; p0 += 16) {   /* scores, block by block for every row that sees the block */
        const float *kb = kt + (size_t)p0 * hd;
        for (int t = 0; t < n; t++) {
            const int T = T0 + t;
            if (p0 >= T) continue;
            const int w = T - p0 < 16 ? T - p0 : 16;
            const float *qt = q + (size_t)t * qs;
            for (int g0 = 0; g0 < ng; g0 += 4) {
                const int gn = ng - g0 < 4 ? ng - g0 : 4;
                __m256 a[4][2];
#pragma GCC unroll 4
                for (int g = 0; g < 4; g++) a[g][0] = a[g][1] = _mm256_setzero_ps();
                for (int d = 0; d < hd; d++) {
                    __m256 k0 = _mm256_loadu_ps(kb + d * 16), k1 = _mm256_loadu_ps(kb + d * 16 + 8);
#pragma GCC unroll 4
                    for (int g = 0; g < 4; g++) {
                        if (g >= gn) break;
                        __m256 qv = _mm256_set1_ps(qt[(g0 + g) * hd + d]);
                        a[g][0] = _mm256_fmadd_ps(k0, qv, a[g][0]);
                        a[g][1] = _mm256_fmadd_ps(k1, qv, a[g][1]);
                    }
                }
                for (int g = 0; g < gn; g++) {
                    float tmp[16], *dst = sc + ((size_t)t * ng + g0 + g) * Tn + p0;
                    if (w == 16) {   /* a whole block: straight into the row (no memcpy call per block and head) */
                        _mm256_storeu_ps(dst, _mm256_mul_ps(a[g][0], sv));
                        _mm256_storeu_ps(dst + 8, _mm256_mul_ps(a[g][1], sv));
                        continue;
                    }
                    _mm256_storeu_ps(tmp, _mm256_mul_ps(a[g][0], sv));
                    _mm256_storeu_ps(tmp + 8, _mm256_mul_ps(a[g][1], sv));
                    memcpy(dst, tmp, (size_t)w * sizeof *tmp);
                }
            }
        }
    }
    for (int t = 0; t < n; t++) {   /* softmax of each row, its heads together */
        const int T = T0 + t;
        float *s0 = sc + (size_t)t * ng * Tn;
        float sum[8];
        for (int g = 0; g < ng; g++) {
            float *s = s0 + (size_t)g * Tn;
            __m256 mx8 = _mm256_set1_ps(-INFINITY);
            int p = 0;
            for (; p + 8 <= T; p += 8) mx8 = _mm256_max_ps(mx8, _mm256_loadu_ps(s + p));
            __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx8), _mm256_extractf128_ps(mx8, 1));
            m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
            float mx = _mm_cvtss_f32(m4);
            for (; p < T; p++) mx = fmaxf(mx, s[p]);
            int e = 0;
            if (vexp2_ok)   /* 8 at a time (expf's values) */
                for (; e + 8 <= T; e += 8) {
                    _mm256_storeu_ps(s + e, _mm256_sub_ps(_mm256_loadu_ps(s + e), _mm256_set1_ps(mx)));
                    vexp8_avx2(s + e, s + e);
                }
            for (; e < T; e++) s[e] = expf(s[e] - mx);
            sum[g] = 0;
        }
        /* each head's sum in position order, the heads' chains interleaved */
        for (int p = 0; p < T; p++)
            for (int g = 0; g < ng; g++) sum[g] += s0[(size_t)g * Tn + p];
        for (int g = 0; g < ng; g++) {
            float *s = s0 + (size_t)g * Tn;
            const __m256 tot = _mm256_set1_ps(sum[g]);
            int p = 0;
            for (; p + 8 <= T; p += 8) _mm256_storeu_ps(s + p, _mm256_div_ps(_mm256_loadu_ps(s + p), tot));
            for (; p < T; p++) s[p] = s[p] / sum[g];
        }
    }
    for (int c0 = 0; c0 < Tn; c0 += ATT2_VCH)   /* values: a run of V rows, then every row that sees it */
        for (int t = 0; t < n; t++) {
            const int T = T0 + t, c1 = T < c0 + ATT2_VCH ? T : c0 + ATT2_VCH;
            if (c0 >= T) continue;
            const float *wt = sc + (size_t)t * ng * Tn;
            for (int h = 0; h < hd; h += 16)
                for (int g0 = 0; g0 < ng; g0 += 4) {
                    const int gn = ng - g0 < 4 ? ng - g0 : 4;
                    float *o = out + (size_t)t * os + (size_t)g0 * hd + h;
                    __m256 acc[4][2];
#pragma GCC unroll 4
                    for (int g = 0; g < 4; g++) {
                        if (g >= gn) break;
                        acc[g][0] = c0 ? _mm256_loadu_ps(o + g * hd) : _mm256_setzero_ps();
                        acc[g][1] = c0 ? _mm256_loadu_ps(o + g * hd + 8) : _mm256_setzero_ps();
                    }
                    for (int p = c0; p < c1; p++) {
                        const float *vr = vc + (size_t)p * vstride + h;
                        __m256 v0 = _mm256_loadu_ps(vr), v1 = _mm256_loadu_ps(vr + 8);
#pragma GCC unroll 4
                        for (int g = 0; g < 4; g++) {
                            if (g >= gn) break;
                            __m256 wg = _mm256_set1_ps(wt[(size_t)(g0 + g) * Tn + p]);
                            acc[g][0] = _mm256_fmadd_ps(wg, v0, acc[g][0]);
                            acc[g][1] = _mm256_fmadd_ps(wg, v1, acc[g][1]);
                        }
                    }
#pragma GCC unroll 4
                    for (int g = 0; g < 4; g++) {
                        if (g >= gn) break;
                        _mm256_storeu_ps(o + g * hd, acc[g][0]);
                        _mm256_storeu_ps(o + g * hd + 8, acc[g][1]);
                    }
                }
        }
}

/* the body with ng a constant, so the loops over heads unroll */
static __attribute__((target("avx2,fma"))) void attn_rows_avx2(const float *q, size_t qs, int n, int ng, const float *kt, const float *vc,
                                                               size_t vstride, int T0, int hd, float scale, float *sc, float *out, size_t os) {
    switch (ng) {
    case 1: attn_rows_avx2_body(q, qs, n, 1, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 2: attn_rows_avx2_body(q, qs, n, 2, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 3: attn_rows_avx2_body(q, qs, n, 3, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 4: attn_rows_avx2_body(q, qs, n, 4, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 5: attn_rows_avx2_body(q, qs, n, 5, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 6: attn_rows_avx2_body(q, qs, n, 6, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    case 7: attn_rows_avx2_body(q, qs, n, 7, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    default: attn_rows_avx2_body(q, qs, n, 8, kt, vc, vstride, T0, hd, scale, sc, out, os); break;
    }
}
#undef ATT2_VCH
#endif

void model_kern_attn_group(const float *q, int ng, const float *kt, const float *vc, size_t vstride, int T, int hd, float scale,
                     float *sc, float *out) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_X86
    if (kern_best == &kern_avx512 && hd % 16 == 0 && ng <= 4) {
        attn_group_avx512(q, ng, kt, vc, vstride, T, hd, scale, sc, out);
        return;
    }
    if (kern_best == &kern_avx512 && hd % 32 == 0 && ng <= 8) {   /* 5..8 heads: the path below's values, faster */
        attn_rows_avx512(q, 0, 1, ng, kt, vc, vstride, T, hd, scale, sc, out, 0);
        return;
    }
    bool vec = kern_best != &kern_scalar;   /* AVX2 (or AVX-512 with > 4 heads per KV head) */
    if (vec)
        for (int g0 = 0; g0 < ng; g0 += 4) attn_scores_avx2(q + (size_t)g0 * hd, ng - g0 < 4 ? ng - g0 : 4, kt, T, hd, sc + (size_t)g0 * T);
#else
    bool vec = false;
#endif
    for (int g = 0; g < ng; g++) {
        const float *qg = q + (size_t)g * hd;
        float mx = -INFINITY;
        /* vec: head g's scores are at sc + g*T; sc[0, T) (head 0's, used up) is the softmax scratch */
        for (int p = 0; p < T; p++) {
            float s;
            if (vec) s = sc[(size_t)g * T + p];
            else {
                const float *kb = kt + (size_t)(p / 16) * 16 * hd + p % 16;
                s = 0;
                for (int d = 0; d < hd; d++) s += qg[d] * kb[d * 16];
            }
            sc[p] = s * scale;
            mx = fmaxf(mx, sc[p]);
        }
        float sum = 0;
        for (int p = 0; p < T; p++) { sc[p] = expf(sc[p] - mx); sum += sc[p]; }
        float *o = out + (size_t)g * hd;
        memset(o, 0, (size_t)hd * 4);
        for (int p = 0; p < T; p++) kern_axpy(o, sc[p] / sum, vc + (size_t)p * vstride, hd);
    }
}

void model_kern_attn_rows(const float *q, size_t qs, int n, int ng, const float *kt, const float *vc, size_t vstride, int T0, int hd,
                          float scale, float *sc, float *out, size_t os) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_X86
    if (kern_best == &kern_avx512 && hd % 32 == 0 && ng > 4 && ng <= 8) {
        attn_rows_avx512(q, qs, n, ng, kt, vc, vstride, T0, hd, scale, sc, out, os);
        return;
    }
    if (kern_best == &kern_avx2 && hd % 16 == 0 && ng <= 8) {   /* the AVX2 path's values, without a call per position */
        attn_rows_avx2(q, qs, n, ng, kt, vc, vstride, T0, hd, scale, sc, out, os);
        return;
    }
#endif
    for (int t = 0; t < n; t++) model_kern_attn_group(q + (size_t)t * qs, ng, kt, vc, vstride, T0 + t, hd, scale, sc, out + (size_t)t * os);
}

void model_kern_rmsnorm(float *out, const float *x, const float *w, int n, float eps) {
    pthread_once(&kern_once, kern_pick);
#ifdef HAVE_X86
    if (kern_best == &kern_avx512) { rmsnorm_avx512(out, x, w, n, eps); return; }
#endif
    float ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    float r = 1.0f / sqrtf(ss / (float)n + eps);
    for (int i = 0; i < n; i++) out[i] = w[i] * (x[i] * r);
}

/* ---- matmul ----------------------------------------------------------------------------- */
typedef struct {
    const kern *K;
    float *out;
    int ldo, ldx, n;
    const float *x;
    const wmat *m;
    const q8x *xq;         /* q8 decode: x quantized, one per input row [n] */
    const uint16_t *xa;    /* AMX prefill: x in bf16 [n rounded up to 32][cols], padding rows zero */
    const int8_t *xq8;     /* AMX q8 prefill: x quantized [n rounded up to 32][cols], padding rows zero, */
    const float *xs8;      /*   and its group scales [n rounded up to 32][cols / 32] */
    const float *xp;       /* other prefill: x packed per tx-row tile, [n/tx rounded up][cols][tx], padding rows zero */
    int nch;               /* pool chunks the panel pairs are split into */
    pg_pool *pool;         /* per-thread scratch */
    const char *gx;        /* WT_GG decode: x quantized, per token gx_stride bytes: qa32[cols/32] then (at */
    size_t gx_stride, gx_off;   /* gx_off) qa256[cols/256], and (at gx_zoff, when nonzero: AVX-512) */
    size_t gx_zoff;        /*   the qa32's pair form qa64[cols/64]; see mm_decode_gg */
    size_t gx_soff;        /*   (at gx_soff, when nonzero: Q5_0 p16 segments) the qa32's sums for p16 */
    bool packed;           /* decode reads the segments' 16-row copies where they have one (mm_gg_decode) */
} mm_job;

/* The panel pairs [b0, b1) of pool chunks [c0, c1). */
static void my_pairs(const mm_job *J, int c0, int c1, int *b0, int *b1) {
    int nb = J->m->prows / (2 * WPANEL);
    *b0 = (int)((long)nb * c0 / J->nch);
    *b1 = (int)((long)nb * c1 / J->nch);
}

/* Rows of a 32-row result that exist (padding rows are dropped). */
static void put_rows(float *dst, const float *o, int r0, int rows) {
    int nr = rows - r0 < 2 * WPANEL ? rows - r0 : 2 * WPANEL;
    memcpy(dst + r0, o, (size_t)nr * sizeof *o);
}

/* Panel pair b of an f32 / bf16 / q8 matrix times input row 0 of J into o[32] (the decode kernels). */
static void mm_decode_pair(const mm_job *J, int b, float o[2 * WPANEL]) {
    const wmat *m = J->m;
    int k = m->cols;
    size_t pair = (size_t)2 * WPANEL * k;   /* weights per panel pair */
    if (m->type == WT_F32) J->K->mv_f32((const float *)m->w + b * pair, k, J->x, o);
    else if (m->type == WT_BF16) J->K->mv_bf16((const uint16_t *)m->w + b * pair, k, J->x, o);
    else J->K->mv_q8((const int8_t *)m->w + b * pair, m->scale + b * pair / Q8_GROUP, k, &J->xq[0], o);
}

static void mm_decode(void *arg, int c0, int c1, int ith) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int b0, b1;
    my_pairs(J, c0, c1, &b0, &b1);
    for (int b = b0; b < b1; b++) {
        if (m->type == WT_F32 && J->K->mv_f32_h && m->rows - b * 2 * WPANEL <= WPANEL) {   /* the second panel is padding */
            const size_t pair = (size_t)2 * WPANEL * m->cols;
            for (int j0 = 0; j0 < J->n; j0 += MVN_MAX) {
                const int nr = J->n - j0 < MVN_MAX ? J->n - j0 : MVN_MAX;
                float o[MVN_MAX][2 * WPANEL];
                J->K->mv_f32_h((const float *)m->w + b * pair, m->cols, J->x + (size_t)j0 * J->ldx, (size_t)J->ldx, nr, &o[0][0]);
                for (int j = 0; j < nr; j++) put_rows(J->out + (size_t)(j0 + j) * J->ldo, o[j], b * 2 * WPANEL, m->rows);
            }
            continue;
        }
        if (m->type == WT_F32 && J->K->mv_f32_n && J->n > 1) {   /* the pair once for up to MVN_MAX rows */
            const size_t pair = (size_t)2 * WPANEL * m->cols;
            for (int j0 = 0; j0 < J->n; j0 += MVN_MAX) {
                const int nr = J->n - j0 < MVN_MAX ? J->n - j0 : MVN_MAX;
                float o[MVN_MAX][2 * WPANEL];
                J->K->mv_f32_n((const float *)m->w + b * pair, m->cols, J->x + (size_t)j0 * J->ldx, (size_t)J->ldx, nr, &o[0][0]);
                for (int j = 0; j < nr; j++) put_rows(J->out + (size_t)(j0 + j) * J->ldo, o[j], b * 2 * WPANEL, m->rows);
            }
            continue;
        }
        for (int j = 0; j < J->n; j++) {
            float o[2 * WPANEL];
            mm_job R = *J;   /* row j as row 0 */
            R.x = J->x + (size_t)j * J->ldx;
            R.xq = J->xq ? &J->xq[j] : NULL;
            mm_decode_pair(&R, b, o);
            put_rows(J->out + (size_t)j * J->ldo, o, b * 2 * WPANEL, m->rows);
        }
    }
}

/* WT_GG decode: rows [r0, r1) of chunk range [c0, c1), straight from the blocks
 * against x quantized once (J->gx: per token, qa32 then qa256 at J->gx_off), or,
 * exact, against f32 x with each row dequantized first (thread scratch). */
static void mm_decode_gg(void *arg, int c0, int c1, int ith) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int r0 = (int)((long)m->rows * c0 / J->nch), r1 = (int)((long)m->rows * c1 / J->nch), k = m->cols;
    if (J->packed) {   /* packed segments: chunks in whole groups of 16 rows (values do not depend on the split) */
        r0 = c0 == 0 ? 0 : r0 / 16 * 16;
        r1 = c1 == J->nch ? m->rows : r1 / 16 * 16;
    }
    float *row = m->exact ? model_pool_scratch(J->pool, ith, (size_t)k * sizeof(float)) : NULL;
    if (m->exact && !row) pg_oom();   /* k floats: out of memory, a clean exit (pg_oom) */
    for (int s = 0; s < m->nseg; s++) {
        const struct wseg *g = &m->seg[s];
        int a = r0 > g->r0 ? r0 : g->r0, b = r1 < g->r0 + g->rows ? r1 : g->r0 + g->rows;
        int kind = model_quant_act_kind(g->type);
        const void *xq[QUANT_NX_MAX];
        const qa64 *xz[QUANT_NX_MAX];
        bool pairs = kind == QACT_32 && J->gx_zoff;
        for (int r = a; r < b; r += 16) {   /* 16 rows per call: outputs of one token stay together */
            int nr = b - r < 16 ? b - r : 16;
            const uint8_t *w = g->data + (size_t)(r - g->r0) * g->row_bytes;
            if (g->p16 && J->packed) {   /* a whole group (segments of p16 start and end on one) */
                const uint8_t *grp = g->p16 + model_quant_p16_bytes(g->type, k) * (size_t)((r - g->r0) / 16);
                const void *xs[QUANT_NX_MAX];
                const int32_t *cs[QUANT_NX_MAX];
                for (int j0 = 0; j0 < J->n; j0 += QUANT_NX_MAX) {
                    int nx = J->n - j0 < QUANT_NX_MAX ? J->n - j0 : QUANT_NX_MAX;
                    for (int j = 0; j < nx; j++) {   /* Q5_0: the qa32 and its sums; Q4_K / Q6_K: the qa256 */
                        const char *t = J->gx + (size_t)(j0 + j) * J->gx_stride;
                        xs[j] = kind == QACT_256 ? (const void *)(t + J->gx_off) : (const void *)t;
                        cs[j] = kind == QACT_256 ? NULL : (const int32_t *)(const void *)(t + J->gx_soff);
                    }
                    model_quant_p16_dot(g->type, grp, k, xs, cs, nx, J->out + (size_t)j0 * J->ldo + r, (size_t)J->ldo);
                }
                continue;
            }
            if (m->exact) {
                for (int j = 0; j < J->n; j++) {
                    float *o = J->out + (size_t)j * J->ldo + r;
                    const float *x = J->x + (size_t)j * J->ldx;
                    for (int i = 0; i < nr; i++) {
                        model_quant_dequant_fast(g->type, w + (size_t)i * g->row_bytes, row, k);
                        o[i] = model_quant_dot_f32(row, x, k);
                    }
                }
                continue;
            }
            /* all tokens against these rows at once: each weight block is decoded once for them */
            for (int j0 = 0; j0 < J->n; j0 += QUANT_NX_MAX) {
                int nx = J->n - j0 < QUANT_NX_MAX ? J->n - j0 : QUANT_NX_MAX;
                for (int j = 0; j < nx; j++) {
                    xq[j] = kind == QACT_F32 ? (const void *)(J->x + (size_t)(j0 + j) * J->ldx)
                                             : J->gx + (size_t)(j0 + j) * J->gx_stride + (kind == QACT_256 ? J->gx_off : 0);
                    xz[j] = pairs ? (const qa64 *)(const void *)(J->gx + (size_t)(j0 + j) * J->gx_stride + J->gx_zoff) : NULL;
                }
                model_quant_dot_rows_nx(g->type, w, g->row_bytes, nr, xq, pairs ? xz : NULL, nx, k, J->out + (size_t)j0 * J->ldo + r,
                                        (size_t)J->ldo);
            }
        }
    }
}

#ifdef HAVE_AMX
static void mm_prefill_amx(void *arg, int c0, int c1, int ith) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int b0, b1, k = m->cols;
    my_pairs(J, c0, c1, &b0, &b1);
    size_t pair = (size_t)2 * WPANEL * k;
    float o[32 * 32];   /* [32 tokens][32 rows] */
    amx_begin();
    for (int b = b0; b < b1; b++)
        for (int j0 = 0; j0 < J->n; j0 += 32) {
            gemm_amx_bf16((const uint16_t *)m->w + b * pair, k, J->xa + (size_t)j0 * k, o);
            for (int j = 0; j < 32 && j0 + j < J->n; j++)
                put_rows(J->out + (size_t)(j0 + j) * J->ldo, o + j * 32, b * 2 * WPANEL, m->rows);
        }
    amx_end();
}
#endif

#ifdef HAVE_AMX
/* x rows [t0, t1) quantized for mm_prefill_amx_q8 (a chunk per row; on the pool). */
typedef struct {
    const float *x;
    int ldx, k;
    int8_t *q;             /* [rows][k] */
    float *s;              /* [rows][k / 32] */
} quant_job;

static void quant_rows(void *arg, int t0, int t1, int ith) {
    const quant_job *Q = arg;
    int ng = Q->k / Q8_GROUP;
    for (int j = t0; j < t1; j++) {
        q8x X = {Q->q + (size_t)j * Q->k, Q->s + (size_t)j * ng, NULL, NULL};
        quantize_row_avx512(Q->x + (size_t)j * Q->ldx, Q->k, &X);
    }
}

static void mm_prefill_amx_q8(void *arg, int c0, int c1, int ith) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int b0, b1, k = m->cols, ng = k / Q8_GROUP;
    my_pairs(J, c0, c1, &b0, &b1);
    size_t pair = (size_t)2 * WPANEL * k;
    float o[32 * 32];   /* [32 tokens][32 rows] */
    amx_begin_q8();
    for (int b = b0; b < b1; b++)
        for (int j0 = 0; j0 < J->n; j0 += 32) {
            const int8_t *P = (const int8_t *)m->w + b * pair;
            const float *S = m->scale + b * pair / Q8_GROUP;
            const int8_t *xq = J->xq8 + (size_t)j0 * k;
            const float *xs = J->xs8 + (size_t)j0 * ng;
            if (j0 + 32 <= J->n && (b + 1) * 2 * WPANEL <= m->rows) {   /* a whole block: straight into out */
                gemm_amx_q8(P, S, k, xq, xs, J->out + (size_t)j0 * J->ldo + b * 2 * WPANEL, J->ldo);
                continue;
            }
            gemm_amx_q8(P, S, k, xq, xs, o, 32);
            for (int j = 0; j < 32 && j0 + j < J->n; j++)
                put_rows(J->out + (size_t)(j0 + j) * J->ldo, o + j * 32, b * 2 * WPANEL, m->rows);
        }
    amx_end();
}
#endif

#define PF_TOK 64     /* token rows per group (a multiple of every tx) */
#define PF_KB 128     /* k columns per block: 16 KB of a panel pair's f32 weights */
#define PF_CHUNKS 4   /* pool chunks per thread (runs of consecutive panel pairs) */
static void mm_prefill(void *arg, int c0, int c1, int ith) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int b0, b1, k = m->cols, tx = J->K->tx;
    my_pairs(J, c0, c1, &b0, &b1);
    size_t pair = (size_t)2 * WPANEL * k;
    /* non-f32 weights: one panel pair widened to f32 [2][k][16], reused by all n rows (per-thread scratch) */
    float *wbuf = m->type == WT_F32 || b0 == b1 ? NULL : model_pool_scratch(J->pool, ith, pair * sizeof(float));
    if (m->type != WT_F32 && b0 < b1 && !wbuf) pg_oom();   /* 128 KB for k = 1024; nothing sane to recover */
    for (int b = b0; b < b1; b++) {
        const float *P;
        if (m->type == WT_F32) P = (const float *)m->w + b * pair;
        else {
#ifdef HAVE_X86
            if (J->K == &kern_avx512 && m->type != WT_GG) {
                if (m->type == WT_Q8) unpack_q8_avx512(m, b, wbuf);
                else unpack_bf16_avx512(m, b, wbuf);
            } else
#endif
                unpack_pair(m, b, wbuf);
            P = wbuf;
        }
        /* tokens in groups of up to PF_TOK rows, k in blocks of PF_KB columns: the
         * weight block (32 x PF_KB) stays in L1 while every token tile of the group
         * passes over it (partial sums in out between blocks).  A pair whose 32 rows
         * all exist accumulates straight into out; the last one of a matrix with
         * padding rows goes through o. */
        bool direct = (b + 1) * 2 * WPANEL <= m->rows;
        for (int g0 = 0; g0 < J->n; g0 += PF_TOK) {
            int g1 = g0 + PF_TOK < J->n ? g0 + PF_TOK : J->n;
            float o[PF_TOK * 2 * WPANEL];   /* [token][32] */
            for (int i0 = 0; i0 < k; i0 += PF_KB) {
                int i1 = i0 + PF_KB < k ? i0 + PF_KB : k;
                /* the next weight block (this pair's next k block, else the next pair's first)
                 * is pulled into L1 while this one is in use, spread over the tiles (the
                 * kernel takes a column of it per 8 of its own): the first tile over a
                 * block would otherwise wait on memory for every weight line */
                const float *nw = i1 + PF_KB <= k ? P + (size_t)i1 * WPANEL
                                : i1 == k && b + 1 < b1 && m->type == WT_F32 && k >= PF_KB ? P + pair : NULL;
                for (int j0 = g0; j0 < g1; j0 += tx) {
                    /* the tiles of a full group cover the next block's PF_KB columns once */
                    const float *pf = nw && i1 - i0 == PF_KB && j0 + tx <= g0 + PF_TOK ? nw + (size_t)(j0 - g0) / tx * (PF_KB / 8) * WPANEL : NULL;
                    const float *xp = J->xp + (size_t)j0 * k;   /* tile j0 / tx: [k][tx] */
                    if (j0 + tx <= g1) {
                        if (direct) J->K->gemm_f32(P, k, i0, i1, xp, J->out + (size_t)j0 * J->ldo + b * 2 * WPANEL, J->ldo, i0 > 0, pf);
                        else J->K->gemm_f32(P, k, i0, i1, xp, o + (size_t)(j0 - g0) * 2 * WPANEL, 2 * WPANEL, i0 > 0, pf);
                    } else {   /* tail tile: its padding rows must not land past the group */
                        float t[8 * 2 * WPANEL];
                        float *ot = direct ? J->out + (size_t)j0 * J->ldo + b * 2 * WPANEL : o + (size_t)(j0 - g0) * 2 * WPANEL;
                        int lo = direct ? J->ldo : 2 * WPANEL;
                        if (i0 > 0)
                            for (int j = 0; j < g1 - j0; j++) memcpy(t + j * 2 * WPANEL, ot + (size_t)j * lo, 2 * WPANEL * sizeof *t);
                        J->K->gemm_f32(P, k, i0, i1, xp, t, 2 * WPANEL, i0 > 0, pf);
                        for (int j = 0; j < g1 - j0; j++) memcpy(ot + (size_t)j * lo, t + j * 2 * WPANEL, 2 * WPANEL * sizeof *t);
                    }
                }
            }
            if (!direct)
                for (int j = g0; j < g1; j++)
                    put_rows(J->out + (size_t)j * J->ldo, o + (size_t)(j - g0) * 2 * WPANEL, b * 2 * WPANEL, m->rows);
        }
    }
}

/* x [n][k] (row stride ldx) into tiles of tx rows, each [k][tx]; rows past n are zero.
 * On the pool, a chunk per tile. */
typedef struct {
    const float *x;
    int ldx, n, k, tx;
    float *dst;
    bool avx2;             /* the AVX-512 family picked (AVX2 8x8 transposes) */
} pack_job;

#ifdef HAVE_X86
/* 8 rows x k into [k][ds] (the first 8 of each ds): 8x8 transposes (columns i..i+7 of the
 * 8 rows -> 8 output columns). */
static __attribute__((target("avx2"))) void pack8_avx2(const float *const s[8], int k, float *d, int ds) {
    int i = 0;
    for (; i + 8 <= k; i += 8, d += 8 * ds) {
        __m256 t0 = _mm256_unpacklo_ps(_mm256_loadu_ps(s[0] + i), _mm256_loadu_ps(s[1] + i));
        __m256 t1 = _mm256_unpackhi_ps(_mm256_loadu_ps(s[0] + i), _mm256_loadu_ps(s[1] + i));
        __m256 t2 = _mm256_unpacklo_ps(_mm256_loadu_ps(s[2] + i), _mm256_loadu_ps(s[3] + i));
        __m256 t3 = _mm256_unpackhi_ps(_mm256_loadu_ps(s[2] + i), _mm256_loadu_ps(s[3] + i));
        __m256 t4 = _mm256_unpacklo_ps(_mm256_loadu_ps(s[4] + i), _mm256_loadu_ps(s[5] + i));
        __m256 t5 = _mm256_unpackhi_ps(_mm256_loadu_ps(s[4] + i), _mm256_loadu_ps(s[5] + i));
        __m256 t6 = _mm256_unpacklo_ps(_mm256_loadu_ps(s[6] + i), _mm256_loadu_ps(s[7] + i));
        __m256 t7 = _mm256_unpackhi_ps(_mm256_loadu_ps(s[6] + i), _mm256_loadu_ps(s[7] + i));
        __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
        __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
        __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
        _mm256_storeu_ps(d + 0 * ds, _mm256_permute2f128_ps(u0, u4, 0x20));
        _mm256_storeu_ps(d + 1 * ds, _mm256_permute2f128_ps(u1, u5, 0x20));
        _mm256_storeu_ps(d + 2 * ds, _mm256_permute2f128_ps(u2, u6, 0x20));
        _mm256_storeu_ps(d + 3 * ds, _mm256_permute2f128_ps(u3, u7, 0x20));
        _mm256_storeu_ps(d + 4 * ds, _mm256_permute2f128_ps(u0, u4, 0x31));
        _mm256_storeu_ps(d + 5 * ds, _mm256_permute2f128_ps(u1, u5, 0x31));
        _mm256_storeu_ps(d + 6 * ds, _mm256_permute2f128_ps(u2, u6, 0x31));
        _mm256_storeu_ps(d + 7 * ds, _mm256_permute2f128_ps(u3, u7, 0x31));
    }
    for (; i < k; i++, d += ds)
        for (int j = 0; j < 8; j++) d[j] = s[j][i];
}
#endif

static void pack_x(void *arg, int t0, int t1, int ith) {
    const pack_job *J = arg;
    int k = J->k, tx = J->tx;
    for (int j0 = t0 * tx; j0 < t1 * tx; j0 += tx) {
        float *d = J->dst + (size_t)j0 * k;
#ifdef HAVE_X86
        if (tx == 8 && j0 + 8 <= J->n && J->avx2) {   /* the AVX-512 tile (so AVX2 is there) */
            const float *s[8];
            for (int j = 0; j < 8; j++) s[j] = J->x + (size_t)(j0 + j) * J->ldx;
            pack8_avx2(s, k, d, 8);
            continue;
        }
#endif
        for (int j = 0; j < tx; j++) {
            if (j0 + j >= J->n) {
                for (int i = 0; i < k; i++) d[(size_t)i * tx + j] = 0;
                continue;
            }
            const float *s = J->x + (size_t)(j0 + j) * J->ldx;
            for (int i = 0; i < k; i++) d[(size_t)i * tx + j] = s[i];
        }
    }
}

static double kern_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* WT_GG decode: quantize x for the segments' kinds (caller's thread), then rows on the pool
 * (p NULL: all on the caller). */
static void mm_gg_decode(pg_pool *p, mm_job *J) {
    const wmat *m = J->m;
    int k = m->cols;
    bool need32 = false, need256 = false, needz = false, p16 = false;
    for (int s = 0; s < m->nseg && !m->exact; s++) {
        int kind = model_quant_act_kind(m->seg[s].type);
        need32 |= kind == QACT_32;
        need256 |= kind == QACT_256;
        needz |= kind == QACT_32 && !m->seg[s].p16;
        p16 |= kind == QACT_32 && m->seg[s].p16;
        J->packed |= m->seg[s].p16 != NULL;
    }
    size_t b32 = need32 ? (size_t)k / 32 * sizeof(qa32) : 0, b256 = need256 ? (size_t)k / 256 * sizeof(qa256) : 0;
    /* the AVX-512 kernels' pair form of the qa32, built here once for all rows (64-byte aligned),
     * then the p16 kernel's block sums */
    size_t zoff = (b32 + b256 + 63) / 64 * 64, bz = needz && model_quant_pairs_wanted() && k >= 64 ? (size_t)k / 64 * sizeof(qa64) : 0;
    size_t soff = (zoff + bz + 63) / 64 * 64, bs = p16 ? (size_t)k / 32 * sizeof(int32_t) : 0;
    size_t stride = (soff + bs + 63) / 64 * 64;
    char *gx = NULL;
    if (stride) {
        gx = model_pool_shared(p, 0, stride * J->n);
        if (!gx) pg_oom();   /* a few KB */
        pool_prof *pp = model_pool_get_prof(p);
        double t0 = pp ? kern_now() : 0;
        for (int j = 0; j < J->n; j++) {
            const float *x = J->x + (size_t)j * J->ldx;
            if (need32) model_quant_act32(x, k, (qa32 *)(void *)(gx + j * stride));
            if (bz) model_quant_act32_pairs((const qa32 *)(const void *)(gx + j * stride), k, (qa64 *)(void *)(gx + j * stride + zoff));
            if (bs) model_quant_p16_sums((const qa32 *)(const void *)(gx + j * stride), k, (int32_t *)(void *)(gx + j * stride + soff));
            if (need256) model_quant_act256(x, k, (qa256 *)(void *)(gx + j * stride + b32));
        }
        if (pp) pp->actq_s += kern_now() - t0;
    }
    J->gx = gx;
    J->gx_stride = stride;
    J->gx_off = b32;
    J->gx_zoff = bz ? zoff : 0;
    J->gx_soff = bs ? soff : 0;
    /* chunks of at least 64 rows, 4 per thread: a descheduled thread's share is picked up */
    int nch = 4 * model_pool_size(p), most = (m->rows + 63) / 64;
    J->nch = nch < most ? nch : most;
    model_pool_run(p, mm_decode_gg, J, J->nch);
}

void model_matmul_local(float *out, int ldo, const float *x, int ldx, int n, const wmat *m) {
    pthread_once(&kern_once, kern_pick);
    int npairs = m->prows / (2 * WPANEL);
    mm_job J = {kern_best, out, ldo, ldx, n, x, m, NULL, NULL, NULL, NULL, NULL, npairs, NULL, NULL, 0, 0, 0, 0, false};
    if (m->type != WT_F32 && m->type != WT_BF16) abort();   /* f32 / bf16 only (LoRA factors) */
    if (npairs) mm_decode(&J, 0, npairs, 0);
}

void model_wmat_rows_dot(const wmat *m, const int32_t *ids, int n, const float *x, float *out) {
    int k = m->cols;
    if (m->type != WT_GG) {   /* the panel pair holding each row, through matmul's decode kernel: its values */
        pthread_once(&kern_once, kern_pick);
        float o[2 * WPANEL];
        int have = -1;
        mm_job J = {kern_best, o, 0, k, 1, x, m, NULL, NULL, NULL, NULL, NULL, 1, NULL, NULL, 0, 0, 0, 0, false};
        q8x X;
        void *qbuf = NULL;
        if (m->type == WT_Q8) {
            size_t per = ((size_t)k / 4 * 8 + (size_t)k / 4 * 4 + (size_t)k / Q8_GROUP * 4 + (size_t)k + 7) / 8 * 8;
            if (!(qbuf = malloc(per))) pg_oom();   /* a row's worth */
            X.neg = qbuf;
            X.a = (uint32_t *)(void *)((char *)qbuf + (size_t)k / 4 * 8);
            X.s = (float *)(void *)((char *)qbuf + (size_t)k / 4 * 12);
            X.q = (int8_t *)qbuf + (size_t)k / 4 * 12 + (size_t)k / Q8_GROUP * 4;
#ifdef HAVE_X86
            if (kern_best == &kern_avx512) quantize_row_avx512(x, k, &X);
            else
#endif
                quantize_row(x, k, &X);
            J.xq = &X;
        }
        for (int i = 0; i < n; i++) {
            int pp = ids[i] / (2 * WPANEL);
            if (pp != have) {
                mm_decode_pair(&J, pp, o);
                have = pp;
            }
            out[i] = o[ids[i] % (2 * WPANEL)];
        }
        free(qbuf);
        return;
    }
    float *row = malloc((size_t)k * sizeof *row);
    qa32 *q32 = NULL;
    qa256 *q256 = NULL;
    qa64 *z = NULL;   /* the pair form for the AVX-512 kernels (same values) */
    bool pairs = m->type == WT_GG && !m->exact && model_quant_pairs_wanted() && k >= 64;
    if (m->type == WT_GG && !m->exact) {
        q32 = malloc((size_t)k / 32 * sizeof *q32 + 1);
        q256 = malloc((size_t)k / 256 * sizeof *q256 + 1);
        z = pairs ? malloc((size_t)k / 64 * sizeof *z) : NULL;
        if (q32 && q256) {
            model_quant_act32(x, k, q32);
            model_quant_act256(x, k, q256);
            if (z) model_quant_act32_pairs(q32, k, z);
        }
    }
    if (!row || (m->type == WT_GG && !m->exact && (!q32 || !q256)) || (pairs && !z)) pg_oom();   /* a row's worth */
    for (int i = 0; i < n; i++) {
        if (m->type == WT_GG && !m->exact) {
            const struct wseg *g = gg_seg(m, ids[i]);
            int kind = model_quant_act_kind(g->type);
            const void *xq = kind == QACT_32 ? (const void *)q32 : kind == QACT_256 ? (const void *)q256 : (const void *)x;
            const qa64 *zz = z;
            model_quant_dot_rows_nx(g->type, g->data + (size_t)(ids[i] - g->r0) * g->row_bytes, g->row_bytes, 1, &xq,
                                    kind == QACT_32 && z ? &zz : NULL, 1, k, &out[i], 0);
        } else {
            model_wmat_row_f32(m, ids[i], row);
            out[i] = model_quant_dot_f32(row, x, k);
        }
    }
    free(row);
    free(q32);
    free(q256);
    free(z);
}

void model_matmul_dec(pg_pool *p, float *out, int ldo, const float *x, int ldx, int n, const wmat *m) {
    pthread_once(&kern_once, kern_pick);
    if (n < 4) {   /* model_matmul's own decode path */
        model_matmul(p, out, ldo, x, ldx, n, m);
        return;
    }
    int npairs = m->prows / (2 * WPANEL);
    int nch = npairs < 4 * model_pool_size(p) ? npairs : 4 * model_pool_size(p);
    mm_job J = {kern_best, out, ldo, ldx, n, x, m, NULL, NULL, NULL, NULL, NULL, nch, p, NULL, 0, 0, 0, 0, false};
    if (m->type == WT_GG) {
        mm_gg_decode(p, &J);
        return;
    }
    q8x *X = NULL;
    void *qbuf = NULL;
    if (m->type == WT_Q8) {   /* x quantized per row as model_matmul's decode does it */
        int k = m->cols;
        size_t per = ((size_t)k / 4 * 8 + (size_t)k / 4 * 4 + (size_t)k / Q8_GROUP * 4 + (size_t)k + 7) / 8 * 8;
        X = malloc((size_t)n * sizeof *X);
        qbuf = malloc((size_t)n * per);
        if (!X || !qbuf) pg_oom();   /* a few KB per row */
        for (int j = 0; j < n; j++) {
            char *b = (char *)qbuf + (size_t)j * per;
            X[j].neg = (uint64_t *)(void *)b;
            X[j].a = (uint32_t *)(void *)(b + (size_t)k / 4 * 8);
            X[j].s = (float *)(void *)(b + (size_t)k / 4 * 12);
            X[j].q = (int8_t *)(b + (size_t)k / 4 * 12 + (size_t)k / Q8_GROUP * 4);
#ifdef HAVE_X86
            if (kern_best == &kern_avx512) quantize_row_avx512(x + (size_t)j * ldx, k, &X[j]);
            else
#endif
                quantize_row(x + (size_t)j * ldx, k, &X[j]);
        }
        J.xq = X;
    }
    model_pool_run(p, mm_decode, &J, nch);
    free(qbuf);
    free(X);
}

void model_matmul(pg_pool *p, float *out, int ldo, const float *x, int ldx, int n, const wmat *m) {
    pthread_once(&kern_once, kern_pick);
    int npairs = m->prows / (2 * WPANEL);
    /* a few chunks per thread, so a descheduled thread's share is picked up by the
     * other; prefill chunks are runs of consecutive panel pairs, so mm_prefill's
     * prefetch of the next pair's weights stays within the thread */
    int cpt = n >= 4 ? PF_CHUNKS : 4;
    int nch = npairs < cpt * model_pool_size(p) ? npairs : cpt * model_pool_size(p);
    mm_job J = {kern_best, out, ldo, ldx, n, x, m, NULL, NULL, NULL, NULL, NULL, nch, p, NULL, 0, 0, 0, 0, false};
    if (n >= 4) {
#ifdef HAVE_AMX
        if (amx_ok && m->type == WT_BF16 && m->cols % 32 == 0) {
            int np = (n + 31) / 32 * 32;
            uint16_t *xa = model_pool_shared(p, 1, (size_t)np * m->cols * 2);   /* [np][cols] bf16 */
            if (!xa) pg_oom();
            memset(xa + (size_t)n * m->cols, 0, (size_t)(np - n) * m->cols * 2);
            to_bf16_rows(x, ldx, m->cols, 0, n, xa);
            J.xa = xa;
            model_pool_run(p, mm_prefill_amx, &J, nch);
            return;
        }
        if (amx8_ok && m->type == WT_Q8) {   /* q8 weights have cols % 32 == 0 */
            int k = m->cols, ng = k / Q8_GROUP, np = (n + 31) / 32 * 32;
            int8_t *xq = model_pool_shared(p, 1, (size_t)np * k + (size_t)np * ng * sizeof(float));   /* [np][k], then [np][ng] */
            if (!xq) pg_oom();
            float *xs = (float *)(void *)(xq + (size_t)np * k);
            quant_job qj = {x, ldx, k, xq, xs};
            model_pool_run(p, quant_rows, &qj, n);
            memset(xq + (size_t)n * k, 0, (size_t)(np - n) * k);
            memset(xs + (size_t)n * ng, 0, (size_t)(np - n) * ng * sizeof *xs);
            J.xq8 = xq;
            J.xs8 = xs;
            model_pool_run(p, mm_prefill_amx_q8, &J, nch);
            return;
        }
#endif
        int tx = kern_best->tx, nt = (n + tx - 1) / tx;
        float *xp = model_pool_shared(p, 1, (size_t)nt * tx * m->cols * sizeof *xp);
        if (!xp) pg_oom();
        pack_job pj = {x, ldx, n, m->cols, tx, xp, false};
#ifdef HAVE_X86
        pj.avx2 = kern_best == &kern_avx512;
#endif
        model_pool_run(p, pack_x, &pj, nt);
        J.xp = xp;
        model_pool_run(p, mm_prefill, &J, nch);
        return;
    }
    if (m->type == WT_GG) {
        mm_gg_decode(p, &J);
        return;
    }
    q8x X[4];
    void *qbuf = NULL;
    if (m->type == WT_Q8) {
        int k = m->cols;
        size_t per = ((size_t)k / 4 * 8 + (size_t)k / 4 * 4 + (size_t)k / Q8_GROUP * 4 + (size_t)k + 7) / 8 * 8;   /* neg, a, s, q */
        qbuf = malloc((size_t)n * per);
        if (!qbuf) pg_oom();
        for (int j = 0; j < n; j++) {
            char *b = (char *)qbuf + (size_t)j * per;   /* 8-byte fields first: alignment */
            X[j].neg = (uint64_t *)(void *)b;
            X[j].a = (uint32_t *)(void *)(b + (size_t)k / 4 * 8);
            X[j].s = (float *)(void *)(b + (size_t)k / 4 * 12);
            X[j].q = (int8_t *)(b + (size_t)k / 4 * 12 + (size_t)k / Q8_GROUP * 4);
#ifdef HAVE_X86
            if (kern_best == &kern_avx512) quantize_row_avx512(x + (size_t)j * ldx, k, &X[j]);
            else
#endif
                quantize_row(x + (size_t)j * ldx, k, &X[j]);
        }
        J.xq = X;
    }
    model_pool_run(p, mm_decode, &J, nch);
    free(qbuf);
}
