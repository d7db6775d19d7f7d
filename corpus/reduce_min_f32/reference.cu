// reduce_min_f32: per-block minimum over 2048-element chunks (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
reduce_min_f32(const float* __restrict__ x, float* __restrict__ out, unsigned n)
{
    __shared__ float swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    float m;
    if (e1 + 4u <= n) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(x + e0));
        const float4 b = __ldg(reinterpret_cast<const float4*>(x + e1));
        m = fminf(fminf(fminf(a.x, a.y), fminf(a.z, a.w)), fminf(fminf(b.x, b.y), fminf(b.z, b.w)));
    } else {
        m = __int_as_float(0x7f800000);
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (e0 + k < n) m = fminf(m, x[e0 + k]);
            if (e1 + k < n) m = fminf(m, x[e1 + k]);
        }
    }
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fminf(m, __shfl_xor_sync(0xffffffffu, m, o));
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < 8 ? swarp[lane] : __int_as_float(0x7f800000);
        #pragma unroll
        for (int o = 4; o > 0; o >>= 1) m = fminf(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (lane == 0) out[blockIdx.x] = m;
    }
}
