// daxpy_f64: y[i] = a * x[i] + y[i] for i < n (f64, y updated in place).
// One thread per element, 256 threads per block: 24 bytes of DRAM traffic per 2 flops, so purely
// bandwidth-bound; each warp reads and writes 256 contiguous bytes per array (coalesced).
extern "C" __global__ void __launch_bounds__(256) daxpy_f64(const double* __restrict__ x, double* __restrict__ y, double a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // threads of the partial last block exit
    const double* xp = x + i;   // 64-bit byte offset of element i (8-byte elements), shared by x and y
    double* yp = y + i;
    double xi = __ldg(xp);   // x is read-only: ld.global.nc
    double yi = *yp;         // y is read and written by this thread
    *yp = fma(a, xi, yi);    // a*x + y with a single rounding
}
