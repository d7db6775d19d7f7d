/* fakecuda.c — a stand-in for libcuda and libcublas on a machine without a GPU, for
 * tests/gpu_engine_fake.sh: "device" memory is host memory, every launch of the GPU engine's
 * kernels (src/model/gpu_ptx.c) runs a C version of what the kernel's comment says, stream
 * capture records launches and a graph replays them, cublasGemmEx is a plain loop over f16
 * inputs.  It checks the engine's host half (gpu.c, model.c's dispatch: buffers, offsets, row
 * descriptors, kept logits rows, the graph path, GemmEx's arguments) against the CPU engine;
 * the PTX itself is checked by libptx and ptxas (test_gpu_ptx) and on the GPU
 * (tests/gpu/engine_gpu.sh).  Build: cc -shared -fPIC -o DIR/libcuda.so.1 fakecuda.c -lm */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

/* ---- numbers -------------------------------------------------------------------------- */
static float h2f_(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    if (e == 0) {
        float f = ldexpf((float)m, -24);
        return s ? -f : f;
    }
    if (e == 31) x = s | 0x7f800000 | (m << 13);
    else x = s | ((e + 112) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}
static float h2f_table[65536];
__attribute__((constructor)) static void h2f_init(void) {
    for (unsigned i = 0; i < 65536; i++) h2f_table[i] = h2f_((uint16_t)i);
}
static inline float h2f(uint16_t h) { return h2f_table[h]; }
static uint16_t f2h(float f) {   /* round to nearest even */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, m = x & 0x7fffff;
    int E = (int)((x >> 23) & 0xff), e = E - 112;
    if (E == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        uint32_t mm = m | 0x800000, sh = (uint32_t)(14 - e), v = mm >> sh, rem = mm & ((1u << sh) - 1), half = 1u << (sh - 1);
        if (rem > half || (rem == half && (v & 1))) v++;
        return (uint16_t)(sign | v);
    }
    uint32_t v = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (v & 1))) v++;
    return (uint16_t)(sign | v);
}
#define P(i, T) (*(T *)args[i])
#define F32(p) ((float *)(uintptr_t)(p))
#define F16(p) ((uint16_t *)(uintptr_t)(p))
typedef struct { CUdeviceptr k, v; uint32_t pos, max; } rowdesc;

