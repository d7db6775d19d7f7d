/* kernels.c — compute weights (f32 / bf16 / q8) and the matmul on the pool.
 *
 * The binary is built for plain x86-64 and carried to other machines, so the
 * AVX-512 and AVX2 kernels are separate functions with target attributes,
 * picked once at run time with __builtin_cpu_supports; a scalar version runs
 * everywhere else.
 *
 * Two shapes of work:
 *  - decode (n < 4 input rows): memory-bound, every weight byte is read once
 *    per token, so the kernels read the stored dtype directly (bf16 widened by
 *    a shift, q8 multiplied in int8 against an int8-quantized x, like
 *    llama2.c's runq / llama.cpp's Q8_0);
 *  - prefill (n >= 4): compute-bound, so 4 weight rows are widened to f32 once
 *    and multiplied against all n input rows in register tiles of 4 x TX.
 * Threads split the output rows (blocks of 4). */
#define _DEFAULT_SOURCE 1   /* madvise, MADV_HUGEPAGE */
#include "model_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* ---- compute weights ----------------------------------------------------------- */
/* Weight buffers: 64-byte aligned; big ones 2 MB aligned and marked for transparent
 * huge pages, since decode streams every byte once per token and 4 KB pages
 * would cost a TLB miss every 4 KB. */
static void *walloc(size_t n) {
    size_t align = n >= (2u << 20) ? (2u << 20) : 64;
    void *p = aligned_alloc(align, (n + align - 1) / align * align);
#ifdef MADV_HUGEPAGE
    if (p && align > 64) madvise(p, (n + align - 1) / align * align, MADV_HUGEPAGE);
#endif
    return p;
}

pg_status wmat_make(wmat *m, const float *src, int rows, int cols, wtype t) {
    memset(m, 0, sizeof *m);
    if (t == WT_Q8 && cols % Q8_GROUP) t = WT_F32;   /* odd widths stay f32 */
    m->rows = rows;
    m->cols = cols;
    m->type = t;
    size_t n = (size_t)rows * cols;
    if (t == WT_F32) {
        m->w = walloc(n * 4);
        if (!m->w) return PG_ERR_NOMEM;
        memcpy(m->w, src, n * 4);
    } else if (t == WT_BF16) {
        uint16_t *w = walloc(n * 2);
        if (!w) return PG_ERR_NOMEM;
        for (size_t i = 0; i < n; i++) w[i] = f32_to_bf16(src[i]);
        m->w = w;
    } else {
        int8_t *w = walloc(n);
        float *s = malloc(n / Q8_GROUP * sizeof *s + 1);
        if (!w || !s) { free(w); free(s); return PG_ERR_NOMEM; }
        for (size_t g = 0; g < n / Q8_GROUP; g++) {
            const float *p = src + g * Q8_GROUP;
            float amax = 0;
            for (int i = 0; i < Q8_GROUP; i++) amax = fmaxf(amax, fabsf(p[i]));
            float sc = amax / 127.0f, inv = sc > 0 ? 1.0f / sc : 0;
            s[g] = sc;
            for (int i = 0; i < Q8_GROUP; i++) w[g * Q8_GROUP + i] = (int8_t)lrintf(p[i] * inv);
        }
        m->w = w;
        m->scale = s;
    }
    return PG_OK;
}

void wmat_free(wmat *m) {
    free(m->w);
    free(m->scale);
    memset(m, 0, sizeof *m);
}

size_t wmat_bytes(const wmat *m) {
    size_t n = (size_t)m->rows * m->cols;
    return m->type == WT_F32 ? n * 4 : m->type == WT_BF16 ? n * 2 : n + n / Q8_GROUP * 4;
}

void wmat_row_f32(const wmat *m, int r, float *dst) {
    size_t off = (size_t)r * m->cols;
    if (m->type == WT_F32) memcpy(dst, (const float *)m->w + off, (size_t)m->cols * 4);
    else if (m->type == WT_BF16) {
        const uint16_t *w = (const uint16_t *)m->w + off;
        for (int i = 0; i < m->cols; i++) dst[i] = bf16_to_f32(w[i]);
    } else {
        const int8_t *w = (const int8_t *)m->w + off;
        const float *s = m->scale + off / Q8_GROUP;
        for (int i = 0; i < m->cols; i++) dst[i] = (float)w[i] * s[i / Q8_GROUP];
    }
}

/* Quantize one activation row for the q8 kernels: int8 values, a scale per group. */
static void quantize_row(const float *x, int k, int8_t *q, float *s) {
    for (int g = 0; g < k / Q8_GROUP; g++) {
        const float *p = x + g * Q8_GROUP;
        float amax = 0;
        for (int i = 0; i < Q8_GROUP; i++) amax = fmaxf(amax, fabsf(p[i]));
        float sc = amax / 127.0f, inv = sc > 0 ? 1.0f / sc : 0;
        s[g] = sc;
        for (int i = 0; i < Q8_GROUP; i++) q[g * Q8_GROUP + i] = (int8_t)lrintf(p[i] * inv);
    }
}

