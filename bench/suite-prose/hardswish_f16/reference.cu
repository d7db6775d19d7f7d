// hardswish_f16: y = x * clamp(x + 3, 0, 6) / 6, computed in f32.
#include <cuda_fp16.h>
extern "C" __global__ void hardswish_f16(const __half* __restrict__ x, __half* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = __half2float(x[i]);
    y[i] = __float2half_rn(v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f));
}
