// vec4_scale: y[i] = s*x[i], four elements per thread through float4
// (pointers are 16-byte aligned), scalar tail for n % 4.
extern "C" __global__ void vec4_scale(const float* __restrict__ x, float* __restrict__ y,
                                      float s, unsigned int n)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int i = 4 * t;
    if (i + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[t];
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        reinterpret_cast<float4*>(y)[t] = v;
    } else {
        for (; i < n; i++) y[i] = s * x[i];
    }
}
