// reduce_sum_smem: per-block partial sums, shared-memory tree (CUDA C baseline).
// Block b reduces x[b*2048 .. min(n, b*2048+2048)) and writes out[b].
extern "C" __global__ void __launch_bounds__(256)
reduce_sum_smem(const float* __restrict__ x, float* __restrict__ out, unsigned n)
{
    __shared__ float sdata[256];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t;   // first float4
    const unsigned e1 = e0 + 1024u;                    // second float4
    float s = 0.0f;
    if (e1 + 4u <= n) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(x + e0));
        const float4 b = __ldg(reinterpret_cast<const float4*>(x + e1));
        s = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
    } else {
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (e0 + k < n) s += x[e0 + k];
        }
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (e1 + k < n) s += x[e1 + k];
        }
    }
    sdata[t] = s;
    __syncthreads();
    #pragma unroll
    for (unsigned stride = 128; stride >= 32; stride >>= 1) {
        if (t < stride) sdata[t] = s = s + sdata[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        #pragma unroll
        for (unsigned stride = 16; stride > 0; stride >>= 1) {
            if (t < stride) sdata[t] = s = s + sdata[t + stride];
            __syncwarp();
        }
        if (t == 0) out[blockIdx.x] = s;
    }
}
