// reduce_sum_shfl: grid-stride per-block partial sums with warp shuffles (CUDA C baseline).
// Block b of G sums the 2048-element chunks b, b+G, b+2G, ... and writes out[b].
extern "C" __global__ void __launch_bounds__(256)
reduce_sum_shfl(const float* __restrict__ x, float* __restrict__ out, unsigned n)
{
    __shared__ float swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned nfull = n >> 11;
    unsigned c = blockIdx.x;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (; c < nfull; c += gridDim.x) {
        const float* p = x + c * 2048u + 4u * t;
        const float4 a = __ldg(reinterpret_cast<const float4*>(p));
        const float4 b = __ldg(reinterpret_cast<const float4*>(p + 1024));
        acc0 += (a.x + a.y) + (a.z + a.w);
        acc1 += (b.x + b.y) + (b.z + b.w);
    }
    if (c == nfull && (n & 2047u) != 0) {          // the partial last chunk
        const unsigned e0 = c * 2048u + 4u * t, e1 = e0 + 1024u;
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (e0 + k < n) acc0 += x[e0 + k];
            if (e1 + k < n) acc1 += x[e1 + k];
        }
    }
    float s = acc0 + acc1;
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