/* ---- the kernels, as their comments in gpu_ptx.c say ---------------------------------------- */
static void k_embed(void **args, unsigned gx, unsigned gy) {
    (void)gy;
    float *out = F32(P(0, CUdeviceptr));
    uint16_t *tab = F16(P(1, CUdeviceptr));
    uint32_t *toks = (uint32_t *)(uintptr_t)P(2, CUdeviceptr), H = P(3, uint32_t);
    for (unsigned r = 0; r < gx; r++)
        for (uint32_t i = 0; i < H; i++) out[(size_t)r * H + i] = h2f(tab[(size_t)toks[r] * H + i]);
}
static void k_rmsnorm(void **args, unsigned gx, unsigned gy) {
    (void)gy;
    float *out = F32(P(0, CUdeviceptr)), *x = F32(P(2, CUdeviceptr)), *w = F32(P(3, CUdeviceptr));
    uint16_t *o16 = F16(P(1, CUdeviceptr));
    uint32_t H = P(4, uint32_t);
    float eps = P(5, float);
    for (unsigned r = 0; r < gx; r++) {
        double ss = 0;
        for (uint32_t i = 0; i < H; i++) ss += (double)x[(size_t)r * H + i] * x[(size_t)r * H + i];
        float sc = 1.0f / sqrtf((float)(ss / H) + eps);
        for (uint32_t i = 0; i < H; i++) {
            float v = x[(size_t)r * H + i] * sc * w[i];
            out[(size_t)r * H + i] = v;
            if (o16) o16[(size_t)r * H + i] = f2h(v);
        }
    }
}
static void k_matvec(void **args, unsigned gx, unsigned gy) {
    float *y = F32(P(0, CUdeviceptr)), *x = F32(P(2, CUdeviceptr));
    uint16_t *w = F16(P(1, CUdeviceptr));
    uint32_t rows = P(3, uint32_t), cols = P(4, uint32_t), acc = P(5, uint32_t), ldx = P(6, uint32_t), ldy = P(7, uint32_t);
    float *nw = F32(P(8, CUdeviceptr)), eps = P(9, float);
    if (gy * 8 < rows) { fprintf(stderr, "fakecuda: pg_matvec grid %u too small for %u rows\n", gy, rows); abort(); }
    float *xn = malloc(cols * sizeof *xn);
    for (unsigned j = 0; j < gx; j++) {   /* grid: x the activation rows, y the blocks of 8 output rows */
        const float *xr = x + (size_t)j * ldx;
        float sc = 1;
        if (nw) {   /* the input RMS-normed first */
            float ss = 0;
            for (uint32_t c = 0; c < cols; c++) ss += xr[c] * xr[c];
            sc = 1.0f / sqrtf(ss / (float)cols + eps);
        }
        for (uint32_t c = 0; c < cols; c++) xn[c] = nw ? xr[c] * sc * nw[c] : xr[c];
        for (uint32_t r = 0; r < rows; r++) {
            float s = 0;
            for (uint32_t c = 0; c < cols; c++) s += h2f(w[(size_t)r * cols + c]) * xn[c];
            float *d = &y[(size_t)j * ldy + r];
            *d = acc ? *d + s : s;
        }
    }
    free(xn);
}
static void k_qkv_rope(void **args, unsigned gx, unsigned gy) {
    (void)gy;
    float *qkv = F32(P(0, CUdeviceptr)), *bias = F32(P(1, CUdeviceptr)), *cs = F32(P(3, CUdeviceptr)), *sn = F32(P(4, CUdeviceptr));
    rowdesc *rd = (rowdesc *)(uintptr_t)P(2, CUdeviceptr);
    uint32_t l = P(5, uint32_t), nh = P(6, uint32_t), nkv = P(7, uint32_t), hd = P(8, uint32_t), adj = P(9, uint32_t), h2 = hd / 2;
    uint32_t W = (nh + 2 * nkv) * hd;
    for (unsigned r = 0; r < gx; r++) {
        float *q = qkv + (size_t)r * W, *K = F32(rd[r].k), *Vc = F32(rd[r].v);
        uint32_t pos = rd[r].pos, mx = rd[r].max;
        if (pos >= mx) { fprintf(stderr, "fakecuda: row %u at position %u of a %u-position cache\n", r, pos, mx); abort(); }
        if (bias)
            for (uint32_t i = 0; i < W; i++) q[i] += bias[i];
        for (uint32_t hh = 0; hh < nh + nkv; hh++)
            for (uint32_t i = 0; i < h2; i++) {
                uint32_t da = adj ? 2 * i : i, db = adj ? 2 * i + 1 : i + h2;
                float x0 = q[hh * hd + da], x1 = q[hh * hd + db], c = cs[(size_t)pos * h2 + i], s = sn[(size_t)pos * h2 + i];
                float r0 = x0 * c - x1 * s, r1 = x1 * c + x0 * s;
                q[hh * hd + da] = r0;
                q[hh * hd + db] = r1;
                if (hh >= nh) {
                    float *kb = K + (((size_t)l * nkv + (hh - nh)) * mx + pos) * hd;
                    kb[da] = r0;
                    kb[db] = r1;
                }
            }
        for (uint32_t i = 0; i < nkv * hd; i++) {
            uint32_t kh = i / hd, d = i % hd;
            Vc[(((size_t)l * nkv + kh) * mx + pos) * hd + d] = q[(nh + nkv) * hd + i];
        }
    }
}
static void k_attention(void **args, unsigned gx, unsigned gy) {
    float *out = F32(P(0, CUdeviceptr)), *qkv = F32(P(2, CUdeviceptr));
    uint16_t *o16 = F16(P(1, CUdeviceptr));
    rowdesc *rd = (rowdesc *)(uintptr_t)P(3, CUdeviceptr);
    uint32_t l = P(4, uint32_t), nh = P(5, uint32_t), nkv = P(6, uint32_t), hd = P(7, uint32_t);
    float scale = P(8, float);
    uint32_t W = (nh + 2 * nkv) * hd, ng = nh / nkv;
    if (gx != nh) { fprintf(stderr, "fakecuda: pg_attention grid.x %u, %u heads\n", gx, nh); abort(); }
    for (unsigned r = 0; r < gy; r++)
        for (uint32_t h = 0; h < nh; h++) {
            uint32_t T = rd[r].pos + 1, kvh = h / ng, mx = rd[r].max;
            const float *q = qkv + (size_t)r * W + h * hd;
            const float *K = F32(rd[r].k) + ((size_t)l * nkv + kvh) * mx * hd, *V = F32(rd[r].v) + ((size_t)l * nkv + kvh) * mx * hd;
            float *sc = malloc(T * sizeof *sc), m = -INFINITY, sum = 0;
            for (uint32_t j = 0; j < T; j++) {
                float s = 0;
                for (uint32_t d = 0; d < hd; d++) s += q[d] * scale * K[(size_t)j * hd + d];
                sc[j] = s;
                if (s > m) m = s;
            }
            for (uint32_t j = 0; j < T; j++) sum += sc[j] = expf(sc[j] - m);
            for (uint32_t d = 0; d < hd; d++) {
                float o = 0;
                for (uint32_t j = 0; j < T; j++) o += sc[j] * V[(size_t)j * hd + d];
                o /= sum;
                out[(size_t)r * nh * hd + h * hd + d] = o;
                if (o16) o16[(size_t)r * nh * hd + h * hd + d] = f2h(o);
            }
            free(sc);
        }
}
static void k_silu_mul(void **args, unsigned gx, unsigned gy) {
    float *h = F32(P(0, CUdeviceptr)), *gu = F32(P(2, CUdeviceptr));
    uint16_t *h16 = F16(P(1, CUdeviceptr));
    uint32_t I = P(3, uint32_t);
    if (gx * 256 < I) { fprintf(stderr, "fakecuda: pg_silu_mul grid %u too small for %u\n", gx, I); abort(); }
    for (unsigned r = 0; r < gy; r++)
        for (uint32_t i = 0; i < I; i++) {
            float g = gu[(size_t)r * 2 * I + i], u = gu[(size_t)r * 2 * I + I + i], v = g / (1.0f + expf(-g)) * u;
            h[(size_t)r * I + i] = v;
            if (h16) h16[(size_t)r * I + i] = f2h(v);
        }
}

