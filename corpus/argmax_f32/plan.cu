// argmax_f32: per-block maximum value and its (global) index.  Block b covers
// x[b*2048 .. min(n, b*2048+2048)); thread t loads the float4 vectors at chunk+4t and chunk+1024+4t
// (coalesced 128-bit loads).  out_val[b] = the maximum, out_idx[b] = the smallest index holding it.
// Ties: inside a thread the 8 candidates are combined as a tree whose left operand always has the
// smaller indices, so "take right iff right > left" (strict) keeps the first index.  Across
// threads the order is (v larger) or (v equal and index smaller), which is symmetric, so butterfly
// partners agree on the winner.  Assumes n <= 2^31 (s32 indices) and finite, non-NaN inputs.
extern "C" __global__ void __launch_bounds__(256) argmax_f32(const float* __restrict__ x, float* __restrict__ out_val, int* __restrict__ out_idx, unsigned n)
{
    __shared__ float swv[8];
    __shared__ unsigned swi[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    const float* p = x + e0;   // &x[e1] = p + 1024 (4096 bytes further)
    float4 a, b;
    if (e1 + 4u <= n) {   // both vectors in range
        a = __ldg(reinterpret_cast<const float4*>(p));
        b = __ldg(reinterpret_cast<const float4*>(p + 1024));
    } else {   // missing tail elements are (-inf, index >= n): every block has a real element that beats them
        a = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY); b = a;
        bool k0 = e0 < n, k1 = e0 + 1 < n, k2 = e0 + 2 < n, k3 = e0 + 3 < n;
        bool k4 = e1 < n, k5 = e1 + 1 < n, k6 = e1 + 2 < n, k7 = e1 + 3 < n;
        if (k0) a.x = __ldg(p); if (k1) a.y = __ldg(p + 1); if (k2) a.z = __ldg(p + 2); if (k3) a.w = __ldg(p + 3);
        if (k4) b.x = __ldg(p + 1024); if (k5) b.y = __ldg(p + 1025); if (k6) b.z = __ldg(p + 1026); if (k7) b.w = __ldg(p + 1027);
    }
    // a tree over (value, index) pairs in index order; indices relative to e0 and e1 first
    bool q0 = a.y > a.x; float v0 = q0 ? a.y : a.x; unsigned i0 = q0 ? 1 : 0;
    bool q1 = a.w > a.z; float v1 = q1 ? a.w : a.z; unsigned i1 = q1 ? 3 : 2;
    bool q2 = b.y > b.x; float v2 = q2 ? b.y : b.x; unsigned i2 = q2 ? 1 : 0;
    bool q3 = b.w > b.z; float v3 = q3 ? b.w : b.z; unsigned i3 = q3 ? 3 : 2;
    bool q4 = v1 > v0; v0 = q4 ? v1 : v0; i0 = q4 ? i1 : i0;
    bool q5 = v3 > v2; v2 = q5 ? v3 : v2; i2 = q5 ? i3 : i2;
    i0 += e0; i2 += e1;   // absolute indices
    bool q6 = v2 > v0; float bv = q6 ? v2 : v0; unsigned bi = q6 ? i2 : i0;
    // ---- warp butterfly on (bv, bi) ----
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, bv, o); unsigned oi = __shfl_xor_sync(0xffffffffu, bi, o);
        bool take = ov > bv || (ov == bv && oi < bi);   // take the partner's pair?
        bv = take ? ov : bv; bi = take ? oi : bi;
    }
    // ---- 8 warp winners through shared memory ----
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) { swv[warp] = bv; swi[warp] = bi; }
    __syncthreads();
    if (warp != 0) return;   // warp 0 only (warp-uniform)
    bool in8 = lane < 8;
    bv = -INFINITY; bi = 0xffffffffu;
    if (in8) { bv = swv[lane]; bi = swi[lane]; }
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, bv, o); unsigned oi = __shfl_xor_sync(0xffffffffu, bi, o);
        bool take = ov > bv || (ov == bv && oi < bi);   // take the partner's pair?
        bv = take ? ov : bv; bi = take ? oi : bi;
    }
    if (lane == 0) { out_val[blockIdx.x] = bv; out_idx[blockIdx.x] = (int)bi; }
}
