/* refs_linalg.c — C references for the linalg corpus group (SpMV, GEMV, GEMM,
 * transpose, outer product, batched dot).  Sums are accumulated in double and
 * rounded to f32 once.  Buffers come from the task instance by parameter name. */
#include "ptxgen/task.h"

#include <stdlib.h>

static pg_status spmv_csr(task_inst *in)
{
    const int32_t *row_ptr = task_buf(in, "row_ptr");
    const int32_t *col_idx = task_buf(in, "col_idx");
    const float *vals = task_buf(in, "vals");
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    int64_t rows = task_scalar_i(in, "rows");
    for (int64_t r = 0; r < rows; r++) {
        double s = 0.0;
        for (int32_t j = row_ptr[r]; j < row_ptr[r + 1]; j++)
            s += (double)vals[j] * (double)x[col_idx[j]];
        y[r] = (float)s;
    }
    return PG_OK;
}

pg_status task_ref_spmv_csr_thread(task_inst *in) { return spmv_csr(in); }
pg_status task_ref_spmv_csr_warp(task_inst *in) { return spmv_csr(in); }

static pg_status gemv(task_inst *in)
{
    const float *A = task_buf(in, "A");
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    int64_t rows = task_scalar_i(in, "rows"), cols = task_scalar_i(in, "cols");
    for (int64_t r = 0; r < rows; r++) {
        const float *a = A + (size_t)r * (size_t)cols;
        double s = 0.0;
        for (int64_t c = 0; c < cols; c++)
            s += (double)a[c] * (double)x[c];
        y[r] = (float)s;
    }
    return PG_OK;
}

pg_status task_ref_gemv_thread(task_inst *in) { return gemv(in); }
pg_status task_ref_gemv_warp(task_inst *in) { return gemv(in); }

/* C[M][N] = A[M][K] * B[K][N], all row-major f32; i-k-j order over a double row
 * accumulator so the inner loop streams B and the row contiguously. */
static pg_status gemm_f32(task_inst *in)
{
    const float *A = task_buf(in, "A");
    const float *B = task_buf(in, "B");
    float *C = task_buf(in, "C");
    int64_t M = task_scalar_i(in, "M"), N = task_scalar_i(in, "N"), K = task_scalar_i(in, "K");
    double *acc = malloc((size_t)(N > 0 ? N : 1) * sizeof *acc);
    if (!acc) return PG_ERR_NOMEM;
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) acc[j] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            double a = A[(size_t)i * (size_t)K + (size_t)k];
            const float *b = B + (size_t)k * (size_t)N;
            for (int64_t j = 0; j < N; j++) acc[j] += a * (double)b[j];
        }
        for (int64_t j = 0; j < N; j++) C[(size_t)i * (size_t)N + (size_t)j] = (float)acc[j];
    }
    free(acc);
    return PG_OK;
}

pg_status task_ref_gemm_naive(task_inst *in) { return gemm_f32(in); }
pg_status task_ref_gemm_smem16(task_inst *in) { return gemm_f32(in); }
pg_status task_ref_gemm_regblock(task_inst *in) { return gemm_f32(in); }

/* C[M][N] = A[M][K] * Bt[N][K]^T; A, Bt f16 (raw bits), C f32.  Both operands are
 * converted to double once, then each C element is a dot of two contiguous rows. */
pg_status task_ref_gemm_mma_f16(task_inst *in)
{
    const uint16_t *A = task_buf(in, "A");
    const uint16_t *Bt = task_buf(in, "Bt");
    float *C = task_buf(in, "C");
    int64_t M = task_scalar_i(in, "M"), N = task_scalar_i(in, "N"), K = task_scalar_i(in, "K");
    size_t na = (size_t)M * (size_t)K, nb = (size_t)N * (size_t)K;
    double *a = malloc((na ? na : 1) * sizeof *a);
    double *b = malloc((nb ? nb : 1) * sizeof *b);
    if (!a || !b) { free(a); free(b); return PG_ERR_NOMEM; }
    for (size_t i = 0; i < na; i++) a[i] = task_f16_to_f32(A[i]);
    for (size_t i = 0; i < nb; i++) b[i] = task_f16_to_f32(Bt[i]);
    for (int64_t i = 0; i < M; i++) {
        const double *ar = a + (size_t)i * (size_t)K;
        for (int64_t j = 0; j < N; j++) {
            const double *br = b + (size_t)j * (size_t)K;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            int64_t k = 0;
            for (; k + 4 <= K; k += 4) {
                s0 += ar[k] * br[k];
                s1 += ar[k + 1] * br[k + 1];
                s2 += ar[k + 2] * br[k + 2];
                s3 += ar[k + 3] * br[k + 3];
            }
            for (; k < K; k++) s0 += ar[k] * br[k];
            C[(size_t)i * (size_t)N + (size_t)j] = (float)((s0 + s1) + (s2 + s3));
        }
    }
    free(a);
    free(b);
    return PG_OK;
}

static pg_status transpose(task_inst *in)
{
    const float *src = task_buf(in, "in");
    float *dst = task_buf(in, "out");
    int64_t rows = task_scalar_i(in, "rows"), cols = task_scalar_i(in, "cols");
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            dst[(size_t)c * (size_t)rows + (size_t)r] = src[(size_t)r * (size_t)cols + (size_t)c];
    return PG_OK;
}

pg_status task_ref_transpose_padded(task_inst *in) { return transpose(in); }
pg_status task_ref_transpose_naive(task_inst *in) { return transpose(in); }

pg_status task_ref_outer_product(task_inst *in)
{
    const float *x = task_buf(in, "x");
    const float *y = task_buf(in, "y");
    float *C = task_buf(in, "C");
    int64_t m = task_scalar_i(in, "m"), n = task_scalar_i(in, "n");
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            C[(size_t)i * (size_t)n + (size_t)j] = (float)((double)x[i] * (double)y[j]);
    return PG_OK;
}

pg_status task_ref_batched_dot(task_inst *in)
{
    const float *x = task_buf(in, "x");
    const float *y = task_buf(in, "y");
    float *out = task_buf(in, "out");
    int64_t batch = task_scalar_i(in, "batch"), n = task_scalar_i(in, "n");
    for (int64_t b = 0; b < batch; b++) {
        const float *xr = x + (size_t)b * (size_t)n, *yr = y + (size_t)b * (size_t)n;
        double s = 0.0;
        for (int64_t k = 0; k < n; k++) s += (double)xr[k] * (double)yr[k];
        out[b] = (float)s;
    }
    return PG_OK;
}
