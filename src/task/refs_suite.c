/* refs_suite.c — C references for the held-out evaluation suite
 * (bench/suite/): parameter variants of corpus tasks that need a new
 * reference, and compositions that no synthesis family generates.
 *
 * Conventions as in refs_elementwise.c: compute in double (long double for
 * f64 sums), round once to the output element type; f32 scalars are rounded
 * to float first because that is what the GPU receives.  Element mappings
 * (chunks, segments, layouts) are the ones each task.json "detailed" text
 * states. */
#include "ptxgen/task.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static size_t sz(const task_inst *in, const char *name) {
    int64_t v = task_scalar_i(in, name);
    return v > 0 ? (size_t)v : 0;
}
/* f32 scalar parameter as the GPU sees it. */
static double f32s(const task_inst *in, const char *name) { return (double)(float)task_scalar_f(in, name); }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- parameter variants ----------------------------------------------------- */

/* out[b] = max of x over the 4096-element chunk b (one 512-thread block per chunk). */
pg_status task_ref_suite_reduce_max_b512(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n"), nb = (n + 4095) / 4096;
    for (size_t b = 0; b < nb; b++) {
        size_t hi = (b + 1) * 4096 < n ? (b + 1) * 4096 : n;
        float m = -INFINITY;
        for (size_t i = b * 4096; i < hi; i++)
            if (x[i] > m) m = x[i];
        out[b] = m;
    }
    return PG_OK;
}

/* interior 2 <= i < n-2: c0*x[i] + c1*(x[i-1]+x[i+1]) + c2*(x[i-2]+x[i+2]); else copy */
pg_status task_ref_suite_stencil1d_5pt(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n");
    double c0 = f32s(in, "c0"), c1 = f32s(in, "c1"), c2 = f32s(in, "c2");
    for (size_t i = 0; i < n; i++) {
        if (i < 2 || i + 2 >= n) { out[i] = x[i]; continue; }
        out[i] = (float)(c0 * x[i] + c1 * ((double)x[i - 1] + x[i + 1]) + c2 * ((double)x[i - 2] + x[i + 2]));
    }
    return PG_OK;
}

/* y = A^T x: y[c] = sum_r A[r*cols + c] * x[r] */
pg_status task_ref_suite_gemv_t(task_inst *in) {
    const float *A = task_buf(in, "A"), *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    double *acc = calloc(cols ? cols : 1, sizeof(double));
    if (!acc) return PG_ERR_NOMEM;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) acc[c] += (double)A[r * cols + c] * x[r];
    for (size_t c = 0; c < cols; c++) y[c] = (float)acc[c];
    free(acc);
    return PG_OK;
}

/* f64 out[c*rows + r] = in[r*cols + c] */
pg_status task_ref_suite_transpose_f64(task_inst *in) {
    const double *a = task_buf(in, "in");
    double *o = task_buf(in, "out");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) o[c * rows + r] = a[r * cols + c];
    return PG_OK;
}

pg_status task_ref_suite_relu6(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) y[i] = (float)clampd(x[i], 0.0, 6.0);
    return PG_OK;
}

pg_status task_ref_suite_leaky_relu(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    double alpha = f32s(in, "alpha");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : (float)(alpha * x[i]);
    return PG_OK;
}

/* f16 y = half(float(x) * s) */
pg_status task_ref_suite_f16_scale(task_inst *in) {
    const uint16_t *x = task_buf(in, "x");
    uint16_t *y = task_buf(in, "y");
    double s = f32s(in, "s");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) y[i] = task_f32_to_f16((float)((double)task_f16_to_f32(x[i]) * s));
    return PG_OK;
}

/* ---- compositions: elementwise and optimizers ------------------------------- */

static double gelu_tanh(double v) {
    const double k = 0.79788456080286535588; /* sqrt(2/pi) */
    return 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v)));
}

