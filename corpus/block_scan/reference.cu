// block_scan: inclusive prefix sums within each 256-element block (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
block_scan(const int* __restrict__ x, int* __restrict__ y, unsigned n)
{
    __shared__ unsigned swarp[8];
    const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
    const unsigned i = blockIdx.x * 256u + t;
    unsigned v = i < n ? (unsigned)__ldg(x + i) : 0u;   // unsigned: wrap-around is defined
    #pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const unsigned u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) swarp[warp] = v;
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < 8 ? swarp[lane] : 0u;
        #pragma unroll
        for (unsigned o = 1; o < 8; o <<= 1) {
            const unsigned u = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += u;
        }
        if (lane < 8) swarp[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += swarp[warp - 1];
    if (i < n) y[i] = (int)v;
}
