// Naive SGEMM C = A B (row-major), one thread per element of C.
extern "C" __global__ void gemm_naive(const float* __restrict__ A,
                                      const float* __restrict__ B,
                                      float* __restrict__ C,
                                      unsigned M, unsigned N, unsigned K)
{
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const float* a = A + (size_t)row * K;
    float sum = 0.0f;
    for (unsigned k = 0; k < K; ++k)
        sum = fmaf(a[k], B[(size_t)k * N + col], sum);
    C[(size_t)row * N + col] = sum;
}
