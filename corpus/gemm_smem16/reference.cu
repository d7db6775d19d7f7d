// SGEMM C = A B (row-major) with 16x16 shared-memory tiles, zero-filled edges.
#define TILE 16
extern "C" __global__ void gemm_smem16(const float* __restrict__ A,
                                       const float* __restrict__ B,
                                       float* __restrict__ C,
                                       unsigned M, unsigned N, unsigned K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned col = blockIdx.x * TILE + tx;
    unsigned row = blockIdx.y * TILE + ty;
    float sum = 0.0f;
    for (unsigned k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            sum = fmaf(As[ty][k], Bs[k][tx], sum);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = sum;
}
