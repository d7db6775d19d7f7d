// PTX: cooperative_groups: tiled_partition shuffles, cg::reduce (redux.sync on sm_80), coalesced_threads (activemask/popc/fns), labeled_partition (match.any), grid.sync (grid-wide barrier via atomics + %envreg/params), inclusive_scan
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void cg_reduce(const int* __restrict__ in, const float* __restrict__ fin, int* __restrict__ out, float* __restrict__ fout)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    int gi = block.group_index().x * block.size() + block.thread_rank();
    int v = in[gi];
    int s = cg::reduce(warp, v, cg::plus<int>());
    int m = cg::reduce(tile8, v, cg::greater<int>());
    int l = cg::reduce(warp, v, cg::less<int>());
    unsigned x = cg::reduce(warp, (unsigned)v, cg::bit_xor<unsigned>());
    float fs = cg::reduce(warp, fin[gi], cg::plus<float>());
    int sc = cg::inclusive_scan(warp, v);
    int ex = cg::exclusive_scan(tile8, v, cg::plus<int>());
    block.sync();
    if (warp.thread_rank() == 0) atomicAdd(out, s);
    out[gi + 1] = m + l + (int)x + sc + ex + (int)warp.meta_group_rank() + warp.any(v > 3) + warp.all(v < 100) + (int)warp.ballot(v & 1);
    fout[gi] = fs + warp.shfl_down(fs, 1) + tile8.shfl_xor(fs, 2) + warp.shfl(fs, 0);
}

__global__ void cg_coalesced(const int* __restrict__ in, int* __restrict__ out)
{
    int v = in[threadIdx.x];
    if (v & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        int rank = active.thread_rank();
        int total = cg::reduce(active, v, cg::plus<int>());
        int first = active.shfl(v, 0);
        out[threadIdx.x] = rank + total + first + (int)active.size();
    }
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
    auto part = cg::labeled_partition(w, v % 4);
    out[threadIdx.x + 64] = cg::reduce(part, v, cg::plus<int>()) + (int)part.num_threads();
    auto bin = cg::binary_partition(w, v > 10);
    out[threadIdx.x + 128] = (int)bin.thread_rank();
    cg::thread_group dyn = cg::tiled_partition(cg::this_thread_block(), 16);
    dyn.sync();
    out[threadIdx.x + 192] = (int)dyn.thread_rank();
}

__global__ void cg_grid_sync(float* data, int n)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] *= 2.f;
    grid.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] += data[(i + 1) % n];
    grid.sync();
    if (grid.thread_rank() == 0) data[0] = (float)grid.num_blocks();
}
