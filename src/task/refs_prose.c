/* refs_prose.c — C references of the hand-written held-out suite
 * (bench/suite-prose/): one task per folder, each described only by a request
 * phrased the way a GPU programmer types it ("prose" or "zh").  These
 * functions are the oracle, so every choice a request leaves to the reader is
 * made here and named in the task's "notes".
 *
 * Conventions as in refs_suite.c: compute in double where it makes the
 * result more accurate and round once to the output type; f32 scalars are
 * rounded to float first because that is what the GPU receives.  Where the
 * GPU result is exactly determined by single IEEE float operations (a
 * comparison, one subtraction) the reference computes in float too, so an
 * exact (integer) output cannot differ by double rounding.  Index inputs
 * that a spec could get wrong (ids, permutations, COO indices, rowptr) are
 * checked and reported to in->diag instead of read out of bounds. */
#include "ptxgen/task.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t sz(const task_inst *in, const char *name) {
    int64_t v = task_scalar_i(in, name);
    return v > 0 ? (size_t)v : 0;
}
/* f32 scalar parameter as the GPU sees it. */
static double f32s(const task_inst *in, const char *name) { return (double)(float)task_scalar_f(in, name); }
/* u32 scalar parameter as the GPU sees it (wraps like the kernel's .u32). */
static uint32_t u32s(const task_inst *in, const char *name) { return (uint32_t)task_scalar_i(in, name); }

/* A spec whose generated inputs break the task's promise (an index out of
 * range): report it to the caller and refuse to run. */
static pg_status bad_input(task_inst *in, const char *what, size_t at) {
    pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "%s: %s at element %zu (the spec's generator is wrong)",
                 in->spec->name, what, at);
    return PG_ERR_INVALID;
}

static int popcount32(uint32_t v) {
    int c = 0;
    for (; v; v &= v - 1) c++;
    return c;
}

/* ---- elementwise, bitwise, bytes, random numbers ---------------------------------- */

/* x = clamp(x, lo, hi) in place; clipped[0] += how many were outside (a bound itself is unchanged). */
pg_status task_ref_prose_clamp_count(task_inst *in) {
    float *x = task_buf(in, "x");
    uint32_t *clipped = task_buf(in, "clipped");
    float lo = (float)task_scalar_f(in, "lo"), hi = (float)task_scalar_f(in, "hi");
    size_t n = sz(in, "n");
    uint32_t cnt = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < lo) { x[i] = lo; cnt++; }
        else if (x[i] > hi) { x[i] = hi; cnt++; }
    }
    clipped[0] += cnt;
    return PG_OK;
}

/* dist[i] = popcount(a[i] ^ b[i]) */
pg_status task_ref_prose_hamming_u32(task_inst *in) {
    const uint32_t *a = task_buf(in, "a"), *b = task_buf(in, "b");
    uint8_t *dist = task_buf(in, "dist");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) dist[i] = (uint8_t)popcount32(a[i] ^ b[i]);
    return PG_OK;
}

/* gray = (77 r + 150 g + 29 b + 128) >> 8, rgb interleaved */
pg_status task_ref_prose_rgb_to_gray(task_inst *in) {
    const uint8_t *rgb = task_buf(in, "rgb");
    uint8_t *gray = task_buf(in, "gray");
    size_t n = sz(in, "npix");
    for (size_t i = 0; i < n; i++)
        gray[i] = (uint8_t)((77u * rgb[3 * i] + 150u * rgb[3 * i + 1] + 29u * rgb[3 * i + 2] + 128u) >> 8);
    return PG_OK;
}

/* 'a'..'z' -> 'A'..'Z', every other byte unchanged */
pg_status task_ref_prose_ascii_upper(task_inst *in) {
    const uint8_t *src = task_buf(in, "src");
    uint8_t *dst = task_buf(in, "dst");
    size_t n = sz(in, "nbytes");
    for (size_t i = 0; i < n; i++) dst[i] = src[i] >= 'a' && src[i] <= 'z' ? (uint8_t)(src[i] - 32) : src[i];
    return PG_OK;
}

/* out[i] = pcg_hash(i + seed), Jarzynski & Olano, "Hash Functions for GPU Rendering" (2020) */
pg_status task_ref_prose_pcg_hash(task_inst *in) {
    uint32_t *out = task_buf(in, "out");
    uint32_t seed = u32s(in, "seed");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        uint32_t state = ((uint32_t)i + seed) * 747796405u + 2891336453u;
        uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
        out[i] = (word >> 22u) ^ word;
    }
    return PG_OK;
}

