// csr_offsets: exclusive prefix sum of counts into offsets[0..n], one 1024-thread block,
// 1024 counts at a time with a running carry.
#define NT 1024
#define FULL 0xffffffffu
extern "C" __global__ void csr_offsets(const unsigned int* __restrict__ counts, unsigned int* __restrict__ offsets,
                                       unsigned int n)
{
    __shared__ unsigned int wsum[NT / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned int carry = 0;
    if (threadIdx.x == 0) offsets[0] = 0;
    for (unsigned int base = 0; base < n; base += NT) {
        unsigned int j = base + threadIdx.x;
        unsigned int v = j < n ? counts[j] : 0u;
        for (int o = 1; o < 32; o <<= 1) {
            unsigned int u = __shfl_up_sync(FULL, v, o);
            if (lane >= o) v += u;
        }
        if (lane == 31) wsum[warp] = v;
        __syncthreads();
        if (warp == 0) {
            unsigned int w = wsum[lane];   // NT / 32 == 32 warps
            for (int o = 1; o < 32; o <<= 1) {
                unsigned int u = __shfl_up_sync(FULL, w, o);
                if (lane >= o) w += u;
            }
            wsum[lane] = w;
        }
        __syncthreads();
        if (warp > 0) v += wsum[warp - 1];
        if (j < n) offsets[j + 1] = carry + v;
        carry += wsum[NT / 32 - 1];
        __syncthreads();
    }
}