/* y[r][c] = gelu(x[r][c] + bias[c]) + res[r][c] */
pg_status task_ref_suite_bias_gelu_residual(task_inst *in) {
    const float *x = task_buf(in, "x"), *bias = task_buf(in, "bias"), *res = task_buf(in, "res");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            size_t i = r * cols + c;
            /* x + bias is an f32 add on the GPU: round it first */
            y[i] = (float)(gelu_tanh((double)(float)((double)x[i] + bias[c])) + res[i]);
        }
    return PG_OK;
}

/* w -= lr * (clamp(g, -clip, clip) + wd * w) */
pg_status task_ref_suite_sgd_clip(task_inst *in) {
    float *w = task_buf(in, "w");
    const float *g = task_buf(in, "g");
    double lr = f32s(in, "lr"), clip = f32s(in, "clip"), wd = f32s(in, "wd");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) w[i] = (float)(w[i] - lr * (clampd(g[i], -clip, clip) + wd * w[i]));
    return PG_OK;
}

/* Adam: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
 * w -= lr * (m*c1) / (sqrt(v*c2) + eps), c1/c2 the inverse bias corrections. */
pg_status task_ref_suite_adam_step(task_inst *in) {
    float *w = task_buf(in, "w"), *m = task_buf(in, "m"), *v = task_buf(in, "v");
    const float *g = task_buf(in, "g");
    double lr = f32s(in, "lr"), b1 = f32s(in, "beta1"), b2 = f32s(in, "beta2"), eps = f32s(in, "eps");
    double c1 = f32s(in, "c1"), c2 = f32s(in, "c2");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        double gi = g[i];
        double mi = b1 * m[i] + (1.0 - b1) * gi;
        double vi = b2 * v[i] + (1.0 - b2) * gi * gi;
        m[i] = (float)mi;
        v[i] = (float)vi;
        w[i] = (float)(w[i] - lr * (mi * c1) / (sqrt(vi * c2) + eps));
    }
    return PG_OK;
}

/* interleaved complex numbers: c[k] = a[k] * b[k] */
pg_status task_ref_suite_complex_mul(task_inst *in) {
    const float *a = task_buf(in, "a"), *b = task_buf(in, "b");
    float *c = task_buf(in, "c");
    size_t n = sz(in, "n");
    for (size_t k = 0; k < n; k++) {
        double ar = a[2 * k], ai = a[2 * k + 1], br = b[2 * k], bi = b[2 * k + 1];
        c[2 * k] = (float)(ar * br - ai * bi);
        c[2 * k + 1] = (float)(ar * bi + ai * br);
    }
    return PG_OK;
}

/* y = sum_k coef[k] x^k, k = 0..7 */
pg_status task_ref_suite_horner7(task_inst *in) {
    const float *x = task_buf(in, "x"), *coef = task_buf(in, "coef");
    float *y = task_buf(in, "y");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        double acc = coef[7];
        for (int k = 6; k >= 0; k--) acc = acc * x[i] + coef[k];
        y[i] = (float)acc;
    }
    return PG_OK;
}

/* out[r][j] = in[r][j] * sigmoid(in[r][H + j]), in is rows x 2H */
pg_status task_ref_suite_glu(task_inst *in) {
    const float *x = task_buf(in, "in");
    float *out = task_buf(in, "out");
    size_t rows = sz(in, "rows"), H = sz(in, "H");
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < H; j++) {
            double a = x[r * 2 * H + j], gt = x[r * 2 * H + H + j];
            out[r * H + j] = (float)(a / (1.0 + exp(-gt)));
        }
    return PG_OK;
}

/* s8 q = clamp(round_half_even(x * inv_scale), -128, 127); the product is an f32 multiply */
pg_status task_ref_suite_quantize_s8(task_inst *in) {
    const float *x = task_buf(in, "x");
    int8_t *q = task_buf(in, "q");
    double s = f32s(in, "inv_scale");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) {
        float p = (float)((double)x[i] * s);   /* exact double product, rounded once: the f32 multiply */
        q[i] = (int8_t)clampd(nearbyint((double)p), -128.0, 127.0);
    }
    return PG_OK;
}

/* ---- rows: softmax variants, norms, losses ------------------------------------- */

/* y = softmax over the kept entries of each row (mask != 0); masked entries 0;
 * a row with nothing kept is all zeros. */
