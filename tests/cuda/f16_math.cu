// PTX: f16/f16x2 arithmetic: add/sub/mul/fma(.rn,.sat,.relu).f16x2, min/max(.NaN) f16x2, abs/neg f16, ex2/tanh.approx.f16x2, setp.f16x2, cvt f16<->f32, ld/st .b16
#include <cuda_fp16.h>

__global__ void half_scalar(const __half* __restrict__ x, const __half* __restrict__ y, __half* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = x[i], b = y[i];
    __half r = __hadd(a, b);
    r = __hfma(r, a, b);
    r = __hsub(r, __hmul(a, b));
    r = __hadd_sat(r, a);
    r = __hfma_sat(r, a, b);
    r = __hdiv(r, b);
    r = __hmax(r, __hmin(a, b));
    r = __habs(r);
    r = __hneg(r);
    r = hsqrt(__habs(r)) + hrsqrt(__habs(a)) + hexp(a) + hlog(__habs(b)) + hsin(a) + hcos(b) + hrcp(b);
    r = hceil(r) + hfloor(a) + htrunc(b) + hrint(a);
    if (__hgt(r, a) && !__hisnan(b) && __hle(a, b))
        r = __hadd(r, __float2half(1.0f));
#if __CUDA_ARCH__ >= 800
    r = __hfma_relu(r, a, b);
    r = __hmax_nan(r, a);
#endif
    out[i] = r;
}

__global__ void half2_vector(const __half2* __restrict__ x, const __half2* __restrict__ y, __half2* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 a = x[i], b = y[i];
    __half2 r = __hadd2(a, b);
    r = __hfma2(r, a, b);
    r = __hmul2(r, __hsub2(a, b));
    r = __hfma2_sat(r, a, b);
    r = __hmax2(r, __hmin2(a, b));
    r = __habs2(r);
    r = __hneg2(r);
    r = __h2div(r, b);
    r = h2exp(r) + h2log(__habs2(a)) + h2sqrt(__habs2(b)) + h2rsqrt(__habs2(a)) + h2sin(a) + h2cos(b);
    __half2 m = __hgt2(r, a);
    if (__hbgt2(r, b)) r = __hadd2(r, m);
    r = __hadd2(r, __heq2(a, b));
    r = __hadd2(r, __lowhigh2highlow(a));
    r = __hadd2(r, __halves2half2(__low2half(a), __high2half(b)));
#if __CUDA_ARCH__ >= 800
    r = __hfma2_relu(r, a, b);
    r = __hmax2_nan(r, a);
    r = __hcmadd(r, a, b);
#endif
    float2 f = __half22float2(r);
    out[i] = __floats2half2_rn(f.x * 2.0f, f.y + 1.0f);
}

__global__ void half_asm(const unsigned* __restrict__ x, unsigned* __restrict__ out)
{
    unsigned a = x[threadIdx.x], b, c;
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(b) : "r"(a));
#if __CUDA_ARCH__ >= 750
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(c) : "r"(b));
#else
    c = b;
#endif
    unsigned short h;
    asm("{ .reg .f16 lo, hi; mov.b32 {lo, hi}, %1; add.rn.f16 lo, lo, hi; neg.f16 lo, lo; mov.b16 %0, lo; }" : "=h"(h) : "r"(c));
    unsigned d;
    asm("{ .reg .pred p, q; setp.gt.f16x2 p|q, %1, %2; selp.b32 %0, %1, %2, p; }" : "=r"(d) : "r"(a), "r"(c));
    out[threadIdx.x] = d + h;
}