/* every xorshift32 state (13, 17, 5) advanced `steps` times */
pg_status task_ref_prose_xorshift_steps(task_inst *in) {
    uint32_t *st = task_buf(in, "state");
    uint32_t steps = u32s(in, "steps");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        uint32_t x = st[i];
        for (uint32_t s = 0; s < steps; s++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
        }
        st[i] = x;
    }
    return PG_OK;
}

/* flags = |a - b| > tol, in float: the GPU's subtraction and comparison are exact IEEE operations */
pg_status task_ref_prose_diff_flags(task_inst *in) {
    const float *a = task_buf(in, "a"), *b = task_buf(in, "b");
    uint8_t *flags = task_buf(in, "flags");
    float tol = (float)task_scalar_f(in, "tol");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        float d = a[i] - b[i];
        flags[i] = fabsf(d) > tol;
    }
    return PG_OK;
}

/* ---- activations and conversions ----------------------------------------------------- */

/* f16 y = x * clamp(x + 3, 0, 6) / 6 */
pg_status task_ref_prose_hardswish_f16(task_inst *in) {
    const uint16_t *x = task_buf(in, "x");
    uint16_t *y = task_buf(in, "y");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        double v = task_f16_to_f32(x[i]), r = v + 3.0;
        r = r < 0 ? 0 : r > 6 ? 6 : r;
        y[i] = task_f32_to_f16((float)(v * r / 6.0));
    }
    return PG_OK;
}

/* PyTorch's softplus: x where beta*x > threshold, else log1p(exp(beta x)) / beta.
 * The branch is taken on the f32 product, as the GPU computes it. */
pg_status task_ref_prose_softplus_beta(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    float beta = (float)task_scalar_f(in, "beta"), thr = (float)task_scalar_f(in, "threshold");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        float bx = beta * x[i];
        y[i] = bx > thr ? x[i] : (float)(log1p(exp((double)beta * x[i])) / beta);
    }
    return PG_OK;
}

/* bf16 y = x rounded to nearest even */
pg_status task_ref_prose_f32_to_bf16(task_inst *in) {
    const float *x = task_buf(in, "x");
    uint16_t *y = task_buf(in, "y");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) y[i] = task_f32_to_bf16(x[i]);
    return PG_OK;
}

/* out[e] = (nibble e - 8) * scales[e / 32]; nibble 2k is the low half of packed[k] */
pg_status task_ref_prose_dequant_int4(task_inst *in) {
    const uint8_t *packed = task_buf(in, "packed");
    const float *scales = task_buf(in, "scales");
    float *out = task_buf(in, "out");
    size_t n = 32 * sz(in, "ngroups");
    for (size_t e = 0; e < n; e++) {
        int q = (e & 1) ? packed[e / 2] >> 4 : packed[e / 2] & 15;
        out[e] = (float)((q - 8) * (double)scales[e / 32]);
    }
    return PG_OK;
}

/* ---- optimizers and losses --------------------------------------------------------------- */

/* Lion: c = b1 m + (1-b1) g; w -= lr (sign(c) + wd w) with the old w; m = b2 m + (1-b2) g */
pg_status task_ref_prose_lion_step(task_inst *in) {
    float *w = task_buf(in, "w"), *m = task_buf(in, "m");
    const float *g = task_buf(in, "g");
    double lr = f32s(in, "lr"), b1 = f32s(in, "beta1"), b2 = f32s(in, "beta2"), wd = f32s(in, "wd");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        double c = b1 * m[i] + (1.0 - b1) * g[i];
        double s = c > 0 ? 1.0 : c < 0 ? -1.0 : 0.0;
        w[i] = (float)(w[i] - lr * (s + wd * w[i]));
        m[i] = (float)(b2 * m[i] + (1.0 - b2) * g[i]);
    }
    return PG_OK;
}

/* Adagrad: h += g^2 (stored as f32), then w -= lr g / (sqrt(h) + eps) with that h */
pg_status task_ref_prose_adagrad_step(task_inst *in) {
    float *w = task_buf(in, "w"), *h = task_buf(in, "h");
    const float *g = task_buf(in, "g");
    double lr = f32s(in, "lr"), eps = f32s(in, "eps");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        h[i] = (float)((double)h[i] + (double)g[i] * g[i]);
        w[i] = (float)(w[i] - lr * g[i] / (sqrt((double)h[i]) + eps));
    }
    return PG_OK;
}

