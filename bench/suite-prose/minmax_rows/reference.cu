// minmax_rows: y = (x - min) / (max - min) per row (0 for a constant row), one warp per row.
#define FULL 0xffffffffu
extern "C" __global__ void minmax_rows(const float* __restrict__ x, float* __restrict__ y, unsigned int rows,
                                       unsigned int cols)
{
    unsigned int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (row >= rows) return;   // warp-uniform
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float mn = INFINITY, mx = -INFINITY;
    for (unsigned int j = lane; j < cols; j += 32) { float v = xr[j]; mn = fminf(mn, v); mx = fmaxf(mx, v); }
    for (int o = 16; o > 0; o >>= 1) {
        mn = fminf(mn, __shfl_xor_sync(FULL, mn, o));
        mx = fmaxf(mx, __shfl_xor_sync(FULL, mx, o));
    }
    float range = mx - mn;
    for (unsigned int j = lane; j < cols; j += 32) yr[j] = range > 0.0f ? (xr[j] - mn) / range : 0.0f;
}
