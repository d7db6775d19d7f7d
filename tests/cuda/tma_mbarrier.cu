// PTX (sm_90): mbarrier.init/arrive/arrive.expect_tx/try_wait(.parity)/inval, cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes, cp.async.bulk.global.shared::cta.bulk_group, cp.async.bulk.commit_group/wait_group(.read), cp.reduce.async.bulk, cp.async.bulk.tensor.{1d,2d}, prefetch.tensormap, cp.async.bulk.prefetch, multicast, cuda::barrier/cuda::ptx
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void bulk_copy_asm(const float* __restrict__ in, float* __restrict__ out, int n)
{
#if __CUDA_ARCH__ >= 900
    __shared__ __align__(128) float buf[1024];
    __shared__ __align__(8) unsigned long long bar;
    unsigned b = smem_u32(&bar), s = smem_u32(buf);
    const unsigned bytes = sizeof(buf);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(1));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(s), "l"(in + blockIdx.x * 1024), "r"(bytes), "r"(b) : "memory");
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(in + (blockIdx.x + 1) * 1024), "r"(bytes));
    }
    asm volatile("{\n\t.reg .pred done;\n\tWAIT%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra WAIT%=;\n\t}" :: "r"(b), "r"(0) : "memory");
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] *= 2.f;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(out + blockIdx.x * 1024), "r"(s), "r"(bytes) : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" :: "l"(out), "r"(s), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(b));
    }
#endif
}

__global__ void mbarrier_phases(int* out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ unsigned long long bar;
    unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x));
    __syncthreads();
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(b));
    asm volatile("{ .reg .pred p; L%=: mbarrier.test_wait.shared.b64 p, [%0], %1; @!p bra L%=; }" :: "r"(b), "l"(st));
    asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 1;" : "=l"(st) : "r"(b));
    asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(st) : "r"(b));
    unsigned cnt;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(cnt) : "l"(st));
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], 1;" : "=l"(st) : "r"(b));
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 0;" :: "r"(b));
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 0;" :: "r"(b));
    asm volatile("{ .reg .pred p; L%=: mbarrier.try_wait.acquire.cta.shared::cta.b64 p, [%0], %1, 1000; @!p bra L%=; }" :: "r"(b), "l"(st));
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%0], 1; }" :: "r"(b));
#endif
    out[threadIdx.x] = (int)cnt + (int)st;
#endif
}

__global__ void tma_tensor(const __grid_constant__ CUtensorMap tmap, const __grid_constant__ CUtensorMap tmap1d, float* out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ __align__(128) float tile[64 * 64];
    __shared__ __align__(8) unsigned long long bar;
    unsigned b = smem_u32(&bar), s = smem_u32(tile);
    int x = blockIdx.x * 64, y = blockIdx.y * 64;
    if (threadIdx.x == 0) {
        asm volatile("prefetch.tensormap [%0];" :: "l"(&tmap) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(64 * 64 * 4) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(s), "l"(&tmap), "r"(x), "r"(y), "r"(b) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%0, {%1}];" :: "l"(&tmap1d), "r"(x));
    }
    asm volatile("{ .reg .pred p; L%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra L%=; }" :: "r"(b) : "memory");
    tile[threadIdx.x] += 1.f;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" :: "l"(&tmap), "r"(x), "r"(y), "r"(s) : "memory");
        asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%0, {%1}], [%2];" :: "l"(&tmap1d), "r"(x), "r"(s) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    out[threadIdx.x] = tile[threadIdx.x];
#endif
}

__global__ void libcudacxx_barrier(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ __align__(16) int smem[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, smem, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(smem)), bar);
    bar.arrive_and_wait();
    int v = smem[(threadIdx.x + 1) & 255];
    auto tok = bar.arrive();
    bar.wait(std::move(tok));
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

__global__ void cuda_ptx_api(float* out, const float* __restrict__ in)
{
#if __CUDA_ARCH__ >= 900
    __shared__ __align__(128) float buf[256];
    __shared__ __align__(8) uint64_t bar;
    namespace ptx = cuda::ptx;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, in, sizeof(buf), &bar);
        (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(buf));
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) { }
    float v = buf[threadIdx.x];
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out, buf, sizeof(buf));
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
    unsigned rank = ptx::get_sreg_cluster_ctarank();
    out[256 + threadIdx.x] = v + rank;
#endif
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CLUSTER_DIMS(...) __cluster_dims__(__VA_ARGS__)
#else
#define CLUSTER_DIMS(...)
#endif

__global__ void CLUSTER_DIMS(2, 1, 1) multicast_bulk(const float* __restrict__ in, float* out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ __align__(128) float buf[512];
    __shared__ __align__(8) unsigned long long bar;
    unsigned b = smem_u32(&bar), s = smem_u32(buf);
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(2048u));
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
                     :: "r"(s), "l"(in), "r"(2048u), "r"(b), "h"((unsigned short)3) : "memory");
#else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(s), "l"(in), "r"(2048u), "r"(b) : "memory");
#endif
        unsigned rb;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(rb) : "r"(b));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(rb));
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];" :: "r"(rb), "r"(s), "r"(rb));
    }
    asm volatile("{ .reg .pred p; L%=: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0; @!p bra L%=; }" :: "r"(b) : "memory");
    out[threadIdx.x] = buf[threadIdx.x];
#endif
}