pg_status task_ref_suite_masked_softmax(task_inst *in) {
    const float *x = task_buf(in, "x");
    const uint8_t *mask = task_buf(in, "mask");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        const uint8_t *mr = mask + r * cols;
        double m = -INFINITY, s = 0;
        for (size_t c = 0; c < cols; c++)
            if (mr[c] && xr[c] > m) m = xr[c];
        for (size_t c = 0; c < cols; c++)
            if (mr[c]) s += exp(xr[c] - m);
        for (size_t c = 0; c < cols; c++) y[r * cols + c] = mr[c] ? (float)(exp(xr[c] - m) / s) : 0.0f;
    }
    return PG_OK;
}

/* log(sum exp(x)) of one row, shifted by the row maximum so exp never overflows */
static double row_logsumexp(const float *xr, size_t cols) {
    double m = -INFINITY, s = 0;
    for (size_t c = 0; c < cols; c++) if (xr[c] > m) m = xr[c];
    for (size_t c = 0; c < cols; c++) s += exp(xr[c] - m);
    return m + log(s);
}

/* y = x - max - log(sum exp(x - max)) per row */
pg_status task_ref_suite_log_softmax(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        double lse = row_logsumexp(xr, cols);
        for (size_t c = 0; c < cols; c++) y[r * cols + c] = (float)(xr[c] - lse);
    }
    return PG_OK;
}

/* y = x / max(||x_r||_2, eps) per row */
pg_status task_ref_suite_l2norm_row(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    double eps = f32s(in, "eps");
    for (size_t r = 0; r < rows; r++) {
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += (double)x[r * cols + c] * x[r * cols + c];
        double nrm = fmax(sqrt(s), eps);
        for (size_t c = 0; c < cols; c++) y[r * cols + c] = (float)(x[r * cols + c] / nrm);
    }
    return PG_OK;
}

/* loss[r] = logsumexp(logits_r) - logits[r][label[r]] */
pg_status task_ref_suite_cross_entropy(task_inst *in) {
    const float *x = task_buf(in, "logits");
    const int32_t *label = task_buf(in, "labels");
    float *loss = task_buf(in, "loss");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        int32_t l = label[r];
        if (l < 0 || (size_t)l >= cols) return PG_ERR_INVALID;   /* the spec's label generator is broken */
        loss[r] = (float)(row_logsumexp(xr, cols) - xr[l]);
    }
    return PG_OK;
}

/* f16 y = half(x * rsqrt(mean(x^2) + eps) * w[c] * alpha) */
pg_status task_ref_suite_rmsnorm_scale_f16(task_inst *in) {
    const float *x = task_buf(in, "x"), *w = task_buf(in, "w");
    uint16_t *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    double eps = f32s(in, "eps"), alpha = f32s(in, "alpha");
    for (size_t r = 0; r < rows; r++) {
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += (double)x[r * cols + c] * x[r * cols + c];
        double rstd = 1.0 / sqrt(s / (double)cols + eps);
        for (size_t c = 0; c < cols; c++)
            y[r * cols + c] = task_f32_to_f16((float)(x[r * cols + c] * rstd * w[c] * alpha));
    }
    return PG_OK;
}

/* out[r] = dot(a_r, b_r) / max(||a_r|| * ||b_r||, eps) */
pg_status task_ref_suite_cosine_rows(task_inst *in) {
    const float *a = task_buf(in, "a"), *b = task_buf(in, "b");
    float *out = task_buf(in, "out");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols");
    double eps = f32s(in, "eps");
    for (size_t r = 0; r < rows; r++) {
        double d = 0, na = 0, nb = 0;
        for (size_t c = 0; c < cols; c++) {
            double u = a[r * cols + c], v = b[r * cols + c];
            d += u * v; na += u * u; nb += v * v;
        }
        out[r] = (float)(d / fmax(sqrt(na) * sqrt(nb), eps));
    }
    return PG_OK;
}

/* ---- reductions, scans, histograms, scatter/gather ----------------------------- */

