// PTX: shfl.sync.{idx,up,down,bfly}.b32 with clamp/width masks, 64-bit/double/half2 shuffles, warp reductions and scans
#include <cuda_fp16.h>

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void shuffles(const float* __restrict__ in, const double* __restrict__ din, const long long* __restrict__ lin,
                         const __half2* __restrict__ hin, float* out, double* dout, long long* lout, __half2* hout)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[t];
    float a = __shfl_sync(0xffffffffu, v, 0);
    float b = __shfl_up_sync(0xffffffffu, v, 1);
    float c = __shfl_down_sync(0xffffffffu, v, 2);
    float d = __shfl_xor_sync(0xffffffffu, v, 4);
    float e = __shfl_sync(0x0000ffffu, v, threadIdx.x + 3, 16);
    float f = __shfl_up_sync(0xffffffffu, v, 1, 8);
    float g = __shfl_down_sync(0xffffffffu, v, 3, 4);
    float h = __shfl_xor_sync(0xffffffffu, v, 1, 2);
    out[t] = warp_sum(v) + a + b + c + d + e + f + g + h;
    dout[t] = __shfl_xor_sync(0xffffffffu, din[t], 8) + __shfl_sync(0xffffffffu, din[t], threadIdx.x ^ 5);
    lout[t] = __shfl_down_sync(0xffffffffu, lin[t], 1) + __shfl_up_sync(0xffffffffu, (unsigned long long)lin[t], 2);
    hout[t] = __shfl_xor_sync(0xffffffffu, hin[t], 16);
}

__global__ void inclusive_scan_warp(const int* __restrict__ in, int* __restrict__ out)
{
    int lane = threadIdx.x & 31;
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int n = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += n;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void shfl_asm(unsigned* data)
{
    unsigned v = data[threadIdx.x], r, s;
    asm volatile("{ .reg .pred p; shfl.sync.idx.b32 %0|p, %1, 3, 0x1f, 0xffffffff; @!p mov.b32 %0, 0; }" : "=r"(r) : "r"(v));
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;" : "=r"(s) : "r"(r), "r"(v & 15), "r"(0xffffffffu));
    data[threadIdx.x] = r + s;
}
