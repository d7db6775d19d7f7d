// PTX: static .shared arrays (padded tiles, .align), ld/st.shared(.v4), bar.sync/barrier.sync, bar.red.popc/and/or (__syncthreads_count/and/or), named barriers bar.sync id,count / bar.arrive, bar.warp.sync, tree reductions
#include <cuda_runtime.h>

#define TILE 32

__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int w, int h)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <unsigned BS>
__global__ void block_reduce(const double* __restrict__ in, double* __restrict__ out, unsigned n)
{
    __shared__ double sdata[BS];
    unsigned tid = threadIdx.x;
    double s = 0;
    for (unsigned i = blockIdx.x * BS * 2 + tid; i < n; i += BS * 2 * gridDim.x) {
        s += in[i];
        if (i + BS < n) s += in[i + BS];
    }
    sdata[tid] = s;
    __syncthreads();
#pragma unroll
    for (unsigned k = BS / 2; k > 32; k >>= 1) {
        if (tid < k) sdata[tid] = s = s + sdata[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
        volatile double* v = sdata;
        v[tid] = s = s + v[tid + 32];
        v[tid] = s = s + v[tid + 16];
        v[tid] = s = s + v[tid + 8];
        v[tid] = s = s + v[tid + 4];
        v[tid] = s = s + v[tid + 2];
        v[tid] = s = s + v[tid + 1];
    }
    if (tid == 0) out[blockIdx.x] = s;
}
template __global__ void block_reduce<256>(const double*, double*, unsigned);
template __global__ void block_reduce<512>(const double*, double*, unsigned);

__global__ void sync_variants(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ __align__(16) int4 buf4[64];
    __shared__ unsigned char bytes[256];
    __shared__ short halfwords[128];
    int t = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + t];
    buf4[t & 63] = make_int4(v, v + 1, v + 2, v + 3);
    bytes[t & 255] = (unsigned char)v;
    halfwords[t & 127] = (short)v;
    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v != 0);
    int any = __syncthreads_or(v < 0);
    int4 r = buf4[(t + 1) & 63];
    __syncwarp();
    __syncwarp(0x0000ffff & __activemask());
    out[blockIdx.x * blockDim.x + t] = cnt + all + any + r.x + r.w + bytes[(t * 7) & 255] + halfwords[(t * 3) & 127];
}

__global__ void named_barriers(float* data)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    if (t < 128) {
        buf[t] = data[t];
        asm volatile("bar.arrive 1, 256;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 256;" ::: "memory");
        data[t] = buf[t - 128] * 2.f;
    }
    asm volatile("barrier.sync 2;" ::: "memory");
    asm volatile("barrier.sync.aligned 3, 64;" ::: "memory");
    unsigned p;
    asm volatile("{ .reg .pred pp, q; setp.ne.u32 pp, %1, 0; bar.red.or.pred q, 4, pp; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "r"(t & 1));
    unsigned c;
    asm volatile("{ .reg .pred pp; setp.ne.u32 pp, %1, 0; bar.red.popc.u32 %0, 5, pp; }" : "=r"(c) : "r"(t & 2));
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
    asm volatile("barrier.arrive 6, 64;" ::: "memory");
    data[t + 256] = (float)(p + c);
}
