// masked_softmax_row: softmax over the kept (mask != 0) entries of each row; one 256-thread block per row.
#define NT 256

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Block-wide reductions for NT threads; every thread gets the result. red holds NT/32+1 floats.
__device__ __forceinline__ float block_max(float v, float* red) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_max(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < NT / 32 ? red[lane] : -INFINITY;
        v = warp_max(v);
        if (lane == 0) red[NT / 32] = v;
    }
    __syncthreads();
    v = red[NT / 32];
    __syncthreads();
    return v;
}
__device__ __forceinline__ float block_sum(float v, float* red) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < NT / 32 ? red[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) red[NT / 32] = v;
    }
    __syncthreads();
    v = red[NT / 32];
    __syncthreads();
    return v;
}

extern "C" __global__ void masked_softmax_row(const float* __restrict__ x, const unsigned char* __restrict__ mask,
                                              float* __restrict__ y, unsigned int rows, unsigned int cols)
{
    __shared__ float red[NT / 32 + 1];
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    const unsigned char* mr = mask + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) if (mr[j]) m = fmaxf(m, xr[j]);
    m = block_max(m, red);
    float s = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) if (mr[j]) s += expf(xr[j] - m);
    s = block_sum(s, red);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) yr[j] = mr[j] ? expf(xr[j] - m) * inv : 0.0f;
}