/* pg_topk: block (g, r) takes part g of row r (entries [g seg, +seg), or the whole row when seg is 0):
 * its 64 largest finite logits, logit descending, ties lower id first; padding (-inf, ~0); an id is
 * the entry's index in the part plus g seg, or idmap[r V + index] */
static void k_topk(void **args, unsigned gx, unsigned gy) {
    float *vals = F32(P(0, CUdeviceptr));
    uint32_t *ids = (uint32_t *)(uintptr_t)P(1, CUdeviceptr), V = P(3, uint32_t), seg = P(4, uint32_t);
    CUdeviceptr *rows = (CUdeviceptr *)(uintptr_t)P(2, CUdeviceptr);
    const uint32_t *map = (const uint32_t *)(uintptr_t)P(5, CUdeviceptr);
    if (!seg && gx != 1) { fprintf(stderr, "fakecuda: pg_topk of whole rows with %u parts\n", gx); abort(); }
    for (unsigned r = 0; r < gy; r++)
        for (unsigned g = 0; g < gx; g++) {
            uint32_t base = g * seg, len = seg ? (V - base < seg ? V - base : seg) : V;
            if (seg && base >= V) { fprintf(stderr, "fakecuda: pg_topk part %u starts past the row\n", g); abort(); }
            const float *x = F32(rows[r]) + base;
            float *v = vals + ((size_t)r * gx + g) * 64;
            uint32_t *id = ids + ((size_t)r * gx + g) * 64;
            int m = 0;
            for (uint32_t i = 0; i < len; i++) {
                float f = x[i];
                if (isnan(f) || f == -INFINITY || (m == 64 && !(f > v[63]))) continue;   /* equal: the earlier id stays */
                int j = m < 64 ? m++ : 63;
                while (j > 0 && f > v[j - 1]) { v[j] = v[j - 1]; id[j] = id[j - 1]; j--; }
                v[j] = f;
                id[j] = map ? map[(size_t)r * V + i] : base + i;
            }
            for (; m < 64; m++) { v[m] = -INFINITY; id[m] = 0xffffffffu; }
        }
}

/* pg_attn_split: block (32 kvh + s, r) takes split s of row r's T = pos + 1 positions (L =
 * ceil(ceil(T / 32) / 32) 32 a split; none past T) for the query heads of KV head kvh, and writes each
 * head's partial {max score, sum of exp, unnormalized output[hd]} at part[((r nh + h) 32 + s) (hd + 2)] */
