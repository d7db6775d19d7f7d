// Tensor-core GEMM C = A * B, f16 inputs, f32 accumulation and output.
// A: M x K row-major; Bt: N x K row-major (B column-major); C: M x N row-major.
// M, N, K multiples of 16.  Block of 4 warps computes a 64x64 tile of C, each
// warp 32x32 with 2x2 wmma 16x16x16 fragments; K walked in steps of 32 through
// padded shared-memory tiles, zero-filled outside the matrices.
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define LDS (BK + 8)

extern "C" __global__ void __launch_bounds__(128)
gemm_mma_f16(const __half* __restrict__ A, const __half* __restrict__ Bt,
             float* __restrict__ C, unsigned M, unsigned N, unsigned K)
{
    __shared__ __align__(32) __half As[BM][LDS];
    __shared__ __align__(32) __half Bs[BN][LDS];
    const unsigned tid = threadIdx.x, warp = tid / 32;
    const unsigned wm = warp / 2, wn = warp % 2;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (unsigned k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            unsigned r = tid / 4 + 32 * i, c = (tid % 4) * 8, k = k0 + c;
            uint4 va = make_uint4(0, 0, 0, 0), vb = make_uint4(0, 0, 0, 0);
            if (bm + r < M && k < K) va = *reinterpret_cast<const uint4*>(A + (size_t)(bm + r) * K + k);
            if (bn + r < N && k < K) vb = *reinterpret_cast<const uint4*>(Bt + (size_t)(bn + r) * K + k);
            *reinterpret_cast<uint4*>(&As[r][c]) = va;
            *reinterpret_cast<uint4*>(&Bs[r][c]) = vb;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb[2];
#pragma unroll
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], LDS);
#pragma unroll
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &Bs[wn * 32 + j * 16][kk], LDS);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            unsigned r = bm + wm * 32 + i * 16, c = bn + wn * 32 + j * 16;
            if (r < M && c < N)
                wmma::store_matrix_sync(C + (size_t)r * N + c, acc[i][j], N, wmma::mem_row_major);
        }
}
