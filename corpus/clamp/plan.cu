// clamp: y[i] = min(max(x[i], lo), hi) for i < n (f32; lo <= hi scalars).
// One thread per element, 256 threads per block; DRAM-bound at 8 bytes per element.
extern "C" __global__ void __launch_bounds__(256) clamp(const float* __restrict__ x, float* __restrict__ y, float lo, float hi, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;   // threads of the partial last block exit
    const float* xp = x + i;   // 64-bit byte offset of element i, shared by x and y
    float* yp = y + i;
    float v = __ldg(xp);   // read-only path (ld.global.nc)
    v = fmaxf(v, lo);      // raise to lo
    *yp = fminf(v, hi);    // then cap at hi
}
