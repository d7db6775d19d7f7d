// ew_diff_ratio: out[i] = (a - b)/(abs(c - d) + 1) for i < n (f32), 4 elements per thread.
__device__ __forceinline__ float ew_diff_ratio_f(float a, float b, float c, float d)
{
    return (a - b)/(fabsf(c - d) + 1.0f);
}

extern "C" __global__ void ew_diff_ratio(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, const float* __restrict__ d, float* __restrict__ out,
    unsigned int n)
{
    unsigned int i0 = 4u * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i0 >= n) return;
    if (n - i0 >= 4) {
        float4 va = *reinterpret_cast<const float4*>(a + i0);
        float4 vb = *reinterpret_cast<const float4*>(b + i0);
        float4 vc = *reinterpret_cast<const float4*>(c + i0);
        float4 vd = *reinterpret_cast<const float4*>(d + i0);
        float4 r;
        r.x = ew_diff_ratio_f(va.x, vb.x, vc.x, vd.x);
        r.y = ew_diff_ratio_f(va.y, vb.y, vc.y, vd.y);
        r.z = ew_diff_ratio_f(va.z, vb.z, vc.z, vd.z);
        r.w = ew_diff_ratio_f(va.w, vb.w, vc.w, vd.w);
        *reinterpret_cast<float4*>(out + i0) = r;
    } else {
        for (unsigned int i = i0; i < n; i++) out[i] = ew_diff_ratio_f(a[i], b[i], c[i], d[i]);
    }
}
