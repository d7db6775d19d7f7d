// gemm_naive: C = A B, A row-major M x K, B row-major K x N, C row-major M x N (all f32), one
// thread per element of C.  Block (16,16): x walks the columns of C, y its rows.
// Per thread pA walks row `row` of A (+4 bytes per k, a broadcast across the 16 threads of a
// half-warp row) and pB walks column `col` of B (+N*4 bytes per k, coalesced across threadIdx.x).
// The k loop is unrolled by 4 with all 8 loads issued before the fma chain; a scalar tail handles
// K % 4.  No shared memory: reuse comes only from L1/L2.
extern "C" __global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, unsigned M, unsigned N, unsigned K)
{
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= N || row >= M) return;
    const float* pA = A + (size_t)row * K;   // &A[row][0]
    const float* pB = B + col;               // &B[0][col]
    size_t sB = N;                           // the stride of pB: N*4 bytes, and 2, 3 and 4 times that
    unsigned left = K;                       // remaining k
    float sum = 0.0f;
    for (; left >= 4; left -= 4, pA += 4, pB += 4 * sB) {
        float a0 = __ldg(pA), a1 = __ldg(pA + 1), a2 = __ldg(pA + 2), a3 = __ldg(pA + 3);
        float b0 = __ldg(pB), b1 = __ldg(pB + sB), b2 = __ldg(pB + 2 * sB), b3 = __ldg(pB + 3 * sB);
        sum = fmaf(a0, b0, sum); sum = fmaf(a1, b1, sum); sum = fmaf(a2, b2, sum); sum = fmaf(a3, b3, sum);
    }
    for (; left != 0; left--, pA++, pB += sB) sum = fmaf(__ldg(pA), __ldg(pB), sum);   // tail: K % 4
    C[(size_t)row * N + col] = sum;
}
