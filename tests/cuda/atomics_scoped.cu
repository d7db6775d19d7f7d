// PTX: scoped atomics atom/red .cta/.gpu/.sys (atomicX_block / atomicX_system), sem modifiers via asm (.relaxed/.acquire/.release/.acq_rel), atom.shared::cta, ld/st.relaxed/.acquire/.release with scopes
#include <cuda_runtime.h>

__global__ void scoped_atomics(int* i32, unsigned* u32, unsigned long long* u64, float* f32, double* f64, int* out)
{
    int t = threadIdx.x;
    int r = 0;
    r += atomicAdd_block(i32, t) + atomicAdd_system(i32 + 1, t);
    r += (int)atomicAdd_block(f32, 1.f) + (int)atomicAdd_system(f64, 1.0);
    r += atomicExch_block(i32 + 2, t) + atomicExch_system(i32 + 3, t);
    r += atomicCAS_block(i32 + 4, 0, t) + atomicCAS_system(i32 + 5, 0, t);
    r += (int)atomicCAS_system(u64, 0ull, 1ull);
    r += atomicMin_block(i32 + 6, t) + atomicMax_system(i32 + 7, t);
    r += (int)atomicInc_block(u32, 10u) + (int)atomicDec_system(u32 + 1, 10u);
    r += atomicAnd_block(i32 + 8, 3) + atomicOr_system(i32 + 9, 4) + atomicXor_block(i32 + 10, 5);
    r += (int)atomicAdd_block(u64 + 1, 1ull) + (int)atomicMax_system(u64 + 2, 9ull);
    atomicAdd_block(i32 + 11, 1);
    atomicAdd_system(f32 + 1, 2.f);
    atomicOr_block(u32 + 2, 1u);
    out[t] = r;
}

__global__ void sem_atomics_asm(int* g, int* out)
{
    int t = threadIdx.x, r, s = 0;
    asm volatile("atom.relaxed.gpu.global.add.s32 %0, [%1], %2;" : "=r"(r) : "l"(g), "r"(t)); s += r;
    asm volatile("atom.acquire.gpu.global.exch.b32 %0, [%1], %2;" : "=r"(r) : "l"(g + 1), "r"(t)); s += r;
    asm volatile("atom.release.sys.global.or.b32 %0, [%1], %2;" : "=r"(r) : "l"(g + 2), "r"(t)); s += r;
    asm volatile("atom.acq_rel.cta.global.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "l"(g + 3), "r"(0), "r"(t)); s += r;
    asm volatile("atom.acquire.sys.add.u64 %0, [%1], 1;" : "=l"(*(unsigned long long*)out) : "l"(g + 4));
    asm volatile("red.release.gpu.global.add.s32 [%0], %1;" :: "l"(g + 6), "r"(t));
    asm volatile("red.relaxed.cta.global.max.u32 [%0], %1;" :: "l"(g + 7), "r"(t));
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(r) : "l"(g + 8)); s += r;
    asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(r) : "l"(g + 9)); s += r;
    asm volatile("ld.acquire.cta.b32 %0, [%1];" : "=r"(r) : "l"(g + 10)); s += r;
    asm volatile("st.release.gpu.global.s32 [%0], %1;" :: "l"(g + 11), "r"(s));
    asm volatile("st.relaxed.sys.global.s32 [%0], %1;" :: "l"(g + 12), "r"(s));
    asm volatile("ld.mmio.relaxed.sys.global.u32 %0, [%1];" : "=r"(r) : "l"(g + 13)); s += r;
    asm volatile("st.mmio.relaxed.sys.global.u32 [%0], %1;" :: "l"(g + 14), "r"(s));
    __shared__ int sh[32];
    sh[t & 31] = t;
    unsigned sa = (unsigned)__cvta_generic_to_shared(&sh[(t + 1) & 31]);
    asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(r) : "r"(sa)); s += r;
    asm volatile("atom.shared::cta.relaxed.cta.xor.b32 %0, [%1], %2;" : "=r"(r) : "r"(sa), "r"(t)); s += r;
    asm volatile("ld.shared.relaxed.cta.u32 %0, [%1];" : "=r"(r) : "r"(sa)); s += r;
    asm volatile("st.weak.shared.u32 [%0], %1;" :: "r"(sa), "r"(s));
    asm volatile("ld.weak.global.u32 %0, [%1];" : "=r"(r) : "l"(g + 15)); s += r;
    out[t + 2] = s;
}
