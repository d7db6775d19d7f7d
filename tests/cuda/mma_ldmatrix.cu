// PTX: mma.sync.aligned (m16n8k8/m16n8k16 f16/bf16/tf32 -> f32, m16n8k32 s8, m8n8k4 f64, m16n8k32 e4m3 sm_89), ldmatrix.sync.aligned.m8n8.x1/x2/x4(.trans).shared.b16, stmatrix (sm_90), movmatrix.sync.aligned.m8n8.trans.b16
#include <cuda_runtime.h>

__global__ void mma_f16(const unsigned* __restrict__ A, const unsigned* __restrict__ B, float* __restrict__ D)
{
    int l = threadIdx.x & 31;
    unsigned a0 = A[l * 4], a1 = A[l * 4 + 1], a2 = A[l * 4 + 2], a3 = A[l * 4 + 3], b0 = B[l * 2], b1 = B[l * 2 + 1];
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(b0));
    unsigned h0 = 0, h1 = 0;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%0, %1};"
                 : "+r"(h0), "+r"(h1) : "r"(a0), "r"(a1), "r"(b1));
    float e[8] = {0};
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%0,%1,%2,%3,%4,%5,%6,%7};"
                 : "+f"(e[0]), "+f"(e[1]), "+f"(e[2]), "+f"(e[3]), "+f"(e[4]), "+f"(e[5]), "+f"(e[6]), "+f"(e[7]) : "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int c0 = 0, c1 = 0;
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+r"(c0), "+r"(c1) : "r"(a0), "r"(b0));
    asm volatile("mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.s4.s32 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+r"(c0), "+r"(c1) : "r"(a1), "r"(b1));
    asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0, %1}, {%2}, {%3}, {%0, %1};" : "+r"(c0), "+r"(c1) : "r"(a2), "r"(b0));
    D[l * 8] = d0 + e[0] + e[7] + c0 + c1; D[l * 8 + 1] = d1; D[l * 8 + 2] = d2; D[l * 8 + 3] = d3 + __uint_as_float(h0 ^ h1);
}

__global__ void mma_sm80(const unsigned* __restrict__ A, const unsigned* __restrict__ B, const double* __restrict__ dA, float* __restrict__ D, double* __restrict__ dD)
{
#if __CUDA_ARCH__ >= 800
    int l = threadIdx.x & 31;
    unsigned a0 = A[l * 4], a1 = A[l * 4 + 1], a2 = A[l * 4 + 2], a3 = A[l * 4 + 3], b0 = B[l * 2], b1 = B[l * 2 + 1];
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(b0));
    int c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(c0), "+r"(c1), "+r"(c2), "+r"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(c0), "+r"(c1), "+r"(c2), "+r"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(c0), "+r"(c1), "+r"(c2), "+r"(c3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    double x0 = 0.0, x1 = 0.0;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(x0), "+d"(x1) : "d"(dA[l]), "d"(dA[l + 32]));
    dD[l * 2] = x0; dD[l * 2 + 1] = x1;
#if __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
    D[l * 4] = d0 + c0 + c3; D[l * 4 + 1] = d1 + c1; D[l * 4 + 2] = d2 + c2; D[l * 4 + 3] = d3;
#endif
}

__global__ void ldmatrix_kernel(const unsigned short* __restrict__ in, unsigned* __restrict__ out)
{
    __shared__ __align__(16) unsigned short tile[16 * 16 * 4];
    for (int i = threadIdx.x; i < 16 * 16 * 4; i += blockDim.x) tile[i] = in[i];
    __syncthreads();
    int l = threadIdx.x & 31;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[(l % 16) * 16 + (l / 16) * 8]);
    unsigned r0, r1, r2, r3, s0, s1, t0;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(s0), "=r"(s1) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%0}, [%1];" : "=r"(t0) : "r"(addr));
    unsigned m;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(r0));
#if __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(addr), "r"(r3), "r"(r2), "r"(r1), "r"(r0));
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(addr), "r"(s1), "r"(s0));
    asm volatile("stmatrix.sync.aligned.x1.m8n8.shared::cta.b16 [%0], {%1};" :: "r"(addr), "r"(m));
    __syncwarp();
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
#endif
    out[threadIdx.x] = r0 + r1 + r2 + r3 + s0 + s1 + t0 + m;
}