/* ---- kernel table ----------------------------------------------------------------- */
typedef struct {
    const char *name;
    int lanes, tx;       /* k must be a multiple of lanes; prefill tiles are 4 x tx */
    void (*dot4_f32)(const float *const w[4], const float *x, int k, float out[4]);
    void (*dot4_bf16)(const uint16_t *const w[4], const float *x, int k, float out[4]);
    void (*dot4_q8)(const int8_t *const w[4], const float *const ws[4], const int8_t *xq, const float *xs, int k,
                    float out[4]);
    void (*tile_f32)(const float *const w[4], const float *const *x, int k, float *out);
    void (*axpy)(float *y, float a, const float *x, int k);
} kern;

/* scalar: the reference and the fallback for any CPU or any width */
static void dot4_f32_scalar(const float *const w[4], const float *x, int k, float out[4]) {
    for (int r = 0; r < 4; r++) {
        float s = 0;
        for (int i = 0; i < k; i++) s += w[r][i] * x[i];
        out[r] = s;
    }
}
static void dot4_bf16_scalar(const uint16_t *const w[4], const float *x, int k, float out[4]) {
    for (int r = 0; r < 4; r++) {
        float s = 0;
        for (int i = 0; i < k; i++) s += bf16_to_f32(w[r][i]) * x[i];
        out[r] = s;
    }
}
static void dot4_q8_scalar(const int8_t *const w[4], const float *const ws[4], const int8_t *xq, const float *xs,
                           int k, float out[4]) {
    for (int r = 0; r < 4; r++) {
        float s = 0;
        for (int g = 0; g < k / Q8_GROUP; g++) {
            int32_t d = 0;
            for (int i = g * Q8_GROUP; i < (g + 1) * Q8_GROUP; i++) d += (int32_t)w[r][i] * xq[i];
            s += (float)d * ws[r][g] * xs[g];
        }
        out[r] = s;
    }
}
static void tile_f32_scalar(const float *const w[4], const float *const *x, int k, float *out) {
    for (int r = 0; r < 4; r++) {
        float s = 0;
        for (int i = 0; i < k; i++) s += w[r][i] * x[0][i];
        out[r] = s;
    }
}
static void axpy_scalar(float *y, float a, const float *x, int k) {
    for (int i = 0; i < k; i++) y[i] += a * x[i];
}
static const kern kern_scalar = {"scalar", 1, 1, dot4_f32_scalar, dot4_bf16_scalar, dot4_q8_scalar, tile_f32_scalar,
                                 axpy_scalar};

#ifdef HAVE_X86
/* ---- AVX2 + FMA --------------------------------------------------------------------- */
#define KATTR __attribute__((target("avx2,fma")))
#define KN(name) name##_avx2
#define V __m256
#define VL 8
#define TX 2
#define VZERO() _mm256_setzero_ps()
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSET1(a) _mm256_set1_ps(a)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VLOAD_BF16(p) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))), 16))
static KATTR float hsum_avx2(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#define VHSUM(v) hsum_avx2(v)
#include "kern_impl.h"
#undef KN
#undef V
#undef VL
#undef TX
#undef VZERO
#undef VLOAD
#undef VSTORE
#undef VSET1
#undef VFMA
#undef VLOAD_BF16
#undef VHSUM

/* int8 dot: |x| (unsigned) times sign(x)*w (signed), pairs summed to 16 then 32 bits */
static KATTR void dot4_q8_avx2(const int8_t *const w[4], const float *const ws[4], const int8_t *xq, const float *xs,
                               int k, float out[4]) {
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    const __m256i ones = _mm256_set1_epi16(1);
    for (int g = 0; g < k / Q8_GROUP; g++) {
        __m256i xv = _mm256_loadu_si256((const __m256i *)(xq + g * Q8_GROUP));
        __m256i ax = _mm256_sign_epi8(xv, xv);
        for (int r = 0; r < 4; r++) {
            __m256i wv = _mm256_loadu_si256((const __m256i *)(w[r] + g * Q8_GROUP));
            __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv, xv)), ones);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(xs[g] * ws[r][g]), acc[r]);
        }
    }
    for (int r = 0; r < 4; r++) out[r] = hsum_avx2(acc[r]);
}
#undef KATTR
static const kern kern_avx2 = {"avx2", 8, 2, dot4_f32_avx2, dot4_bf16_avx2, dot4_q8_avx2, tile_f32_avx2, axpy_avx2};