static uint32_t split_len(uint32_t T) { return ((T + 31) / 32 + 31) / 32 * 32; }
static void k_attn_split(void **args, unsigned gx, unsigned gy) {
    float *part = F32(P(0, CUdeviceptr)), *qkv = F32(P(1, CUdeviceptr));
    rowdesc *rd = (rowdesc *)(uintptr_t)P(2, CUdeviceptr);
    uint32_t l = P(3, uint32_t), nh = P(4, uint32_t), nkv = P(5, uint32_t), hd = P(6, uint32_t);
    float scale = P(7, float);
    uint32_t W = (nh + 2 * nkv) * hd, ng = nh / nkv;
    if (gx != 32 * nkv || ng > 8) { fprintf(stderr, "fakecuda: pg_attn_split grid.x %u, %u KV heads of %u\n", gx, nkv, ng); abort(); }
    for (unsigned r = 0; r < gy; r++)
        for (uint32_t b = 0; b < gx; b++) {
            uint32_t kvh = b / 32, sp = b % 32, T = rd[r].pos + 1, L = split_len(T), lo = sp * L, mx = rd[r].max;
            if (lo >= T) continue;
            uint32_t hi = lo + L < T ? lo + L : T;
            const float *K = F32(rd[r].k) + ((size_t)l * nkv + kvh) * mx * hd, *V = F32(rd[r].v) + ((size_t)l * nkv + kvh) * mx * hd;
            for (uint32_t h = kvh * ng; h < kvh * ng + ng; h++) {
                const float *q = qkv + (size_t)r * W + h * hd;
                float *pp = part + (((size_t)r * nh + h) * 32 + sp) * (hd + 2), m = -INFINITY, sum = 0;
                float *sc = malloc((hi - lo) * sizeof *sc);
                for (uint32_t j = lo; j < hi; j++) {
                    float s = 0;
                    for (uint32_t d = 0; d < hd; d++) s += q[d] * scale * K[(size_t)j * hd + d];
                    sc[j - lo] = s;
                    if (s > m) m = s;
                }
                for (uint32_t j = lo; j < hi; j++) sum += sc[j - lo] = expf(sc[j - lo] - m);
                pp[0] = m;
                pp[1] = sum;
                for (uint32_t d = 0; d < hd; d++) {
                    float o = 0;
                    for (uint32_t j = lo; j < hi; j++) o += sc[j - lo] * V[(size_t)j * hd + d];
                    pp[2 + d] = o;
                }
                free(sc);
            }
        }
}
/* pg_attn_merge: block (h, r): out = sum_s e_s acc_s / sum_s e_s l_s over row r's splits, e_s = exp(m_s - max m) */
static void k_attn_merge(void **args, unsigned gx, unsigned gy) {
    float *out = F32(P(0, CUdeviceptr)), *part = F32(P(2, CUdeviceptr));
    uint16_t *o16 = F16(P(1, CUdeviceptr));
    rowdesc *rd = (rowdesc *)(uintptr_t)P(3, CUdeviceptr);
    uint32_t nh = P(4, uint32_t), hd = P(5, uint32_t);
    if (gx != nh) { fprintf(stderr, "fakecuda: pg_attn_merge grid.x %u, %u heads\n", gx, nh); abort(); }
    for (unsigned r = 0; r < gy; r++)
        for (uint32_t h = 0; h < nh; h++) {
            uint32_t T = rd[r].pos + 1, L = split_len(T), ns = (T + L - 1) / L;
            const float *pp = part + ((size_t)r * nh + h) * 32 * (hd + 2);
            float M = -INFINITY;
            for (uint32_t s = 0; s < ns; s++) M = fmaxf(M, pp[s * (hd + 2)]);
            for (uint32_t d = 0; d < hd; d++) {
                float num = 0, den = 0;
                for (uint32_t s = 0; s < ns; s++) {
                    float e = expf(pp[s * (hd + 2)] - M);
                    den += e * pp[s * (hd + 2) + 1];
                    num += e * pp[s * (hd + 2) + 2 + d];
                }
                float o = num / den;
                out[(size_t)r * nh * hd + h * hd + d] = o;
                if (o16) o16[(size_t)r * nh * hd + h * hd + d] = f2h(o);
            }
        }
}

/* pg_matvec_q8: W[r][c] = q[r][c] * d[r][c / 32] (gpu.c's q8 layout: int8 q [rows][cols], f16 d [rows][cols / 32]) */
static void k_matvec_q8(void **args, unsigned gx, unsigned gy) {
    float *y = F32(P(0, CUdeviceptr)), *x = F32(P(3, CUdeviceptr));
    const int8_t *q = (const int8_t *)(uintptr_t)P(1, CUdeviceptr);
    uint16_t *d = F16(P(2, CUdeviceptr));
    uint32_t rows = P(4, uint32_t), cols = P(5, uint32_t), acc = P(6, uint32_t), ldx = P(7, uint32_t), ldy = P(8, uint32_t);
    float *nw = F32(P(9, CUdeviceptr)), eps = P(10, float);
    if (gy * 8 < rows) { fprintf(stderr, "fakecuda: pg_matvec_q8 grid %u too small for %u rows\n", gy, rows); abort(); }
    if (cols % 32 || (CUdeviceptr)(uintptr_t)d != P(1, CUdeviceptr) + (CUdeviceptr)rows * cols) {
        fprintf(stderr, "fakecuda: pg_matvec_q8: %u columns, scales not right after the codes\n", cols);
        abort();
    }
    float *xn = malloc(cols * sizeof *xn);
    for (unsigned j = 0; j < gx; j++) {
        const float *xr = x + (size_t)j * ldx;
        float sc = 1;
        if (nw) {
            float ss = 0;
            for (uint32_t c = 0; c < cols; c++) ss += xr[c] * xr[c];
            sc = 1.0f / sqrtf(ss / (float)cols + eps);
        }
        for (uint32_t c = 0; c < cols; c++) xn[c] = nw ? xr[c] * sc * nw[c] : xr[c];
        for (uint32_t r = 0; r < rows; r++) {
            float s = 0;
            for (uint32_t c = 0; c < cols; c++) s += (float)q[(size_t)r * cols + c] * h2f(d[(size_t)r * (cols / 32) + c / 32]) * xn[c];
            float *o = &y[(size_t)j * ldy + r];
            *o = acc ? *o + s : s;
        }
    }
    free(xn);
}

