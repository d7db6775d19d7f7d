// reduce_max_atomic: global int32 maximum, block max via shuffles + one atomicMax per block
// (CUDA C baseline).  out[0] starts at INT_MIN.  Grid-stride over 2048-element chunks.
#include <climits>
extern "C" __global__ void __launch_bounds__(256)
reduce_max_atomic(const int* __restrict__ x, int* __restrict__ out, unsigned n)
{
    __shared__ int swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned nfull = n >> 11;
    unsigned c = blockIdx.x;
    int m0 = INT_MIN, m1 = INT_MIN;
    for (; c < nfull; c += gridDim.x) {
        const int* p = x + c * 2048u + 4u * t;
        const int4 a = __ldg(reinterpret_cast<const int4*>(p));
        const int4 b = __ldg(reinterpret_cast<const int4*>(p + 1024));
        m0 = max(m0, max(max(a.x, a.y), max(a.z, a.w)));
        m1 = max(m1, max(max(b.x, b.y), max(b.z, b.w)));
    }
    if (c == nfull && (n & 2047u) != 0) {
        const unsigned e0 = c * 2048u + 4u * t, e1 = e0 + 1024u;
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            if (e0 + k < n) m0 = max(m0, x[e0 + k]);
            if (e1 + k < n) m1 = max(m1, x[e1 + k]);
        }
    }
    int m = max(m0, m1);
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < 8 ? swarp[lane] : INT_MIN;
        #pragma unroll
        for (int o = 4; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (lane == 0) atomicMax(out, m);
    }
}
