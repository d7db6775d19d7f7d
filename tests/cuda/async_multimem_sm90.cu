// PTX (sm_90): st.async/red.async to remote shared::cluster with mbarrier complete_tx, multimem.ld_reduce/st/red on .global multicast addresses, istypep, cp.async.bulk.shared::cluster.shared::cta, mov of 128-bit-free vector packs
#include <cuda_runtime.h>

__global__ void st_red_async(unsigned* out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ __align__(16) unsigned buf[64];
    __shared__ __align__(8) unsigned long long bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), s = (unsigned)__cvta_generic_to_shared(&buf[threadIdx.x & 15]);
    unsigned rs, rb, rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rs) : "r"(s), "r"(rank ^ 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rb) : "r"(b), "r"(rank ^ 1));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" :: "r"(rs), "r"(threadIdx.x), "r"(rb) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" :: "r"(rs), "f"(1.f), "f"(2.f), "r"(rb) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %1, %1, %1}, [%2];" :: "r"(rs), "r"(7u), "r"(rb) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];" :: "r"(rs), "r"(1u), "r"(rb) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32 [%0], %1, [%2];" :: "r"(rs), "r"(3), "r"(rb) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%0], %1, [%2];" :: "r"(rs), "r"(9u), "r"(rb) : "memory");
    out[threadIdx.x] = buf[threadIdx.x & 63];
#endif
}

__global__ void multimem_ops(float* mc_ptr, unsigned* umc, float* out)
{
#if __CUDA_ARCH__ >= 900
    float v;
    unsigned u;
    asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(v) : "l"(mc_ptr + threadIdx.x));
    asm volatile("multimem.ld_reduce.global.min.u32 %0, [%1];" : "=r"(u) : "l"(umc + threadIdx.x));
    float a, b, c, d;
    asm volatile("multimem.ld_reduce.relaxed.gpu.global.add.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(mc_ptr + 4 * threadIdx.x));
    asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" :: "l"(mc_ptr + 1024 + threadIdx.x), "f"(v + a));
    asm volatile("multimem.st.global.v2.f32 [%0], {%1, %2};" :: "l"(mc_ptr + 2048 + 2 * threadIdx.x), "f"(b), "f"(c));
    asm volatile("multimem.red.relaxed.gpu.global.add.u32 [%0], %1;" :: "l"(umc + 4096 + threadIdx.x), "r"(u));
    asm volatile("multimem.red.release.sys.global.add.f32 [%0], %1;" :: "l"(mc_ptr + 8192 + threadIdx.x), "f"(d));
    out[threadIdx.x] = v + (float)u + a + b + c + d;
#endif
}

__global__ void type_predicates(unsigned long long tex, unsigned long long surf, int* out)
{
    int r;
    asm("{ .reg .pred p, q; istypep.texref p, %1; istypep.surfref q, %2; selp.s32 %0, 1, 0, p; @q add.s32 %0, %0, 2; }" : "=r"(r) : "l"(tex), "l"(surf));
    out[threadIdx.x] = r;
}
