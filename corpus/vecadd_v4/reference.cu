// vecadd_v4: c[i] = a[i] + b[i], four elements per thread through float4
// (pointers are 16-byte aligned), scalar tail for n % 4.
extern "C" __global__ void vecadd_v4(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ c, unsigned int n)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int i = 4 * t;
    if (i + 3 < n) {
        float4 va = reinterpret_cast<const float4*>(a)[t];
        float4 vb = reinterpret_cast<const float4*>(b)[t];
        reinterpret_cast<float4*>(c)[t] = make_float4(va.x + vb.x, va.y + vb.y, va.z + vb.z, va.w + vb.w);
    } else {
        for (; i < n; i++) c[i] = a[i] + b[i];
    }
}
