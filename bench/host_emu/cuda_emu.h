// host emulation of a CUDA block: one std::thread per CUDA thread, per-warp barriers for shuffles,
// a block barrier for __syncthreads; a thread that returns drops out of both.
#include <barrier>
#include <thread>
#include <vector>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstddef>
#include <algorithm>
#include <memory>
using std::min; using std::max;
struct D3 { unsigned x, y, z; };
thread_local D3 threadIdx, blockIdx;
static D3 blockDim;
struct WarpX { std::barrier<> *bar; unsigned long long slot[32]; };
thread_local WarpX *my_warp;
thread_local std::barrier<> *my_block;
#define __global__
#define __shared__ static
static inline void __syncthreads() { my_block->arrive_and_wait(); }
template <class T> static T xchg(T v, int src) {
    unsigned lane = threadIdx.x % 32;
    unsigned long long b = 0; memcpy(&b, &v, sizeof v);
    my_warp->slot[lane] = b;
    my_warp->bar->arrive_and_wait();
    T r; unsigned long long o = my_warp->slot[src]; memcpy(&r, &o, sizeof r);
    my_warp->bar->arrive_and_wait();
    return r;
}
template <class T> static T __shfl_xor_sync(unsigned, T v, int off) { return xchg(v, (threadIdx.x % 32) ^ off); }
template <class T> static T __shfl_up_sync(unsigned, T v, int d) { int l = threadIdx.x % 32; return xchg(v, l >= d ? l - d : l); }
template <class T> static T __shfl_down_sync(unsigned, T v, int d) { int l = threadIdx.x % 32; return xchg(v, l + d < 32 ? l + d : l); }
template <class F> static void launch(unsigned gx, unsigned bx, F f) {
    blockDim = {bx, 1, 1};
    for (unsigned b = 0; b < gx; b++) {
        std::barrier<> blk(bx);
        unsigned nw = (bx + 31) / 32;
        std::vector<std::unique_ptr<WarpX>> ws;
        std::vector<std::unique_ptr<std::barrier<>>> wb;
        for (unsigned w = 0; w < nw; w++) { wb.emplace_back(new std::barrier<>(32)); ws.emplace_back(new WarpX{wb.back().get(), {}}); }
        std::vector<std::thread> th;
        for (unsigned t = 0; t < bx; t++)
            th.emplace_back([&, t] {
                threadIdx = {t, 0, 0}; blockIdx = {b, 0, 0};
                my_warp = ws[t / 32].get(); my_block = &blk;
                f();
                my_warp->bar->arrive_and_drop(); my_block->arrive_and_drop();
            });
        for (auto &x : th) x.join();
    }
}
