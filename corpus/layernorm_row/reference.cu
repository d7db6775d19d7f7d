// layernorm_row: LayerNorm over each row (biased variance, two-pass), with
// per-column gamma/beta; one 256-thread block per row.
#define NT 256
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Block-wide sum; every thread gets the result.  red must hold NT/32+1 floats.
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
    __syncthreads();   // red may be reused right after
    return v;
}
extern "C" __global__ void layernorm_row(const float* __restrict__ x, const float* __restrict__ gamma,
                                         const float* __restrict__ beta, float* __restrict__ y,
                                         float eps, unsigned int rows, unsigned int cols)
{
    __shared__ float red[NT / 32 + 1];
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float s = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) s += xr[j];
    float mean = block_sum(s, red) / (float)cols;

    float v = 0.0f;
    for (unsigned int j = threadIdx.x; j < cols; j += NT) {
        float d = xr[j] - mean;
        v += d * d;
    }
    float rstd = rsqrtf(block_sum(v, red) / (float)cols + eps);

    for (unsigned int j = threadIdx.x; j < cols; j += NT)
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
}
