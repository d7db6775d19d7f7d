// reduce_sum_shfl: per-block partial sums with a grid-stride loop and warp-shuffle reductions (no
// atomics).  x is cut into 2048-element chunks; with G = gridDim.x blocks, block b sums chunks b,
// b+G, b+2G, ... and writes out[b].  Inside a chunk thread t loads the float4 vectors at chunk+4t
// and chunk+1024+4t (512 contiguous bytes per warp-wide load).  The launch caps G at 1056 = 132 SMs
// x 8 resident blocks, so the whole grid is resident and each block streams many chunks.
// Assumes n <= 2^32 - 2048.
extern "C" __global__ void __launch_bounds__(256) reduce_sum_shfl(const float* __restrict__ x, float* __restrict__ out, unsigned n)
{
    __shared__ float swarp[8];
    const unsigned t = threadIdx.x, b = blockIdx.x, G = gridDim.x;
    const unsigned nfull = n >> 11;   // the number of complete chunks
    const unsigned e0 = b * 2048u + 4u * t;
    const float* p = x + e0;   // advances by G chunks (8192*G bytes) per trip
    unsigned c = b;   // the chunk
    float s0 = 0.0f, s1 = 0.0f;   // two independent add chains
    for (; c < nfull; c += G, p += 2048u * G) {   // full chunks: unguarded
        float4 u = __ldg(reinterpret_cast<const float4*>(p)), v = __ldg(reinterpret_cast<const float4*>(p + 1024));
        s0 += (u.x + u.y) + (u.z + u.w); s1 += (v.x + v.y) + (v.z + v.w);
    }
    // the partial chunk nfull exists iff n % 2048 != 0; it belongs to the block whose c landed on nfull
    if (c == nfull && (n & 2047) != 0) {
        const unsigned f0 = c * 2048u + 4u * t, f1 = f0 + 1024u;   // p already points at x[f0]
        float4 u = make_float4(0.0f, 0.0f, 0.0f, 0.0f), v = u;
        bool k0 = f0 < n, k1 = f0 + 1 < n, k2 = f0 + 2 < n, k3 = f0 + 3 < n;
        bool k4 = f1 < n, k5 = f1 + 1 < n, k6 = f1 + 2 < n, k7 = f1 + 3 < n;
        if (k0) u.x = __ldg(p); if (k1) u.y = __ldg(p + 1); if (k2) u.z = __ldg(p + 2); if (k3) u.w = __ldg(p + 3);
        if (k4) v.x = __ldg(p + 1024); if (k5) v.y = __ldg(p + 1025); if (k6) v.z = __ldg(p + 1026); if (k7) v.w = __ldg(p + 1027);
        s0 += (u.x + u.y) + (u.z + u.w); s1 += (v.x + v.y) + (v.z + v.w);
    }
    float s = s0 + s1;   // this thread's sum
    // warp butterfly: after 5 steps every lane holds the warp total
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = s;   // the warp total
    __syncthreads();
    if (warp != 0) return;   // warp-uniform: only warp 0 goes on
    s = lane < 8 ? swarp[lane] : 0.0f;
    // 8 values in lanes 0..7: butterflies 4, 2, 1 stay inside groups of 8
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) out[b] = s;
}
