// maxabs_f32_atomic: out[0] = max(out[0], max|x|); atomic max on the bits of a non-negative float.
extern "C" __global__ void maxabs_f32_atomic(const float* __restrict__ x, float* __restrict__ out, unsigned int n)
{
    __shared__ float red[8];
    float m = 0.0f;
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) m = fmaxf(m, fabsf(x[i]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) red[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < 8; k++) m = fmaxf(m, red[k]);
        atomicMax(reinterpret_cast<unsigned int*>(out), __float_as_uint(m));
    }
}
