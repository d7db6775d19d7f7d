// segmented_row_sum: one warp per row of a row-major rows x cols float matrix (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
segmented_row_sum(const float* __restrict__ x, float* __restrict__ out, unsigned rows, unsigned cols)
{
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned row = blockIdx.x * 8u + warp;
    if (row >= rows) return;
    const float* r = x + (size_t)row * cols;
    float s = 0.0f;
    #pragma unroll 8
    for (unsigned c = lane; c < cols; c += 32) s += __ldg(r + c);
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) out[row] = s;
}
