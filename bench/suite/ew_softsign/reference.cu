// ew_softsign: out[i] = a/(abs(a) + 1) for i < n (f32), one element per thread.
__device__ __forceinline__ float ew_softsign_f(float a)
{
    return a/(fabsf(a) + 1.0f);
}

extern "C" __global__ void ew_softsign(const float* __restrict__ a, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ew_softsign_f(a[i]);
}