/* ---- AVX-512 (F, BW, VL, DQ, VNNI) ---------------------------------------------------- */
#define KATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma")))
#define KN(name) name##_avx512
#define V __m512
#define VL 16
#define TX 4
#define VZERO() _mm512_setzero_ps()
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSET1(a) _mm512_set1_ps(a)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VLOAD_BF16(p) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p))), 16))
#define VHSUM(v) _mm512_reduce_add_ps(v)
#include "kern_impl.h"

/* Two consecutive floats into the low lanes (memcpy: scales are only 4-byte aligned). */
static KATTR __m512 load2f(const float *p) {
    double d;
    memcpy(&d, p, sizeof d);
    return _mm512_castps128_ps512(_mm_castpd_ps(_mm_set_sd(d)));
}

/* Two 32-groups per 512-bit step: lanes 0-7 hold group g's int32 sums, 8-15 group g+1's. */
static KATTR void dot4_q8_avx512(const int8_t *const w[4], const float *const ws[4], const int8_t *xq, const float *xs,
                                 int k, float out[4]) {
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    const __m512i zero = _mm512_setzero_si512();
    const __m512i pair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    int g = 0, ng = k / Q8_GROUP;
    for (; g + 2 <= ng; g += 2) {
        __m512i xv = _mm512_loadu_si512(xq + g * Q8_GROUP);
        __m512i ax = _mm512_abs_epi8(xv);
        __mmask64 neg = _mm512_movepi8_mask(xv);
        __m512 xsv = _mm512_permutexvar_ps(pair, load2f(xs + g));
        for (int r = 0; r < 4; r++) {
            __m512i wv = _mm512_loadu_si512(w[r] + g * Q8_GROUP);
            __m512i sw = _mm512_mask_sub_epi8(wv, neg, zero, wv);
            __m512i d = _mm512_dpbusd_epi32(zero, ax, sw);
            __m512 wsv = _mm512_permutexvar_ps(pair, load2f(ws[r] + g));
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(xsv, wsv), acc[r]);
        }
    }
    for (int r = 0; r < 4; r++) out[r] = _mm512_reduce_add_ps(acc[r]);
    if (g < ng) {                              /* odd group count: the last one in scalar */
        for (int r = 0; r < 4; r++) {
            int32_t d = 0;
            for (int i = g * Q8_GROUP; i < k; i++) d += (int32_t)w[r][i] * xq[i];
            out[r] += (float)d * ws[r][g] * xs[g];
        }
    }
}
#undef KATTR
static const kern kern_avx512 = {"avx512", 16, 4, dot4_f32_avx512, dot4_bf16_avx512, dot4_q8_avx512, tile_f32_avx512, axpy_avx512};
#endif

static const kern *kern_best;
static pthread_once_t kern_once = PTHREAD_ONCE_INIT;

static void kern_pick(void) {
    kern_best = &kern_scalar;
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) kern_best = &kern_avx2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni"))
        kern_best = &kern_avx512;
#endif
}

const char *kernels_isa(void) {
    pthread_once(&kern_once, kern_pick);
    return kern_best->name;
}

bool kernels_force(const char *isa) {
    pthread_once(&kern_once, kern_pick);
    const kern *all[] = {
#ifdef HAVE_X86
        &kern_avx512, &kern_avx2,
#endif
        &kern_scalar};
    /* only downgrades: the picked family and everything below it is safe on this CPU */
    bool below = false;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        below |= all[i] == kern_best;
        if (below && !strcmp(all[i]->name, isa)) { kern_best = all[i]; return true; }
    }
    return false;
}

/* ---- attention helpers ------------------------------------------------------------------- */
void kern_dots(const float *rows, size_t stride, int nrows, const float *x, int k, float *out) {
    pthread_once(&kern_once, kern_pick);
    const kern *K = k % kern_best->lanes ? &kern_scalar : kern_best;
    int r = 0;
    for (; r + 4 <= nrows; r += 4) {
        const float *w[4] = {rows + r * stride, rows + (r + 1) * stride, rows + (r + 2) * stride, rows + (r + 3) * stride};
        K->dot4_f32(w, x, k, out + r);
    }
    if (r < nrows) {
        float o[4];
        const float *w[4];
        for (int i = 0; i < 4; i++) w[i] = rows + (r + i < nrows ? r + i : r) * stride;
        K->dot4_f32(w, x, k, o);
        for (int i = 0; r + i < nrows; i++) out[r + i] = o[i];
    }
}

void kern_axpy(float *y, float a, const float *x, int k) {
    pthread_once(&kern_once, kern_pick);
    (k % kern_best->lanes ? &kern_scalar : kern_best)->axpy(y, a, x, k);
}

/* ---- matmul ----------------------------------------------------------------------------- */
typedef struct {
    const kern *K;
    float *out;
    int ldo, ldx, n;
    const float *x;
    const wmat *m;
    const int8_t *xq;      /* q8 decode: quantized x [n][cols] and scales [n][cols/32] */
    const float *xs;
} mm_job;

