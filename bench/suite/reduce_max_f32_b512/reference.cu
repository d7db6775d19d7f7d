// reduce_max_f32_b512: out[b] = max of the 4096-element chunk b; 512 threads per block.
#define NT 512
extern "C" __global__ void reduce_max_f32_b512(const float* __restrict__ x, float* __restrict__ out, unsigned int n)
{
    __shared__ float red[NT / 32];
    unsigned int base = blockIdx.x * 4096u;
    float m = -INFINITY;
    #pragma unroll
    for (int k = 0; k < 8; k++) {
        unsigned int i = base + k * NT + threadIdx.x;
        if (i < n) m = fmaxf(m, x[i]);
    }
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) red[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < NT / 32 ? red[lane] : -INFINITY;
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (lane == 0) out[blockIdx.x] = m;
    }
}
