// dot_f32: per-block partial dot products over 2048-element chunks (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
dot_f32(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n)
{
    __shared__ float swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    float s0 = 0.0f, s1 = 0.0f;
    if (e1 + 4u <= n) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(x + e0));
        const float4 b = __ldg(reinterpret_cast<const float4*>(x + e1));
        const float4 c = __ldg(reinterpret_cast<const float4*>(y + e0));
        const float4 d = __ldg(reinterpret_cast<const float4*>(y + e1));
        s0 = fmaf(a.w, c.w, fmaf(a.z, c.z, fmaf(a.y, c.y, a.x * c.x)));
        s1 = fmaf(b.w, d.w, fmaf(b.z, d.z, fmaf(b.y, d.y, b.x * d.x)));
    } else {
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (e0 + k < n) s0 = fmaf(x[e0 + k], y[e0 + k], s0);
            if (e1 + k < n) s1 = fmaf(x[e1 + k], y[e1 + k], s1);
        }
    }
    float s = s0 + s1;
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < 8 ? swarp[lane] : 0.0f;
        #pragma unroll
        for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0) out[blockIdx.x] = s;
    }
}
