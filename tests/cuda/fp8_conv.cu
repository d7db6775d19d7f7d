// PTX: fp8 conversions cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32, cvt.rn.f16x2.{e4m3x2,e5m2x2}, cvt.rn.satfinite.e4m3x2.f16x2 (sm_89+), with cuda_fp8.h fallbacks for older archs
#include <cuda_fp8.h>
#include <cuda_fp16.h>

__global__ void fp8_types(const float2* __restrict__ in, __nv_fp8x2_e4m3* o43, __nv_fp8x2_e5m2* o52, __half2* back, float* fb, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 v = in[i];
    __nv_fp8x2_e4m3 a(v);
    __nv_fp8x2_e5m2 b(v);
    o43[i] = a;
    o52[i] = b;
    __nv_fp8_e4m3 s(v.x);
    __nv_fp8_e5m2 t(v.y);
    __nv_fp8_storage_t raw = __nv_cvt_float_to_fp8(v.x, __NV_SATFINITE, __NV_E4M3);
    __nv_fp8x2_storage_t raw2 = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
    __nv_fp8x2_storage_t raw3 = __nv_cvt_halfraw2_to_fp8x2(__half2_raw(__float22half2_rn(v)), __NV_NOSAT, __NV_E4M3);
    __nv_fp8_storage_t raw4 = __nv_cvt_double_to_fp8((double)v.y, __NV_SATFINITE, __NV_E5M2);
    __half_raw hr = __nv_cvt_fp8_to_halfraw(raw, __NV_E4M3);
    __half2_raw h2r = __nv_cvt_fp8x2_to_halfraw2(raw2, __NV_E5M2);
    back[i] = __half2(h2r);
    fb[i] = float(s) + float(t) + __half2float(__half(hr)) + (float)raw3 + (float)raw4;
}

__global__ void fp8_asm(const float* __restrict__ x, unsigned* __restrict__ out)
{
    float a = x[threadIdx.x], b = x[threadIdx.x + 32];
    unsigned r = 0;
#if __CUDA_ARCH__ >= 890
    unsigned short p, q;
    unsigned h;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(p) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(q) : "f"(a), "f"(b));
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h) : "h"(p)); r += h;
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h) : "h"(q)); r += h;
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(p) : "r"(h)); r += p;
    asm("cvt.rn.relu.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(q) : "f"(a), "f"(b)); r += q;
#else
    r = __float_as_uint(a + b);
#endif
    out[threadIdx.x] = r;
}
