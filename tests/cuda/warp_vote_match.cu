// PTX: vote.sync.{ballot,any,all,uni}, activemask, match.sync.{any,all}.b32/.b64 (sm_70), redux.sync.{add,min,max,and,or,xor} (sm_80), %lanemask_* regs
#include <cuda_runtime.h>

__global__ void vote_match(const int* __restrict__ in, const long long* __restrict__ lin, unsigned* __restrict__ out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned mask = __activemask();
    unsigned ballot = __ballot_sync(mask, v > 0);
    int any = __any_sync(0xffffffffu, v == 3);
    int all = __all_sync(0xffffffffu, v != 7);
    int uni = __uni_sync(0xffffffffu, v & 1);
    unsigned m1 = __match_any_sync(0xffffffffu, v);
    int pred;
    unsigned m2 = __match_all_sync(0xffffffffu, v >> 4, &pred);
    unsigned m3 = __match_any_sync(0xffffffffu, lin[t]);
    unsigned m4 = __match_all_sync(0xffffffffu, (unsigned long long)lin[t], &pred);
    unsigned r = ballot + any + all + uni + m1 + m2 + m3 + m4 + pred + __popc(ballot & ((1u << (threadIdx.x & 31)) - 1));
    out[t] = r;
}

__global__ void redux(const int* __restrict__ in, const unsigned* __restrict__ uin, int* __restrict__ out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned u = uin[t];
#if __CUDA_ARCH__ >= 800
    int r = __reduce_add_sync(0xffffffffu, v) + __reduce_min_sync(0xffffffffu, v) + __reduce_max_sync(0xffffffffu, v);
    unsigned s = __reduce_add_sync(0xffffffffu, u) + __reduce_min_sync(0xffffffffu, u) + __reduce_max_sync(0xffffffffu, u);
    s += __reduce_and_sync(0xffffffffu, u) + __reduce_or_sync(0xffffffffu, u) + __reduce_xor_sync(0xffffffffu, u);
    out[t] = r + (int)s;
#else
    int r = v;
    for (int o = 16; o; o >>= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
    out[t] = r + (int)u;
#endif
}

__global__ void lanemask_asm(unsigned* out)
{
    unsigned a, b, c, d, e, l, w;
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(a));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(b));
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(c));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(d));
    asm("mov.u32 %0, %%lanemask_gt;" : "=r"(e));
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    asm volatile("activemask.b32 %0;" : "=r"(w));
    unsigned v;
    asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; vote.sync.any.pred q, p, 0xffffffff; vote.sync.all.pred q, q, %2; vote.sync.uni.pred q, q, 0xffffffff; selp.u32 %0, 1, 0, q; }" : "=r"(v) : "r"(l & 1), "r"(w));
    unsigned bl;
    asm volatile("{ .reg .pred p; setp.lt.u32 p, %1, 16; vote.sync.ballot.b32 %0, !p, 0xffffffff; }" : "=r"(bl) : "r"(l));
    out[threadIdx.x] = a + b + c + d + e + v + bl;
}
