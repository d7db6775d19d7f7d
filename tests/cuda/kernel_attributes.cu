// PTX: kernel performance directives .maxntid/.minnctapersm (__launch_bounds__), .maxnreg (__maxnreg__), .maxclusterrank (3rd launch_bounds arg), .reqnctapercluster/.explicitcluster (__cluster_dims__, sm_90), .reqntid via asm-less attributes, __grid_constant__ params
#include <cuda_runtime.h>

struct Cfg { float a, b; int n; };

__global__ void __launch_bounds__(256) lb_maxntid(float* p) { p[threadIdx.x] *= 2.f; }
__global__ void __launch_bounds__(128, 4) lb_minblocks(float* p) { p[threadIdx.x] += 1.f; }
__global__ void __launch_bounds__(1024, 1) lb_big(double* p) { p[threadIdx.x] = sqrt(p[threadIdx.x]); }

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CLUSTER_LB(t, m, c) __launch_bounds__(t, m, c)
#define CLUSTER_DIMS(...) __cluster_dims__(__VA_ARGS__)
#else
#define CLUSTER_LB(t, m, c) __launch_bounds__(t, m)
#define CLUSTER_DIMS(...)
#endif

__global__ void CLUSTER_LB(256, 2, 4) lb_maxcluster(float* p) { p[threadIdx.x] -= 1.f; }
__global__ void CLUSTER_DIMS(2, 1, 1) cluster_2x1x1(float* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = (float)blockIdx.x; }
__global__ void CLUSTER_DIMS(2, 2, 2) cluster_2x2x2(int* p) { p[threadIdx.x] = (int)gridDim.x; }

__global__ void __maxnreg__(32) maxnreg_32(const float* __restrict__ a, float* __restrict__ b)
{
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 32; ++i) s += a[threadIdx.x + i * 32] * (float)i;
    b[threadIdx.x] = s;
}

__global__ void grid_const_param(const __grid_constant__ Cfg cfg, float* out)
{
    const Cfg* pc = &cfg;   // taking address keeps it in .param space (ld.param via generic)
    out[threadIdx.x] = pc->a * threadIdx.x + pc->b + pc->n;
}

__global__ void __launch_bounds__(64) noinline_from_bounded(int* p);
__device__ __noinline__ int helper(int x) { return x * x + 1; }
__global__ void __launch_bounds__(64) noinline_from_bounded(int* p) { p[threadIdx.x] = helper(p[threadIdx.x]); }
