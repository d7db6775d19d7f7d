// byte_histogram: bins[data[i]] += 1, a 256-bin shared histogram per 256-thread block.
extern "C" __global__ void byte_histogram(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins,
                                          unsigned int n)
{
    __shared__ unsigned int h[256];
    h[threadIdx.x] = 0;   // blockDim.x == 256
    __syncthreads();
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    if (h[threadIdx.x]) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}
