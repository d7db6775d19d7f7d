// ew_log1p_absdiff: out[i] = log(abs(a - b) + 1) for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_log1p_absdiff_f(float a, float b)
{
    return logf(fabsf(a - b) + 1.0f);
}

extern "C" __global__ void ew_log1p_absdiff(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_log1p_absdiff_f(a[i], b[i]);
}
