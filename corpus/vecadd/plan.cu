// vecadd: c[i] = a[i] + b[i] for i < n (f32). One thread per element, 256 threads per block:
// consecutive threads touch consecutive words (coalesced 128-byte requests per warp).  DRAM-bound
// (12 bytes per flop): keep the instruction count minimal and issue both loads before the add.
extern "C" __global__ void __launch_bounds__(256) vecadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // unsigned compare; threads of the partial last block exit
    size_t off = (size_t)i;   // byte offset i*4, widened to 64 bits before adding to the base pointers
    float va = __ldg(a + off);   // a and b are read-only for the launch: ld.global.nc
    float vb = __ldg(b + off);
    c[off] = va + vb;
}
