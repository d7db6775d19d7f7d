// count_positive: per-block count of the elements x[i] > 0 (f32 input, s32 counts).  Block b covers
// x[b*2048 .. min(n, b*2048+2048)) and writes out[b]; thread t loads the float4 vectors at
// chunk+4t and chunk+1024+4t (coalesced 128-bit loads).  Counting uses warp votes: for each of the
// 8 element slots the warp takes a ballot of (x > 0) and the popcount of the mask, so after 8
// ballots every lane holds the warp's count (no shuffles).  Warp 0 sums the 8 warp counts.
extern "C" __global__ void __launch_bounds__(256) count_positive(const float* __restrict__ x, int* __restrict__ out, unsigned n)
{
    __shared__ int swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    const float* p = x + e0;   // &x[e1] = p + 1024 (4096 bytes further)
    float4 a, b;
    if (e1 + 4u <= n) {   // both vectors in range
        a = __ldg(reinterpret_cast<const float4*>(p));
        b = __ldg(reinterpret_cast<const float4*>(p + 1024));
    } else {   // missing tail elements are 0.0, and 0 > 0 is false: they are not counted
        a = make_float4(0.0f, 0.0f, 0.0f, 0.0f); b = a;
        bool k0 = e0 < n, k1 = e0 + 1 < n, k2 = e0 + 2 < n, k3 = e0 + 3 < n;
        bool k4 = e1 < n, k5 = e1 + 1 < n, k6 = e1 + 2 < n, k7 = e1 + 3 < n;
        if (k0) a.x = __ldg(p); if (k1) a.y = __ldg(p + 1); if (k2) a.z = __ldg(p + 2); if (k3) a.w = __ldg(p + 3);
        if (k4) b.x = __ldg(p + 1024); if (k5) b.y = __ldg(p + 1025); if (k6) b.z = __ldg(p + 1026); if (k7) b.w = __ldg(p + 1027);
    }
    // every lane reaches the votes (the two load paths reconverge first); -0.0 and NaN are not > 0
    bool q0 = a.x > 0.0f, q1 = a.y > 0.0f, q2 = a.z > 0.0f, q3 = a.w > 0.0f, q4 = b.x > 0.0f, q5 = b.y > 0.0f, q6 = b.z > 0.0f, q7 = b.w > 0.0f;
    unsigned m0 = __ballot_sync(~0u, q0), m1 = __ballot_sync(~0u, q1), m2 = __ballot_sync(~0u, q2), m3 = __ballot_sync(~0u, q3);
    unsigned m4 = __ballot_sync(~0u, q4), m5 = __ballot_sync(~0u, q5), m6 = __ballot_sync(~0u, q6), m7 = __ballot_sync(~0u, q7);
    int c0 = __popc(m0), c1 = __popc(m1), c2 = __popc(m2), c3 = __popc(m3), c4 = __popc(m4), c5 = __popc(m5), c6 = __popc(m6), c7 = __popc(m7);
    int c = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));   // the warp's count, the same in every lane
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = c;
    __syncthreads();
    if (warp != 0) return;   // warp 0 only (warp-uniform)
    c = lane < 8 ? swarp[lane] : 0;
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
    if (lane == 0) out[blockIdx.x] = c;
}
