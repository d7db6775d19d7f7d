// PTX: atom.global/.shared.{add,exch,cas,min,max,inc,dec,and,or,xor} for .s32/.u32/.u64/.s64/.f32/.f64/.f16x2/.bf16/.bf16x2/.b16 cas, and red.* when result unused
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void atomics_used(int* i32, unsigned* u32, unsigned long long* u64, long long* s64, float* f32, double* f64,
                             __half2* h2, __half* h1, __nv_bfloat16* b1, __nv_bfloat162* b2, unsigned short* u16, int* out)
{
    int t = threadIdx.x;
    long long r = 0;
    r += atomicAdd(i32, t);
    r += atomicAdd(u32, 1u);
    r += (long long)atomicAdd(u64, 2ull);
    r += (long long)atomicAdd(f32, 1.5f);
    r += (long long)atomicAdd(f64, 2.5);
    r += atomicSub(i32 + 1, t);
    r += atomicExch(i32 + 2, t);
    r += (long long)atomicExch(f32 + 1, 3.0f);
    r += (long long)atomicExch(u64 + 1, 5ull);
    r += atomicMin(i32 + 3, t);
    r += atomicMax(i32 + 4, t);
    r += atomicMin(u32 + 1, 7u);
    r += atomicMax(u32 + 2, 9u);
    r += atomicMin(s64, (long long)t);
    r += atomicMax(s64 + 1, (long long)t);
    r += (long long)atomicMin(u64 + 2, 3ull);
    r += (long long)atomicMax(u64 + 3, 4ull);
    r += atomicInc(u32 + 3, 100u);
    r += atomicDec(u32 + 4, 100u);
    r += atomicAnd(i32 + 5, 0xf0);
    r += atomicOr(i32 + 6, 0x0f);
    r += atomicXor(i32 + 7, t);
    r += (long long)atomicAnd(u64 + 4, 0xffull);
    r += (long long)atomicOr(u64 + 5, 0x100ull);
    r += (long long)atomicXor(u64 + 6, (unsigned long long)t);
    r += atomicCAS(i32 + 8, t, t + 1);
    r += (long long)atomicCAS(u64 + 7, 1ull, 2ull);
    r += atomicCAS(u16, (unsigned short)t, (unsigned short)(t + 1));
    __half2 hv = atomicAdd(h2, __floats2half2_rn(1.f, 2.f));
    __half hs = atomicAdd(h1, __float2half(1.f));
    __nv_bfloat16 bv = atomicAdd(b1, __float2bfloat16(1.f));
    __nv_bfloat162 bv2 = atomicAdd(b2, __floats2bfloat162_rn(1.f, 1.f));
#if __CUDA_ARCH__ >= 900
    float2 f2 = atomicAdd(reinterpret_cast<float2*>(f32 + 8), make_float2(1.f, 2.f));
    float4 f4 = atomicAdd(reinterpret_cast<float4*>(f32 + 16), make_float4(1.f, 2.f, 3.f, 4.f));
    r += (long long)(f2.x + f4.w);
#endif
    out[t] = (int)r + (int)__low2float(hv) + (int)__half2float(hs) + (int)__bfloat162float(bv) + (int)__high2float(bv2);
}

__global__ void atomics_unused(int* i32, unsigned* u32, unsigned long long* u64, float* f32, double* f64, __half2* h2, __nv_bfloat162* b2)
{
    int t = threadIdx.x;
    atomicAdd(i32, t);
    atomicAdd(u64, 1ull);
    atomicAdd(f32, 0.5f);
    atomicAdd(f64, 0.25);
    atomicSub(i32 + 1, 1);
    atomicMin(i32 + 2, t);
    atomicMax(u32, (unsigned)t);
    atomicMin(u64 + 1, (unsigned long long)t);
    atomicInc(u32 + 1, 64u);
    atomicDec(u32 + 2, 64u);
    atomicAnd(u32 + 3, 0xffu);
    atomicOr(u64 + 2, 1ull);
    atomicXor(i32 + 3, t);
    atomicAdd(h2, __floats2half2_rn(1.f, 1.f));
    atomicAdd(b2, __floats2bfloat162_rn(1.f, 1.f));
}

__global__ void shared_atomics(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ int hist[256];
    __shared__ float fsum;
    __shared__ unsigned long long usum;
    __shared__ double dsum;
    int t = threadIdx.x;
    hist[t & 255] = 0;
    if (t == 0) { fsum = 0.f; usum = 0; dsum = 0.0; }
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&hist[v & 255], 1);
    float old = atomicAdd(&fsum, (float)v);
    atomicAdd(&usum, (unsigned long long)v);
    atomicAdd(&dsum, (double)v);
    int prev = atomicCAS(&hist[(v + 1) & 255], 0, v);
    atomicMax(&hist[(v + 2) & 255], v);
    atomicExch(&hist[(v + 3) & 255], t);
    unsigned long long pu = atomicOr(&usum, 1ull << (t & 63));
    __syncthreads();
    out[blockIdx.x * 256 + (t & 255)] = hist[t & 255] + prev + (int)old + (int)fsum + (int)usum + (int)dsum + (int)pu;
}

__device__ float atomic_max_float(float* addr, float val)
{
    int* ia = reinterpret_cast<int*>(addr);
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(ia, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void cas_loop(const float* __restrict__ in, float* out)
{
    atomic_max_float(out, in[blockIdx.x * blockDim.x + threadIdx.x]);
}

__global__ void atomics_asm(unsigned* g, unsigned long long* g64)
{
    unsigned r, t = threadIdx.x;
    asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(g), "r"(t));
    asm volatile("red.global.add.u32 [%0], %1;" :: "l"(g + 1), "r"(r));
    asm volatile("red.global.inc.u32 [%0], %1;" :: "l"(g + 2), "r"(100u));
    asm volatile("red.global.max.s32 [%0], %1;" :: "l"(g + 3), "r"(t));
    unsigned long long r64;
    asm volatile("atom.global.exch.b64 %0, [%1], %2;" : "=l"(r64) : "l"(g64), "l"((unsigned long long)t));
    asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;" : "=l"(r64) : "l"(g64 + 1), "l"(r64), "l"(1ull));
    asm volatile("red.global.add.f64 [%0], %1;" :: "l"(g64 + 2), "d"(1.0));
    asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(g + 8), "r"(0x3c003c00u));
    unsigned short h;
    asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(h) : "l"(g + 9), "h"((unsigned short)0x3c00));
#if __CUDA_ARCH__ >= 900
    asm volatile("atom.global.add.noftz.bf16 %0, [%1], %2;" : "=h"(h) : "l"(g + 10), "h"((unsigned short)0x3f80));
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" :: "l"(g + 11), "r"(0x3f803f80u));
#endif
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.v4.f32.add [%0], {%1, %1, %1, %1};" :: "l"(g + 16), "f"(1.f));
    asm volatile("red.global.v2.f16x2.add.noftz [%0], {%1, %1};" :: "l"(g + 24), "r"(0x3c003c00u));
    asm volatile("{ .reg .b32 a,b,c,d; atom.global.v4.f32.add {a,b,c,d}, [%0], {%1, %1, %1, %1}; }" :: "l"(g + 32), "f"(1.f));
#endif
    g[40 + t] = r + (unsigned)r64 + h;
}
