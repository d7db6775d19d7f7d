/* refs_stencil.c — C references for the stencil / row-normalisation /
 * particle seed tasks (corpus/{stencil1d_3pt,jacobi2d_5pt,stencil3d_7pt,
 * conv1d,conv2d_3x3,softmax_row,layernorm_row,rmsnorm_row,lj_energy,lj_force,
 * lj_energy_naive,nbody_accel}).
 *
 * Every reference computes in double from the f32 inputs and rounds once to
 * f32.  Float scalars arrive as doubles holding the spec's literal; the GPU
 * sees them rounded to f32, so they are rounded to float first.
 *
 * Lennard-Jones conventions shared with the kernels (documented in the task
 * cards): positions are three separate arrays x, y, z (SoA); a pair (i, j),
 * j != i, interacts when r^2 < cutoff^2; before the 1/r^2 power terms r^2 is
 * clamped to at least rmin^2 = (sigma/2)^2 so that two uniform-random atoms
 * that happen to sit on top of each other give a large but finite value.
 * The pair sums are symmetric, so each pair is evaluated once and added to
 * both atoms (halves the O(N^2) reference time). */
#include "ptxgen/task.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* f32 scalar parameter as the GPU sees it. */
static double sf(const task_inst *in, const char *name) { return (double)(float)task_scalar_f(in, name); }

/* Non-negative integer scalar parameter. */
static size_t si(const task_inst *in, const char *name) {
    int64_t v = task_scalar_i(in, name);
    return v > 0 ? (size_t)v : 0;
}

/* ---- stencil1d_3pt: out[i] = a*x[i-1] + b*x[i] + c*x[i+1]; ends copied ---- */
pg_status task_ref_stencil1d_3pt(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    double a = sf(in, "a"), b = sf(in, "b"), c = sf(in, "c");
    size_t n = si(in, "n");
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || i + 1 == n) out[i] = x[i];
        else out[i] = (float)(a * (double)x[i - 1] + b * (double)x[i] + c * (double)x[i + 1]);
    }
    return PG_OK;
}

/* ---- jacobi2d_5pt: interior = 0.25*(N+S+W+E); boundary rows/cols copied ---- */
pg_status task_ref_jacobi2d_5pt(task_inst *in) {
    const float *a = task_buf(in, "in");
    float *o = task_buf(in, "out");
    size_t H = si(in, "H"), W = si(in, "W");
    for (size_t r = 0; r < H; r++)
        for (size_t c = 0; c < W; c++) {
            size_t k = r * W + c;
            if (r == 0 || c == 0 || r + 1 == H || c + 1 == W) o[k] = a[k];
            else o[k] = (float)(0.25 * ((double)a[k - W] + (double)a[k + W] + (double)a[k - 1] + (double)a[k + 1]));
        }
    return PG_OK;
}

/* ---- stencil3d_7pt: interior = c0*center + c1*(6 face neighbours) ---- */
pg_status task_ref_stencil3d_7pt(task_inst *in) {
    const float *a = task_buf(in, "in");
    float *o = task_buf(in, "out");
    double c0 = sf(in, "c0"), c1 = sf(in, "c1");
    size_t D = si(in, "D"), H = si(in, "H"), W = si(in, "W");
    size_t P = H * W;
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                size_t k = z * P + y * W + x;
                if (z == 0 || y == 0 || x == 0 || z + 1 == D || y + 1 == H || x + 1 == W) {
                    o[k] = a[k];
                    continue;
                }
                double s = (double)a[k - 1] + (double)a[k + 1] + (double)a[k - W] + (double)a[k + W] +
                           (double)a[k - P] + (double)a[k + P];
                o[k] = (float)(c0 * (double)a[k] + c1 * s);
            }
    return PG_OK;
}

/* ---- conv1d: out[i] = sum_k w[k] * x[i + k - R/2], zero padding ---- */
pg_status task_ref_conv1d(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *w = task_buf(in, "w");
    float *out = task_buf(in, "out");
    size_t n = si(in, "n"), R = si(in, "R");
    int64_t pad = (int64_t)(R / 2);
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t k = 0; k < R; k++) {
            int64_t g = (int64_t)i + (int64_t)k - pad;
            if (g >= 0 && g < (int64_t)n) s += (double)w[k] * (double)x[g];
        }
        out[i] = (float)s;
    }
    return PG_OK;
}

