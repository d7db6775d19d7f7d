// relu: y[i] = max(x[i], 0) for i < n (f32). One thread per element, 256 threads per block;
// DRAM-bound (8 bytes per element): one read-only load, one max, one store.
extern "C" __global__ void __launch_bounds__(256) relu(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // threads of the partial last block exit
    const float* xp = x + i;   // 64-bit byte offset of element i, shared by x and y
    float* yp = y + i;
    float v = __ldg(xp);   // read-only path (ld.global.nc)
    *yp = fmaxf(v, 0.0f);  // max(x, +0.0), branch-free
}
