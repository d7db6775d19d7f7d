// gemm_mma_f16: C = A * B on tensor cores, f16 inputs, f32 accumulation and output.
//   A: M x K f16 row-major; Bt: N x K f16 row-major (B column-major); C: M x N f32 row-major,
//   C[m][n] = sum over k of A[m][k] * Bt[n][k].  M, N, K multiples of 16 (also bounds-checked).
// Both mma operands are K-contiguous: for mma.m16n8k16.row.col each f16x2 fragment register holds
// two consecutive k of one row of A or one column of B, one aligned 32-bit word in either array.
// Block = 128 threads (4 warps, 2x2) computes a 64x64 tile of C; each warp a 32x32 sub-tile =
// 2 (m16) x 4 (n8) mma tiles, 32 f32 accumulators per thread.  K is walked in steps of 32 (2 mma
// k-steps) through shared tiles; each thread moves two 16-byte chunks of A and of Bt per k-step
// (global -> registers -> shared), fetching the next k-step right after the first barrier.
#include <cuda_fp16.h>

// one m16n8k16 tensor-core step: c (4 f32) += a (4 f16x2 words, 16x16) * b (2 f16x2 words, 16x8)
__device__ __forceinline__ void mma16816(float* c, const unsigned* a, unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(128) gemm_mma_f16(const __half* __restrict__ A, const __half* __restrict__ Bt, float* __restrict__ C, unsigned M, unsigned N, unsigned K)
{
    // rows padded from 32 to 40 halves (80 B = 20 words): the fragment loads (8 rows x 4 words per
    // warp) hit 32 distinct banks, and rows stay 16-byte aligned for the 128-bit stores
    __shared__ __align__(16) __half As[64][40];
    __shared__ __align__(16) __half Bs[64][40];
    unsigned tid = threadIdx.x;
    unsigned bn = blockIdx.x * 64, bm = blockIdx.y * 64;   // the block's tile of C
    // ---- loader: rows lr and lr+32, the 16-byte chunk lc of the 32-wide k-step ----
    unsigned lr = tid >> 2, lc = tid & 3;
    unsigned kc = lc * 8;   // the k index of the chunk: k0 + 8*lc
    bool a0_ok = bm + lr < M, a1_ok = bm + lr + 32 < M;   // A rows, i = 0 and 1
    bool b0_ok = bn + lr < N, b1_ok = bn + lr + 32 < N;   // Bt rows (n), i = 0 and 1
    const __half* gA0 = A + ((size_t)(bm + lr) * K + kc);
    const __half* gA1 = gA0 + 32 * (size_t)K;   // 32 rows further
    const __half* gB0 = Bt + ((size_t)(bn + lr) * K + kc);
    const __half* gB1 = gB0 + 32 * (size_t)K;
    uint4* sA = reinterpret_cast<uint4*>(&As[lr][lc * 8]);   // the stores; i = 1 is 32 rows (2560 B) further
    uint4* sB = reinterpret_cast<uint4*>(&Bs[lr][lc * 8]);
    // ---- fragment read bases (PTX ISA m16n8k16 .f16 layout): g = lane >> 2, q = lane & 3 ----
    unsigned warp = tid >> 5, lane = tid & 31;
    unsigned wm = warp >> 1, wn = warp & 1;
    unsigned g = lane >> 2, q = lane & 3;
    unsigned ra = wm * 32 + g, rb = wn * 32 + g;
    const unsigned* fA = reinterpret_cast<const unsigned*>(&As[ra][2 * q]);   // a0:(g, 2q..2q+1) a1:(g+8, 2q..) a2:(g, 2q+8..) a3:(g+8, 2q+8..)
    const unsigned* fB = reinterpret_cast<const unsigned*>(&Bs[rb][2 * q]);   // b0:(k=2q..2q+1, n=g) b1:(k=2q+8.., n=g)
    unsigned k0 = 0;
    float acc[2][4][4] = {};   // [mi][ni][c0..c3]
    // fetch the k-step at k0 into registers, zero outside M/N/K
    bool k_ok = kc < K;
    uint4 ra0 = make_uint4(0, 0, 0, 0), ra1 = ra0, rb0 = ra0, rb1 = ra0;
    if (k_ok && a0_ok) ra0 = __ldg(reinterpret_cast<const uint4*>(gA0)); if (k_ok && a1_ok) ra1 = __ldg(reinterpret_cast<const uint4*>(gA1));
    if (k_ok && b0_ok) rb0 = __ldg(reinterpret_cast<const uint4*>(gB0)); if (k_ok && b1_ok) rb1 = __ldg(reinterpret_cast<const uint4*>(gB1));
    do {
        sA[0] = ra0; sA[160] = ra1; sB[0] = rb0; sB[160] = rb1;
        __syncthreads();
        // advance, and prefetch the next k-step: its latency hides behind the mma work
        k0 += 32; kc += 32; gA0 += 32; gA1 += 32; gB0 += 32; gB1 += 32;
        k_ok = kc < K;
        ra0 = make_uint4(0, 0, 0, 0); ra1 = ra0; rb0 = ra0; rb1 = ra0;
        if (k_ok && a0_ok) ra0 = __ldg(reinterpret_cast<const uint4*>(gA0)); if (k_ok && a1_ok) ra1 = __ldg(reinterpret_cast<const uint4*>(gA1));
        if (k_ok && b0_ok) rb0 = __ldg(reinterpret_cast<const uint4*>(gB0)); if (k_ok && b1_ok) rb1 = __ldg(reinterpret_cast<const uint4*>(gB1));
        #pragma unroll
        for (int ks = 0; ks < 2; ks++) {   // two k16 steps: fragments from shared, 8 mma
            const unsigned* pa = fA + 8 * ks; const unsigned* pb = fB + 8 * ks;
            unsigned a0[4] = {pa[0], pa[160], pa[4], pa[164]};     // m-tile 0: rows g and g+8
            unsigned a1[4] = {pa[320], pa[480], pa[324], pa[484]}; // m-tile 1: rows g+16 and g+24
            unsigned b[8] = {pb[0], pb[4], pb[160], pb[164], pb[320], pb[324], pb[480], pb[484]};   // 4 n-tiles
            mma16816(acc[0][0], a0, b[0], b[1]); mma16816(acc[0][1], a0, b[2], b[3]); mma16816(acc[0][2], a0, b[4], b[5]); mma16816(acc[0][3], a0, b[6], b[7]);
            mma16816(acc[1][0], a1, b[0], b[1]); mma16816(acc[1][1], a1, b[2], b[3]); mma16816(acc[1][2], a1, b[4], b[5]); mma16816(acc[1][3], a1, b[6], b[7]);
        }
        __syncthreads();
    } while (k0 < K);
    // ---- epilogue: c0,c1 -> C[row][col..col+1], c2,c3 -> C[row+8][col..col+1] ----
    unsigned row = bm + ra;   // bm + wm*32 + g
    unsigned col = bn + wn * 32 + 2 * q;
    bool c0_ok = col < N, c1_ok = col + 8 < N, c2_ok = col + 16 < N, c3_ok = col + 24 < N;   // N even: col+1 too
    #pragma unroll
    for (int h = 0; h < 4; h++) {   // rows g, g+8 of m-tile 0, then of m-tile 1
        unsigned r = row + 8 * h;
        bool r_ok = r < M;
        float2* dst = reinterpret_cast<float2*>(C + ((size_t)r * N + col));   // &C[row][col base]
        const int mi = h >> 1, hi = 2 * (h & 1);
        if (r_ok && c0_ok) dst[0] = make_float2(acc[mi][0][hi], acc[mi][0][hi + 1]);
        if (r_ok && c1_ok) dst[4] = make_float2(acc[mi][1][hi], acc[mi][1][hi + 1]);
        if (r_ok && c2_ok) dst[8] = make_float2(acc[mi][2][hi], acc[mi][2][hi + 1]);
        if (r_ok && c3_ok) dst[12] = make_float2(acc[mi][3][hi], acc[mi][3][hi + 1]);
    }
}
