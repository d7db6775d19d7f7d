/* refs_reduce.c — C references for the reduce group (reductions, scans,
 * histogram, one bitonic step).
 *
 * Element mappings shared with the kernels (see each task.json "detailed"):
 *  - "chunked" per-block partials: block b reduces the contiguous chunk
 *    [b*CHUNK, min(n, (b+1)*CHUNK)) and writes out[b]; CHUNK = 2048.
 *  - "grid-stride" per-block partials: the grid has G = in->grid[0] blocks
 *    and block b reduces chunks b, b+G, b+2G, ... of CHUNK elements each.
 * Floating sums are accumulated in double (the kernels' f32 rounding is
 * covered by the tolerance); min/max/argmax/counts are exact. */
#include "ptxgen/task.h"

#include <math.h>
#include <stdint.h>

enum { CHUNK = 2048 };

/* Sum of x[lo..hi) in double. */
static double sum_f32(const float *x, size_t lo, size_t hi) {
    double s = 0;
    for (size_t i = lo; i < hi; i++) s += x[i];
    return s;
}
static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

pg_status task_ref_reduce_sum_smem(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t nb = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < nb; b++) out[b] = (float)sum_f32(x, b * CHUNK, min_sz(n, (b + 1) * CHUNK));
    return PG_OK;
}

pg_status task_ref_reduce_sum_shfl(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t G = in->grid[0];
    size_t nchunks = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < G; b++) {
        double s = 0;
        for (size_t c = b; c < nchunks; c += G) s += sum_f32(x, c * CHUNK, min_sz(n, (c + 1) * CHUNK));
        out[b] = (float)s;
    }
    return PG_OK;
}

pg_status task_ref_reduce_max_atomic(task_inst *in) {
    const int32_t *x = task_buf(in, "x");
    int32_t *out = task_buf(in, "out");   /* inout: holds the initial value (INT_MIN) */
    size_t n = (size_t)task_scalar_i(in, "n");
    int32_t m = out[0];
    for (size_t i = 0; i < n; i++)
        if (x[i] > m) m = x[i];
    out[0] = m;
    return PG_OK;
}

pg_status task_ref_reduce_min_f32(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t nb = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < nb; b++) {
        size_t hi = min_sz(n, (b + 1) * CHUNK);
        float m = INFINITY;
        for (size_t i = b * CHUNK; i < hi; i++)
            if (x[i] < m) m = x[i];
        out[b] = m;
    }
    return PG_OK;
}

pg_status task_ref_argmax_f32(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out_val = task_buf(in, "out_val");
    int32_t *out_idx = task_buf(in, "out_idx");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t nb = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < nb; b++) {
        size_t hi = min_sz(n, (b + 1) * CHUNK), best = b * CHUNK;
        for (size_t i = best + 1; i < hi; i++)
            if (x[i] > x[best]) best = i;   /* strict: the first index wins ties */
        out_val[b] = x[best];
        out_idx[b] = (int32_t)best;
    }
    return PG_OK;
}

pg_status task_ref_dot_f32(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *y = task_buf(in, "y");
    float *out = task_buf(in, "out");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t nb = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < nb; b++) {
        size_t hi = min_sz(n, (b + 1) * CHUNK);
        double s = 0;
        for (size_t i = b * CHUNK; i < hi; i++) s += (double)x[i] * (double)y[i];
        out[b] = (float)s;
    }
    return PG_OK;
}

/* Inclusive prefix sums restarting every `seg` elements (wrapping int32 adds). */
static void seg_scan_s32(const int32_t *x, int32_t *y, size_t n, size_t seg) {
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % seg == 0) acc = 0;
        acc += (uint32_t)x[i];
        y[i] = (int32_t)acc;
    }
}

pg_status task_ref_warp_scan(task_inst *in) {
    seg_scan_s32(task_buf(in, "x"), task_buf(in, "y"), (size_t)task_scalar_i(in, "n"), 32);
    return PG_OK;
}

pg_status task_ref_block_scan(task_inst *in) {
    seg_scan_s32(task_buf(in, "x"), task_buf(in, "y"), (size_t)task_scalar_i(in, "n"), 256);
    return PG_OK;
}

pg_status task_ref_bitonic_step(task_inst *in) {
    uint32_t *keys = task_buf(in, "keys");   /* inout */
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t j = (size_t)task_scalar_i(in, "j");
    size_t k = (size_t)task_scalar_i(in, "k");
    for (size_t i = 0; i < n; i++) {
        size_t l = i ^ j;
        if (l <= i || l >= n) continue;
        uint32_t a = keys[i], b = keys[l];
        bool ascending = (i & k) == 0;
        if (ascending ? a > b : a < b) {
            keys[i] = b;
            keys[l] = a;
        }
    }
    return PG_OK;
}

pg_status task_ref_histogram_smem(task_inst *in) {
    const uint8_t *data = task_buf(in, "data");
    uint32_t *bins = task_buf(in, "bins");   /* inout: starts at 0 */
    size_t n = (size_t)task_scalar_i(in, "n");
    for (size_t i = 0; i < n; i++) bins[data[i]]++;
    return PG_OK;
}

pg_status task_ref_count_positive(task_inst *in) {
    const float *x = task_buf(in, "x");
    int32_t *out = task_buf(in, "out");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t nb = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < nb; b++) {
        size_t hi = min_sz(n, (b + 1) * CHUNK);
        int32_t c = 0;
        for (size_t i = b * CHUNK; i < hi; i++) c += x[i] > 0.0f;
        out[b] = c;
    }
    return PG_OK;
}

pg_status task_ref_reduce_sum_f64(task_inst *in) {
    const double *x = task_buf(in, "x");
    double *out = task_buf(in, "out");
    size_t n = (size_t)task_scalar_i(in, "n");
    size_t nb = (n + CHUNK - 1) / CHUNK;
    for (size_t b = 0; b < nb; b++) {
        size_t hi = min_sz(n, (b + 1) * CHUNK);
        long double s = 0;   /* extra precision: the f64 tolerance is tight */
        for (size_t i = b * CHUNK; i < hi; i++) s += x[i];
        out[b] = (double)s;
    }
    return PG_OK;
}

pg_status task_ref_segmented_row_sum(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *out = task_buf(in, "out");
    size_t rows = (size_t)task_scalar_i(in, "rows");
    size_t cols = (size_t)task_scalar_i(in, "cols");
    for (size_t r = 0; r < rows; r++) out[r] = (float)sum_f32(x, r * cols, (r + 1) * cols);
    return PG_OK;
}
