// l2norm_row_warp: y = x / max(||x_r||, eps); one warp per row, 8 rows per 256-thread block.
extern "C" __global__ void l2norm_row_warp(const float* __restrict__ x, float* __restrict__ y, float eps,
                                           unsigned int rows, unsigned int cols)
{
    unsigned int row = blockIdx.x * 8 + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float s = 0.0f;
    for (unsigned int j = lane; j < cols; j += 32) s += xr[j] * xr[j];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = 1.0f / fmaxf(sqrtf(s), eps);
    for (unsigned int j = lane; j < cols; j += 32) y[(size_t)row * cols + j] = xr[j] * inv;
}