/* ---- conv2d_3x3: out[r][c] = sum w[3i+j] * in[r+i-1][c+j-1], zero padding ---- */
pg_status task_ref_conv2d_3x3(task_inst *in) {
    const float *a = task_buf(in, "in");
    const float *w = task_buf(in, "w");
    float *o = task_buf(in, "out");
    int64_t H = (int64_t)si(in, "H"), W = (int64_t)si(in, "W");
    for (int64_t r = 0; r < H; r++)
        for (int64_t c = 0; c < W; c++) {
            double s = 0;
            for (int i = 0; i < 3; i++) {
                int64_t rr = r + i - 1;
                if (rr < 0 || rr >= H) continue;
                for (int j = 0; j < 3; j++) {
                    int64_t cc = c + j - 1;
                    if (cc < 0 || cc >= W) continue;
                    s += (double)w[3 * i + j] * (double)a[rr * W + cc];
                }
            }
            o[r * W + c] = (float)s;
        }
    return PG_OK;
}

/* ---- softmax_row: y = exp(x - max) / sum exp(x - max), per row ---- */
pg_status task_ref_softmax_row(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t rows = si(in, "rows"), cols = si(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        double m = -INFINITY;
        for (size_t c = 0; c < cols; c++) m = (double)xr[c] > m ? (double)xr[c] : m;
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += exp((double)xr[c] - m);
        for (size_t c = 0; c < cols; c++) yr[c] = (float)(exp((double)xr[c] - m) / s);
    }
    return PG_OK;
}

/* ---- layernorm_row: y = (x - mean) / sqrt(var + eps) * gamma + beta ----
 * var is the biased (population) variance of the row. */
pg_status task_ref_layernorm_row(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *g = task_buf(in, "gamma");
    const float *b = task_buf(in, "beta");
    float *y = task_buf(in, "y");
    double eps = sf(in, "eps");
    size_t rows = si(in, "rows"), cols = si(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += (double)xr[c];
        double mean = s / (double)cols;
        double v = 0;
        for (size_t c = 0; c < cols; c++) {
            double d = (double)xr[c] - mean;
            v += d * d;
        }
        double rstd = 1.0 / sqrt(v / (double)cols + eps);
        for (size_t c = 0; c < cols; c++) yr[c] = (float)(((double)xr[c] - mean) * rstd * (double)g[c] + (double)b[c]);
    }
    return PG_OK;
}

/* ---- rmsnorm_row: y = x / sqrt(mean(x^2) + eps) * w ---- */
pg_status task_ref_rmsnorm_row(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *w = task_buf(in, "w");
    float *y = task_buf(in, "y");
    double eps = sf(in, "eps");
    size_t rows = si(in, "rows"), cols = si(in, "cols");
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += (double)xr[c] * (double)xr[c];
        double rr = 1.0 / sqrt(s / (double)cols + eps);
        for (size_t c = 0; c < cols; c++) yr[c] = (float)((double)xr[c] * rr * (double)w[c]);
    }
    return PG_OK;
}

/* ---- Lennard-Jones ------------------------------------------------------- */
typedef struct {
    double s2, rmin2, rc2, eps;
} lj_par;

static lj_par lj_params(const task_inst *in) {
    lj_par p;
    double sigma = sf(in, "sigma"), rc = sf(in, "cutoff");
    p.eps = sf(in, "eps");
    p.s2 = sigma * sigma;
    p.rmin2 = 0.25 * p.s2;   /* clamp: r^2 >= (sigma/2)^2 */
    p.rc2 = rc * rc;
    return p;
}

/* energies[i] = sum_{j != i, r^2 < rc^2} 4 eps (sr2^6 - sr2^3), sr2 = s2 / max(r^2, rmin2) */
static pg_status lj_energy_common(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *y = task_buf(in, "y");
    const float *z = task_buf(in, "z");
    float *en = task_buf(in, "energy");
    size_t N = si(in, "N");
    lj_par p = lj_params(in);
    double *acc = calloc(N ? N : 1, sizeof(double));
    if (!acc) return PG_ERR_NOMEM;
    for (size_t i = 0; i < N; i++) {
        double xi = x[i], yi = y[i], zi = z[i];
        for (size_t j = i + 1; j < N; j++) {
            double dx = (double)x[j] - xi, dy = (double)y[j] - yi, dz = (double)z[j] - zi;
            double r2 = dx * dx + dy * dy + dz * dz;
            if (!(r2 < p.rc2)) continue;
            double sr2 = p.s2 / (r2 > p.rmin2 ? r2 : p.rmin2);
            double sr6 = sr2 * sr2 * sr2;
            double e = 4.0 * p.eps * (sr6 * sr6 - sr6);
            acc[i] += e;
            acc[j] += e;
        }
    }
    for (size_t i = 0; i < N; i++) en[i] = (float)acc[i];
    free(acc);
    return PG_OK;
}

