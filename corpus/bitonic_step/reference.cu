// bitonic_step: one compare-exchange step of a bitonic network, one thread per pair (CUDA C baseline).
extern "C" __global__ void __launch_bounds__(256)
bitonic_step(unsigned* keys, unsigned n, unsigned j, unsigned k)
{
    const unsigned p = blockIdx.x * 256u + threadIdx.x;
    if (p >= n / 2) return;
    const unsigned lo = p & (j - 1u);
    const unsigned i = ((p - lo) << 1) | lo;   // lower index of the pair (bit log2(j) clear)
    const unsigned l = i | j;
    const unsigned a = keys[i], b = keys[l];
    const bool ascending = (i & k) == 0;
    if (ascending ? a > b : a < b) {
        keys[i] = b;
        keys[l] = a;
    }
}