/* loss[0] += sum huber(pred - target), summed in double (any atomic order is within tolerance) */
pg_status task_ref_prose_huber_loss_sum(task_inst *in) {
    const float *p = task_buf(in, "pred"), *t = task_buf(in, "target");
    float *loss = task_buf(in, "loss");
    double delta = f32s(in, "delta");
    size_t n = sz(in, "n");
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)p[i] - t[i]);
        s += d <= delta ? 0.5 * d * d : delta * (d - 0.5 * delta);
    }
    loss[0] = (float)(loss[0] + s);
    return PG_OK;
}

/* loss = max(z,0) - z y + log1p(exp(-|z|)): the same value as -(y log s + (1-y) log(1-s)), s = sigmoid(z),
 * without overflow for large |z| */
pg_status task_ref_prose_bce_with_logits(task_inst *in) {
    const float *z = task_buf(in, "logits"), *y = task_buf(in, "labels");
    float *loss = task_buf(in, "loss");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        double v = z[i];
        loss[i] = (float)(fmax(v, 0.0) - v * y[i] + log1p(exp(-fabs(v))));
    }
    return PG_OK;
}

/* ---- fused epilogues, complex numbers, polynomials ---------------------------------------- */

/* out = silu(acc * a_scale[row] * w_scale[col] + bias[col]) */
pg_status task_ref_prose_int8_matmul_epilogue(task_inst *in) {
    const int32_t *acc = task_buf(in, "acc");
    const float *as = task_buf(in, "a_scale"), *ws = task_buf(in, "w_scale"), *bias = task_buf(in, "bias");
    float *out = task_buf(in, "out");
    size_t M = sz(in, "M"), N = sz(in, "N");
    for (size_t r = 0; r < M; r++)
        for (size_t c = 0; c < N; c++) {
            double v = (double)acc[r * N + c] * as[r] * ws[c] + bias[c];
            out[r * N + c] = (float)(v / (1.0 + exp(-v)));
        }
    return PG_OK;
}

/* out = res + x * mask / (1 - p) */
pg_status task_ref_prose_dropout_residual(task_inst *in) {
    const float *x = task_buf(in, "x"), *res = task_buf(in, "res");
    const uint8_t *mask = task_buf(in, "mask");
    float *out = task_buf(in, "out");
    double scale = 1.0 / (1.0 - f32s(in, "p"));
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) out[i] = (float)(res[i] + (mask[i] ? x[i] * scale : 0.0));
    return PG_OK;
}

/* mag = |re + i im|, phase = atan2(im, re) in [-pi, pi] */
pg_status task_ref_prose_complex_polar(task_inst *in) {
    const float *re = task_buf(in, "re"), *im = task_buf(in, "im");
    float *mag = task_buf(in, "mag"), *ph = task_buf(in, "phase");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        mag[i] = (float)hypot(re[i], im[i]);
        ph[i] = (float)atan2(im[i], re[i]);
    }
    return PG_OK;
}

/* y = sum_{k<K} c[k] T_k(x) (Clenshaw in double; K = 0 would be 0, the spec has K >= 1) */
pg_status task_ref_prose_chebyshev_eval(task_inst *in) {
    const float *x = task_buf(in, "x"), *c = task_buf(in, "c");
    float *y = task_buf(in, "y");
    size_t n = sz(in, "n"), K = sz(in, "K");
    for (size_t i = 0; i < n; i++) {
        double t = x[i], b1 = 0, b2 = 0;
        for (size_t k = K; k-- > 1;) {
            double b0 = 2 * t * b1 - b2 + c[k];
            b2 = b1;
            b1 = b0;
        }
        y[i] = (float)(K ? t * b1 - b2 + c[0] : 0.0);
    }
    return PG_OK;
}

/* ---- normalization, reductions, scans --------------------------------------------------- */

/* NCHW: y = (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c] */
pg_status task_ref_prose_batchnorm_infer(task_inst *in) {
    const float *x = task_buf(in, "x"), *mean = task_buf(in, "mean"), *var = task_buf(in, "var");
    const float *gamma = task_buf(in, "gamma"), *beta = task_buf(in, "beta");
    float *y = task_buf(in, "y");
    double eps = f32s(in, "eps");
    size_t N = sz(in, "N"), C = sz(in, "C"), HW = sz(in, "HW");
    for (size_t b = 0; b < N; b++)
        for (size_t c = 0; c < C; c++) {
            /* var + eps is an f32 add on the GPU: round it first */
            double inv = 1.0 / sqrt((double)(float)(var[c] + eps));
            for (size_t k = 0; k < HW; k++) {
                size_t e = (b * C + c) * HW + k;
                y[e] = (float)(((double)x[e] - mean[c]) * inv * gamma[c] + beta[c]);
            }
        }
    return PG_OK;
}

