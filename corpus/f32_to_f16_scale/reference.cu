// f32_to_f16_scale: y[i] = half(x[i] * scale), one thread per element.
#include <cuda_fp16.h>

extern "C" __global__ void f32_to_f16_scale(const float* __restrict__ x, __half* __restrict__ y,
                                            float scale, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half_rn(x[i] * scale);
}
