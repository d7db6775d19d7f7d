// ew_sqdiff: out[i] = (a - b)*(a - b) for i < n (f32), 4 elements per thread.
__device__ __forceinline__ float ew_sqdiff_f(float a, float b)
{
    return (a - b)*(a - b);
}

extern "C" __global__ void ew_sqdiff(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i0 = 4u * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i0 >= n) return;
    if (n - i0 >= 4) {
        float4 va = *reinterpret_cast<const float4*>(a + i0);
        float4 vb = *reinterpret_cast<const float4*>(b + i0);
        float4 r;
        r.x = ew_sqdiff_f(va.x, vb.x);
        r.y = ew_sqdiff_f(va.y, vb.y);
        r.z = ew_sqdiff_f(va.z, vb.z);
        r.w = ew_sqdiff_f(va.w, vb.w);
        *reinterpret_cast<float4*>(out + i0) = r;
    } else {
        for (unsigned int i = i0; i < n; i++) out[i] = ew_sqdiff_f(a[i], b[i]);
    }
}
