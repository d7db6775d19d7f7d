// rowmax: y[r] = max over the row
extern "C" __global__ void rowmax(const float* __restrict__ x, float* __restrict__ y, unsigned int rows, unsigned int cols)
{
    unsigned int row = blockIdx.x;
    if (row >= rows) return;
    float m = -INFINITY;
    for (unsigned int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, x[(size_t)row * cols + j]);
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    __shared__ float part[32];
    if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : -INFINITY;
        for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
        if (threadIdx.x == 0) y[row] = expf(m);
    }
}