/* y = (x - min) / (max - min) per row; a constant row (max == min) is all zeros */
pg_status task_ref_prose_minmax_rows(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float mn = INFINITY, mx = -INFINITY;
        for (size_t c = 0; c < cols; c++) {
            if (xr[c] < mn) mn = xr[c];
            if (xr[c] > mx) mx = xr[c];
        }
        double range = (double)mx - mn;
        for (size_t c = 0; c < cols; c++) y[r * cols + c] = mx > mn ? (float)(((double)xr[c] - mn) / range) : 0.0f;
    }
    return PG_OK;
}

/* out[c] = sum_r A[r][c] */
pg_status task_ref_prose_column_sums(task_inst *in) {
    const float *A = task_buf(in, "A");
    float *out = task_buf(in, "out");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    double *acc = calloc(cols ? cols : 1, sizeof(double));   /* [cols] */
    if (!acc) return PG_ERR_NOMEM;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) acc[c] += A[r * cols + c];
    for (size_t c = 0; c < cols; c++) out[c] = (float)acc[c];
    free(acc);
    return PG_OK;
}

/* stats = {mean, population variance (divide by n)}, two passes in double */
pg_status task_ref_prose_mean_var(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *stats = task_buf(in, "stats");
    size_t n = sz(in, "n");
    if (n == 0) return bad_input(in, "mean of no elements", 0);
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    double mean = s / (double)n;
    for (size_t i = 0; i < n; i++) q += (x[i] - mean) * (x[i] - mean);
    stats[0] = (float)mean;
    stats[1] = (float)(q / (double)n);
    return PG_OK;
}

/* out[r][c] = max(x[r][0..c]) */
pg_status task_ref_prose_running_max_rows(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        float m = -INFINITY;
        for (size_t c = 0; c < cols; c++) {
            if (x[r * cols + c] > m) m = x[r * cols + c];
            out[r * cols + c] = m;
        }
    }
    return PG_OK;
}

/* offsets[0] = 0, offsets[i+1] = offsets[i] + counts[i] (u32, wrapping) */
pg_status task_ref_prose_csr_offsets(task_inst *in) {
    const uint32_t *counts = task_buf(in, "counts");
    uint32_t *off = task_buf(in, "offsets");
    size_t n = sz(in, "n");
    off[0] = 0;
    for (size_t i = 0; i < n; i++) off[i + 1] = off[i] + counts[i];
    return PG_OK;
}

/* ---- histogram, gather, scatter, sparse ------------------------------------------------- */

/* bins[data[i]] += 1 (bins start with the inout values) */
pg_status task_ref_prose_byte_histogram(task_inst *in) {
    const uint8_t *data = task_buf(in, "data");
    uint32_t *bins = task_buf(in, "bins");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) bins[data[i]]++;
    return PG_OK;
}

/* out[t][:] = table[ids[t]][:] */
pg_status task_ref_prose_embedding_lookup(task_inst *in) {
    const float *table = task_buf(in, "table");
    const int32_t *ids = task_buf(in, "ids");
    float *out = task_buf(in, "out");
    size_t vocab = sz(in, "vocab"), dim = sz(in, "dim"), ntok = sz(in, "ntok");
    for (size_t t = 0; t < ntok; t++) {
        if (ids[t] < 0 || (size_t)ids[t] >= vocab) return bad_input(in, "token id outside [0, vocab)", t);
        memcpy(out + t * dim, table + (size_t)ids[t] * dim, dim * sizeof(float));
    }
    return PG_OK;
}

/* inv[perm[i]] = i; perm must be a permutation of 0..n-1 (else some inv[j] is never written) */
pg_status task_ref_prose_inverse_perm(task_inst *in) {
    const int32_t *perm = task_buf(in, "perm");
    int32_t *inv = task_buf(in, "inv");
    size_t n = sz(in, "n");
    uint8_t *seen = calloc(n ? n : 1, 1);   /* [n] */
    if (!seen) return PG_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (perm[i] < 0 || (size_t)perm[i] >= n || seen[perm[i]]) {
            free(seen);
            return bad_input(in, "perm is not a permutation of 0..n-1", i);
        }
        seen[perm[i]] = 1;
        inv[perm[i]] = (int32_t)i;
    }
    free(seen);
    return PG_OK;
}

