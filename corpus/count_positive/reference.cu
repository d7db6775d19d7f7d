// count_positive: per-block count of x[i] > 0 with warp ballots (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
count_positive(const float* __restrict__ x, int* __restrict__ out, unsigned n)
{
    __shared__ int swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    float v[8];
    if (e1 + 4u <= n) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(x + e0));
        const float4 b = __ldg(reinterpret_cast<const float4*>(x + e1));
        v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
        v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    } else {
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            v[k] = e0 + k < n ? x[e0 + k] : 0.0f;
            v[4 + k] = e1 + k < n ? x[e1 + k] : 0.0f;
        }
    }
    int c = 0;
    #pragma unroll
    for (int k = 0; k < 8; k++) c += __popc(__ballot_sync(0xffffffffu, v[k] > 0.0f));
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = c;
    __syncthreads();
    if (warp == 0) {
        c = lane < 8 ? swarp[lane] : 0;
        #pragma unroll
        for (int o = 4; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
        if (lane == 0) out[blockIdx.x] = c;
    }
}
