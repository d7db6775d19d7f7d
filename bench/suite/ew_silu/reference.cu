// ew_silu: out[i] = a*sigmoid(a) for i < n (f32), 4 elements per thread.
__device__ __forceinline__ float ew_silu_f(float a)
{
    return a*(1.0f/(1.0f + expf(-(a))));
}

extern "C" __global__ void ew_silu(const float* __restrict__ a, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i0 = 4u * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i0 >= n) return;
    if (n - i0 >= 4) {
        float4 va = *reinterpret_cast<const float4*>(a + i0);
        float4 r;
        r.x = ew_silu_f(va.x);
        r.y = ew_silu_f(va.y);
        r.z = ew_silu_f(va.z);
        r.w = ew_silu_f(va.w);
        *reinterpret_cast<float4*>(out + i0) = r;
    } else {
        for (unsigned int i = i0; i < n; i++) out[i] = ew_silu_f(a[i]);
    }
}
