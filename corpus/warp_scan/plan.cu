// warp_scan: inclusive prefix sums restarting every 32 elements (s32, wrapping adds).
// One element per thread; with 256-thread blocks warp w of block b holds the aligned segment
// [32*(8b+w), 32*(8b+w)+32), so a warp-wide Hillis-Steele scan with shuffles up by 1, 2, 4, 8, 16
// is exactly the segment scan.  Out-of-range threads (the last partial warp) contribute 0 and still
// take part in every shuffle (full mask); they just do not store.
extern "C" __global__ void __launch_bounds__(256) warp_scan(const int* __restrict__ x, int* __restrict__ y, unsigned n)
{
    const unsigned i = blockIdx.x * 256u + threadIdx.x;
    const unsigned lane = threadIdx.x & 31u;
    const bool in_range = i < n;
    unsigned v = in_range ? (unsigned)__ldg(x + i) : 0u;   // unsigned: wrap-around is defined
    // the shuffle's predicate output is false where lane - o < 0: it replaces the lane >= o test
    #pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) { const unsigned u = __shfl_up_sync(0xffffffffu, v, o); if (lane >= o) v += u; }
    if (in_range) y[i] = (int)v;
}
