// reduce_min_f32: per-block minimum of a float vector.  Block b takes the contiguous chunk
// x[b*2048 .. min(n, b*2048+2048)) and writes out[b]; thread t loads the float4 vectors at
// chunk+4t and chunk+1024+4t (coalesced 128-bit loads, two in flight per thread).  Only the last
// block can be partial: it takes the guarded path, where missing elements are +inf (the identity
// of min).  min is exact, so the result does not depend on the reduction order.
// Block reduction: butterfly shuffles in each warp, 8 warp minima through shared memory, warp 0
// finishes with shuffles.  Assumes n <= 2^32 - 2048.
extern "C" __global__ void __launch_bounds__(256) reduce_min_f32(const float* __restrict__ x, float* __restrict__ out, unsigned n)
{
    __shared__ float swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    const float* p = x + e0;   // &x[e1] = p + 1024 (4096 bytes further)
    float4 a, b;
    if (e1 + 4u <= n) {   // both vectors in range
        a = __ldg(reinterpret_cast<const float4*>(p));
        b = __ldg(reinterpret_cast<const float4*>(p + 1024));
    } else {
        const float inf = __int_as_float(0x7f800000);
        a = make_float4(inf, inf, inf, inf); b = a;
        bool k0 = e0 < n, k1 = e0 + 1 < n, k2 = e0 + 2 < n, k3 = e0 + 3 < n;
        bool k4 = e1 < n, k5 = e1 + 1 < n, k6 = e1 + 2 < n, k7 = e1 + 3 < n;
        if (k0) a.x = __ldg(p); if (k1) a.y = __ldg(p + 1); if (k2) a.z = __ldg(p + 2); if (k3) a.w = __ldg(p + 3);
        if (k4) b.x = __ldg(p + 1024); if (k5) b.y = __ldg(p + 1025); if (k6) b.z = __ldg(p + 1026); if (k7) b.w = __ldg(p + 1027);
    }
    float m = fminf(fminf(fminf(a.x, a.y), fminf(a.z, a.w)), fminf(fminf(b.x, b.y), fminf(b.z, b.w)));   // this thread's minimum
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fminf(m, __shfl_xor_sync(0xffffffffu, m, o));
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = m;
    __syncthreads();
    if (warp != 0) return;   // warp 0 only (warp-uniform)
    m = lane < 8 ? swarp[lane] : __int_as_float(0x7f800000);
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) m = fminf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) out[blockIdx.x] = m;
}