/* out[0] += sum x[i]*y[i] (f64) */
pg_status task_ref_suite_dot_f64(task_inst *in) {
    const double *x = task_buf(in, "x"), *y = task_buf(in, "y");
    double *out = task_buf(in, "out");
    size_t n = sz(in, "n");
    long double s = 0;
    for (size_t i = 0; i < n; i++) s += (long double)x[i] * y[i];
    out[0] = (double)((long double)out[0] + s);
    return PG_OK;
}

/* out[0] = max(out[0], max |x[i]|) */
pg_status task_ref_suite_maxabs(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n");
    float m = out[0];
    for (size_t i = 0; i < n; i++) m = fabsf(x[i]) > m ? fabsf(x[i]) : m;
    out[0] = m;
    return PG_OK;
}

/* exclusive prefix sums restarting every 1024 elements (wrapping s32 adds) */
pg_status task_ref_suite_exscan_1024(task_inst *in) {
    const int32_t *x = task_buf(in, "x");
    int32_t *y = task_buf(in, "y");
    size_t n = sz(in, "n");
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % 1024 == 0) acc = 0;
        y[i] = (int32_t)acc;
        acc += (uint32_t)x[i];
    }
    return PG_OK;
}

/* bins[x & 63]++ (bins start with the inout values) */
pg_status task_ref_suite_histogram64(task_inst *in) {
    const int32_t *x = task_buf(in, "x");
    uint32_t *bins = task_buf(in, "bins");
    size_t n = sz(in, "n");
    for (size_t i = 0; i < n; i++) bins[(uint32_t)x[i] & 63u]++;
    return PG_OK;
}

/* out[i] = src[idx[i]] */
pg_status task_ref_suite_gather(task_inst *in) {
    const float *src = task_buf(in, "src");
    const int32_t *idx = task_buf(in, "idx");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n"), m = sz(in, "m");
    for (size_t i = 0; i < n; i++) {
        if (idx[i] < 0 || (size_t)idx[i] >= m) return PG_ERR_INVALID;
        out[i] = src[idx[i]];
    }
    return PG_OK;
}

/* out[idx[i]] += vals[i] (sums in double: any atomic order is within tolerance) */
pg_status task_ref_suite_scatter_add(task_inst *in) {
    const float *vals = task_buf(in, "vals");
    const int32_t *idx = task_buf(in, "idx");
    float *out = task_buf(in, "out");
    size_t n = sz(in, "n"), m = sz(in, "m");
    double *acc = malloc(sizeof(double) * (m ? m : 1));
    if (!acc) return PG_ERR_NOMEM;
    for (size_t j = 0; j < m; j++) acc[j] = out[j];
    for (size_t i = 0; i < n; i++) {
        if (idx[i] < 0 || (size_t)idx[i] >= m) { free(acc); return PG_ERR_INVALID; }
        acc[idx[i]] += vals[i];
    }
    for (size_t j = 0; j < m; j++) out[j] = (float)acc[j];
    free(acc);
    return PG_OK;
}

/* ---- sparse and batched linear algebra ------------------------------------------- */

/* y[b*M + i] = sum_k A[(b*M + i)*K + k] * x[b*K + k] */
pg_status task_ref_suite_batched_matvec(task_inst *in) {
    const float *A = task_buf(in, "A"), *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t B = sz(in, "batch"), M = sz(in, "M"), K = sz(in, "K");
    for (size_t b = 0; b < B; b++)
        for (size_t i = 0; i < M; i++) {
            double s = 0;
            for (size_t k = 0; k < K; k++) s += (double)A[(b * M + i) * K + k] * x[b * K + k];
            y[b * M + i] = (float)s;
        }
    return PG_OK;
}

