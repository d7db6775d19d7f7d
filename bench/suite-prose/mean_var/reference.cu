// mean_var: stats = {mean, population variance} of x, one 1024-thread block, two passes.
#define NT 1024
#define FULL 0xffffffffu
__device__ float block_sum(float v, float* red)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = red[lane];   // NT / 32 == 32 partial sums
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    __syncthreads();   // red is reused by the next call
    return v;
}
extern "C" __global__ void mean_var(const float* __restrict__ x, float* __restrict__ stats, unsigned int n)
{
    __shared__ float red[NT / 32];
    float s = 0.0f;
    for (unsigned int i = threadIdx.x; i < n; i += NT) s += x[i];
    float mean = block_sum(s, red) / (float)n;
    float q = 0.0f;
    for (unsigned int i = threadIdx.x; i < n; i += NT) {
        float d = x[i] - mean;
        q += d * d;
    }
    float var = block_sum(q, red) / (float)n;
    if (threadIdx.x == 0) { stats[0] = mean; stats[1] = var; }
}
