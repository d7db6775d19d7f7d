// PTX: f32 arithmetic/SFU: ex2.approx, rsqrt.approx, div.approx/full/rn, tanh.approx, sin/cos.approx, fma.rn, min/max, abs, .sat, .ftz, rounding-mode add/mul/sqrt/rcp
#include <cuda_runtime.h>

__global__ void f32_intrinsics(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float s, c;
    __sincosf(a, &s, &c);
    float r = __expf(a) + rsqrtf(fabsf(b) + 1.0f) + __fdividef(a, b);
    r += __logf(fabsf(a) + 1.f) + __log2f(fabsf(b) + 2.f) + __log10f(fabsf(a) + 3.f);
    r += __powf(fabsf(a), 0.5f) + __tanf(b) + s * c;
    r += __saturatef(a) + fminf(a, b) + fmaxf(a, b) + fabsf(a - b);
    r += __fadd_rn(a, b) + __fadd_rz(a, b) + __fadd_ru(a, b) + __fadd_rd(a, b);
    r += __fmul_rn(a, b) + __fmul_rz(a, b) + __fmul_ru(a, b) + __fmul_rd(a, b);
    r += __fsub_rn(a, b) + __fsub_ru(a, b);
    r += __fmaf_rn(a, b, r) + __fmaf_rz(a, b, r) + __fmaf_ru(a, b, r) + __fmaf_rd(a, b, r);
    r += __fdiv_rn(a, b) + __fdiv_rz(a, b) + __fdiv_ru(a, b) + __fdiv_rd(a, b);
    r += __frcp_rn(b) + __frcp_rz(b) + __frcp_ru(b) + __frcp_rd(b);
    r += __fsqrt_rn(fabsf(b)) + __fsqrt_rz(fabsf(b)) + __fsqrt_ru(fabsf(b)) + __fsqrt_rd(fabsf(b));
    r += __frsqrt_rn(fabsf(b) + 1.f);
    r += __fmaf_ieee_rn(a, b, 1.0f);
    out[i] = r;
}

__global__ void f32_libm(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    float s, c;
    sincosf(a, &s, &c);
    float r = expf(a) + exp2f(a) + exp10f(a) + expm1f(a) + logf(a) + log1pf(a) + log2f(a);
    r += tanhf(a) + erff(a) + erfcf(a) + erfinvf(a) + lgammaf(a) + tgammaf(a);
    r += sinf(a) + cosf(a) + tanf(a) + asinf(a) + acosf(a) + atanf(a) + atan2f(a, r);
    r += sinhf(a) + coshf(a) + asinhf(a) + acoshf(a) + atanhf(a);
    r += sqrtf(a) + cbrtf(a) + rcbrtf(a) + hypotf(a, r) + normf(3, x) + powf(a, 2.5f);
    r += ceilf(a) + floorf(a) + truncf(a) + roundf(a) + rintf(a) + nearbyintf(a);
    r += copysignf(a, -r) + fmodf(a, 3.f) + remainderf(a, 3.f) + fdimf(a, r) + ldexpf(a, 3);
    int e = 0; r += frexpf(a, &e) + (float)e + scalbnf(a, 2) + logbf(a) + (float)ilogbf(a);
    r += sinpif(a) + cospif(a) + normcdff(a) + normcdfinvf(a) + j0f(a) + y1f(a);
    r += (isnan(a) ? 1.f : 0.f) + (isinf(r) ? 2.f : 0.f) + (isfinite(a) ? 4.f : 0.f) + (signbit(a) ? 8.f : 0.f);
    r += s * c + fmaf(a, s, c);
    out[i] = r;
}

__device__ __forceinline__ float sat_fma(float a, float b, float c)
{
    float d;
    asm("fma.rn.sat.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
}

__global__ void f32_asm(const float* __restrict__ x, float* __restrict__ out)
{
    int i = threadIdx.x;
    float a = x[i], d, e, f, g, h;
    asm("tanh.approx.f32 %0, %1;" : "=f"(d) : "f"(a));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(a));
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(a));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(g) : "f"(a));
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(h) : "f"(a));
    float k;
    asm("add.rm.ftz.sat.f32 %0, %1, %2;" : "=f"(k) : "f"(d), "f"(e));
    float m;
    asm("{ .reg .pred p; testp.finite.f32 p, %1; selp.f32 %0, %1, 0f00000000, p; }" : "=f"(m) : "f"(k));
    float cs;
    asm("copysign.f32 %0, %1, %2;" : "=f"(cs) : "f"(a), "f"(m));
#if __CUDA_ARCH__ >= 800
    float mx;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(mx) : "f"(cs), "f"(h));
    cs += mx;
#endif
#if __CUDA_ARCH__ >= 860
    float mn;
    asm("min.xorsign.abs.f32 %0, %1, %2;" : "=f"(mn) : "f"(cs), "f"(g));
    cs += mn;
#endif
    out[i] = sat_fma(cs, f, g) + h;
}
