// gather_idx: out[i] = src[idx[i]].
extern "C" __global__ void gather_idx(const float* __restrict__ src, const int* __restrict__ idx,
                                      float* __restrict__ out, unsigned int n, unsigned int m)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(src + idx[i]);
}