/* y[row[k]] += val[k] * x[col[k]], summed in double */
pg_status task_ref_prose_coo_spmv_add(task_inst *in) {
    const int32_t *row = task_buf(in, "row"), *col = task_buf(in, "col");
    const float *val = task_buf(in, "val"), *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols"), nnz = sz(in, "nnz");
    double *acc = malloc(sizeof(double) * (rows ? rows : 1));   /* [rows] */
    if (!acc) return PG_ERR_NOMEM;
    for (size_t r = 0; r < rows; r++) acc[r] = y[r];
    for (size_t k = 0; k < nnz; k++) {
        if (row[k] < 0 || (size_t)row[k] >= rows || col[k] < 0 || (size_t)col[k] >= cols) {
            free(acc);
            return bad_input(in, "COO index outside the matrix", k);
        }
        acc[row[k]] += (double)val[k] * x[col[k]];
    }
    for (size_t r = 0; r < rows; r++) y[r] = (float)acc[r];
    free(acc);
    return PG_OK;
}

/* out[k] = val[k] / sum |val| over k's row; a row summing to 0 gives zeros.  rowptr must run
 * from 0 to nnz without decreasing (else entries would be left unwritten). */
pg_status task_ref_prose_csr_row_l1_normalize(task_inst *in) {
    const int32_t *rp = task_buf(in, "rowptr");
    const float *val = task_buf(in, "val");
    float *out = task_buf(in, "out");
    size_t rows = sz(in, "rows"), nnz = sz(in, "nnz");
    if (rp[0] != 0 || rp[rows] < 0 || (size_t)rp[rows] != nnz) return bad_input(in, "rowptr does not run from 0 to nnz", 0);
    for (size_t r = 0; r < rows; r++)
        if (rp[r + 1] < rp[r]) return bad_input(in, "rowptr decreases", r + 1);
    for (size_t r = 0; r < rows; r++) {
        double s = 0;
        for (int32_t k = rp[r]; k < rp[r + 1]; k++) s += fabs((double)val[k]);
        for (int32_t k = rp[r]; k < rp[r + 1]; k++) out[k] = s > 0 ? (float)(val[k] / s) : 0.0f;
    }
    return PG_OK;
}

/* ---- linear algebra --------------------------------------------------------------------- */

/* exchange rows r0 and r1 (nothing when equal) */
pg_status task_ref_prose_swap_rows(task_inst *in) {
    float *A = task_buf(in, "A");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols"), r0 = sz(in, "r0"), r1 = sz(in, "r1");
    if (r0 >= rows || r1 >= rows) return bad_input(in, "row to swap outside the matrix", r0 >= rows ? r0 : r1);
    if (r0 == r1) return PG_OK;
    for (size_t c = 0; c < cols; c++) {
        float t = A[r0 * cols + c];
        A[r0 * cols + c] = A[r1 * cols + c];
        A[r1 * cols + c] = t;
    }
    return PG_OK;
}

/* out_i = M p_i, M row-major 4x4, points (x, y, z, w) */
pg_status task_ref_prose_transform_points(task_inst *in) {
    const float *M = task_buf(in, "M"), *p = task_buf(in, "pts");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += (double)M[4 * r + k] * p[4 * i + (size_t)k];
            out[4 * i + (size_t)r] = (float)s;
        }
    return PG_OK;
}

/* A[i][j] += alpha x[i] y[j] */
pg_status task_ref_prose_rank1_update(task_inst *in) {
    float *A = task_buf(in, "A");
    const float *x = task_buf(in, "x"), *y = task_buf(in, "y");
    double alpha = f32s(in, "alpha");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) A[i * cols + j] = (float)(A[i * cols + j] + alpha * x[i] * y[j]);
    return PG_OK;
}

/* out = (A + A^T) / 2 */
pg_status task_ref_prose_symmetrize(task_inst *in) {
    const float *A = task_buf(in, "A");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) out[i * n + j] = (float)(0.5 * ((double)A[i * n + j] + A[j * n + i]));
    return PG_OK;
}

/* ---- stencils ---------------------------------------------------------------------------- */

