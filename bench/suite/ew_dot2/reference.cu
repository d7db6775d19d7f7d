// ew_dot2: out[i] = a*b + c*d for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_dot2_f(float a, float b, float c, float d)
{
    return a*b + c*d;
}

extern "C" __global__ void ew_dot2(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, const float* __restrict__ d, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_dot2_f(a[i], b[i], c[i], d[i]);
}
