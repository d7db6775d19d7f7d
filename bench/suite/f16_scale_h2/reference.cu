// f16_scale_h2: y = half(float(x) * s), two halves per thread.
#include <cuda_fp16.h>
extern "C" __global__ void f16_scale_h2(const __half* __restrict__ x, __half* __restrict__ y, float s, unsigned int n)
{
    unsigned int i = 2u * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    if (i + 1 < n) {
        __half2 v = *reinterpret_cast<const __half2*>(x + i);
        float2 f = __half22float2(v);
        *reinterpret_cast<__half2*>(y + i) = __floats2half2_rn(f.x * s, f.y * s);
    } else {
        y[i] = __float2half_rn(__half2float(x[i]) * s);
    }
}
