// gemm_regblock: C = A B with register blocking; A row-major M x K, B row-major K x N, C row-major
// M x N, all f32.  Block = 16x16 threads (.reqntid 16, 16, 1) computing a 64x64 tile of C; thread
// (tx,ty) computes the 4x4 sub-tile rows by*64+ty*4+{0..3}, cols bx*64+tx*4+{0..3} in 16 registers.
// k is walked in tiles of 16; per k, 2 vector shared loads feed 16 fma (8x better than gemm_smem16).
// Each thread loads 4 A and 4 B elements per tile (coalesced: A rows 16 consecutive floats per
// half-warp, B rows 64); out-of-range elements are zero-filled by predicated loads; the NEXT tile
// is fetched into registers right after the first barrier (one shared buffer, two barriers a tile).
extern "C" __global__ void gemm_regblock(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, unsigned M, unsigned N, unsigned K)
{
    // the 64x16 A tile stored k-major (transposed): a thread's 4 A values for one k are one 128-bit
    // load; rows padded to 68 floats (272 B, still 16-B aligned): the transposing stores are 2-way conflicted
    __shared__ __align__(16) float As[16][68];
    __shared__ __align__(16) float Bs[16][64];   // the 16x64 B tile, k-major
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned t = ty * 16 + tx;
    unsigned bn = blockIdx.x * 64, bm = blockIdx.y * 64;
    // ---- A loader: elements (m = ty + 16i, k = tx), i = 0..3 ----
    unsigned am = bm + ty;
    bool a0_ok = am < M, a1_ok = am + 16 < M, a2_ok = am + 32 < M, a3_ok = am + 48 < M;
    const float* pA0 = A + ((size_t)am * K + tx);
    const float* pA1 = pA0 + 16 * (size_t)K; const float* pA2 = pA1 + 16 * (size_t)K; const float* pA3 = pA2 + 16 * (size_t)K;
    unsigned ka = tx;   // k0 + tx
    // ---- B loader: elements (k = kb + 4i, n = t & 63), kb = t >> 6 ----
    unsigned kb = t >> 6, n = t & 63;
    bool b_ok = bn + n < N;   // the column
    const float* pB0 = B + ((size_t)kb * N + bn + n);
    const float* pB1 = pB0 + 4 * (size_t)N; const float* pB2 = pB1 + 4 * (size_t)N; const float* pB3 = pB2 + 4 * (size_t)N;
    size_t sB = 16 * (size_t)N;   // 16 rows of B: one tile
    unsigned kbb = kb;   // k0 + kb
    // ---- shared addresses ----
    float* sA = &As[tx][ty];    // the store; +16 floats per i
    float* sBs = &Bs[kb][n];    // = Bs + t; +4 rows (256 floats) per i
    const float* rA = &As[0][4 * ty];   // the reads: +68 floats per k
    const float* rB = &Bs[0][4 * tx];   // +64 floats per k
    unsigned k0 = 0;
    float c[4][4] = {};
    // fetch tile k0 into registers (zero outside the matrix)
    bool ka_ok = ka < K;
    float ra0 = 0.0f, ra1 = 0.0f, ra2 = 0.0f, ra3 = 0.0f;
    if (ka_ok && a0_ok) ra0 = __ldg(pA0); if (ka_ok && a1_ok) ra1 = __ldg(pA1); if (ka_ok && a2_ok) ra2 = __ldg(pA2); if (ka_ok && a3_ok) ra3 = __ldg(pA3);
    bool k0_ok = kbb < K && b_ok, k1_ok = kbb + 4 < K && b_ok, k2_ok = kbb + 8 < K && b_ok, k3_ok = kbb + 12 < K && b_ok;
    float rb0 = 0.0f, rb1 = 0.0f, rb2 = 0.0f, rb3 = 0.0f;
    if (k0_ok) rb0 = __ldg(pB0); if (k1_ok) rb1 = __ldg(pB1); if (k2_ok) rb2 = __ldg(pB2); if (k3_ok) rb3 = __ldg(pB3);
    do {
        // registers -> shared
        sA[0] = ra0; sA[16] = ra1; sA[32] = ra2; sA[48] = ra3;
        sBs[0] = rb0; sBs[256] = rb1; sBs[512] = rb2; sBs[768] = rb3;
        __syncthreads();
        // advance to the next tile and prefetch it (overlaps the fma work below)
        k0 += 16; ka += 16; kbb += 16; pA0 += 16; pA1 += 16; pA2 += 16; pA3 += 16; pB0 += sB; pB1 += sB; pB2 += sB; pB3 += sB;
        ka_ok = ka < K;
        ra0 = 0.0f; ra1 = 0.0f; ra2 = 0.0f; ra3 = 0.0f;
        if (ka_ok && a0_ok) ra0 = __ldg(pA0); if (ka_ok && a1_ok) ra1 = __ldg(pA1); if (ka_ok && a2_ok) ra2 = __ldg(pA2); if (ka_ok && a3_ok) ra3 = __ldg(pA3);
        k0_ok = kbb < K && b_ok; k1_ok = kbb + 4 < K && b_ok; k2_ok = kbb + 8 < K && b_ok; k3_ok = kbb + 12 < K && b_ok;
        rb0 = 0.0f; rb1 = 0.0f; rb2 = 0.0f; rb3 = 0.0f;
        if (k0_ok) rb0 = __ldg(pB0); if (k1_ok) rb1 = __ldg(pB1); if (k2_ok) rb2 = __ldg(pB2); if (k3_ok) rb3 = __ldg(pB3);
        #pragma unroll
        for (int kk = 0; kk < 16; kk++) {   // 16 k-steps, each 2 vector shared loads and 16 fma
            float4 a = *reinterpret_cast<const float4*>(rA + 68 * kk);   // A[4ty..4ty+3][k]
            float4 b = *reinterpret_cast<const float4*>(rB + 64 * kk);   // B[k][4tx..4tx+3]
            c[0][0] = fmaf(a.x, b.x, c[0][0]); c[0][1] = fmaf(a.x, b.y, c[0][1]); c[0][2] = fmaf(a.x, b.z, c[0][2]); c[0][3] = fmaf(a.x, b.w, c[0][3]);
            c[1][0] = fmaf(a.y, b.x, c[1][0]); c[1][1] = fmaf(a.y, b.y, c[1][1]); c[1][2] = fmaf(a.y, b.z, c[1][2]); c[1][3] = fmaf(a.y, b.w, c[1][3]);
            c[2][0] = fmaf(a.z, b.x, c[2][0]); c[2][1] = fmaf(a.z, b.y, c[2][1]); c[2][2] = fmaf(a.z, b.z, c[2][2]); c[2][3] = fmaf(a.z, b.w, c[2][3]);
            c[3][0] = fmaf(a.w, b.x, c[3][0]); c[3][1] = fmaf(a.w, b.y, c[3][1]); c[3][2] = fmaf(a.w, b.z, c[3][2]); c[3][3] = fmaf(a.w, b.w, c[3][3]);
        }
        __syncthreads();
    } while (k0 < K);
    // ---- store the 4x4 sub-tile, every element bounds-checked (N need not be a multiple of 4) ----
    unsigned row0 = bm + 4 * ty, col0 = bn + 4 * tx;
    bool n0 = col0 < N, n1 = col0 + 1 < N, n2 = col0 + 2 < N, n3 = col0 + 3 < N;
    float* pc = C + ((size_t)row0 * N + col0);   // &C[row0][col0]
    #pragma unroll
    for (int i = 0; i < 4; i++, pc += N) {   // the next row is N floats further
        bool r_ok = row0 + i < M;
        if (r_ok && n0) pc[0] = c[i][0]; if (r_ok && n1) pc[1] = c[i][1]; if (r_ok && n2) pc[2] = c[i][2]; if (r_ok && n3) pc[3] = c[i][3];
    }
}