/* y[i] = mean of x over the window [i-r, i+r] clipped to [0, n-1] */
pg_status task_ref_prose_moving_avg(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t n = sz(in, "n"), r = sz(in, "r");
    for (size_t i = 0; i < n; i++) {
        size_t lo = i >= r ? i - r : 0, hi = n - 1 - i > r ? i + r : n - 1;
        double s = 0;
        for (size_t j = lo; j <= hi; j++) s += x[j];
        y[i] = (float)(s / (double)(hi - lo + 1));
    }
    return PG_OK;
}

/* sqrt(gx^2 + gy^2) with the 3x3 Sobel operators; 0 on the one-pixel border */
pg_status task_ref_prose_sobel_magnitude(task_inst *in) {
    const float *img = task_buf(in, "img");
    float *out = task_buf(in, "out");
    size_t H = sz(in, "H"), W = sz(in, "W");
    for (size_t r = 0; r < H; r++)
        for (size_t c = 0; c < W; c++) {
            size_t k = r * W + c;
            if (r == 0 || c == 0 || r + 1 == H || c + 1 == W) { out[k] = 0.0f; continue; }
            const float *u = img + k - W, *m = img + k, *d = img + k + W;
            double gx = ((double)u[1] - u[-1]) + 2.0 * ((double)m[1] - m[-1]) + ((double)d[1] - d[-1]);
            double gy = ((double)d[-1] - u[-1]) + 2.0 * ((double)d[0] - u[0]) + ((double)d[1] - u[1]);
            out[k] = (float)sqrt(gx * gx + gy * gy);
        }
    return PG_OK;
}

/* one Game of Life step on an H x W torus: neighbours taken modulo H and W */
pg_status task_ref_prose_life_step(task_inst *in) {
    const uint8_t *g = task_buf(in, "grid");
    uint8_t *next = task_buf(in, "next");
    size_t H = sz(in, "H"), W = sz(in, "W");
    for (size_t r = 0; r < H; r++)
        for (size_t c = 0; c < W; c++) {
            int cnt = 0;
            for (size_t dr = H - 1; dr <= H + 1; dr++)   /* H-1, H, H+1 = offsets -1, 0, +1 mod H */
                for (size_t dc = W - 1; dc <= W + 1; dc++)
                    if (dr != H || dc != W) cnt += g[((r + dr) % H) * W + (c + dc) % W] != 0;
            next[r * W + c] = cnt == 3 || (cnt == 2 && g[r * W + c]);
        }
    return PG_OK;
}

/* ---- pairwise, n-body -------------------------------------------------------------------- */

/* dist[i][j] = ||a_i - b_j||_2 */
pg_status task_ref_prose_pairwise_dist(task_inst *in) {
    const float *a = task_buf(in, "a"), *b = task_buf(in, "b");
    float *dist = task_buf(in, "dist");
    size_t m = sz(in, "m"), n = sz(in, "n"), d = sz(in, "d");
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t k = 0; k < d; k++) {
                double t = (double)a[i * d + k] - b[j * d + k];
                s += t * t;
            }
            dist[i * n + j] = (float)sqrt(s);
        }
    return PG_OK;
}

/* phi[i] = -sum_{j != i} mass[j] / sqrt(|p_j - p_i|^2 + soft^2); positions interleaved x, y, z */
pg_status task_ref_prose_grav_potential(task_inst *in) {
    const float *pos = task_buf(in, "pos"), *mass = task_buf(in, "mass");
    float *phi = task_buf(in, "phi");
    double s2 = f32s(in, "soft") * f32s(in, "soft");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        double acc = 0;
        for (size_t j = 0; j < n; j++) {
            if (j == i) continue;
            double dx = (double)pos[3 * j] - pos[3 * i], dy = (double)pos[3 * j + 1] - pos[3 * i + 1],
                   dz = (double)pos[3 * j + 2] - pos[3 * i + 2];
            acc += mass[j] / sqrt(dx * dx + dy * dy + dz * dz + s2);
        }
        phi[i] = (float)-acc;
    }
    return PG_OK;
}

/* ---- sort ------------------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* every run keys[32g .. 32g+31] (the last one possibly shorter) sorted ascending in place */
pg_status task_ref_prose_sort_groups32(task_inst *in) {
    uint32_t *keys = task_buf(in, "keys");
    size_t n = sz(in, "n");
    for (size_t g = 0; g < n; g += 32) qsort(keys + g, n - g < 32 ? n - g : 32, sizeof(uint32_t), cmp_u32);
    return PG_OK;
}
