// hsum: y[i] = -|low(x[i]) + high(x[i])| for a half2 pair (a kernel with nvcc's inline-asm blocks)
#include <cuda_fp16.h>
extern "C" __global__ void hsum(const __half2* x, float* y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 h = x[i];
    float low = __low2float(h);
    float s = low + __high2float(h);
    if (s > 0) s = -s;
    y[i] = s;
}
