// scatter_add_atomic: out[idx[i]] += vals[i] with float atomics.
extern "C" __global__ void scatter_add_atomic(const float* __restrict__ vals, const int* __restrict__ idx,
                                              float* __restrict__ out, unsigned int n, unsigned int m)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out + idx[i], vals[i]);
}
