// f32_to_bf16: y = bf16(x), round to nearest even.
#include <cuda_bf16.h>
extern "C" __global__ void f32_to_bf16(const float* __restrict__ x, __nv_bfloat16* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16_rn(x[i]);
}
