// PTX (sm_90/sm_90a): wgmma.fence/mma_async (m64n64k16 f32.f16.f16, m64n32k16 bf16, m64n64k8 tf32, m64n64k32 s8, e4m3) with smem descriptors + register A, wgmma.commit_group/wait_group, setmaxnreg.inc/dec, elect.sync, griddepcontrol, stmatrix, redux-free warpgroup ops, tensormap.replace / cp.fence_proxy
#include <cuda.h>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long make_desc(const void* smem)
{
    unsigned long long addr = (unsigned long long)__cvta_generic_to_shared(smem);
    unsigned long long desc = 0;
    desc |= (addr & 0x3FFFF) >> 4;
    desc |= (unsigned long long)(16 >> 4) << 16;
    desc |= (unsigned long long)(1024 >> 4) << 32;
    desc |= 1ull << 62;   // 128B swizzle
    return desc;
}

__global__ void __launch_bounds__(128) wgmma_f16(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ D)
{
    __shared__ __align__(1024) __half sA[64 * 16];
    __shared__ __align__(1024) __half sB[64 * 16];
    for (int i = threadIdx.x; i < 64 * 16; i += 128) { sA[i] = A[i]; sB[i] = B[i]; }
    __syncthreads();
    float d[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) d[i] = 0.f;
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    unsigned long long da = make_desc(sA), db = make_desc(sB);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 0, 1;\n\t}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db), "r"(1));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
    for (int i = 0; i < 32; ++i) D[threadIdx.x * 32 + i] = d[i];
}

__global__ void __launch_bounds__(128) wgmma_variants(const unsigned* __restrict__ A, float* __restrict__ D, int* __restrict__ I)
{
    __shared__ __align__(1024) unsigned char smem[8192];
    for (int i = threadIdx.x; i < 8192 / 4; i += 128) reinterpret_cast<unsigned*>(smem)[i] = A[i];
    __syncthreads();
    float d[16];
    int c[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) { d[i] = 0.f; c[i] = 0; }
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    unsigned long long da = make_desc(smem), db = make_desc(smem + 4096);
    unsigned a0 = A[threadIdx.x], a1 = A[threadIdx.x + 128], a2 = A[threadIdx.x + 256], a3 = A[threadIdx.x + 384];
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    // bf16, A from registers
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, 1, 1, 1, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db));
    // tf32
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 1, 1, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(da), "l"(db));
    // e4m3 x e5m2
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 1, 1, 1;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(da), "l"(db));
    // s8 x u8 -> s32, satfinite
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.u8.satfinite "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 1;"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3]), "+r"(c[4]), "+r"(c[5]), "+r"(c[6]), "+r"(c[7]),
                   "+r"(c[8]), "+r"(c[9]), "+r"(c[10]), "+r"(c[11]), "+r"(c[12]), "+r"(c[13]), "+r"(c[14]), "+r"(c[15])
                 : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
    for (int i = 0; i < 16; ++i) { D[threadIdx.x * 16 + i] = d[i]; I[threadIdx.x * 16 + i] = c[i]; }
}

__global__ void __launch_bounds__(384, 1) warp_specialized(float* out, const float* __restrict__ in)
{
    int wg = threadIdx.x / 128;
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        out[threadIdx.x] = in[threadIdx.x];
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        out[threadIdx.x] = in[threadIdx.x] * 2.f;
    }
#else
    out[threadIdx.x] = in[threadIdx.x] + wg;
#endif
}

__global__ void elect_griddep(int* out, const int* __restrict__ in)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    unsigned leader, is_elected;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n\t}" : "=r"(leader), "=r"(is_elected));
    if (is_elected) atomicAdd(out, in[threadIdx.x]);
    asm volatile("griddepcontrol.launch_dependents;");
    out[threadIdx.x + 1] = leader;
#else
    out[threadIdx.x + 1] = in[threadIdx.x];
#endif
}

__global__ void tensormap_ops(const __grid_constant__ CUtensorMap_st tmap, CUtensorMap_st* gmap, int* out)
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    __shared__ __align__(128) unsigned char smap[128];
    if (threadIdx.x < 32) {
        asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                     :: "l"(gmap), "r"((unsigned)__cvta_generic_to_shared(smap)) : "memory");
    }
    if (threadIdx.x == 0) {
        asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" :: "l"(gmap), "l"((unsigned long long)out) : "memory");
        asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" :: "r"((unsigned)__cvta_generic_to_shared(smap)), "r"(64) : "memory");
    }
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(gmap) : "memory");
#endif
    out[threadIdx.x] = threadIdx.x;
}