/* ELL, slot-major: y[r] = sum_{k, col[k*rows+r] >= 0} val[k*rows+r] * x[col[k*rows+r]] */
pg_status task_ref_suite_spmv_ell(task_inst *in) {
    const int32_t *col = task_buf(in, "col");
    const float *val = task_buf(in, "val"), *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = sz(in, "rows"), cols = sz(in, "cols"), K = sz(in, "K");
    for (size_t r = 0; r < rows; r++) {
        double s = 0;
        for (size_t k = 0; k < K; k++) {
            int32_t c = col[k * rows + r];
            if (c < 0) continue;   /* padding */
            if ((size_t)c >= cols) return PG_ERR_INVALID;
            s += (double)val[k * rows + r] * x[c];
        }
        y[r] = (float)s;
    }
    return PG_OK;
}

/* ---- stencils ---------------------------------------------------------------------- */

/* interior: out = in + kappa*(sum of 6 neighbours - 6*in); faces copied */
pg_status task_ref_suite_heat3d_varcoef(task_inst *in) {
    const float *u = task_buf(in, "in"), *kappa = task_buf(in, "kappa");
    float *out = task_buf(in, "out");
    size_t D = sz(in, "D"), H = sz(in, "H"), W = sz(in, "W"), P = H * W;
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                size_t k = (z * H + y) * W + x;
                if (x == 0 || y == 0 || z == 0 || x == W - 1 || y == H - 1 || z == D - 1) { out[k] = u[k]; continue; }
                double s = (double)u[k - 1] + u[k + 1] + u[k - W] + u[k + W] + u[k - P] + u[k + P];
                out[k] = (float)(u[k] + (double)kappa[k] * (s - 6.0 * u[k]));
            }
    return PG_OK;
}

/* 3x3 binomial blur (1 2 1 / 2 4 2 / 1 2 1)/16, coordinates clamped to the image */
pg_status task_ref_suite_blur2d_9pt(task_inst *in) {
    const float *a = task_buf(in, "in");
    float *o = task_buf(in, "out");
    size_t H = sz(in, "H"), W = sz(in, "W");
    static const double w[3] = {1, 2, 1};
    for (size_t r = 0; r < H; r++)
        for (size_t c = 0; c < W; c++) {
            double s = 0;
            for (int i = -1; i <= 1; i++)
                for (int j = -1; j <= 1; j++) {
                    long rr = (long)r + i, cc = (long)c + j;
                    rr = rr < 0 ? 0 : rr >= (long)H ? (long)H - 1 : rr;
                    cc = cc < 0 ? 0 : cc >= (long)W ? (long)W - 1 : cc;
                    s += w[i + 1] * w[j + 1] * a[(size_t)rr * W + (size_t)cc];
                }
            o[r * W + c] = (float)(s / 16.0);
        }
    return PG_OK;
}

/* Lennard-Jones, positions interleaved (pos[3i..3i+2]), potential shifted so
 * that it is 0 at the cutoff: e = 4 eps (sr6^2 - sr6) - ec for r^2 < rc^2,
 * sr2 = sigma^2 / max(r^2, (sigma/2)^2). */
pg_status task_ref_suite_lj_shifted(task_inst *in) {
    const float *pos = task_buf(in, "pos");
    float *en = task_buf(in, "energy");
    size_t N = sz(in, "N");
    double eps = f32s(in, "eps"), sigma = f32s(in, "sigma"), rc = f32s(in, "cutoff");
    double s2 = sigma * sigma, rmin2 = 0.25 * s2, rc2 = rc * rc;
    double src6 = pow(s2 / rc2, 3), ec = 4.0 * eps * (src6 * src6 - src6);
    double *acc = calloc(N ? N : 1, sizeof(double));
    if (!acc) return PG_ERR_NOMEM;
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++) {
            double dx = (double)pos[3 * j] - pos[3 * i], dy = (double)pos[3 * j + 1] - pos[3 * i + 1],
                   dz = (double)pos[3 * j + 2] - pos[3 * i + 2];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (!(r2 < rc2)) continue;
            double sr2 = s2 / (r2 > rmin2 ? r2 : rmin2), sr6 = sr2 * sr2 * sr2;
            double e = 4.0 * eps * (sr6 * sr6 - sr6) - ec;
            acc[i] += e;
            acc[j] += e;
        }
    for (size_t i = 0; i < N; i++) en[i] = (float)acc[i];
    free(acc);
    return PG_OK;
}
