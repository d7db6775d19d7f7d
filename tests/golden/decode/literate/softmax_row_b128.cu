// softmax_row_b128: stable row softmax, one 128-thread block per row.
#define NT 128
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void softmax_row_b128(const float* __restrict__ x, float* __restrict__ y,
                                            unsigned int rows, unsigned int cols)
{
    __shared__ float red[NT / 32];
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float m = -INFINITY;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) m = fmaxf(m, xr[j]);
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = fmaxf(fmaxf(red[0], red[1]), fmaxf(red[2], red[3]));
    __syncthreads();
    float s = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) s += expf(xr[j] - m);
    s = warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    float inv = 1.0f / ((red[0] + red[1]) + (red[2] + red[3]));
    for (unsigned int j = threadIdx.x; j < cols; j += NT) yr[j] = expf(xr[j] - m) * inv;
}