#define MAXARGS 12
typedef struct { const char *name; void (*run)(void **, unsigned, unsigned); unsigned block; int nargs; size_t argsz[MAXARGS]; } kern;
static kern kerns[] = {   /* the block size and parameters each kernel declares */
    {"pg_embed", k_embed, 256, 4, {8, 8, 8, 4}},
    {"pg_rmsnorm", k_rmsnorm, 256, 6, {8, 8, 8, 8, 4, 4}},
    {"pg_matvec", k_matvec, 256, 10, {8, 8, 8, 4, 4, 4, 4, 4, 8, 4}},
    {"pg_qkv_rope", k_qkv_rope, 256, 10, {8, 8, 8, 8, 8, 4, 4, 4, 4, 4}},
    {"pg_attention", k_attention, 512, 9, {8, 8, 8, 8, 4, 4, 4, 4, 4}},
    {"pg_silu_mul", k_silu_mul, 256, 4, {8, 8, 8, 4}},
    {"pg_topk", k_topk, 256, 6, {8, 8, 8, 4, 4, 8}},
    {"pg_attn_split", k_attn_split, 256, 8, {8, 8, 8, 4, 4, 4, 4, 4}},
    {"pg_attn_merge", k_attn_merge, 256, 6, {8, 8, 8, 8, 4, 4}},
    {"pg_matvec_q8", k_matvec_q8, 256, 11, {8, 8, 8, 8, 4, 4, 4, 4, 4, 8, 4}},
};

/* ---- the driver ---------------------------------------------------------------------------- */
typedef struct { kern *k; unsigned gx, gy; unsigned char vals[MAXARGS][8]; } rec;
typedef struct { rec *r; int n, cap; } graph;
static graph *capturing;
static long launches, graph_launches;

/* The real driver's fork rule: a child forked after its parent's cuInit cannot use CUDA
 * (its cuInit fails).  The pid that initialised is inherited by a fork, as the driver's state is. */