pg_status task_ref_lj_energy(task_inst *in) { return lj_energy_common(in); }
pg_status task_ref_lj_energy_naive(task_inst *in) { return lj_energy_common(in); }

/* f_i = sum_{j != i, r^2 < rc^2} 24 eps (2 sr6^2 - sr6) / max(r^2, rmin2) * (r_i - r_j) */
pg_status task_ref_lj_force(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *y = task_buf(in, "y");
    const float *z = task_buf(in, "z");
    float *fx = task_buf(in, "fx");
    float *fy = task_buf(in, "fy");
    float *fz = task_buf(in, "fz");
    size_t N = si(in, "N");
    lj_par p = lj_params(in);
    double *acc = calloc(3 * (N ? N : 1), sizeof(double));
    if (!acc) return PG_ERR_NOMEM;
    for (size_t i = 0; i < N; i++) {
        double xi = x[i], yi = y[i], zi = z[i];
        for (size_t j = i + 1; j < N; j++) {
            double dx = xi - (double)x[j], dy = yi - (double)y[j], dz = zi - (double)z[j];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (!(r2 < p.rc2)) continue;
            double r2c = r2 > p.rmin2 ? r2 : p.rmin2;
            double sr2 = p.s2 / r2c;
            double sr6 = sr2 * sr2 * sr2;
            double c = 24.0 * p.eps * (2.0 * sr6 * sr6 - sr6) / r2c;
            acc[3 * i] += c * dx;
            acc[3 * i + 1] += c * dy;
            acc[3 * i + 2] += c * dz;
            acc[3 * j] -= c * dx;
            acc[3 * j + 1] -= c * dy;
            acc[3 * j + 2] -= c * dz;
        }
    }
    for (size_t i = 0; i < N; i++) {
        fx[i] = (float)acc[3 * i];
        fy[i] = (float)acc[3 * i + 1];
        fz[i] = (float)acc[3 * i + 2];
    }
    free(acc);
    return PG_OK;
}

/* ---- nbody_accel: a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + soft2)^(3/2) ----
 * pos is interleaved float4 (x, y, z, mass) per body; G = 1.  The j == i term
 * is zero (r_j - r_i = 0) and is skipped. */
pg_status task_ref_nbody_accel(task_inst *in) {
    const float *pos = task_buf(in, "pos");
    float *ax = task_buf(in, "ax");
    float *ay = task_buf(in, "ay");
    float *az = task_buf(in, "az");
    double soft2 = sf(in, "soft2");
    size_t N = si(in, "N");
    double *acc = calloc(3 * (N ? N : 1), sizeof(double));
    if (!acc) return PG_ERR_NOMEM;
    for (size_t i = 0; i < N; i++) {
        double xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2], mi = pos[4 * i + 3];
        for (size_t j = i + 1; j < N; j++) {
            double dx = (double)pos[4 * j] - xi, dy = (double)pos[4 * j + 1] - yi, dz = (double)pos[4 * j + 2] - zi;
            double mj = pos[4 * j + 3];
            double r2 = dx * dx + dy * dy + dz * dz + soft2;
            double inv = 1.0 / sqrt(r2);
            double w = inv * inv * inv;
            acc[3 * i] += mj * w * dx;
            acc[3 * i + 1] += mj * w * dy;
            acc[3 * i + 2] += mj * w * dz;
            acc[3 * j] -= mi * w * dx;
            acc[3 * j + 1] -= mi * w * dy;
            acc[3 * j + 2] -= mi * w * dz;
        }
    }
    for (size_t i = 0; i < N; i++) {
        ax[i] = (float)acc[3 * i];
        ay[i] = (float)acc[3 * i + 1];
        az[i] = (float)acc[3 * i + 2];
    }
    free(acc);
    return PG_OK;
}
