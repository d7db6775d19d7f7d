// PTX (sm_80): cp.async.{ca,cg}.shared.global (4/8/16 bytes, src-size zfill, L2::128B prefetch, cache_hint), cp.async.commit_group/wait_group/wait_all, cp.async.mbarrier.arrive(.noinc), __pipeline_* and cuda::memcpy_async/cuda::pipeline lowering
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void pipeline_primitives(const float4* __restrict__ in, float* __restrict__ out, int iters)
{
    __shared__ __align__(16) float4 buf[2][128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float4));
    __pipeline_commit();
    float acc = 0.f;
    for (int i = 1; i < iters; ++i) {
        __pipeline_memcpy_async(&buf[i & 1][t], &in[i * 128 + t], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 v = buf[(i - 1) & 1][(t + 1) & 127];
        acc += v.x + v.y + v.z + v.w;
        __syncthreads();
    }
    __pipeline_wait_prior(0);
    __pipeline_memcpy_async(&buf[0][t], &in[t], 8, 8);   // zero-fill variant
    __pipeline_memcpy_async(reinterpret_cast<float*>(&buf[1][t]), reinterpret_cast<const float*>(&in[t]), 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[t] = acc + buf[0][t].w + buf[1][t].x;
}

__global__ void cuda_pipeline(const int* __restrict__ in, int* __restrict__ out, size_t n)
{
    __shared__ __align__(16) int smem[2][256];
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int acc = 0;
    for (size_t base = 0; base < n; base += 256) {
        pipe.producer_acquire();
        cuda::memcpy_async(&smem[0][threadIdx.x], &in[base + threadIdx.x], cuda::aligned_size_t<4>(sizeof(int)), pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        acc += smem[0][(threadIdx.x + 1) & 255];
        pipe.consumer_release();
    }
    cg::memcpy_async(block, smem[1], in, sizeof(int) * 256);
    cg::wait(block);
    out[threadIdx.x] = acc + smem[1][threadIdx.x];
}

__global__ void cp_async_asm(const float* __restrict__ in, float* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) float s[1024];
    __shared__ unsigned long long bar;
    unsigned t = threadIdx.x;
    unsigned sa = (unsigned)__cvta_generic_to_shared(&s[t * 4]);
    unsigned ba = (unsigned)__cvta_generic_to_shared(&bar);
    const float* g = in + t * 4;
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(ba), "r"(blockDim.x));
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(g));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(sa + 4096), "l"(g));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(g + 512));
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" :: "r"(sa), "l"(g), "r"(t & 15));
    asm volatile("cp.async.ca.shared.global.L2::64B [%0], [%1], 16;" :: "r"(sa), "l"(g));
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" :: "r"(sa), "l"(g), "l"(pol));
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(g));
    asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(ba));
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(ba));
    asm volatile("cp.async.wait_all;" ::: "memory");
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(ba));
    asm volatile("{ .reg .pred p; W%=: mbarrier.test_wait.shared.b64 p, [%0], %1; @!p bra W%=; }" :: "r"(ba), "l"(state));
    __syncthreads();
    out[t] = s[(t * 4 + 5) & 1023];
#endif
}
