// Batched dot product out[b] = dot(x[b,:], y[b,:]) (batch x n row-major), one 256-thread block per row.
extern "C" __global__ void __launch_bounds__(256)
batched_dot(const float* __restrict__ x, const float* __restrict__ y,
            float* __restrict__ out, unsigned batch, unsigned n)
{
    __shared__ float warp_sums[8];
    const unsigned b = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)b * n;
    const float* yr = y + (size_t)b * n;
    float sum = 0.0f;
    if ((n & 3) == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        const float4* y4 = reinterpret_cast<const float4*>(yr);
        for (unsigned k = t; k < n / 4; k += 256) {
            float4 a = x4[k], c = y4[k];
            sum = fmaf(a.x, c.x, sum);
            sum = fmaf(a.y, c.y, sum);
            sum = fmaf(a.z, c.z, sum);
            sum = fmaf(a.w, c.w, sum);
        }
    } else {
        for (unsigned k = t; k < n; k += 256)
            sum = fmaf(xr[k], yr[k], sum);
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (t % 32 == 0) warp_sums[t / 32] = sum;
    __syncthreads();
    if (t < 32) {
        sum = t < 8 ? warp_sums[t] : 0.0f;
        for (int off = 4; off > 0; off >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        if (t == 0) out[b] = sum;
    }
}
