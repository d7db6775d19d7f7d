// PTX: special registers %tid/%ntid/%ctaid/%nctaid (.x/.y/.z), %laneid, %warpid, %nwarpid, %smid, %nsmid, %gridid, %clock, %clock64, %clock_hi, %globaltimer(_lo/_hi), %pm0-7, %envreg, %total_smem_size, %aggr_smem_size, %current_graph_exec; mov/cvt of sreg, getctarank-free queries
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned laneid() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned warpid() { unsigned r; asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned long long globaltimer() { unsigned long long r; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r)); return r; }

__global__ void timing(unsigned long long* out, const float* __restrict__ in)
{
    long long t0 = clock64();
    unsigned c0 = clock();
    unsigned long long g0 = globaltimer();
    float s = 0.f;
    for (int i = 0; i < 100; ++i) s += in[(threadIdx.x + i) & 255];
    long long t1 = clock64();
    unsigned c1 = clock();
    unsigned long long g1 = globaltimer();
    unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx * 4] = t1 - t0;
    out[idx * 4 + 1] = c1 - c0;
    out[idx * 4 + 2] = g1 - g0;
    out[idx * 4 + 3] = (unsigned long long)s;
}

__global__ void sregs(unsigned* out)
{
    unsigned r[24];
    asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(r[0]));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r[1]));
    unsigned long long grid;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
    r[2] = (unsigned)grid;
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(r[3]));
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(r[4]));
    asm volatile("mov.u32 %0, %%globaltimer_hi;" : "=r"(r[5]));
    asm volatile("mov.u32 %0, %%pm0;" : "=r"(r[6]));
    asm volatile("mov.u64 %0, %%pm7_64;" : "=l"(grid));
    r[7] = (unsigned)grid;
    asm volatile("mov.u32 %0, %%envreg0;" : "=r"(r[8]));
    asm volatile("mov.u32 %0, %%envreg31;" : "=r"(r[9]));
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(r[10]));
#if __CUDA_ARCH__ >= 810
    asm volatile("mov.u32 %0, %%aggr_smem_size;" : "=r"(r[11]));
#else
    r[11] = 0;
#endif
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r[12]));
    asm volatile("mov.u32 %0, %%tid.y;" : "=r"(r[13]));
    asm volatile("mov.u32 %0, %%ntid.z;" : "=r"(r[14]));
    asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(r[15]));
    asm volatile("mov.u32 %0, %%nctaid.y;" : "=r"(r[16]));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(r[17]));
#if __CUDA_ARCH__ >= 900
    unsigned long long ge;
    asm volatile("mov.u64 %0, %%current_graph_exec;" : "=l"(ge));
    r[18] = (unsigned)ge;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(r[19]));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(r[20]));
#else
    r[18] = r[19] = r[20] = 0;
#endif
    r[21] = laneid() + warpid() + smid();
    unsigned s = 0;
    for (int i = 0; i < 22; ++i) s += r[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s + threadIdx.x + threadIdx.y + threadIdx.z + blockDim.x + blockDim.y + blockIdx.y + gridDim.z;
}

__global__ void addr_spaces(float* gptr, unsigned long long* out)
{
    __shared__ float sh[32];
    float loc[4] = {1, 2, 3, 4};
    sh[threadIdx.x & 31] = gptr[threadIdx.x];
    unsigned long long a, b, c;
    asm volatile("cvta.to.global.u64 %0, %1;" : "=l"(a) : "l"(gptr));
    asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(b) : "l"(&sh[1]));
    asm volatile("cvta.shared.u64 %0, %1;" : "=l"(c) : "l"(b));
    unsigned sp;
    asm volatile("{ .reg .pred p, q, r; isspacep.global p, %1; isspacep.shared q, %2; isspacep.local r, %3; selp.u32 %0, 1, 0, p; @q add.u32 %0, %0, 2; @r add.u32 %0, %0, 4; }"
                 : "=r"(sp) : "l"(gptr), "l"(c), "l"(&loc[threadIdx.x & 3]));
    unsigned short s16;
    asm volatile("mov.b16 %0, 7;" : "=h"(s16));
    out[threadIdx.x] = a + b + c + sp + s16 + (unsigned long long)loc[threadIdx.x & 3];
}
