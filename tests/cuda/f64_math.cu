// PTX: f64 arithmetic: fma.rn.f64, div.rn.f64, rcp.rn/approx.ftz.f64, sqrt.rn.f64, rsqrt.approx.f64, min/max/abs/neg.f64, rounding modes, libm call sequences
#include <cuda_runtime.h>

__global__ void f64_ops(const double* __restrict__ x, const double* __restrict__ y, double* __restrict__ out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        double a = x[i], b = y[i];
        double r = a * b + a / b - sqrt(fabs(b)) + rsqrt(fabs(a) + 1.0);
        r += fma(a, b, r) + fmin(a, b) + fmax(a, b) + fabs(a) - (-b);
        r += __dadd_rn(a, b) + __dadd_rz(a, b) + __dadd_ru(a, b) + __dadd_rd(a, b);
        r += __dmul_rn(a, b) + __dmul_rz(a, b) + __dmul_ru(a, b) + __dmul_rd(a, b);
        r += __fma_rn(a, b, r) + __fma_rz(a, b, r) + __fma_ru(a, b, r) + __fma_rd(a, b, r);
        r += __ddiv_rn(a, b) + __ddiv_rz(a, b) + __ddiv_ru(a, b) + __ddiv_rd(a, b);
        r += __drcp_rn(b) + __drcp_rz(b) + __drcp_ru(b) + __drcp_rd(b);
        r += __dsqrt_rn(fabs(a)) + __dsqrt_rz(fabs(a)) + __dsqrt_ru(fabs(a)) + __dsqrt_rd(fabs(a));
        r += __dsub_rn(a, b) + __dsub_ru(a, b);
        out[i] = r;
    }
}

__global__ void f64_libm(const double* __restrict__ x, double* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i];
    double s, c;
    sincos(a, &s, &c);
    double r = exp(a) + exp2(a) + exp10(a) + log(a) + log2(a) + log10(a) + log1p(a) + expm1(a);
    r += tanh(a) + erf(a) + erfc(a) + erfinv(a) + lgamma(a) + tgamma(a) + cbrt(a) + pow(a, 1.7);
    r += sin(a) + cos(a) + tan(a) + asin(a) + acos(a) + atan(a) + atan2(a, r) + sinpi(a);
    r += ceil(a) + floor(a) + trunc(a) + round(a) + rint(a) + fmod(a, 2.0) + remquo(a, 3.0, (int*)&i);
    r += copysign(a, r) + hypot(a, r) + ldexp(a, 4) + scalbn(a, 3) + nextafter(a, r);
    r += s * c;
    out[i] = r;
}

__global__ void f64_asm(const double* __restrict__ x, double* __restrict__ out)
{
    double a = x[threadIdx.x], b, c, d;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(b) : "d"(a));
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(c) : "d"(a));
    asm("{ .reg .b32 lo, hi; mov.b64 {lo, hi}, %1; xor.b32 hi, hi, 0x80000000; mov.b64 %0, {lo, hi}; }" : "=d"(d) : "d"(b));
    double e;
    asm("{ .reg .pred p; setp.nan.f64 p, %1, %2; selp.f64 %0, 0d0000000000000000, %1, p; }" : "=d"(e) : "d"(c), "d"(d));
    out[threadIdx.x] = e + d;
}
