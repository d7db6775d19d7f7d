// warp_scan: inclusive prefix sums within aligned 32-element segments (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
warp_scan(const int* __restrict__ x, int* __restrict__ y, unsigned n)
{
    const unsigned i = blockIdx.x * 256u + threadIdx.x;
    const unsigned lane = threadIdx.x & 31u;
    unsigned v = i < n ? (unsigned)__ldg(x + i) : 0u;   // unsigned: wrap-around is defined
    #pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const unsigned u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    if (i < n) y[i] = (int)v;
}
