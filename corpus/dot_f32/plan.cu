// dot_f32: per-block partial dot products of x and y.  Block b covers [b*2048, min(n, b*2048+2048))
// and writes out[b] = the sum of x[i]*y[i] over it.  Thread t loads float4 vectors of x and y at
// chunk+4t and chunk+1024+4t: four independent 128-bit coalesced loads in flight per thread.
// Products accumulate with fma in two independent chains (one per vector pair), combined at the
// end.  Block reduction: warp butterflies, 8 warp sums through shared memory, warp 0 finishes
// with shuffles.  Assumes n <= 2^32 - 2048.
extern "C" __global__ void __launch_bounds__(256) dot_f32(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n)
{
    __shared__ float swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    const float* px = x + e0;   // &x[e1] = px + 1024 (4096 bytes further)
    const float* py = y + e0;
    float4 a0, a1, b0, b1;   // x and y at e0 and e1
    if (e1 + 4u <= n) {   // both vectors in range
        a0 = __ldg(reinterpret_cast<const float4*>(px)); a1 = __ldg(reinterpret_cast<const float4*>(px + 1024));
        b0 = __ldg(reinterpret_cast<const float4*>(py)); b1 = __ldg(reinterpret_cast<const float4*>(py + 1024));
    } else {   // the partial last chunk: guarded scalar loads, zeros for missing elements
        a0 = a1 = b0 = b1 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        bool k0 = e0 < n, k1 = e0 + 1 < n, k2 = e0 + 2 < n, k3 = e0 + 3 < n;
        bool k4 = e1 < n, k5 = e1 + 1 < n, k6 = e1 + 2 < n, k7 = e1 + 3 < n;
        if (k0) a0.x = __ldg(px); if (k1) a0.y = __ldg(px + 1); if (k2) a0.z = __ldg(px + 2); if (k3) a0.w = __ldg(px + 3);
        if (k4) a1.x = __ldg(px + 1024); if (k5) a1.y = __ldg(px + 1025); if (k6) a1.z = __ldg(px + 1026); if (k7) a1.w = __ldg(px + 1027);
        if (k0) b0.x = __ldg(py); if (k1) b0.y = __ldg(py + 1); if (k2) b0.z = __ldg(py + 2); if (k3) b0.w = __ldg(py + 3);
        if (k4) b1.x = __ldg(py + 1024); if (k5) b1.y = __ldg(py + 1025); if (k6) b1.z = __ldg(py + 1026); if (k7) b1.w = __ldg(py + 1027);
    }
    float sa = __fmul_rn(a0.x, b0.x); sa = fmaf(a0.y, b0.y, sa); sa = fmaf(a0.z, b0.z, sa); sa = fmaf(a0.w, b0.w, sa);   // chain A
    float sb = __fmul_rn(a1.x, b1.x); sb = fmaf(a1.y, b1.y, sb); sb = fmaf(a1.z, b1.z, sb); sb = fmaf(a1.w, b1.w, sb);   // chain B
    float s = sa + sb;
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = s;
    __syncthreads();
    if (warp != 0) return;   // warp 0 only (warp-uniform)
    s = lane < 8 ? swarp[lane] : 0.0f;
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) out[blockIdx.x] = s;
}
