// PTX: cvt between all int/float widths with rounding modes (.rn/.rz/.rm/.rp/.rni/.rzi/.rmi/.rpi), .sat, .ftz, f16/bf16/tf32 packing (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32, cvt.rna.tf32.f32), mov.b64 pack/unpack, reinterpret casts
#include <cuda_fp16.h>
#include <cuda_bf16.h>

struct AllOut { int i[8]; unsigned u[4]; long long ll[4]; unsigned long long ull[2]; float f[8]; double d[6]; };

__global__ void cvt_float_int(const float* __restrict__ fx, const double* __restrict__ dx, const long long* __restrict__ lx, AllOut* out, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    float f = fx[k]; double d = dx[k]; long long l = lx[k];
    AllOut o;
    o.i[0] = __float2int_rn(f); o.i[1] = __float2int_rz(f); o.i[2] = __float2int_ru(f); o.i[3] = __float2int_rd(f);
    o.i[4] = __double2int_rn(d); o.i[5] = __double2int_rz(d); o.i[6] = __double2int_ru(d); o.i[7] = __double2int_rd(d);
    o.u[0] = __float2uint_rn(f); o.u[1] = __float2uint_rz(f); o.u[2] = __double2uint_ru(d); o.u[3] = __double2uint_rd(d);
    o.ll[0] = __float2ll_rn(f); o.ll[1] = __float2ll_rz(f); o.ll[2] = __double2ll_ru(d); o.ll[3] = __double2ll_rd(d);
    o.ull[0] = __float2ull_ru(f); o.ull[1] = __double2ull_rn(d);
    o.f[0] = __int2float_rn(o.i[0]); o.f[1] = __int2float_rz(o.i[1]); o.f[2] = __uint2float_ru(o.u[0]); o.f[3] = __uint2float_rd(o.u[1]);
    o.f[4] = __ll2float_rn(l); o.f[5] = __ull2float_rz((unsigned long long)l); o.f[6] = __double2float_ru(d); o.f[7] = __double2float_rd(d);
    o.d[0] = __int2double_rn(o.i[2]); o.d[1] = __uint2double_rn(o.u[2]); o.d[2] = __ll2double_rz(l); o.d[3] = __ull2double_ru((unsigned long long)l);
    o.d[4] = (double)f + (double)(char)k + (double)(unsigned short)l;
    o.d[5] = __hiloint2double(__double2hiint(d), __double2loint(d)) + __longlong_as_double(__double_as_longlong(d) ^ 1ll);
    o.f[0] += __int_as_float(__float_as_int(f) | 1) + __uint_as_float(__float_as_uint(f) & ~1u);
    o.f[1] += rintf(f) + truncf(f) + floorf(f) + ceilf(f) + (float)(long long)rint(d);
    o.i[0] += (int)(signed char)f + (int)(unsigned char)d + (int)(short)l + (int)(unsigned short)f;
    o.ll[0] += (long long)(char)l + (long long)(unsigned)l + (long long)(int)l;
    out[k] = o;
}

