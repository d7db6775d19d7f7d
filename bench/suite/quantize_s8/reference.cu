// quantize_s8: q = clamp(rint(x * inv_scale), -128, 127).
extern "C" __global__ void quantize_s8(const float* __restrict__ x, signed char* __restrict__ q,
                                       float inv_scale, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = __float2int_rn(__fmul_rn(x[i], inv_scale));
    q[i] = (signed char)min(max(v, -128), 127);
}
