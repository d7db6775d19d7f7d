// gemm_smem16: C = A B with 16x16 shared-memory tiles; A row-major M x K, B row-major K x N, C
// row-major M x N, all f32.  Block (16,16) (.reqntid 16, 16, 1) computes a 16x16 tile of C;
// thread (tx,ty) owns C[by*16+ty][bx*16+tx].  Per k-tile (16 wide): As[ty][tx] = A[row][k0+tx],
// Bs[ty][tx] = B[k0+ty][col] (0 outside), barrier, sum += As[ty][0..15] . Bs[0..15][tx], barrier.
// Both global loads are coalesced along tx; the inner product is fully unrolled.
extern "C" __global__ void gemm_smem16(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, unsigned M, unsigned N, unsigned K)
{
    __shared__ __align__(16) float As[16][16];   // As[ty][tx]
    __shared__ __align__(16) float Bs[16][16];   // Bs[k][tx]
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned col = blockIdx.x * 16 + tx, row = blockIdx.y * 16 + ty;
    bool row_ok = row < M, col_ok = col < N;   // out-of-range threads do not exit: they reach every barrier and fill zeros
    const float* pA = A + ((size_t)row * K + tx);   // &A[row][tx], advances 16 floats per tile
    const float* pB = B + ((size_t)ty * N + col);   // &B[ty][col], advances 16 rows per tile
    size_t sB = 16 * (size_t)N;   // 16*N*4 bytes
    float* as = &As[ty][tx];   // where this thread stores
    float* bs = &Bs[ty][tx];
    const float4* arow = reinterpret_cast<const float4*>(&As[ty][0]);   // the A row: a broadcast across the 16 threads of a row
    const float* bcol = &Bs[0][tx];   // the B column: consecutive tx in consecutive banks, conflict-free
    unsigned ka = tx, kb = ty;   // k0 + tx, k0 + ty
    unsigned k0 = 0;
    float sum = 0.0f;
    do {
        float a = ka < K && row_ok ? __ldg(pA) : 0.0f;
        float b = kb < K && col_ok ? __ldg(pB) : 0.0f;
        *as = a; *bs = b;
        __syncthreads();
        float4 a0 = arow[0], a1 = arow[1], a2 = arow[2], a3 = arow[3];   // four 128-bit shared loads
        float b0 = bcol[0], b1 = bcol[16], b2 = bcol[32], b3 = bcol[48], b4 = bcol[64], b5 = bcol[80], b6 = bcol[96], b7 = bcol[112];
        float b8 = bcol[128], b9 = bcol[144], b10 = bcol[160], b11 = bcol[176], b12 = bcol[192], b13 = bcol[208], b14 = bcol[224], b15 = bcol[240];
        sum = fmaf(a0.x, b0, sum); sum = fmaf(a0.y, b1, sum); sum = fmaf(a0.z, b2, sum); sum = fmaf(a0.w, b3, sum);
        sum = fmaf(a1.x, b4, sum); sum = fmaf(a1.y, b5, sum); sum = fmaf(a1.z, b6, sum); sum = fmaf(a1.w, b7, sum);
        sum = fmaf(a2.x, b8, sum); sum = fmaf(a2.y, b9, sum); sum = fmaf(a2.z, b10, sum); sum = fmaf(a2.w, b11, sum);
        sum = fmaf(a3.x, b12, sum); sum = fmaf(a3.y, b13, sum); sum = fmaf(a3.z, b14, sum); sum = fmaf(a3.w, b15, sum);
        __syncthreads();
        ka += 16; kb += 16; pA += 16; pB += sB; k0 += 16;
    } while (k0 < K);
    if (row_ok && col_ok) C[(size_t)row * N + col] = sum;
}
