// PTX: membar.{cta,gl,sys}, fence.{sc,acq_rel}.{cta,cluster,gpu,sys}, fence.proxy.{alias,async,async.global,async.shared::cta} (sm_90), fence.mbarrier_init.release.cluster, threadfence reductions (last-block pattern)
#include <cuda_runtime.h>

__device__ unsigned int g_retire_count = 0;

__global__ void last_block_sum(const float* __restrict__ in, volatile float* partial, float* result, int n)
{
    __shared__ float s;
    __shared__ bool is_last;
    int t = threadIdx.x;
    if (t == 0) s = 0.f;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) atomicAdd(&s, in[i]);
    __syncthreads();
    if (t == 0) {
        partial[blockIdx.x] = s;
        __threadfence();
        unsigned ticket = atomicInc(&g_retire_count, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last && t == 0) {
        float total = 0.f;
        for (int b = 0; b < gridDim.x; ++b) total += partial[b];
        *result = total;
        g_retire_count = 0;
    }
}

__global__ void fence_variants(int* flag, int* data)
{
    data[threadIdx.x] = threadIdx.x;
    __threadfence_block();
    data[threadIdx.x + 32] = 1;
    __threadfence();
    data[threadIdx.x + 64] = 2;
    __threadfence_system();
    asm volatile("membar.cta;" ::: "memory");
    asm volatile("membar.gl;" ::: "memory");
    asm volatile("membar.sys;" ::: "memory");
    asm volatile("fence.sc.cta;" ::: "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("fence.sc.sys;" ::: "memory");
    asm volatile("fence.proxy.alias;" ::: "memory");
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    asm volatile("fence.proxy.async;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cluster;" ::: "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(data) : "memory");
#endif
    if (threadIdx.x == 0) atomicExch(flag, 1);
}
