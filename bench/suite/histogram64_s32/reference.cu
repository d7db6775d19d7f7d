// histogram64_s32: bins[x & 63] += 1 via a shared-memory histogram per block.
extern "C" __global__ void histogram64_s32(const int* __restrict__ x, unsigned int* __restrict__ bins, unsigned int n)
{
    __shared__ unsigned int h[64];
    if (threadIdx.x < 64) h[threadIdx.x] = 0;
    __syncthreads();
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&h[(unsigned int)x[i] & 63u], 1u);
    __syncthreads();
    if (threadIdx.x < 64 && h[threadIdx.x]) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}