__global__ void cvt_half_bf16(const float* __restrict__ fx, const double* __restrict__ dx, __half* h, __nv_bfloat16* b, float* f, unsigned* packed, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    float x = fx[k]; double d = dx[k];
    __half h0 = __float2half_rn(x), h1 = __float2half_rz(x), h2 = __float2half_ru(x), h3 = __float2half_rd(x);
    __half h4 = __double2half(d), h5 = __int2half_rn(k), h6 = __uint2half_rz(k), h7 = __ll2half_rd(k), h8 = __short2half_ru((short)k);
    h[k] = __hadd(__hadd(__hadd(h0, h1), __hadd(h2, h3)), __hadd(__hadd(h4, h5), __hadd(__hadd(h6, h7), h8)));
    int hi = __half2int_rn(h0) + __half2int_rz(h1) + (int)__half2uint_rd(h2) + (int)__half2ll_ru(h3) + __half2short_rn(h4) + (int)__half2ushort_rz(h5);
    __nv_bfloat16 b0 = __float2bfloat16_rn(x), b1 = __float2bfloat16_rz(x), b2 = __float2bfloat16_ru(x), b3 = __float2bfloat16_rd(x);
    __nv_bfloat16 b4 = __double2bfloat16(d), b5 = __int2bfloat16_rn(k);
    b[k] = __float2bfloat16(__bfloat162float(b0) + __bfloat162float(b1) + __bfloat162float(b2) + __bfloat162float(b3) + __bfloat162float(b4) + __bfloat162float(b5));
    __half2 hh = __float22half2_rn(make_float2(x, x * 2.f));
    __nv_bfloat162 bb = __float22bfloat162_rn(make_float2(x, x + 1.f));
    __nv_bfloat162 bb2 = __floats2bfloat162_rn(x, -x);
    float2 back = __half22float2(hh);
    float2 back2 = __bfloat1622float2(bb);
    __half hb = __float2half(__bfloat162float(b0));
    f[k] = back.x + back.y + back2.x + back2.y + (float)hi + __half2float(hb) + __low2float(bb2) + __half2float(__ushort_as_half(__half_as_ushort(h0) ^ 0x8000));
    packed[k] = *reinterpret_cast<unsigned*>(&hh) ^ *reinterpret_cast<unsigned*>(&bb);
}

__global__ void cvt_asm(const float* __restrict__ fx, const double* __restrict__ dx, unsigned* __restrict__ out)
{
    float x = fx[threadIdx.x], y = fx[threadIdx.x + 32];
    double d = dx[threadIdx.x];
    unsigned r = 0, t;
    asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(t) : "f"(x)); r += t;
    asm("cvt.rzi.sat.u8.f32 %0, %1;" : "=r"(t) : "f"(x)); r += t;
    asm("cvt.sat.s16.s32 %0, %1;" : "=r"(t) : "r"(r)); r += t;
    asm("cvt.sat.u32.s64 %0, %1;" : "=r"(t) : "l"((long long)r)); r += t;
    asm("cvt.rmi.ftz.s32.f32 %0, %1;" : "=r"(t) : "f"(x)); r += t;
    asm("cvt.rpi.u32.f64 %0, %1;" : "=r"(t) : "d"(d)); r += t;
    float f;
    asm("cvt.rzi.ftz.f32.f32 %0, %1;" : "=f"(f) : "f"(x));
    asm("cvt.sat.f32.f32 %0, %0;" : "+f"(f));
    asm("cvt.rm.f32.f64 %0, %1;" : "=f"(y) : "d"(d)); f += y;
    asm("cvt.rp.f32.s64 %0, %1;" : "=f"(y) : "l"((long long)r)); f += y;
    asm("cvt.rn.f32.u16 %0, %1;" : "=f"(y) : "h"((unsigned short)r)); f += y;
    asm("{ .reg .f16 h; cvt.rn.f16.f32 h, %1; cvt.f32.f16 %0, h; }" : "=f"(y) : "f"(x)); f += y;
    asm("{ .reg .b16 h; cvt.rn.f16.f64 h, %1; cvt.f64.f16 %1, h; cvt.rn.f32.f64 %0, %1; }" : "=f"(y) : "d"(d)); f += y;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(f)); r += t;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(f)); r += t;
    asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(f)); r += t;
    asm("cvt.rz.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(t) : "f"(x), "f"(f)); r += t;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x)); r += t;
    asm("{ .reg .b16 h; cvt.rn.bf16.f32 h, %1; cvt.u32.u16 %0, h; }" : "=r"(t) : "f"(x)); r += t;
#endif
#if __CUDA_ARCH__ >= 900
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(t) : "f"(x)); r += t;
    asm("{ .reg .b16 h; cvt.rn.bf16.f16 h, %1; cvt.f32.bf16 %0, h; }" : "=f"(y) : "h"((unsigned short)t)); f += y;
#endif
    out[threadIdx.x] = r + __float_as_uint(f);
}
