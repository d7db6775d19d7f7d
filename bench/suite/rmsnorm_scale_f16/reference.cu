// rmsnorm_scale_f16: y = half(x * rsqrt(mean(x^2) + eps) * w * alpha); one 256-thread block per row.
#include <cuda_fp16.h>
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

extern "C" __global__ void rmsnorm_scale_f16(const float* __restrict__ x, const float* __restrict__ w,
                                             __half* __restrict__ y, float eps, float alpha,
                                             unsigned int rows, unsigned int cols)
{
    __shared__ float red[NT / 32 + 1];
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float s = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) s += xr[j] * xr[j];
    float rstd = rsqrtf(block_sum(s, red) / (float)cols + eps) * alpha;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) y[(size_t)row * cols + j] = __float2half_rn(xr[j] * rstd * w[j]);
}
