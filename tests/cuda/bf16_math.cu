// PTX: bf16/bf16x2 arithmetic (fma.rn.bf16x2 sm_80, add/mul/sub.bf16 sm_90), min/max.bf16, cvt.rn.bf16.f32, cvt.rn.bf16x2.f32, abs/neg.bf16
#include <cuda_bf16.h>

__global__ void bf16_scalar(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ y, __nv_bfloat16* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 a = x[i], b = y[i];
    __nv_bfloat16 r = __hadd(a, b);
#if __CUDA_ARCH__ >= 800
    r = __hfma(r, a, b);
#else
    r = r * a + b;
#endif
    r = __hmul(r, __hsub(a, b));
    r = __hmax(r, __hmin(a, b));
    r = __habs(__hneg(r));
    r = __hdiv(r, b);
    r = hexp(r) + hsqrt(__habs(a)) + hrcp(b) + hfloor(a) + hrint(b);
    if (__hlt(a, b)) r = r + __float2bfloat16(3.0f);
    out[i] = r;
}

__global__ void bf162_vector(const __nv_bfloat162* __restrict__ x, const __nv_bfloat162* __restrict__ y, __nv_bfloat162* __restrict__ out, float* fout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat162 a = x[i], b = y[i];
    __nv_bfloat162 r = __hadd2(a, b);
#if __CUDA_ARCH__ >= 800
    r = __hfma2(r, a, b);
#else
    r = r * a + b;
#endif
    r = __hmul2(r, __hsub2(a, b));
    r = __hmax2(r, __hmin2(a, b));
    r = __habs2(r);
    r = __hneg2(r);
#if __CUDA_ARCH__ >= 800
    r = __hfma2_relu(r, a, b);
    r = __hmax2_nan(r, a);
#endif
    r = h2exp(r) + h2sqrt(__habs2(a));
    float2 f = __bfloat1622float2(r);
    fout[i] = f.x + f.y + __low2float(a) + __high2float(b);
    out[i] = __float22bfloat162_rn(make_float2(f.x * 0.5f, f.y * 2.0f));
}

__global__ void bf16_asm(const unsigned* __restrict__ x, unsigned* __restrict__ out)
{
    unsigned a = x[threadIdx.x], b = a;
#if __CUDA_ARCH__ >= 800
    asm("fma.rn.bf16x2 %0, %1, %1, %1;" : "=r"(b) : "r"(a));
    asm("min.bf16x2 %0, %0, %1;" : "+r"(b) : "r"(a));
    asm("{ .reg .b16 l, h; mov.b32 {l, h}, %0; abs.bf16 l, l; neg.bf16 h, h; mov.b32 %0, {l, h}; }" : "+r"(b));
#endif
#if __CUDA_ARCH__ >= 900
    asm("add.rn.bf16x2 %0, %0, %1;" : "+r"(b) : "r"(a));
    asm("mul.rn.bf16x2 %0, %0, %1;" : "+r"(b) : "r"(a));
    asm("sub.rn.bf16x2 %0, %0, %1;" : "+r"(b) : "r"(a));
    asm("tanh.approx.bf16x2 %0, %0;" : "+r"(b));
    asm("ex2.approx.ftz.bf16x2 %0, %0;" : "+r"(b));
    asm("{ .reg .b16 l; mov.b32 {l, _}, %0; add.rn.bf16 l, l, l; cvt.rn.bf16.f32 l, %1; mov.b32 %0, {l, l}; }" : "+r"(b) : "f"(1.5f));
#endif
    out[threadIdx.x] = b;
}