static pid_t init_pid;
CUresult cuInit(unsigned flags) {
    (void)flags;
    CUresult r = init_pid && init_pid != getpid() ? 3 : 0;   /* CUDA_ERROR_NOT_INITIALIZED */
    if (!r) init_pid = getpid();
    const char *p = getenv("FAKECUDA_INITLOG");   /* every cuInit and its result, one line each (tests read it) */
    FILE *f = p ? fopen(p, "a") : NULL;
    if (f) { fprintf(f, "cuInit pid %ld -> %d\n", (long)getpid(), r); fclose(f); }
    return r;
}
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
CUresult cuDeviceGetName(char *s, int n, int d) { (void)d; snprintf(s, (size_t)n, "fakecuda"); return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = (void *)1; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
CUresult cuCtxSetCurrent(void *c) { (void)c; return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = *t = (size_t)1 << 36; return 0; }
/* The harness's kernels (-DFAKECUDA_HARNESS with $FAKECUDA_TASK_KERNEL=NAME): a module whose
 * entry is NAME runs ew_silu (out[i] = a[i] * sigmoid(a[i]) for (a, out, n), bench/suite/ew_silu)
 * in one of four ways.  nvcc's PTX (it names NVVM) is "b", the baseline: right.  Any other module
 * (a candidate) takes the next letter of $FAKECUDA_VERDICTS (cycled; "c" by default) by how many
 * candidates $FAKECUDA_INITLOG has logged, across processes: "c" right, "w" wrong values, "t" a trap
 * (the launch poisons the context as an illegal address does: every later call fails with 700,
 * so a harness that kept using the context would misjudge the next kernel), "h" a hang (the launch
 * never returns), "s" right but with a stray write far outside its buffers: 1234.5f into the first
 * word of every other live allocation (no guard zone sees it; the harness's resident input sets do),
 * "l" right below n = 65536 and wrong from there (a failure only a large input set shows).  Each load is logged
 * ("load candidate c pid N", "load baseline pid N").  nvcc's PTX that names fakecuda_wrong (a test plan's
 * `__device__ int fakecuda_wrong;`, src/pipeline/test_pipeline.c) runs wrong ("load plan-wrong pid N"), one
 * that names fakecuda_trap traps as "t" does ("load plan-trap pid N"). */
static int nhmods;   /* harness modules loaded (-DFAKECUDA_HARNESS) */
#ifdef FAKECUDA_HARNESS
static CUresult sticky;   /* the context's error after a trap */
static void k_silu_right(void **args, unsigned gx, unsigned gy) {
    (void)gx; (void)gy;
    float *a = F32(P(0, CUdeviceptr)), *out = F32(P(1, CUdeviceptr));
    uint32_t n = P(2, uint32_t);
    for (uint32_t i = 0; i < n; i++) out[i] = a[i] / (1.0f + expf(-a[i]));
}
static void k_silu_wrong(void **args, unsigned gx, unsigned gy) {
    k_silu_right(args, gx, gy);
    float *out = F32(P(1, CUdeviceptr));
    uint32_t n = P(2, uint32_t);
    for (uint32_t i = 0; i < n; i++) out[i] += 0.5f;
}
/* live cuMemAlloc allocations, for "s" */
static struct { uintptr_t p; size_t n; } allocs_live[4096];
static int nallocs_live;
static void k_silu_stray(void **args, unsigned gx, unsigned gy) {
    k_silu_right(args, gx, gy);
    uintptr_t a = (uintptr_t)P(0, CUdeviceptr), o = (uintptr_t)P(1, CUdeviceptr);
    for (int i = 0; i < nallocs_live; i++) {
        uintptr_t b = allocs_live[i].p, e = b + allocs_live[i].n;
        if (allocs_live[i].n < 4 || (a >= b && a < e) || (o >= b && o < e)) continue;
        float v = 1234.5f;
        memcpy((void *)b, &v, 4);
    }
}
/* "l": right on the small sizes, wrong values (as "w") from n = 65536 on: a failure found only on a large set */
static void k_silu_large_wrong(void **args, unsigned gx, unsigned gy) {
    if (P(2, uint32_t) < 65536) k_silu_right(args, gx, gy);
    else k_silu_wrong(args, gx, gy);
}
static void k_trap(void **args, unsigned gx, unsigned gy) { (void)args; (void)gx; (void)gy; sticky = 700; }
static void k_hang(void **args, unsigned gx, unsigned gy) {
    (void)args; (void)gx; (void)gy;
    for (;;) pause();
}
static kern hkerns[] = {{"right", k_silu_right, 0, 3, {8, 8, 4}}, {"wrong", k_silu_wrong, 0, 3, {8, 8, 4}}, {"trap", k_trap, 0, 3, {8, 8, 4}},
                        {"hang", k_hang, 0, 3, {8, 8, 4}}, {"stray", k_silu_stray, 0, 3, {8, 8, 4}},
                        {"large-wrong", k_silu_large_wrong, 0, 3, {8, 8, 4}}};
static kern *hmods[64];   /* module handles (void *)(16 + i) -> their kernel */
static int candidates_logged(const char *log) {
    FILE *f = log ? fopen(log, "r") : NULL;
    int n = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f)) n += !strncmp(line, "load candidate", 14);
    if (f) fclose(f);
    return n;
}
static CUresult harness_load(void **m, const char *img) {
    const char *name = getenv("FAKECUDA_TASK_KERNEL"), *log = getenv("FAKECUDA_INITLOG");
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", name ? name : "");
    if (sticky) return sticky;
    if (!name || !strstr(img, entry) || nhmods == 64) return 218;
    bool base = strstr(img, "NVVM") != NULL;
    bool plan_wrong = base && strstr(img, "fakecuda_wrong") != NULL;   /* nvcc's PTX of a test plan that runs wrong */
    bool plan_trap = base && strstr(img, "fakecuda_trap") != NULL;     /* ... that traps */
    const char *v = getenv("FAKECUDA_VERDICTS");
    if (!v || !*v) v = "c";
    char cls = plan_wrong ? 'w' : plan_trap ? 't' : base ? 'b' : v[candidates_logged(log) % (int)strlen(v)];
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        if (plan_wrong) fprintf(f, "load plan-wrong pid %ld\n", (long)getpid());
        else if (plan_trap) fprintf(f, "load plan-trap pid %ld\n", (long)getpid());
        else if (base) fprintf(f, "load baseline pid %ld\n", (long)getpid());
        else fprintf(f, "load candidate %c pid %ld\n", cls, (long)getpid());
        fclose(f);
    }
    hmods[nhmods] = cls == 'w' ? &hkerns[1] : cls == 't' ? &hkerns[2] : cls == 'h' ? &hkerns[3] : cls == 's' ? &hkerns[4]
                  : cls == 'l' ? &hkerns[5] : &hkerns[0];
    *m = (void *)(uintptr_t)(16 + nhmods++);
    return 0;
}
#define STICKY() do { if (sticky) return sticky; } while (0)
#else
static CUresult harness_load(void **m, const char *img) { (void)m; (void)img; return 218; }
#define STICKY() do { } while (0)
#endif
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) {
    (void)n; (void)o; (void)v;
    if (!strstr(img, ".entry pg_matvec(")) return harness_load(m, img);   /* else CUDA_ERROR_INVALID_PTX */
    *m = (void *)2;
    return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
#ifdef FAKECUDA_HARNESS
    uintptr_t h = (uintptr_t)m;
    if (h >= 16 && h < 16 + (uintptr_t)nhmods) { *f = hmods[h - 16]; return 0; }
#endif
    (void)m;
    for (size_t i = 0; i < sizeof kerns / sizeof *kerns; i++)
        if (!strcmp(kerns[i].name, name)) { *f = &kerns[i]; return 0; }
    return 500;   /* CUDA_ERROR_NOT_FOUND */
}
CUresult cuModuleUnload(void *m) { (void)m; return 0; }
/* What a harness process asked of the device (-DFAKECUDA_HARNESS): bytes host to device, device to
 * host, device to device, cuMemAlloc calls and waits (cuCtxSynchronize, cuEventSynchronize).  A process
 * that loaded a harness kernel keeps its totals in $FAKECUDA_COPYLOG.<pid> ("htod N dtoh N dtod N allocs
 * N syncs N"), rewritten after each counted call (the harness's processes end in _exit: no destructor),
 * so a test counts them independently of the harness's own counts. */
