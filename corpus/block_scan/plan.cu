// block_scan: inclusive prefix sums restarting every 256 elements (one segment per 256-thread
// block, one element per thread; s32 with wrapping adds).  The standard two-level scan:
//   1. each warp scans its 32 values in registers with shuffles up by 1..16;
//   2. lane 31 of every warp publishes the warp total to swarp[warp];
//   3. warp 0 scans the 8 totals with shuffles (lanes >= 8 carry zeros) and writes them back;
//   4. every thread of warp w > 0 adds swarp[w-1].
// Threads past n (last block only) contribute 0 but take part in all shuffles and barriers; they
// do not store.  Every thread reaches both barriers (the warp-0 section is warp-uniform).
extern "C" __global__ void __launch_bounds__(256) block_scan(const int* __restrict__ x, int* __restrict__ y, unsigned n)
{
    __shared__ unsigned swarp[8];
    const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
    const unsigned i = blockIdx.x * 256u + t;
    const bool in_range = i < n;
    unsigned v = in_range ? (unsigned)__ldg(x + i) : 0u;   // unsigned: wrap-around is defined
    // the shuffle's predicate output is false where lane - o < 0: it replaces the lane >= o test
    #pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) { const unsigned u = __shfl_up_sync(0xffffffffu, v, o); if (lane >= o) v += u; }
    if (lane == 31) swarp[warp] = v;
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < 8 ? swarp[lane] : 0u;
        #pragma unroll
        for (unsigned o = 1; o < 8; o <<= 1) { const unsigned u = __shfl_up_sync(0xffffffffu, w, o); if (lane >= o) w += u; }
        if (lane < 8) swarp[lane] = w;   // inclusive warp totals
    }
    __syncthreads();
    if (warp > 0) v += swarp[warp - 1];   // the totals of the previous warps
    if (in_range) y[i] = (int)v;
}
