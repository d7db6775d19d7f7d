// sort_groups32: sort every run of 32 keys ascending, one warp per run (bitonic network in registers).
#define FULL 0xffffffffu
extern "C" __global__ void sort_groups32(unsigned int* __restrict__ keys, unsigned int n)
{
    unsigned int g = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;   // warp-uniform
    unsigned int lane = threadIdx.x & 31;
    if ((size_t)g * 32 >= n) return;
    unsigned int i = g * 32 + lane;
    unsigned int v = i < n ? keys[i] : 0xffffffffu;   // padding sorts to the end
    for (unsigned int k = 2; k <= 32; k <<= 1)
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int o = __shfl_xor_sync(FULL, v, j);
            bool up = (lane & k) == 0, low = (lane & j) == 0;
            v = (low == up) ? min(v, o) : max(v, o);
        }
    if (i < n) keys[i] = v;
}
