// bf16_axpy: y[i] = bf16(a*float(x[i]) + float(y[i])), math in f32, one thread per element.
#include <cuda_bf16.h>

extern "C" __global__ void bf16_axpy(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
                                     float a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16_rn(a * __bfloat162float(x[i]) + __bfloat162float(y[i]));
}
