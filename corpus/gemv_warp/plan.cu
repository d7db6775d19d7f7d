// gemv_warp: y = A x, A row-major rows x cols (f32), one warp per row, 256 threads per block.
// Warp w owns row w; its lanes sweep the row together, so every load instruction of the warp reads
// one contiguous 512-byte (vector path) or 128-byte (scalar path) span.  The 32 partial sums are
// combined with a butterfly shuffle; lane 0 stores.
extern "C" __global__ void gemv_warp(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned cols)
{
    unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;   // global warp id
    unsigned lane = threadIdx.x & 31;
    if (row >= rows) return;   // warp-uniform (blockDim is a multiple of 32): no split before the shuffles
    const float* a = A + (size_t)row * cols;   // &A[row][0]
    float s0 = 0.0f, s1 = 0.0f;   // two accumulators
    if ((cols & 3) == 0) {   // uniform across the grid: every row starts 16-byte aligned
        // ---- vector path: one float4 per lane per step; c < cols implies c+3 < cols ----
        for (unsigned c = 4 * lane; c < cols; c += 128) {
            float4 av = __ldg(reinterpret_cast<const float4*>(a + c));
            float4 xv = __ldg(reinterpret_cast<const float4*>(x + c));
            s0 = fmaf(av.x, xv.x, s0); s1 = fmaf(av.y, xv.y, s1); s0 = fmaf(av.z, xv.z, s0); s1 = fmaf(av.w, xv.w, s1);
        }
    } else {
        // ---- scalar path: one float per lane per step ----
        for (unsigned c = lane; c < cols; c += 32) s0 = fmaf(__ldg(a + c), __ldg(x + c), s0);
    }
    float sum = s0 + s1;   // all lanes of the warp arrive here
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);   // butterfly
    if (lane == 0) y[row] = sum;
}