/* The 4-row blocks [b0, b1) of thread ith out of nth. */
static void my_blocks(int rows, int ith, int nth, int *b0, int *b1) {
    int nb = (rows + 3) / 4;
    *b0 = (int)((long)nb * ith / nth);
    *b1 = (int)((long)nb * (ith + 1) / nth);
}

/* Rows past the end point at row 0 (valid memory); their results are dropped. */
static int clamp_row(int r, int rows) { return r < rows ? r : 0; }

static void mm_decode(void *arg, int ith, int nth) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int b0, b1, k = m->cols;
    my_blocks(m->rows, ith, nth, &b0, &b1);
    for (int b = b0; b < b1; b++) {
        int r0 = b * 4;
        for (int j = 0; j < J->n; j++) {
            float o[4];
            if (m->type == WT_F32) {
                const float *w[4];
                for (int r = 0; r < 4; r++) w[r] = (const float *)m->w + (size_t)clamp_row(r0 + r, m->rows) * k;
                J->K->dot4_f32(w, J->x + (size_t)j * J->ldx, k, o);
            } else if (m->type == WT_BF16) {
                const uint16_t *w[4];
                for (int r = 0; r < 4; r++) w[r] = (const uint16_t *)m->w + (size_t)clamp_row(r0 + r, m->rows) * k;
                J->K->dot4_bf16(w, J->x + (size_t)j * J->ldx, k, o);
            } else {
                const int8_t *w[4];
                const float *ws[4];
                for (int r = 0; r < 4; r++) {
                    size_t row = (size_t)clamp_row(r0 + r, m->rows);
                    w[r] = (const int8_t *)m->w + row * k;
                    ws[r] = m->scale + row * (k / Q8_GROUP);
                }
                J->K->dot4_q8(w, ws, J->xq + (size_t)j * k, J->xs + (size_t)j * (k / Q8_GROUP), k, o);
            }
            float *dst = J->out + (size_t)j * J->ldo;
            for (int r = 0; r < 4 && r0 + r < m->rows; r++) dst[r0 + r] = o[r];
        }
    }
}

static void mm_prefill(void *arg, int ith, int nth) {
    const mm_job *J = arg;
    const wmat *m = J->m;
    int b0, b1, k = m->cols, tx = J->K->tx;
    my_blocks(m->rows, ith, nth, &b0, &b1);
    float *wbuf = m->type == WT_F32 ? NULL : aligned_alloc(64, (size_t)4 * k * sizeof(float));
    if (m->type != WT_F32 && !wbuf) abort();   /* 16 KB for k = 1024; nothing sane to recover */
    for (int b = b0; b < b1; b++) {
        int r0 = b * 4;
        const float *w[4];
        for (int r = 0; r < 4; r++) {
            int row = clamp_row(r0 + r, m->rows);
            if (m->type == WT_F32) w[r] = (const float *)m->w + (size_t)row * k;
            else {
                wmat_row_f32(m, row, wbuf + (size_t)r * k);
                w[r] = wbuf + (size_t)r * k;
            }
        }
        for (int j0 = 0; j0 < J->n; j0 += tx) {
            const float *x[8];
            float o[4 * 8];
            for (int j = 0; j < tx; j++) x[j] = J->x + (size_t)(j0 + j < J->n ? j0 + j : j0) * J->ldx;
            J->K->tile_f32(w, x, k, o);
            for (int j = 0; j < tx && j0 + j < J->n; j++) {
                float *dst = J->out + (size_t)(j0 + j) * J->ldo;
                for (int r = 0; r < 4 && r0 + r < m->rows; r++) dst[r0 + r] = o[r * tx + j];
            }
        }
    }
    free(wbuf);
}

void matmul(pg_pool *p, float *out, int ldo, const float *x, int ldx, int n, const wmat *m) {
    pthread_once(&kern_once, kern_pick);
    mm_job J = {kern_best, out, ldo, ldx, n, x, m, NULL, NULL};
    if (m->cols % J.K->lanes) J.K = &kern_scalar;
    if (n >= 4) {
        pool_run(p, mm_prefill, &J);
        return;
    }
    int8_t *xq = NULL;
    float *xs = NULL;
    if (m->type == WT_Q8) {
        xq = malloc((size_t)n * m->cols);
        xs = malloc((size_t)n * (m->cols / Q8_GROUP) * sizeof *xs);
        if (!xq || !xs) abort();
        for (int j = 0; j < n; j++)
            quantize_row(x + (size_t)j * ldx, m->cols, xq + (size_t)j * m->cols, xs + (size_t)j * (m->cols / Q8_GROUP));
        J.xq = xq;
        J.xs = xs;
    }
    pool_run(p, mm_decode, &J);
    free(xq);
    free(xs);
}
