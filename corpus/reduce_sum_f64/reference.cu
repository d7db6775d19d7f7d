// reduce_sum_f64: per-block partial sums of doubles over 2048-element chunks (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
reduce_sum_f64(const double* __restrict__ x, double* __restrict__ out, unsigned n)
{
    __shared__ double swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 2u * t;   // double2 at e0, e0+512, e0+1024, e0+1536
    double s = 0.0;
    if (e0 + 1538u <= n) {
        const double2 a = __ldg(reinterpret_cast<const double2*>(x + e0));
        const double2 b = __ldg(reinterpret_cast<const double2*>(x + e0 + 512));
        const double2 c = __ldg(reinterpret_cast<const double2*>(x + e0 + 1024));
        const double2 d = __ldg(reinterpret_cast<const double2*>(x + e0 + 1536));
        s = ((a.x + a.y) + (b.x + b.y)) + ((c.x + c.y) + (d.x + d.y));
    } else {
        #pragma unroll
        for (unsigned q = 0; q < 4; q++) {
            #pragma unroll
            for (unsigned k = 0; k < 2; k++) {
                const unsigned e = e0 + 512u * q + k;
                if (e < n) s += x[e];
            }
        }
    }
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < 8 ? swarp[lane] : 0.0;
        #pragma unroll
        for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0) out[blockIdx.x] = s;
    }
}
