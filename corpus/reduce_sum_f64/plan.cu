// reduce_sum_f64: per-block partial sums of a double vector.  Block b covers
// x[b*2048 .. min(n, b*2048+2048)) and writes out[b].  Thread t loads four double2 (16-byte)
// vectors at chunk+2t, +512, +1024 and +1536: every warp-wide load is 512 contiguous bytes, and
// four independent 128-bit loads per thread keep 64 bytes in flight.  Block reduction: butterfly
// shuffles, the 8 warp sums through shared memory, warp 0 finishes.  Assumes n <= 2^32 - 2048.
extern "C" __global__ void __launch_bounds__(256) reduce_sum_f64(const double* __restrict__ x, double* __restrict__ out, unsigned n)
{
    __shared__ double swarp[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 2u * t;   // vectors at e0, e0+512, e0+1024, e0+1536
    const double* p = x + e0;
    double2 a, b, c, d;
    if (e0 + 1538u <= n) {   // the end of the last vector
        a = __ldg(reinterpret_cast<const double2*>(p)); b = __ldg(reinterpret_cast<const double2*>(p + 512));
        c = __ldg(reinterpret_cast<const double2*>(p + 1024)); d = __ldg(reinterpret_cast<const double2*>(p + 1536));
    } else {   // the partial last chunk: 8 guarded scalar loads, zeros past n
        a = b = c = d = make_double2(0.0, 0.0);
        bool k0 = e0 < n, k1 = e0 + 1 < n, k2 = e0 + 512 < n, k3 = e0 + 513 < n;
        bool k4 = e0 + 1024 < n, k5 = e0 + 1025 < n, k6 = e0 + 1536 < n, k7 = e0 + 1537 < n;
        if (k0) a.x = __ldg(p); if (k1) a.y = __ldg(p + 1); if (k2) b.x = __ldg(p + 512); if (k3) b.y = __ldg(p + 513);
        if (k4) c.x = __ldg(p + 1024); if (k5) c.y = __ldg(p + 1025); if (k6) d.x = __ldg(p + 1536); if (k7) d.y = __ldg(p + 1537);
    }
    double s = ((a.x + a.y) + (b.x + b.y)) + ((c.x + c.y) + (d.x + d.y));   // this thread's sum
    // warp butterfly on 64-bit values: a shuffle moves 32 bits, so both halves are shuffled
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) swarp[warp] = s;
    __syncthreads();
    if (warp != 0) return;   // warp 0 only (warp-uniform)
    s = lane < 8 ? swarp[lane] : 0.0;
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) out[blockIdx.x] = s;
}
