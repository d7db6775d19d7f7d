extern "C" __global__ void gather(const float *src, const int *idx, float *dst, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) dst[i] = src[idx[i]];
}