static unsigned long long n_htod, n_dtoh, n_dtod, n_alloc, n_sync;
static void copylog(void) {
    const char *p = getenv("FAKECUDA_COPYLOG");
    if (!p || !nhmods) return;
    char path[600];
    snprintf(path, sizeof path, "%s.%ld", p, (long)getpid());
    FILE *f = fopen(path, "w");
    if (f) { fprintf(f, "htod %llu dtoh %llu dtod %llu allocs %llu syncs %llu\n", n_htod, n_dtoh, n_dtod, n_alloc, n_sync); fclose(f); }
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    STICKY();
    n_alloc++;
    copylog();
    void *q = calloc(1, n);
    if (!q) return 2;
    memset(q, 0xA5, n);   /* not zero: a read before a write shows */
    *p = (CUdeviceptr)(uintptr_t)q;
#ifdef FAKECUDA_HARNESS
    if (nallocs_live < 4096) { allocs_live[nallocs_live].p = (uintptr_t)q; allocs_live[nallocs_live++].n = n; }
#endif
    return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
#ifdef FAKECUDA_HARNESS
    for (int i = 0; i < nallocs_live; i++)
        if (allocs_live[i].p == (uintptr_t)p) { allocs_live[i] = allocs_live[--nallocs_live]; break; }
#endif
    free((void *)(uintptr_t)p);
    return 0;
}
CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = malloc(n); return *p ? 0 : 2; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { STICKY(); n_htod += n; copylog(); memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) { (void)st; return capturing ? 900 : cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) { (void)st; memcpy(d, (void *)(uintptr_t)s, n); return capturing ? 900 : 0; }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { (void)st; memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return capturing ? 900 : 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shm, void *st,
                        void **args, void **extra) {
    (void)st; (void)extra;
    kern *k = f;
    STICKY();
    if (!k->block) {   /* a harness kernel: any shape */
        launches++;
        k->run(args, gx, gy);
        return 0;
    }
    static long launches;   /* $FAKECUDA_ABORT_AT=N: the N-th launch aborts the process (a crashing engine) */
    const char *ab = getenv("FAKECUDA_ABORT_AT");
    if (ab && ++launches == atol(ab)) abort();
    if (gz != 1 || bx != k->block || by != 1 || bz != 1 || shm || !gx || !gy || gy > 65535) return 1;   /* the kernels' fixed shape */
    if (capturing) {
        if (capturing->n == capturing->cap) {
            capturing->cap = capturing->cap ? 2 * capturing->cap : 256;
            capturing->r = realloc(capturing->r, (size_t)capturing->cap * sizeof *capturing->r);
        }
        rec *r = &capturing->r[capturing->n++];
        r->k = k; r->gx = gx; r->gy = gy;
        for (int i = 0; i < k->nargs; i++) memcpy(r->vals[i], args[i], k->argsz[i]);   /* values at launch, as the driver copies them */
        return 0;
    }
    launches++;
    k->run(args, gx, gy);
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) { (void)f; *s = (void *)3; return 0; }
CUresult cuStreamDestroy_v2(void *s) { (void)s; return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r == 900 ? "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" : r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_FAKE";
    return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fakecuda"; return 0; }
CUresult cuStreamBeginCapture_v2(void *s, int mode) { (void)s; (void)mode; capturing = calloc(1, sizeof *capturing); return 0; }
CUresult cuStreamEndCapture(void *s, void **g) { (void)s; *g = capturing; capturing = NULL; return 0; }
CUresult cuGraphInstantiateWithFlags(void **e, void *g, unsigned long long f) {
    (void)f;
    graph *src = g, *cp = calloc(1, sizeof *cp);
    cp->n = src->n;
    cp->r = malloc((size_t)src->n * sizeof *cp->r);
    memcpy(cp->r, src->r, (size_t)src->n * sizeof *cp->r);
    *e = cp;
    return 0;
}
CUresult cuGraphLaunch(void *e, void *s) {
    (void)s;
    graph *g = e;
    graph_launches++;
    for (int i = 0; i < g->n; i++) {
        void *args[MAXARGS];
        for (int a = 0; a < g->r[i].k->nargs; a++) args[a] = g->r[i].vals[a];
        g->r[i].k->run(args, g->r[i].gx, g->r[i].gy);
    }
    return 0;
}
static void graph_free(graph *g) { if (g) { free(g->r); free(g); } }
CUresult cuGraphExecDestroy(void *e) { graph_free(e); return 0; }
CUresult cuGraphDestroy(void *g) { graph_free(g); return 0; }

#ifdef FAKECUDA_HARNESS
/* The harness's entry points too (-DFAKECUDA_HARNESS), so gpu_available and the harness's child
 * get as far as loading the kernel: the stand-in runs only the engine's kernels, so any other
 * module is refused at cuModuleLoadDataEx (a "load-error" verdict: the harness ran). */
CUresult cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = a == 75 ? 9 : a == 76 ? 0 : 1; return 0; }   /* sm_90 */
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = (size_t)1 << 36; return 0; }
CUresult cuCtxCreate_v2(void **c, unsigned f, int d) { (void)f; (void)d; *c = (void *)5; return 0; }
CUresult cuCtxDestroy_v2(void *c) { (void)c; return 0; }
CUresult cuCtxSynchronize(void) { STICKY(); n_sync++; copylog(); return 0; }
CUresult cuFuncGetAttribute(int *v, int a, void *f) { (void)a; (void)f; *v = 0; return 0; }
CUresult cuFuncSetAttribute(void *f, int a, int v) { (void)f; (void)a; (void)v; return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { STICKY(); n_dtoh += n; copylog(); memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { STICKY(); n_dtod += n; copylog(); memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) { STICKY(); for (size_t i = 0; i < n; i++) ((unsigned *)(uintptr_t)d)[i] = v; return 0; }
#endif

/* Events (the engine's profile, the harness's timing): the host clock when recorded; the stand-in
 * runs each launch when it is made, so the time between two events is the launches' between them. */
CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = calloc(1, sizeof(double)); return *e ? 0 : 2; }
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
CUresult cuEventRecord(void *e, void *s) {
    (void)s;
    if (capturing) return 900;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *(double *)e = ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
    return 0;
}
CUresult cuEventSynchronize(void *e) { (void)e; STICKY(); n_sync++; copylog(); return 0; }
/* FAKECUDA_EVENT_MS: every interval that long instead, so the harness's timings (and which of two
 * correct kernels is the fastest) do not depend on this machine's load */
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
    const char *fixed = getenv("FAKECUDA_EVENT_MS");
    *ms = fixed ? (float)atof(fixed) : (float)(*(double *)b - *(double *)a);
    return 0;
}

