// inverse_perm: inv[perm[i]] = i.
extern "C" __global__ void inverse_perm(const int* __restrict__ perm, int* __restrict__ inv, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) inv[perm[i]] = (int)i;
}
