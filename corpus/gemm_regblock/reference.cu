// SGEMM C = A B (row-major), register blocking: 64x64 block tile, 16x16 threads,
// each thread computes a 4x4 sub-tile; shared tiles for A (stored transposed) and B.
#define BM 64
#define BN 64
#define BK 16
extern "C" __global__ void __launch_bounds__(256)
gemm_regblock(const float* __restrict__ A, const float* __restrict__ B,
              float* __restrict__ C, unsigned M, unsigned N, unsigned K)
{
    __shared__ __align__(16) float As[BK][BM + 4];
    __shared__ __align__(16) float Bs[BK][BN];
    const unsigned tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[4][4] = {};
    for (unsigned k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            unsigned m = ty + 16 * i, r = bm + m, k = k0 + tx;
            As[tx][m] = (r < M && k < K) ? A[(size_t)r * K + k] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            unsigned kk = (t >> 6) + 4 * i, n = t & 63, k = k0 + kk, c = bn + n;
            Bs[kk][n] = (k < K && c < N) ? B[(size_t)k * N + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
            float4 b = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
            float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        unsigned r = bm + ty * 4 + i;
        if (r >= M) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            unsigned c = bn + tx * 4 + j;
            if (c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
