// hamming_u32: dist[i] = popcount(a[i] ^ b[i]).
extern "C" __global__ void hamming_u32(const unsigned int* __restrict__ a, const unsigned int* __restrict__ b,
                                       unsigned char* __restrict__ dist, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dist[i] = (unsigned char)__popc(a[i] ^ b[i]);
}