/* ---- cuBLAS ------------------------------------------------------------------------------ */
int cublasCreate_v2(void **h) {   /* the engine's start (the harness has no cuBLAS): logged beside cuInit */
    const char *p = getenv("FAKECUDA_INITLOG");
    FILE *f = p ? fopen(p, "a") : NULL;
    if (f) { fprintf(f, "cublasCreate pid %ld\n", (long)getpid()); fclose(f); }
    *h = (void *)4;
    return 0;
}
int cublasDestroy_v2(void *h) { (void)h; return 0; }
int cublasSetStream_v2(void *h, void *s) { (void)h; (void)s; return 0; }
/* column-major C[m][n] = alpha op(A) op(B) + beta C; A, B f16 or f32, C f32 or f16 */
int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *A, int At, int lda, const void *B, int Bt,
                 int ldb, const void *beta, void *C, int Ct, int ldc, int ct, int algo) {
    (void)h; (void)algo;
    if (ct != 68 || (At != 2 && At != 0) || (Bt != 2 && Bt != 0) || (Ct != 0 && Ct != 2) || capturing) return 7;   /* NOT_SUPPORTED */
    float al = *(const float *)alpha, be = *(const float *)beta;
#define EL(p, t, i) ((t) == 2 ? h2f(((const uint16_t *)(p))[i]) : ((const float *)(p))[i])
    /* op(A) as f32, [k][m] (i contiguous), and op(B) as f32, [n][k]: the loop below then runs
     * over i with unit stride.  Each C(i, j) still sums a(i, q) b(q, j) for q = 0, 1, ... in
     * that order, one multiply and one add each, as a plain triple loop would */
    float *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)k * n * sizeof *b), *s = malloc((size_t)m * sizeof *s);
    if (!a || !b || !s) { free(a); free(b); free(s); return 3; }   /* ALLOC_FAILED */
    for (int q = 0; q < k; q++)
        for (int i = 0; i < m; i++) a[(size_t)q * m + i] = ta ? EL(A, At, (size_t)i * lda + q) : EL(A, At, (size_t)q * lda + i);
    for (int j = 0; j < n; j++)
        for (int q = 0; q < k; q++) b[(size_t)j * k + q] = tb ? EL(B, Bt, (size_t)q * ldb + j) : EL(B, Bt, (size_t)j * ldb + q);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) s[i] = 0;
        for (int q = 0; q < k; q++) {
            const float bq = b[(size_t)j * k + q], *aq = a + (size_t)q * m;
            for (int i = 0; i < m; i++) s[i] += aq[i] * bq;
        }
        for (int i = 0; i < m; i++) {
            size_t at = (size_t)j * ldc + i;
            if (Ct == 0) ((float *)C)[at] = al * s[i] + (be != 0 ? be * ((float *)C)[at] : 0);
            else ((uint16_t *)C)[at] = f2h(al * s[i] + (be != 0 ? be * h2f(((uint16_t *)C)[at]) : 0));
        }
    }
    free(a);
    free(b);
    free(s);
    return 0;
}

/* how many launches and graph replays the engine made (tests read it at exit) */
__attribute__((destructor)) static void report(void) {
    const char *p = getenv("FAKECUDA_REPORT");
    if (!p) return;
    FILE *f = fopen(p, "w");
    if (f) { fprintf(f, "launches %ld graph_launches %ld\n", launches, graph_launches); fclose(f); }
}
