// ew_relu_fma_sqrt: out[i] = relu(fma(a, b, sqrt(abs(c) + 0.25)*d)) for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_relu_fma_sqrt_f(float a, float b, float c, float d)
{
    return fmaxf(fmaf(a, b, sqrtf(fabsf(c) + 0.25f)*d), 0.0f);
}

extern "C" __global__ void ew_relu_fma_sqrt(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, const float* __restrict__ d, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_relu_fma_sqrt_f(a[i], b[i], c[i], d[i]);
}
