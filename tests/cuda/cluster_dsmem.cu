// PTX (sm_90): thread block clusters: %cluster_ctarank/%cluster_nctarank/%clusterid/%nclusterid/%cluster_ctaid/%is_explicit_cluster, barrier.cluster.arrive(.relaxed)/wait, mapa.shared::cluster, getctarank, ld/st/atom .shared::cluster (distributed shared memory), isspacep.shared::cluster
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CLUSTER_DIMS(...) __cluster_dims__(__VA_ARGS__)
#else
#define CLUSTER_DIMS(...)
#endif

__global__ void CLUSTER_DIMS(4, 1, 1) dsmem_histogram(const int* __restrict__ in, int* __restrict__ out, int nbins)
{
    extern __shared__ int smem[];
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned csize = cluster.num_blocks();
    for (int i = threadIdx.x; i < nbins; i += blockDim.x) smem[i] = 0;
    cluster.sync();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int bin = v % (nbins * (int)csize);
    int dst_rank = bin / nbins;
    int* dst = cluster.map_shared_rank(smem, dst_rank);
    atomicAdd(dst + (bin % nbins), 1);
    cluster.sync();
    for (int i = threadIdx.x; i < nbins; i += blockDim.x) out[(blockIdx.x / csize) * nbins * csize + rank * nbins + i] = smem[i];
    dim3 bi = cluster.block_index();
    dim3 dims = cluster.dim_blocks();
    if (threadIdx.x == 0) out[0] += bi.x + dims.x + cluster.thread_rank() + cluster.num_threads() + (int)cg::cluster_group::block_rank();
#else
    out[threadIdx.x] = in[threadIdx.x] + nbins + smem[0];
#endif
}

__global__ void CLUSTER_DIMS(2, 1, 1) cluster_sregs_asm(unsigned* out)
{
#if __CUDA_ARCH__ >= 900
    __shared__ unsigned buf[64];
    unsigned r, n, cx, ncx, ccx, nccx, expl;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cx));
    asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(ncx));
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(ccx));
    asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(nccx));
    asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(expl));
    buf[threadIdx.x & 63] = threadIdx.x;
    asm volatile("barrier.cluster.arrive.release;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
    unsigned local = (unsigned)__cvta_generic_to_shared(&buf[(threadIdx.x + 1) & 63]);
    unsigned remote, val, owner;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(r ^ 1));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(val) : "r"(remote));
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(remote), "r"(val + 1));
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(val) : "r"(remote));
    asm volatile("red.shared::cluster.add.u32 [%0], 1;" :: "r"(remote));
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(owner) : "r"(remote));
    unsigned long long gremote;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(gremote) : "l"(&buf[0]), "r"(r ^ 1));
    unsigned isc;
    asm volatile("{ .reg .pred p; isspacep.shared::cluster p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(isc) : "l"(gremote));
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    asm volatile("barrier.cluster.arrive;" ::: "memory");
    asm volatile("barrier.cluster.wait;" ::: "memory");
    out[threadIdx.x] = r + n + cx + ncx + ccx + nccx + expl + val + owner + isc + *(unsigned*)gremote;
#else
    out[threadIdx.x] = 0;
#endif
}
