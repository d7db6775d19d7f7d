// ew_rsqrt_scale: out[i] = a*rsqrt(abs(fma(b, b, c)) + 0.5) for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_rsqrt_scale_f(float a, float b, float c)
{
    return a*rsqrtf(fabsf(fmaf(b, b, c)) + 0.5f);
}

extern "C" __global__ void ew_rsqrt_scale(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_rsqrt_scale_f(a[i], b[i], c[i]);
}
