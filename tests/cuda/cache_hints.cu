// PTX: ld.global.nc, cache operators (.ca/.cg/.cs/.lu/.cv, .wb/.wt), eviction priority L1::evict_*, L2::cache_hint + createpolicy, L2::64B/128B/256B prefetch size, prefetch/prefetchu, discard.global.L2, applypriority, ld.volatile/ld.relaxed
#include <cuda_runtime.h>

__global__ void ldst_cache_ops(const float* __restrict__ in, const float4* __restrict__ in4, float* out, float4* out4, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = __ldg(in + i) + __ldcs(in + i + 1) + __ldca(in + i + 2) + __ldcg(in + i + 3) + __ldlu(in + i + 4) + __ldcv(in + i + 5);
    float4 v = __ldg(in4 + i);
    float4 w = __ldcs(in4 + i + 1);
    __stcs(out + i, a);
    __stwt(out + i + n, a * 2.f);
    __stcg(out + i + 2 * n, a * 3.f);
    __stwb(out + i + 3 * n, a * 4.f);
    float4 s = make_float4(v.x + w.x, v.y + w.y, v.z + w.z, v.w + w.w);
    __stcs(out4 + i, s);
    __stwt(out4 + i + n, s);
    int2 ii = __ldg(reinterpret_cast<const int2*>(in) + i);
    double dd = __ldg(reinterpret_cast<const double*>(in) + i);
    out[i + 4 * n] = (float)ii.x + (float)ii.y + (float)dd;
}

__global__ void ldst_cache_asm(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float* p = in + i;
    float a, b, c, d, e;
    asm volatile("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(a) : "l"(p));
    asm volatile("ld.global.L1::evict_last.f32 %0, [%1];" : "=f"(b) : "l"(p + 32));
    asm volatile("ld.global.L1::evict_first.L2::128B.f32 %0, [%1];" : "=f"(c) : "l"(p + 64));
    asm volatile("ld.global.cg.L2::64B.f32 %0, [%1];" : "=f"(d) : "l"(p + 96));
    asm volatile("ld.volatile.global.f32 %0, [%1];" : "=f"(e) : "l"(p + 128));
    asm volatile("prefetch.global.L2 [%0];" :: "l"(p + 256));
    asm volatile("prefetch.global.L1 [%0];" :: "l"(p + 512));
    asm volatile("prefetchu.L1 [%0];" :: "l"(p + 1024));
    asm volatile("prefetch.local.L1 [%0];" :: "l"(p));
#if __CUDA_ARCH__ >= 800
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    float f;
    asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(f) : "l"(p + 160), "l"(pol));
    a += f;
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" :: "l"(out + i + n), "f"(f), "l"(pol));
    unsigned long long pol2;
    asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(pol2));
    asm volatile("ld.global.nc.L1::evict_normal.L2::cache_hint.L2::256B.f32 %0, [%1], %2;" : "=f"(f) : "l"(p + 192), "l"(pol2));
    a += f;
    asm volatile("ld.global.L1::evict_unchanged.f32 %0, [%1];" : "=f"(f) : "l"(p + 224));
    a += f;
    asm volatile("discard.global.L2 [%0], 128;" :: "l"(out + ((size_t)n * 8 & ~31)));
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" :: "l"(in));
    asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(p + 2048));
    asm volatile("prefetch.global.L2::evict_normal [%0];" :: "l"(p + 4096));
#endif
    asm volatile("st.global.wt.f32 [%0], %1;" :: "l"(out + i), "f"(a + b + c + d + e));
    asm volatile("st.volatile.global.f32 [%0], %1;" :: "l"(out + i + 2 * n), "f"(a));
    asm volatile("st.global.L1::no_allocate.f32 [%0], %1;" :: "l"(out + i + 3 * n), "f"(b));
}

__global__ void volatile_poll(volatile int* flag, int* data)
{
    while (*flag == 0) { }
    data[threadIdx.x] = *flag + 1;
    *flag = 0;
}
