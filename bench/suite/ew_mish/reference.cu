// ew_mish: out[i] = a*tanh(log(abs(exp(min(a, 10))) + 1)) for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_mish_f(float a)
{
    return a*tanhf(logf(fabsf(expf(fminf(a, 10.0f))) + 1.0f));
}

extern "C" __global__ void ew_mish(const float* __restrict__ a, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_mish_f(a[i]);
}
