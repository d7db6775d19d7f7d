// exclusive_scan_1024: exclusive prefix sums per 1024-element segment; 256 threads x 4 elements.
extern "C" __global__ void exclusive_scan_1024(const int* __restrict__ x, int* __restrict__ y, unsigned int n)
{
    __shared__ unsigned int wsum[8];
    unsigned int base = blockIdx.x * 1024u + 4u * threadIdx.x;
    unsigned int v[4], tot = 0;
    #pragma unroll
    for (int k = 0; k < 4; k++) { v[k] = base + k < n ? (unsigned int)x[base + k] : 0u; }
    #pragma unroll
    for (int k = 0; k < 4; k++) { unsigned int t = v[k]; v[k] = tot; tot += t; }   // local exclusive
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned int inc = tot;                       // inclusive scan of thread totals within the warp
    for (int o = 1; o < 32; o <<= 1) {
        unsigned int u = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += u;
    }
    if (lane == 31) wsum[warp] = inc;
    __syncthreads();
    unsigned int off = 0;
    for (int k = 0; k < warp; k++) off += wsum[k];
    unsigned int excl = off + inc - tot;
    #pragma unroll
    for (int k = 0; k < 4; k++) if (base + k < n) y[base + k] = (int)(excl + v[k]);
}
